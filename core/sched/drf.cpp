// DRF as the reference simulates it (docs/model.md section 4): repeatedly the job with the smallest
// dominant share (ties by arrival, then id) gets one bundle (worker + PS on the
// least-loaded node); a job stays in the queue while it is below both caps; the slot ends
// at the first allocation that fails.

#include "baselines.h"

#include "scheduler.h"

#include <queue>
#include <tuple>

namespace dl2 {

namespace {

class DrfScheduler final : public Scheduler
{
public:
    std::string name() const override { return "drf"; }

    void schedule(SlotContext &ctx) override
    {
        // (dominant share, arrival slot, job id, index): smallest first.
        using Entry = std::tuple<double, int, int, int>;
        std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
        for (int i : ctx.activeJobs()) {
            const JobState &j = ctx.job(i);
            queue.emplace(0.0, j.arrivalSlot, j.id, i);
        }
        while (!queue.empty()) {
            const auto [share, arrival, id, index] = queue.top();
            queue.pop();
            if (ctx.add(index, TaskKind::Bundle) != AddResult::Ok)
                break; // the reference stops at the first failure
            const JobState &j = ctx.job(index);
            if (j.workers < ctx.maxWorkers() && j.ps < ctx.maxPs())
                queue.emplace(ctx.dominantShare(index), arrival, id, index);
        }
    }
};

} // namespace

std::unique_ptr<Scheduler> makeDrf()
{
    return std::make_unique<DrfScheduler>();
}

void registerDrf()
{
    registerScheduler({"drf", "Dominant resource fairness, one bundle at a time (reference)",
                       [](const SchedulerConfig &) { return makeDrf(); }});
}

} // namespace dl2
