// bench_online: dl2 operate with online learning, through the agent (an in-process dl2-agent
// server over gRPC on a simulated cluster), against the same run frozen.
//   - decision latency per slot (snapshot -> the policy's proposals), p50 / p99, learning off
//     and on (the learner trains in its own thread between slots; target: p99 within 20 %);
//   - reward over slots: the frozen shipped policy as deployed (greedy), and the online run
//     (sampling, updating between slots) with its shadow reference (the frozen policy,
//     sampling on the same live states with the same random numbers).
// Usage: bench_online [--scenario S] [--slots N] [--updates U] [--json FILE]
// Prints figures and writes JSON; it asserts nothing about time.
#include "benchstats.h"
#include "agentserver.h"
#include "auditlog.h"
#include "decisiongate.h"
#include "grpcconnector.h"
#include "learner.h"
#include "onlinelearner.h"
#include "operatingloop.h"
#include "policyplanner.h"
#include "registerpolicies.h"
#include "simulatedconnector.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <numeric>

using namespace dl2;

namespace {
using dl2bench::percentile;

// The reward the cluster reported for each slot, from the snapshots.
class RewardRecorder final : public SlotObserver
{
public:
    void beforePlan(const ClusterView &view) override
    {
        if (view.nextSlot > 0)
            rewards.push_back(view.reward);
    }
    std::vector<double> rewards;
};

// Forwards to the learner and records the rewards too.
class Both final : public SlotObserver
{
public:
    Both(SlotObserver &a, SlotObserver &b) : m_a(a), m_b(b) {}
    void beforePlan(const ClusterView &v) override
    {
        m_a.beforePlan(v);
        m_b.beforePlan(v);
    }
    void afterSlot(const ClusterView &v, const std::vector<GateEntry> &e) override
    {
        m_a.afterSlot(v, e);
        m_b.afterSlot(v, e);
    }

private:
    SlotObserver &m_a, &m_b;
};

QJsonArray array(const std::vector<double> &v)
{
    QJsonArray a;
    for (double x : v)
        a.append(x);
    return a;
}

struct Result
{
    OperateSummary operate;
    std::vector<double> rewards;
    std::optional<OnlineSummary> learning;
};

Result run(const std::string &scenario, int slotCount, bool learn, int updates,
           const QTemporaryDir &dir)
{
    SimulatedConnector backend(scenario, 1);
    AgentServerOptions so;
    so.token = "bench";
    AgentServer server(backend, so);
    server.start();
    GrpcConnectorOptions co;
    co.address = "127.0.0.1:" + std::to_string(server.port());
    co.token = "bench";
    GrpcConnector agent(co);
    const std::string tag = learn ? "online" : "frozen";
    AuditLog audit(dir.filePath(QString::fromStdString(tag + ".db")).toStdString());
    SchedulerConfig config;
    config.scenario = scenario;
    std::unique_ptr<OnlineLearner> learner;
    std::unique_ptr<PolicyPlanner> planner;
    if (learn) {
        OnlineOptions o;
        o.init = shippedPolicyPath(PolicyKind::Dl2Plus, scenario);
        o.directory = dir.filePath(QStringLiteral("learn")).toStdString();
        o.updatesPerSlot = updates;
        learner = std::make_unique<OnlineLearner>(o, &audit);
        planner = std::make_unique<PolicyPlanner>(learner->takeActingPolicy(),
                                                  ProfileSet::reference());
        learner->setPlanner(planner.get());
    } else {
        planner = std::make_unique<PolicyPlanner>("dl2-plus", config);
    }
    DecisionGate gate({});
    OperatingLoop loop(agent, *planner, gate, audit);
    RewardRecorder rewards;
    std::unique_ptr<Both> both;
    if (learner) {
        both = std::make_unique<Both>(*learner, rewards);
        loop.setSlotObserver(both.get());
    } else {
        loop.setSlotObserver(&rewards);
    }
    Result r;
    r.operate = loop.run(slotCount);
    if (learner)
        r.learning = learner->finish();
    r.rewards = rewards.rewards;
    server.shutdown();
    return r;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    registerBaselines();
    registerLearnedPolicies();
    setTorchThreads(1);
    std::string scenario = "dl2-reference", jsonPath;
    int slotCount = 80, updates = 4;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--scenario"))
            scenario = args[i + 1].toStdString();
        else if (args[i] == QLatin1String("--slots"))
            slotCount = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--updates"))
            updates = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--json"))
            jsonPath = args[i + 1].toStdString();
        else {
            std::fprintf(stderr, "bench_online: unknown option '%s'\n", qPrintable(args[i]));
            return 2;
        }
    }
    QTemporaryDir dir;
    std::printf("%s, %d slots through the agent (gRPC, in-process server)\n", scenario.c_str(),
                slotCount);
    const Result frozen = run(scenario, slotCount, false, updates, dir);
    const Result online = run(scenario, slotCount, true, updates, dir);
    const size_t n = std::min(frozen.rewards.size(), online.rewards.size());
    auto sum = [&](const std::vector<double> &v) {
        return std::accumulate(v.begin(), v.begin() + std::ptrdiff_t(std::min(n, v.size())), 0.0);
    };
    std::vector<double> reference;
    for (const OnlinePoint &p : online.learning->curve)
        reference.push_back(p.reference);
    const double f50 = percentile(frozen.operate.decisionMs, 0.5),
                 f99 = percentile(frozen.operate.decisionMs, 0.99);
    const double o50 = percentile(online.operate.decisionMs, 0.5),
                 o99 = percentile(online.operate.decisionMs, 0.99);
    std::printf("decision latency per slot (snapshot -> proposals): frozen p50 %.2f ms p99 %.2f "
                "ms; learning p50 %.2f ms p99 %.2f ms (p99 x%.2f)\n",
                f50, f99, o50, o99, f99 > 0 ? o99 / f99 : 0.0);
    std::printf("reward over %zu slots: frozen (greedy, as deployed) %.2f; online %.2f; its shadow "
                "reference (frozen, sampled, same states) %.2f\n",
                n, sum(frozen.rewards), sum(online.rewards), sum(reference));
    const OnlineSummary &l = *online.learning;
    std::printf("learning: %d versions, %d adopted, %d late, %d rollbacks, decisions waited %.0f "
                "ms in all for updates\n",
                l.versions, l.adopted, l.lateUpdates, l.rollbacks, l.waitedMs);
    QJsonObject out;
    out.insert(QStringLiteral("scenario"), QString::fromStdString(scenario));
    out.insert(QStringLiteral("slots"), int(n));
    out.insert(QStringLiteral("updates_per_slot"), updates);
    QJsonObject fz;
    fz.insert(QStringLiteral("decision_ms_p50"), f50);
    fz.insert(QStringLiteral("decision_ms_p99"), f99);
    fz.insert(QStringLiteral("reward_sum"), sum(frozen.rewards));
    fz.insert(QStringLiteral("rewards"), array(frozen.rewards));
    out.insert(QStringLiteral("frozen"), fz);
    QJsonObject on = l.toJson();
    on.remove(QStringLiteral("curve"));
    on.insert(QStringLiteral("decision_ms_p50"), o50);
    on.insert(QStringLiteral("decision_ms_p99"), o99);
    on.insert(QStringLiteral("reward_sum"), sum(online.rewards));
    on.insert(QStringLiteral("reference_reward_sum"), sum(reference));
    on.insert(QStringLiteral("rewards"), array(online.rewards));
    on.insert(QStringLiteral("reference_rewards"), array(reference));
    out.insert(QStringLiteral("online"), on);
    out.insert(QStringLiteral("p99_ratio"), f99 > 0 ? o99 / f99 : 0.0);
    const QByteArray json = QJsonDocument(out).toJson(QJsonDocument::Indented);
    if (!jsonPath.empty()) {
        QFile f(QString::fromStdString(jsonPath));
        if (!f.open(QIODevice::WriteOnly) || f.write(json) != json.size()) {
            std::fprintf(stderr, "bench_online: cannot write '%s'\n", jsonPath.c_str());
            return 2;
        }
    }
    std::printf("%s", json.left(0).constData());
    return 0;
}
