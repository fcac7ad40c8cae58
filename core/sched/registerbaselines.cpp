// Registration of the baselines implemented in core/sched: the registry (scheduler.cpp) knows
// nothing of them; registerBaselines() adds them once, whoever calls it first.

#include "baselines.h"

#include "scheduler.h"

#include <mutex>

namespace dl2 {

void registerReferenceBaselines()
{
    using Make = std::unique_ptr<Scheduler> (*)();
    const struct
    {
        const char *name;
        const char *description;
        Make make;
    } baselines[] = {
        {"fifo", "First in, first out: bundles up to the caps by arrival (reference)", makeFifo},
        {"srtf", "Smallest remaining fraction of epochs first, bundles up to the caps (reference)",
         makeSrtf},
        {"srtf-time", "Shortest remaining time first (at the full bundle allocation)", makeSrtfTime},
        {"tetris", "Tetris packing, node by node, remaining-work term favouring long jobs (reference)",
         makeTetris},
        {"tetris-fixed", "Tetris packing with the remaining-work term favouring short jobs",
         makeTetrisFixed},
        {"optimus", "Optimus greedy marginal gain with the true speed, unnormalised (reference)",
         makeOptimus},
        {"optimus-paper", "Optimus greedy marginal gain per dominant resource, fitted speed model",
         makeOptimusPaper},
        {"best-config", "Each job's fastest (PS, workers) by the true speed, shortest time first",
         makeBestConfig},
        {"best-config-est", "Like best-config, choosing settings on the fitted speed estimate",
         makeBestConfigEst},
    };
    for (const auto &b : baselines) {
        const Make make = b.make;
        registerScheduler({b.name, b.description, [make](const SchedulerConfig &) { return make(); }});
    }
    registerScheduler({"observed",
                       "Replays an imported trace's history: each job's observed allocation from "
                       "its observed start",
                       [](const SchedulerConfig &) { return makeObserved(); }, true});
}

void registerBaselines()
{
    static std::once_flag once;
    std::call_once(once, [] {
        registerDrf();
        registerReferenceBaselines();
    });
}

} // namespace dl2
