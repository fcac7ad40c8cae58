// Benchmark of distributed training (prints figures and JSON; not a test):
//   - actor-critic environment steps/s with 1 and 2 processes (this build's dl2-train,
//     --nproc, dl2 on dl2-reference, one environment per rank), from the seconds stamped on
//     the curve points between steps 20 and 80 (validation excluded);
//   - ES iterations/s with 1 and 2 processes (16 policies x 4 traces on dl2-reference, the
//     shipped dl2 policy as --init), between iterations 5 and 10;
//   - the all-reduce per actor-critic update (the policy's and the value network's gradient:
//     size, and time between two ranks over 127.0.0.1) and ES's per-iteration all-reduce;
//   - from those, a projection for 8 and 32 hosts on 1 and 10 Gbit/s Ethernet: a ring
//     all-reduce moves 2 (W-1)/W x the bytes and takes 2 (W-1) message latencies.
// Usage: bench_distributed [--json FILE] [--ac-steps N] [--es-steps N] [--skip-runs]
#include "checkpoint.h"
#include "distributed.h"
#include "learner.h"
#include "policyspec.h"
#include "registerpolicies.h"
#include "scenario.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>

using namespace dl2;

namespace {

int freePort()
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

// Runs dl2-train; returns the curve points (step -> seconds) of the checkpoint it wrote.
std::vector<std::pair<long long, double>> runTrain(const QStringList &args, const QString &out)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    p.start(QStringLiteral(DL2_TRAIN), args + QStringList{QStringLiteral("-o"), out});
    if (!p.waitForFinished(-1) || p.exitCode() != 0) {
        std::fprintf(stderr, "bench_distributed: dl2-train %s failed\n", qPrintable(args.join(QLatin1Char(' '))));
        std::exit(1);
    }
    QFile f(out + QStringLiteral(".curves.json"));
    f.open(QIODevice::ReadOnly);
    std::vector<std::pair<long long, double>> points;
    for (const auto &v : QJsonDocument::fromJson(f.readAll()).object()[QStringLiteral("curve")].toArray())
        points.emplace_back(v.toObject()[QStringLiteral("step")].toInteger(),
                            v.toObject()[QStringLiteral("seconds")].toDouble());
    return points;
}

double rate(const std::vector<std::pair<long long, double>> &points, long long from, long long to)
{
    double t0 = -1, t1 = -1;
    for (const auto &[step, s] : points) {
        if (step == from)
            t0 = s;
        if (step == to)
            t1 = s;
    }
    return t0 >= 0 && t1 > t0 ? double(to - from) / (t1 - t0) : 0.0;
}

struct Timing
{
    double median = 0.0, mean = 0.0;
};

// Two ranks (threads of this process) all-reduce `count` floats `reps` times over 127.0.0.1.
Timing allReduceTime(size_t count, int reps)
{
    DistributedOptions d;
    d.worldSize = 2;
    d.masterPort = freePort();
    d.timeoutSeconds = 60;
    std::vector<double> times;
    std::vector<std::thread> threads;
    for (int r = 0; r < 2; ++r)
        threads.emplace_back([&, r] {
            DistributedOptions mine = d;
            mine.rank = r;
            auto comm = Communicator::connect(mine);
            std::vector<float> data(count, 1.0f);
            for (int i = 0; i < reps + 5; ++i) {
                comm->barrier();
                const auto start = std::chrono::steady_clock::now();
                comm->allReduceSum(data.data(), data.size());
                const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                if (r == 0 && i >= 5)
                    times.push_back(s);
            }
            comm->finish();
        });
    for (auto &t : threads)
        t.join();
    std::sort(times.begin(), times.end());
    Timing t;
    t.median = times[times.size() / 2];
    for (double x : times)
        t.mean += x / double(times.size());
    return t;
}

size_t parameterCount(const ParameterSet &p, const std::string &prefix)
{
    size_t n = 0;
    for (const auto &[name, t] : p)
        if (name.rfind(prefix, 0) == 0)
            n += t.data.size();
    return n;
}

