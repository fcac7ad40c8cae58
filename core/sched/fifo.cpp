// FIFO as the reference simulates it (docs/model.md section 4, fifo_env.py): jobs by arrival (ties by
// id; the reference's are arbitrary, Python 2 compares the job objects), each in turn gets
// bundles (worker + PS on one node) until it reaches a cap; the slot ends at the first
// bundle that does not fit on the node the placement rule picks (no other job is tried).

#include "baselines.h"

#include "scheduler.h"

namespace dl2 {

namespace detail {

void serveBundlesInOrder(SlotContext &context, const std::vector<int> &order)
{
    for (int index : order) {
        for (;;) {
            const AddResult r = context.add(index, TaskKind::Bundle);
            if (r == AddResult::AtCap)
                break; // the reference's loop of MAX_NUM_WORKERS bundles is done
            if (r == AddResult::NoCapacity)
                return; // first failure ends the slot
        }
    }
}

} // namespace detail

namespace {

class FifoScheduler final : public Scheduler
{
public:
    std::string name() const override { return "fifo"; }
    void schedule(SlotContext &context) override
    {
        // activeJobs() is already by arrival slot, then id.
        detail::serveBundlesInOrder(context, context.activeJobs());
    }
};

} // namespace

std::unique_ptr<Scheduler> makeFifo()
{
    return std::make_unique<FifoScheduler>();
}

} // namespace dl2
