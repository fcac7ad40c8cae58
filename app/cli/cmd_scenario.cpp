// dl2 scenario list | show
#include "command.h"
#include "common.h"

#include "error.h"
#include "scheduler.h"

#include <cstdio>

namespace dl2::cli {

namespace {

// Share of slots in which some unfinished job ran below its best (p, w) under best-config,
// i.e. how often capacity really binds in a scenario.
double capacityBindingShare(const Scenario &scenario, const ProfileSet &profiles,
                            const std::vector<std::uint64_t> &seeds)
{
    const Demand budget = scenario.cluster.nodes * scenario.cluster.capacity;
    std::vector<BestConfig> best;
    for (const auto &p : profiles.all())
        best.push_back(bestConfig(*p.speed, p, scenario.simulation.maxPs,
                                  scenario.simulation.maxWorkers, budget));
    long long slots = 0, bound = 0;
    for (auto seed : seeds) {
        Simulator sim(scenario.cluster, profiles, scenario.trace(profiles, seed), scenario.simulation);
        auto scheduler = makeScheduler("best-config");
        scheduler->reset();
        while (!sim.done()) {
            sim.step(*scheduler);
            bool below = false;
            for (const auto &j : sim.jobs()) {
                const bool ranThisSlot = j.status == JobStatus::Queued || j.status == JobStatus::Running ||
                                         (j.status == JobStatus::Finished && j.finishTime >= sim.slot() - 1);
                if (ranThisSlot && (j.ps != best[j.type].ps || j.workers != best[j.type].workers)) {
                    below = true;
                    break;
                }
            }
            ++slots;
            bound += below;
        }
    }
    return slots ? static_cast<double>(bound) / slots : 0.0;
}

int runScenario(const QStringList &args)
{
    const QString sub = args.value(1);
    if (sub == QStringLiteral("list")) {
        for (const auto &s : builtinScenarios())
            std::printf("%-16s %s\n", s.name.c_str(), s.description.c_str());
        return 0;
    }
    if (sub != QStringLiteral("show")) {
        if (sub == QStringLiteral("--help") || sub == QStringLiteral("-h")) {
            std::printf("Usage: dl2 scenario list\n       dl2 scenario show [NAME...] [--seeds 1-3]\n"
                        "show prints every parameter and how often capacity binds under best-config.\n");
            return 0;
        }
        std::fprintf(stderr, "dl2 scenario: expected list or show\n");
        return kExitBadInput;
    }
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Show scenarios (all when no NAME is given) and how often capacity binds: the share of "
        "slots in which some job got less than its best setting under best-config."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("name"), QStringLiteral("Scenario name(s)."), QStringLiteral("[NAME...]"));
    parser.addOption({QStringLiteral("seeds"), QStringLiteral("Seeds for the capacity check (default 1-3)."),
                      QStringLiteral("LIST"), QStringLiteral("1-3")});
    addSpeedOptions(parser);
    QStringList rest = args.mid(1);
    rest[0] = args[0] + QStringLiteral(" show");
    int code = 0;
    if (!parseOrExit(parser, rest, code))
        return code;
    return guarded("scenario show", [&] {
        std::vector<const Scenario *> chosen;
        for (const QString &n : parser.positionalArguments())
            chosen.push_back(&scenarioByName(n.toStdString()));
        if (chosen.empty())
            for (const auto &s : builtinScenarios())
                chosen.push_back(&s);
        const auto seeds = parseSeeds(parser.value(QStringLiteral("seeds")));
        const ProfileSet profiles = profilesFromOptions(parser);
        for (const Scenario *s : chosen) {
            const auto &g = s->generator;
            const auto &o = s->simulation;
            std::printf("%s\n  %s\n", s->name.c_str(), s->description.c_str());
            std::printf("  cluster          %d nodes x (%d CPU + %d GPU slots)\n", s->cluster.nodes,
                        s->cluster.capacity[0], s->cluster.capacity[1]);
            std::printf("  jobs             %d, %s arrivals, cap %d per slot, epochs = fraction x %.0f\n",
                        g.jobs, toString(g.pattern), g.cap, g.maxEpochs);
            std::printf("  slots            %.0f s each, at most %d\n", o.slotSeconds, o.maxSlots);
            std::printf("  caps             %d workers, %d PSs per job\n", o.maxWorkers, o.maxPs);
            std::printf("  placement        %s\n", toString(o.placement));
            std::printf("  DL2 window       %d jobs\n", s->window);
            std::printf("  speed            %s\n",
                        speedModelFromOptions(parser) == SpeedModelChoice::Measured
                            ? "measured table, exact linear RBF (--speed-model optimus: fitted model)"
                            : "fitted Optimus model (--speed-model optimus)");
            std::printf("  capacity binds   in %.1f%% of slots under best-config (seeds %s)\n\n",
                        100.0 * capacityBindingShare(*s, profiles, seeds),
                        parser.value(QStringLiteral("seeds")).toStdString().c_str());
        }
        return 0;
    });
}

} // namespace

static CommandRegistration scenarioRegistration{
    {"scenario", "list or show the built-in scenarios", runScenario}};

} // namespace dl2::cli