// Ring all-reduce of `bytes` over W hosts: 2 (W-1)/W x bytes on the wire, 2 (W-1) latencies.
double ringSeconds(double bytes, int hosts, double bytesPerSecond, double latency)
{
    if (hosts <= 1)
        return 0.0;
    return 2.0 * (hosts - 1) / hosts * bytes / bytesPerSecond + 2.0 * (hosts - 1) * latency;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    std::string json;
    int acSteps = 100, esSteps = 10;
    bool skipRuns = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!std::strcmp(argv[i], "--ac-steps") && i + 1 < argc)
            acSteps = std::max(100, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--es-steps") && i + 1 < argc)
            esSteps = std::max(10, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--skip-runs"))
            skipRuns = true;
        else {
            std::fprintf(stderr, "Usage: bench_distributed [--json FILE] [--ac-steps N] [--es-steps N] [--skip-runs]\n");
            return 2;
        }
    }
    registerLearnedPolicies();
    setTorchThreads(1);
    QTemporaryDir dir;
    const QString tmp = dir.path() + QLatin1Char('/');
    QJsonObject root;
    const unsigned cores = std::thread::hardware_concurrency();
    std::printf("bench_distributed: %u cores on this machine (2 processes share them with whatever else runs)\n", cores);
    root[QStringLiteral("cores")] = int(cores);

    // What an actor-critic update all-reduces: the gradients of both networks (dl2, reference).
    const Scenario &scenario = scenarioByName("dl2-reference");
    const PolicySpec spec = defaultSpec(PolicyKind::Dl2, scenario.window, 8);
    const ParameterSet params = initialParameters(spec, 1);
    const size_t policyFloats = parameterCount(params, "policy."), valueFloats = parameterCount(params, "value.");
    const double acBytes = 4.0 * double(policyFloats + valueFloats);
    const Timing policyAr = allReduceTime(policyFloats, 200), valueAr = allReduceTime(valueFloats, 200);
    const Timing flagAr = allReduceTime(2, 200);
    const double acArSeconds = policyAr.median + valueAr.median + 2 * flagAr.median;
    std::printf("actor-critic all-reduce per update: %zu + %zu floats = %.1f KB; 2 ranks over 127.0.0.1: "
                "policy %.3f ms, value %.3f ms, stop/batch flags 2 x %.3f ms (medians of 200)\n",
                policyFloats, valueFloats, acBytes / 1024.0, policyAr.median * 1e3, valueAr.median * 1e3,
                flagAr.median * 1e3);
    const int esRuns = 16 * 4;
    const double esBytes = 8.0 * esRuns;
    const Timing esAr = allReduceTime(size_t(esRuns) * 2, 200); // 64 doubles = 128 floats
    std::printf("ES all-reduce per iteration: %d doubles = %.0f B, %.3f ms (+ the stop flag)\n", esRuns,
                esBytes, esAr.median * 1e3);
    QJsonObject ar;
    ar[QStringLiteral("ac_policy_floats")] = double(policyFloats);
    ar[QStringLiteral("ac_value_floats")] = double(valueFloats);
    ar[QStringLiteral("ac_bytes_per_update")] = acBytes;
    ar[QStringLiteral("ac_loopback_ms_per_update")] = acArSeconds * 1e3;
    ar[QStringLiteral("ac_policy_ms")] = policyAr.median * 1e3;
    ar[QStringLiteral("ac_value_ms")] = valueAr.median * 1e3;
    ar[QStringLiteral("flag_ms")] = flagAr.median * 1e3;
    ar[QStringLiteral("es_bytes_per_iteration")] = esBytes;
    ar[QStringLiteral("es_loopback_ms_per_iteration")] = esAr.median * 1e3;
    root[QStringLiteral("all_reduce")] = ar;

    double acRate[3] = {0, 0, 0}, esRate[3] = {0, 0, 0};
    if (!skipRuns) {
        const QString init = tmp + QStringLiteral("dl2-reference.dl2ckpt");
        QFile::copy(QString::fromStdString(shippedPolicyPath(PolicyKind::Dl2, "dl2-reference")), init);
        for (int w : {1, 2}) {
            const QStringList ac{QStringLiteral("rl"), QStringLiteral("--scenario"), QStringLiteral("dl2-reference"),
                                 QStringLiteral("--policy"), QStringLiteral("dl2"), QStringLiteral("--steps"),
                                 QString::number(acSteps), QStringLiteral("--validate-every"), QStringLiteral("100000000"),
                                 QStringLiteral("--val-seeds"), QStringLiteral("100-100"), QStringLiteral("--nproc"),
                                 QString::number(w)};
            const double updates = rate(runTrain(ac, tmp + QStringLiteral("ac.dl2ckpt")), 20, 80);
            acRate[w] = updates * w; // one environment per rank steps one slot per update
            std::printf("actor-critic, %d process%s: %.1f updates/s, %.1f environment steps/s\n", w,
                        w == 1 ? "" : "es", updates, acRate[w]);
            const QStringList es{QStringLiteral("rl"), QStringLiteral("--algorithm"), QStringLiteral("es"),
                                 QStringLiteral("--scenario"), QStringLiteral("dl2-reference"), QStringLiteral("--init"),
                                 init, QStringLiteral("--es-pairs"), QStringLiteral("8"), QStringLiteral("--es-traces"),
                                 QStringLiteral("4"), QStringLiteral("--steps"), QString::number(esSteps),
                                 QStringLiteral("--validate-every"), QStringLiteral("100000000"),
                                 QStringLiteral("--val-seeds"), QStringLiteral("100-100"), QStringLiteral("--nproc"),
                                 QString::number(w)};
            esRate[w] = rate(runTrain(es, tmp + QStringLiteral("es.dl2ckpt")), 5, esSteps - esSteps % 5);
            std::printf("ES (16 policies x 4 traces), %d process%s: %.3f iterations/s (%.2f s each)\n", w,
                        w == 1 ? "" : "es", esRate[w], esRate[w] > 0 ? 1.0 / esRate[w] : 0.0);
        }
        QJsonObject runs;
        runs[QStringLiteral("ac_env_steps_per_s_1")] = acRate[1];
        runs[QStringLiteral("ac_env_steps_per_s_2")] = acRate[2];
        runs[QStringLiteral("es_iterations_per_s_1")] = esRate[1];
        runs[QStringLiteral("es_iterations_per_s_2")] = esRate[2];
        root[QStringLiteral("measured")] = runs;
    }

    // Projection: one rank per host, each as fast as one process here.
    if (acRate[1] > 0 && esRate[1] > 0) {
        QJsonArray projections;
        const double updateSeconds = 1.0 / acRate[1]; // compute of one update, one environment
        const double esSeconds = 1.0 / esRate[1];     // 64 simulations on one process
        for (double gbit : {1.0, 10.0}) {
            const double bw = gbit * 1e9 / 8.0, latency = 100e-6;
            for (int hosts : {8, 32}) {
                // 4 all-reduces per update: the two gradients and two flags (stop, batch).
                const double ar = ringSeconds(4.0 * double(policyFloats), hosts, bw, latency) +
                                  ringSeconds(4.0 * double(valueFloats), hosts, bw, latency) +
                                  2.0 * ringSeconds(8.0, hosts, bw, latency);
                const double acSteps = hosts / (updateSeconds + ar);
                const int perHost = (esRuns + hosts - 1) / hosts;
                const double esIter = esSeconds * perHost / esRuns + ringSeconds(esBytes, hosts, bw, latency) +
                                      ringSeconds(8.0, hosts, bw, latency);
                std::printf("projection, %2d hosts, %4.0f Gbit/s, 0.1 ms latency: actor-critic %.0f environment steps/s "
                            "(all-reduce %.2f ms of %.2f ms per update); ES %.2f iterations/s (%d of the 64 runs per host)\n",
                            hosts, gbit, acSteps, ar * 1e3, (updateSeconds + ar) * 1e3, 1.0 / esIter, perHost);
                QJsonObject p;
                p[QStringLiteral("hosts")] = hosts;
                p[QStringLiteral("gbit_per_s")] = gbit;
                p[QStringLiteral("latency_ms")] = latency * 1e3;
                p[QStringLiteral("ac_env_steps_per_s")] = acSteps;
                p[QStringLiteral("ac_all_reduce_ms_per_update")] = ar * 1e3;
                p[QStringLiteral("es_iterations_per_s")] = 1.0 / esIter;
                p[QStringLiteral("es_runs_per_host")] = perHost;
                projections.append(p);
            }
        }
        root[QStringLiteral("projection")] = projections;
    }
    if (!json.empty()) {
        QFile f(QString::fromStdString(json));
        if (!f.open(QIODevice::WriteOnly)) {
            std::fprintf(stderr, "bench_distributed: cannot write %s\n", json.c_str());
            return 1;
        }
        f.write(QJsonDocument(root).toJson());
        std::printf("JSON: %s\n", json.c_str());
    }
    return 0;
}
