// bench_connectors [--decisions N] [--slots N] [--json FILE]
// Decisions per second through gRPC on loopback (in-process agent, plaintext, bearer token)
// for several batch sizes, single-decision round-trip latency, and proposal-to-acknowledgment
// latency of the full operating loop (policy, gate, SQLite audit log with synchronous=FULL,
// gRPC apply) p50/p99. Prints figures; not a test.
#include "benchstats.h"
#include "agentserver.h"
#include "auditlog.h"
#include "grpcconnector.h"
#include "operatingloop.h"
#include "simulatedconnector.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

using namespace dl2;
using Clock = std::chrono::steady_clock;

namespace {
using dl2bench::percentile;

struct Server
{
    SimulatedConnector backend;
    AgentServer server;
    Server(const std::string &scenario, const std::string &stateDir)
        : backend(scenario, 1, stateDir), server(backend, [] {
              AgentServerOptions o;
              o.token = "bench-token";
              return o;
          }())
    {
        server.start();
    }
    GrpcConnectorOptions client() const
    {
        GrpcConnectorOptions o;
        o.address = "127.0.0.1:" + std::to_string(server.port());
        o.token = "bench-token";
        return o;
    }
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int total = 20000, slotCount = 30;
    std::string jsonPath;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--decisions") && i + 1 < argc)
            total = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--slots") && i + 1 < argc)
            slotCount = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--json") && i + 1 < argc)
            jsonPath = argv[++i];
        else {
            std::fprintf(stderr,
                         "usage: bench_connectors [--decisions N] [--slots N] [--json FILE]\n");
            return 2;
        }
    }
    QJsonObject out;
    QJsonArray throughput;
    try {
        // 1. Apply throughput: without a state directory (the wire and the service), and with
        //    the agent's fsync'ed journal.
        const std::vector<std::pair<int, bool>> cases{{1, false},    {10, false}, {100, false},
                                                      {1000, false}, {1, true},   {100, true}};
        for (const auto &[batch, journal] : cases) {
            QTemporaryDir stateDir;
            Server s("dl2-reference", journal
                                          ? stateDir.filePath(QStringLiteral("state")).toStdString()
                                          : std::string());
            s.backend.advanceSlot(0);
            const ClusterView v = s.backend.snapshot();
            GrpcConnector client(s.client());
            client.health();
            const int n = std::max(batch, total / (batch == 1 ? 10 : 1) / (journal ? 10 : 1));
            std::vector<double> rtt;
            const auto start = Clock::now();
            int sent = 0;
            while (sent < n) {
                std::vector<ResizeDecision> decisions;
                for (int k = 0; k < batch && sent < n; ++k, ++sent) {
                    ResizeDecision d;
                    d.job = v.jobs[static_cast<size_t>(sent) % v.jobs.size()].id;
                    d.id = "bench/" + std::to_string(sent) + "/" + std::to_string(d.job);
                    d.to = {1 + sent % 4, 1 + sent % 8, {}};
                    decisions.push_back(std::move(d));
                }
                const auto t0 = Clock::now();
                const auto acks = client.apply(decisions);
                rtt.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
                if (acks.size() != decisions.size())
                    throw std::runtime_error("short ack");
            }
            const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
            QJsonObject row;
            row.insert(QStringLiteral("batch"), batch);
            row.insert(QStringLiteral("agent_journal"), journal);
            row.insert(QStringLiteral("decisions"), n);
            row.insert(QStringLiteral("decisions_per_second"), n / seconds);
            row.insert(QStringLiteral("apply_rtt_ms_p50"), percentile(rtt, 0.5));
            row.insert(QStringLiteral("apply_rtt_ms_p99"), percentile(rtt, 0.99));
            std::printf("apply, batch %4d, journal %-3s: %7d decisions, %9.0f decisions/s, round "
                        "trip p50 %.3f ms, p99 %.3f ms\n",
                        batch, journal ? "on" : "off", n, n / seconds, percentile(rtt, 0.5),
                        percentile(rtt, 0.99));
            throughput.append(row);
        }
        out.insert(QStringLiteral("apply_throughput"), throughput);

        // 2. The full loop: policy -> gate -> audit log (fsync) -> gRPC -> agent (state dir,
        // fsync).
        for (bool persist : {false, true}) {
            QTemporaryDir dir;
            Server s("dl2-small",
                     persist ? dir.filePath(QStringLiteral("state")).toStdString() : std::string());
            GrpcConnector client(s.client());
            AuditLog audit(dir.filePath(QStringLiteral("audit.db")).toStdString());
            PolicyPlanner planner("drf");
            DecisionGate gate({});
            OperatingLoop loop(client, planner, gate, audit);
            OperateSummary summary = loop.run(slotCount);
            loop.verify(summary);
            QJsonObject row = summary.toJson();
            row.insert(QStringLiteral("agent_state_dir"), persist);
            const double p50 = percentile(summary.latenciesMs, 0.5),
                         p99 = percentile(summary.latenciesMs, 0.99);
            std::printf("operate loop (drf, dl2-small, %d slots, agent state dir %s): %d decisions "
                        "applied, "
                        "%.1f decisions/s end to end, proposal->ack p50 %.2f ms, p99 %.2f ms, lost "
                        "%d, duplicated %d\n",
                        summary.slotsRun, persist ? "on" : "off", summary.applied,
                        summary.applied / std::max(1e-9, summary.seconds), p50, p99, summary.lost,
                        summary.duplicated);
            out.insert(persist ? QStringLiteral("operate_loop_persistent_agent")
                               : QStringLiteral("operate_loop"),
                       row);
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "bench_connectors: %s\n", e.what());
        return 1;
    }
    if (!jsonPath.empty()) {
        QFile f(QString::fromStdString(jsonPath));
        if (!f.open(QIODevice::WriteOnly)) {
            std::fprintf(stderr, "bench_connectors: cannot write %s\n", jsonPath.c_str());
            return 1;
        }
        f.write(QJsonDocument(out).toJson());
    }
    return 0;
}
