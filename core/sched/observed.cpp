// observed: replays what an imported trace says happened. From the slot a job started in (its
// submission plus its queueing delay), it gets its observed allocation (PSs, then workers) on
// the first nodes where the tasks fit, jobs that started earlier first. Its epochs were made so
// that this allocation runs exactly the observed duration, so the run reproduces the historical
// schedule up to slot rounding (and capacity: a job that does not fit waits or runs short).
#include "baselines.h"

#include "error.h"
#include "scheduler.h"

#include <algorithm>

namespace dl2 {

namespace {

class Observed final : public Scheduler
{
public:
    std::string name() const override { return "observed"; }
    void schedule(SlotContext &context) override
    {
        std::vector<int> order;
        for (const int i : context.activeJobs()) {
            const JobState &j = context.job(i);
            if (j.observedWorkers <= 0 || j.observedPs <= 0 || j.observedStartSlot < 0)
                throw Error("policy observed: job " + std::to_string(j.id) +
                            " has no observed allocation and start; it replays traces made by "
                            "dl2 trace-import");
            if (context.slot() >= j.observedStartSlot)
                order.push_back(i);
        }
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return context.job(a).observedStartSlot < context.job(b).observedStartSlot;
        });
        for (const int i : order) {
            const JobState &j = context.job(i);
            for (int k = 0; k < j.observedPs; ++k)
                context.add(i, TaskKind::Ps, PlacementRule::FirstFit);
            for (int k = 0; k < j.observedWorkers; ++k)
                context.add(i, TaskKind::Worker, PlacementRule::FirstFit);
        }
    }
};

} // namespace

std::unique_ptr<Scheduler> makeObserved()
{
    return std::make_unique<Observed>();
}

} // namespace dl2
