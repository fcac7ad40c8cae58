// best-config / best-config-est (issue 6): every job's best (PSs, workers) within the caps,
// by exhaustive search over the speed model (best-config: true speed; best-config-est: the
// fitted estimate, while the simulation runs on the true speed).
//
// - Order: shortest remaining time first, remaining time = remaining epochs (as the
//   scheduler sees them) / epochs per slot at the job's best setting; ties by arrival, id.
// - Settings of a profile are ranked by speed (fastest first; ties: fewer tasks, then fewer
//   workers, then fewer PSs); settings with no progress are never used.
// - A job gets the highest-ranked setting whose tasks can ALL be placed now; if none can,
//   it gets nothing this slot and the next job is served (no early end of the slot).
// - Placement: each task on the least-loaded node where it fits (PlacementRule::FirstFit),
//   in the order worker, PS, worker, PS, ... and then the remaining PSs or workers.
// - "Can be placed" is exact for that procedure: the scheduler keeps a mirror of per-node
//   usage and runs the very same FirstFit placement on it tentatively (undone unless
//   taken). Because every setting's task sequence starts with min(p, w) worker/PS pairs, a
//   job needs at most one pass over the pair sequence plus one tail pass per pair count
//   (memoised) to decide all of its settings.
// A job can wait as long as shorter jobs fill the cluster (SRTF starves long jobs under
// sustained load); the run's maxSlots bounds it, and unfinished jobs are reported as such.

#include "baselines.h"

#include "epochtable.h"
#include "nodemirror.h"
#include "scheduler.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace dl2 {

namespace {

struct Setting
{
    int ps;
    int workers;
    double epochsPerSlot;
};

class BestConfigScheduler final : public Scheduler
{
public:
    explicit BestConfigScheduler(bool estimated)
        : m_estimated(estimated),
          m_table(estimated ? EpochTable::Source::Estimate : EpochTable::Source::True)
    {
    }
    std::string name() const override { return m_estimated ? "best-config-est" : "best-config"; }

    void schedule(SlotContext &context) override
    {
        if (m_table.prepare(context))
            rankSettings(context);
        const std::vector<int> &active = context.activeJobs();
        m_order.clear();
        for (size_t pos = 0; pos < active.size(); ++pos) {
            const int index = active[pos];
            const auto &ranked = m_ranked[static_cast<size_t>(context.job(index).type)];
            if (ranked.empty())
                continue; // no setting makes progress
            const double time = context.job(index).remainingEpochs() / ranked.front().epochsPerSlot;
            m_order.push_back({time, static_cast<int>(pos), index});
        }
        std::sort(m_order.begin(), m_order.end(), [](const Queued &a, const Queued &b) {
            return a.time != b.time ? a.time < b.time : a.position < b.position;
        });

        m_mirror.reset(context.cluster());
        // A profile for which nothing fitted stays unplaceable until something is placed.
        m_version = 0;
        m_noFitAt.assign(m_ranked.size(), -1);
        for (const Queued &q : m_order) {
            const auto type = static_cast<size_t>(context.job(q.index).type);
            if (m_noFitAt[type] == m_version)
                continue;
            if (const Setting *s = choose(context, q.index)) {
                place(context, q.index, *s);
                ++m_version;
            } else {
                m_noFitAt[type] = m_version;
            }
        }
    }

private:
    struct Queued
    {
        double time;
        int position;
        int index;
    };

    void rankSettings(const SlotContext &context)
    {
        const int profiles = context.profiles().size();
        m_ranked.assign(static_cast<size_t>(profiles), {});
        for (int t = 0; t < profiles; ++t) {
            auto &ranked = m_ranked[static_cast<size_t>(t)];
            for (int p = 1; p <= context.maxPs(); ++p)
                for (int w = 1; w <= context.maxWorkers(); ++w)
                    if (const double e = m_table(t, p, w); e > 0)
                        ranked.push_back({p, w, e});
            std::sort(ranked.begin(), ranked.end(), [](const Setting &a, const Setting &b) {
                if (a.epochsPerSlot != b.epochsPerSlot)
                    return a.epochsPerSlot > b.epochsPerSlot;
                if (a.ps + a.workers != b.ps + b.workers)
                    return a.ps + a.workers < b.ps + b.workers;
                return a.workers != b.workers ? a.workers < b.workers : a.ps < b.ps;
            });
        }
    }

