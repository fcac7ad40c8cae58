// dl2 simulate: one policy on one trace.
#include "command.h"
#include "common.h"

#include "error.h"
#include "fileio.h"
#include "simulator.h"

#include <QJsonArray>

#include <cstdio>

namespace dl2::cli {

namespace {

int runSimulate(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Simulate one policy on one trace: a built-in scenario (--scenario NAME [--seed N]) or a "
        "trace file (--trace FILE)."));
    parser.addHelpOption();
    addSetupOptions(parser, false);
    parser.addOption({QStringLiteral("policy"), QStringLiteral("Scheduling policy (default drf)."),
                      QStringLiteral("NAME"), QStringLiteral("drf")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print one JSON object.")});
    parser.addOption({QStringLiteral("jobs"),
                      QStringLiteral("Also write per-job results as CSV to FILE."), QStringLiteral("FILE")});
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("simulate", [&] {
        if (!parser.positionalArguments().isEmpty())
            throw Error("unexpected argument '" + parser.positionalArguments().first().toStdString() + "'");
        Setup setup = buildSetup(parser, false);
        const std::string policy = parser.value(QStringLiteral("policy")).toStdString();
        auto scheduler = makeScheduler(policy, setup.schedulerConfig);
        Simulator sim(setup.cluster, setup.profiles, setup.traces.front(), setup.simulation);
        RunResult r = runSimulation(sim, *scheduler);
        r.policy = policy;
        if (parser.isSet(QStringLiteral("jobs"))) {
            std::string csv = "job_id,model,arrival_slot,epochs,jct_slots\n";
            const auto &jobs = sim.jobs();
            for (size_t i = 0; i < jobs.size(); ++i) {
                char line[160];
                std::snprintf(line, sizeof line, "%d,%s,%d,%.17g,%.17g\n", jobs[i].id,
                              setup.profiles[jobs[i].type].name.c_str(), jobs[i].arrivalSlot,
                              jobs[i].totalEpochs, r.jcts[i]);
                csv += line;
            }
            writeFileAtomically(parser.value(QStringLiteral("jobs")).toStdString(), csv);
        }
        if (parser.isSet(QStringLiteral("json"))) {
            QJsonObject o = toJson(r);
            if (!setup.seeds.empty() && !setup.scenarioName.empty())
                o[QStringLiteral("seed")] = static_cast<qint64>(setup.seeds.front());
            o[QStringLiteral("nodes")] = setup.cluster.nodes;
            printJson(o);
        } else {
            std::printf("policy            %s\n", r.policy.c_str());
            std::printf("trace             %s (%d jobs, %d nodes)\n", r.traceName.c_str(), r.jobs,
                        setup.cluster.nodes);
            std::printf("completed         %d of %d in %d slots\n", r.completed, r.jobs, r.slotCount);
            std::printf("average JCT       %.4f slots (lower bound %.4f, ratio %.3f)\n", r.avgJct,
                        r.lowerBoundAvgJct, r.lowerBoundAvgJct > 0 ? r.avgJct / r.lowerBoundAvgJct : 0.0);
            std::printf("makespan          %.4f slots\n", r.makespan);
            std::printf("average reward    %.6f\n", r.avgReward);
            std::printf("wall time         %.1f ms\n", r.wallSeconds * 1e3);
        }
        return 0;
    });
}

} // namespace

static CommandRegistration registration{
    {"simulate", "simulate one policy on one trace", runSimulate}};

} // namespace dl2::cli
