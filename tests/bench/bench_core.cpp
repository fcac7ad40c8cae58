// Simulator throughput: each baseline on dl2-reference (slots/s, whole-run time), the
// 10-seed x 5-baseline comparison, and a 20,000-job run on 3,250 nodes (6,500 GPUs).
// Prints a table and writes JSON with --json FILE. No assertions: figures only.
#include "experiment.h"
#include "fileio.h"
#include "modelprofile.h"
#include "scenario.h"
#include "scheduler.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace dl2;

namespace {

double seconds(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int jsonAt = static_cast<int>(args.indexOf(QStringLiteral("--json")));
    const QString jsonPath = jsonAt >= 0 ? args.value(jsonAt + 1) : QString();
    const bool quick = args.contains(QStringLiteral("--quick"));

    registerBaselines();
    const ProfileSet profiles = ProfileSet::reference();
    const Scenario &reference = scenarioByName("dl2-reference");
    const std::vector<std::string> baselines{"drf", "fifo", "srtf", "tetris", "optimus", "best-config"};
    QJsonObject root;

    std::printf("dl2-reference (500 nodes, 200 jobs), one thread, 10 seeds per policy\n");
    std::printf("%-14s %12s %12s %14s\n", "policy", "mean ms/run", "max ms/run", "slots/s");
    QJsonObject perPolicy;
    std::vector<Trace> traces;
    for (std::uint64_t seed = 1; seed <= 10; ++seed)
        traces.push_back(reference.trace(profiles, seed));
    for (const auto &policy : baselines) {
        double total = 0, worst = 0;
        long long slotTotal = 0;
        for (const auto &trace : traces) {
            Simulator sim(reference.cluster, profiles, trace, reference.simulation);
            auto scheduler = makeScheduler(policy);
            const auto start = std::chrono::steady_clock::now();
            const RunResult r = runSimulation(sim, *scheduler);
            const double s = seconds(start);
            total += s;
            worst = std::max(worst, s);
            slotTotal += r.slotCount;
        }
        std::printf("%-14s %12.2f %12.2f %14.0f\n", policy.c_str(), 1e3 * total / 10, 1e3 * worst, slotTotal / total);
        QJsonObject o;
        o[QStringLiteral("mean_run_ms")] = 1e3 * total / 10;
        o[QStringLiteral("max_run_ms")] = 1e3 * worst;
        o[QStringLiteral("slots_per_second")] = slotTotal / total;
        perPolicy[QString::fromStdString(policy)] = o;
    }
    root[QStringLiteral("dl2_reference")] = perPolicy;

    // What `dl2 compare` does: 10 seeds x 5 reference baselines on all cores.
    {
        ExperimentSetup setup;
        setup.cluster = reference.cluster;
        setup.profiles = profiles;
        setup.simulation = reference.simulation;
        setup.policies = {"drf", "fifo", "srtf", "tetris", "optimus"};
        setup.traces = traces;
        const auto start = std::chrono::steady_clock::now();
        runExperiment(setup);
        const double s = seconds(start);
        std::printf("\ncompare, 10 seeds x 5 baselines (all cores): %.3f s\n", s);
        root[QStringLiteral("compare_10x5_seconds")] = s;
    }

    // 20,000 jobs on 3,250 nodes of 8 CPU + 8 GPU slots (2 GPUs each = 6,500 GPUs), Poisson
    // arrivals scaled with the cluster (65 per slot), no slot limit.
    {
        GeneratorOptions g;
        g.pattern = ArrivalPattern::Poisson;
        g.jobs = 20000;
        g.cap = 65;
        g.seed = 1;
        const Trace big = generateTrace(profiles, g);
        SimulationOptions o = reference.simulation;
        o.maxSlots = 1'000'000;
        std::printf("\n20,000 jobs on 3,250 nodes (6,500 GPUs)\n%-14s %10s %10s %12s\n", "policy", "seconds", "slots", "avg JCT");
        QJsonObject large;
        for (const auto &policy : quick ? std::vector<std::string>{"drf"} : baselines) {
            Simulator sim({3250, {8, 8}}, profiles, big, o);
            auto scheduler = makeScheduler(policy);
            const RunResult r = runSimulation(sim, *scheduler);
            std::printf("%-14s %10.3f %10d %12.2f\n", policy.c_str(), r.wallSeconds, r.slotCount, r.avgJct);
            QJsonObject x;
            x[QStringLiteral("seconds")] = r.wallSeconds;
            x[QStringLiteral("slots")] = r.slotCount;
            x[QStringLiteral("avg_jct_slots")] = r.avgJct;
            large[QString::fromStdString(policy)] = x;
        }
        root[QStringLiteral("large_20000_jobs_3250_nodes")] = large;
    }

    if (!jsonPath.isEmpty()) {
        writeFileAtomically(jsonPath.toStdString(), QJsonDocument(root).toJson().toStdString());
        std::printf("\nwrote %s\n", qPrintable(jsonPath));
    }
    return 0;
}