    // The i-th task of a setting's placement sequence: pairs first, then the rest.
    static TaskKind taskAt(int i, int ps, int workers)
    {
        const int pairs = std::min(ps, workers);
        if (i < 2 * pairs)
            return i % 2 == 0 ? TaskKind::Worker : TaskKind::Ps;
        return ps > workers ? TaskKind::Ps : TaskKind::Worker;
    }

    // Places tasks of `kind` (or alternating pairs when kind is Bundle) tentatively until
    // `limit` tasks or the first failure; returns how many were placed.
    int tentative(int count, TaskKind kind)
    {
        int placed = 0;
        for (; placed < count; ++placed) {
            const TaskKind k = kind == TaskKind::Bundle
                                   ? (placed % 2 == 0 ? TaskKind::Worker : TaskKind::Ps)
                                   : kind;
            const Demand &d = k == TaskKind::Worker ? m_workerDemand : m_psDemand;
            const int node = m_mirror.firstFit(d);
            if (node < 0)
                break;
            m_mirror.allocate(node, d);
            m_log.push_back({node, d});
        }
        return placed;
    }

    void undo(size_t keep)
    {
        while (m_log.size() > keep) {
            m_mirror.release(m_log.back().node, m_log.back().demand);
            m_log.pop_back();
        }
    }

    // Extra tasks of `kind` placeable after m pairs (memoised per job).
    int tail(int m, TaskKind kind, int limit)
    {
        auto &memo = kind == TaskKind::Ps ? m_tailPs : m_tailWorkers;
        int &value = memo[static_cast<size_t>(m)];
        if (value < 0) {
            tentative(2 * m, TaskKind::Bundle);
            value = tentative(limit, kind);
            undo(0);
        }
        return value;
    }

    const Setting *choose(const SlotContext &context, int index)
    {
        const auto &ranked = m_ranked[static_cast<size_t>(context.job(index).type)];
        m_workerDemand = context.demandOf(index, TaskKind::Worker);
        m_psDemand = context.demandOf(index, TaskKind::Ps);
        m_log.clear();
        const int maxPairs = std::min(context.maxPs(), context.maxWorkers());
        int pairsOk = -1; // computed on first need
        m_tailPs.assign(static_cast<size_t>(maxPairs) + 1, -1);
        m_tailWorkers.assign(static_cast<size_t>(maxPairs) + 1, -1);
        const Demand free = m_mirror.totalFree();
        for (const Setting &s : ranked) {
            const Demand need = s.ps * m_psDemand + s.workers * m_workerDemand;
            if (need[0] > free[0] || need[1] > free[1])
                continue;
            if (pairsOk < 0) {
                pairsOk = tentative(2 * maxPairs, TaskKind::Bundle) / 2;
                undo(0);
            }
            const int m = std::min(s.ps, s.workers);
            if (m > pairsOk)
                continue;
            if (s.ps > m && tail(m, TaskKind::Ps, context.maxPs() - m) < s.ps - m)
                continue;
            if (s.workers > m && tail(m, TaskKind::Worker, context.maxWorkers() - m) < s.workers - m)
                continue;
            return &s;
        }
        return nullptr;
    }

    void place(SlotContext &context, int index, const Setting &s)
    {
        for (int i = 0; i < s.ps + s.workers; ++i) {
            const TaskKind kind = taskAt(i, s.ps, s.workers);
            const Demand d = context.demandOf(index, kind);
            // The node Cluster::chooseNode(d, FirstFit) picks, without its linear scan.
            const int node = m_mirror.firstFit(d);
            const AddResult r = context.addOn(index, kind, node);
            assert(r == AddResult::Ok);
            if (r != AddResult::Ok)
                return; // cannot happen: the mirror runs the same rule on the same usage
            m_mirror.allocate(node, d);
        }
    }

    struct Placed
    {
        int node;
        Demand demand;
    };

    bool m_estimated;
    EpochTable m_table;
    std::vector<std::vector<Setting>> m_ranked; // per profile, fastest first
    std::vector<Queued> m_order;
    NodeMirror m_mirror;
    std::vector<Placed> m_log;
    std::vector<int> m_tailPs, m_tailWorkers;
    std::vector<long> m_noFitAt; // per profile: placement count when nothing fitted
    long m_version = 0;          // placements so far this slot
    Demand m_workerDemand{0, 0}, m_psDemand{0, 0};
};

} // namespace

std::unique_ptr<Scheduler> makeBestConfig()
{
    return std::make_unique<BestConfigScheduler>(false);
}

std::unique_ptr<Scheduler> makeBestConfigEst()
{
    return std::make_unique<BestConfigScheduler>(true);
}

} // namespace dl2
