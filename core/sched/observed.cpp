// observed: replays what an imported trace says happened. From the slot a job started in (its
// submission plus its queueing delay), it gets its observed allocation (PSs, then workers, each
// capped by the run's caps) on the first nodes where the tasks fit, jobs that started earlier
// first. Its epochs were made so that this allocation runs exactly the observed duration, so
// the run reproduces the historical schedule up to slot rounding and capacity. A job is placed
// whole or not at all (a partial allocation is not what happened): one that does not fit now
// waits for a later slot while later jobs that fit go ahead; one that does not fit even the
// empty cluster never runs, and is reported (Scheduler::neverPlacedJobs, RunResult::neverFit).
#include "baselines.h"

#include "error.h"
#include "nodemirror.h"
#include "scheduler.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace dl2 {

namespace {

class Observed final : public Scheduler
{
public:
    std::string name() const override { return "observed"; }
    void reset() override
    {
        m_fitsEmpty.clear();
        m_neverPlaced.clear();
    }
    std::vector<int> neverPlacedJobs() const override { return m_neverPlaced; }

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
        m_mirror.reset(context.cluster());
        for (const int i : order) {
            if (!plan(context, i, m_mirror)) {
                // Waits; if it cannot fit even the empty cluster it never will (noted once).
                const auto known = m_fitsEmpty.find(i);
                bool fits = known != m_fitsEmpty.end() && known->second;
                if (known == m_fitsEmpty.end()) {
                    NodeMirror empty;
                    empty.reset(Cluster(context.cluster().nodeCount(),
                                        context.cluster().nodeCapacity()));
                    fits = plan(context, i, empty);
                    m_fitsEmpty.emplace(i, fits);
                    if (!fits)
                        m_neverPlaced.push_back(context.job(i).id);
                }
                continue;
            }
            for (const auto &[node, kind] : m_planned) {
                [[maybe_unused]] const AddResult r = context.addOn(i, kind, node);
                // Cannot fail: the mirror ran the same first-fit rule on the same usage.
            }
        }
    }

private:
    // Places job i's whole allocation on `mirror` (first fit, PSs then workers), recording the
    // nodes in m_planned; on failure undoes what it placed and returns false.
    bool plan(const SlotContext &context, int i, NodeMirror &mirror)
    {
        const JobState &j = context.job(i);
        const int ps = std::min(j.observedPs, context.maxPs());
        const int workers = std::min(j.observedWorkers, context.maxWorkers());
        m_planned.clear();
        for (int k = 0; k < ps + workers; ++k) {
            const TaskKind kind = k < ps ? TaskKind::Ps : TaskKind::Worker;
            const Demand d = context.demandOf(i, kind);
            const int node = mirror.firstFit(d);
            if (node < 0) {
                for (const auto &[placed, placedKind] : m_planned)
                    mirror.release(placed, context.demandOf(i, placedKind));
                m_planned.clear();
                return false;
            }
            mirror.allocate(node, d);
            m_planned.emplace_back(node, kind);
        }
        return true;
    }

    NodeMirror m_mirror;
    std::vector<std::pair<int, TaskKind>> m_planned;
    std::unordered_map<int, bool> m_fitsEmpty; // by job index, learned when a job did not fit
    std::vector<int> m_neverPlaced;            // job ids, in the order found
};

} // namespace

std::unique_ptr<Scheduler> makeObserved()
{
    return std::make_unique<Observed>();
}

} // namespace dl2
