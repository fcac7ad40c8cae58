// Tetris as the reference simulates it (docs/model.md section 4, tetris_env.py).
//
// Nodes are visited in id order and each is filled until an allocation fails on it:
//   score(job) = align + weight * work          (tetris, the reference)
//   score(job) = align - weight * work          (tetris-fixed, Tetris' intended sign)
// align  = (node capacity - node used) . bundle demand of the job,
// work   = (sum of the bundle demand) * (1 - done / estimated total)  [the reference's
//          "mean_resr_score", not clamped],
// weight = mean(align) / mean(work), both means over ALL unfinished jobs (also those at a
//          cap). With the reference's "+" the remaining-work term favours LONG jobs.
// The best-scoring job below its caps gets one bundle on this node; the node is then scored
// again. If that bundle does not fit the node is left for good and the next node is tried
// (no other job is tried on it). A node with weight 0 (no free capacity any job needs) is
// skipped. Reference quirks kept: only the top job is tried per node; a node is abandoned at
// the first failure; the weight averages over capped jobs too.
// Our choices where the reference is undefined: ties go to the earlier job (arrival, then id;
// Python 2 compared job objects by address); mean(work) == 0 (Python: ZeroDivisionError)
// drops the remaining-work term.
//
// Complexity: jobs of one profile share the bundle demand, so the best job of a profile is
// the one with the most (tetris) / least (tetris-fixed) remaining work that is below its caps.
// Each node step looks at one candidate per profile: O(nodes x profiles) per slot plus a sort.

#include "baselines.h"

#include "scheduler.h"

#include <algorithm>

namespace dl2 {

namespace {

class TetrisScheduler final : public Scheduler
{
public:
    explicit TetrisScheduler(bool fixedSign) : m_sign(fixedSign ? -1.0 : 1.0) {}
    std::string name() const override { return m_sign > 0 ? "tetris" : "tetris-fixed"; }

    void schedule(SlotContext &context) override
    {
        const std::vector<int> &active = context.activeJobs();
        if (active.empty())
            return;
        const int profileCount = context.profiles().size();
        m_work.assign(active.size(), 0.0);
        m_groups.resize(static_cast<size_t>(profileCount));
        for (auto &g : m_groups)
            g.members.clear();

        Demand sumDemand{0, 0};
        double sumWork = 0.0;
        for (size_t pos = 0; pos < active.size(); ++pos) {
            const int index = active[pos];
            const JobState &job = context.job(index);
            const Demand d = context.demandOf(index, TaskKind::Bundle);
            sumDemand = sumDemand + d;
            m_work[pos] = (d[0] + d[1]) * (1.0 - job.doneEpochs / job.estimatedEpochs);
            sumWork += m_work[pos];
            Group &g = m_groups[static_cast<size_t>(job.type)];
            g.demand = d;
            g.members.push_back(static_cast<int>(pos));
        }
        const double n = static_cast<double>(active.size());
        const double meanWork = sumWork / n;

        // Within a profile the score is monotone in the work term; its direction is fixed
        // for the slot by the sign of the weight (mean(align) >= 0, so the sign of meanWork);
        // without the term (meanWork == 0) ties fall back to arrival order.
        const double direction = meanWork == 0.0 ? 0.0 : m_sign * (meanWork < 0 ? -1.0 : 1.0);
        for (auto &g : m_groups) {
            std::sort(g.members.begin(), g.members.end(), [&](int a, int b) {
                const double wa = direction * m_work[a], wb = direction * m_work[b];
                return wa != wb ? wa > wb : a < b;
            });
            g.next = 0;
        }

        const Cluster &cluster = context.cluster();
        const Demand capacity = cluster.nodeCapacity();
        for (int node = 0; node < cluster.nodeCount(); ++node) {
            for (;;) {
                const Demand &used = cluster.used(node);
                const Demand free{capacity[0] - used[0], capacity[1] - used[1]};
                const long long sumAlign = static_cast<long long>(free[0]) * sumDemand[0] +
                                           static_cast<long long>(free[1]) * sumDemand[1];
                const double meanAlign = static_cast<double>(sumAlign) / n;
                if (meanAlign == 0.0)
                    break; // weight == 0: the reference skips the node
                const double weight = meanWork != 0.0 ? meanAlign / meanWork : 0.0;

                int bestPos = -1;
                double bestScore = 0.0;
                bool anyLeft = false;
                for (auto &g : m_groups) {
                    while (g.next < g.members.size() &&
                           context.atCap(active[static_cast<size_t>(g.members[g.next])],
                                         TaskKind::Bundle))
                        ++g.next;
                    if (g.next == g.members.size())
                        continue;
                    anyLeft = true;
                    const int pos = g.members[g.next];
                    const double align = static_cast<double>(free[0] * g.demand[0] +
                                                             free[1] * g.demand[1]);
                    const double score = align + m_sign * weight * m_work[pos];
                    if (bestPos < 0 || score > bestScore ||
                        (score == bestScore && pos < bestPos)) {
                        bestPos = pos;
                        bestScore = score;
                    }
                }
                if (!anyLeft)
                    return; // every job is at its caps: nothing left to place anywhere
                if (context.addOn(active[static_cast<size_t>(bestPos)], TaskKind::Bundle, node) !=
                    AddResult::Ok)
                    break; // the node is abandoned at its first failure
            }
        }
    }

private:
    struct Group
    {
        Demand demand{0, 0};
        std::vector<int> members; // positions in activeJobs(), best first
        size_t next = 0;          // members before it are at a cap
    };
    double m_sign;
    std::vector<double> m_work;
    std::vector<Group> m_groups;
};

} // namespace

std::unique_ptr<Scheduler> makeTetris()
{
    return std::make_unique<TetrisScheduler>(false);
}

std::unique_ptr<Scheduler> makeTetrisFixed()
{
    return std::make_unique<TetrisScheduler>(true);
}

} // namespace dl2
