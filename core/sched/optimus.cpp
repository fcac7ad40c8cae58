// Optimus-style greedy marginal gain (docs/model.md section 4).
//
// optimus (reference, optimus_env.py): each job's utility is, for one more worker and for one
// more PS, the drop in its remaining time rem / e(p, w) -> rem / e(p', w') with
// rem = estimated total - done (not clamped) and e the TRUE epochs per slot (an oracle),
// NOT divided by any resource amount; the job offers the better of the two (PS on ties).
// A job without a worker offers a worker, one without a PS offers a PS, both with the
// reference's utility 2147483647 (INT32_MAX), so every job first gets 1 worker + 1 PS.
// The top offer is taken: utility <= 0 ends the slot; an offer for a kind at its cap drops
// the job for the rest of the slot (even if the other kind would still help, as in the
// reference); a task that does not fit on the node the placement rule picks ends the slot.
// The speed one task beyond a cap is the model's (extrapolated) value, as in the reference.
// Ties between jobs go to the earlier job (arrival, then id; the reference's are arbitrary).
// 0/0-type utilities (the job makes no progress either way: inf - inf) count as 0.
//
// optimus-paper: speeds from the fitted parametric estimate (estimatedEpochsPerSlot) and the
// gain of a task divided by its dominant share (max over types of demand / cluster total),
// as in the Optimus paper. rem = remaining epochs as the scheduler sees them. Every job first
// gets one bundle (worker + PS on one node, so no task is stranded if only one would fit), in
// arrival order; a job whose bundle does not fit is skipped. Then the best task offer over
// all jobs is added until the best offer is <= 0 or nothing fits: a task that does not fit
// only withdraws that kind of that job for this slot. Placement: the simulation's rule.

#include "baselines.h"

#include "epochtable.h"
#include "scheduler.h"

#include <algorithm>
#include <cmath>
#include <array>
#include <limits>
#include <optional>

namespace dl2 {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Drop in remaining time from speed `now` to speed `next` (IEEE arithmetic, as numpy does it;
// NaN, i.e. inf - inf, counts as no gain).
double timeGain(double rem, double now, double next)
{
    const double gain = rem / now - rem / next;
    return std::isnan(gain) ? 0.0 : gain;
}

struct Offer
{
    double gain;
    int position; // in activeJobs(): arrival, then id
    TaskKind kind;
    int index;
};

// A max-heap of offers over a reused buffer: highest gain first, then the earlier job.
class OfferHeap
{
public:
    void clear() { m_offers.clear(); }
    bool empty() const { return m_offers.empty(); }
    void push(const Offer &offer)
    {
        m_offers.push_back(offer);
        std::push_heap(m_offers.begin(), m_offers.end(), lower);
    }
    Offer pop()
    {
        std::pop_heap(m_offers.begin(), m_offers.end(), lower);
        const Offer top = m_offers.back();
        m_offers.pop_back();
        return top;
    }

private:
    static bool lower(const Offer &a, const Offer &b)
    {
        return a.gain != b.gain ? a.gain < b.gain : a.position > b.position;
    }
    std::vector<Offer> m_offers;
};

class OptimusReference final : public Scheduler
{
public:
    std::string name() const override { return "optimus"; }
    void reset() override { m_table = EpochTable(EpochTable::Source::True); }

    void schedule(SlotContext &context) override
    {
        m_table.prepare(context);
        m_queue.clear();
        const std::vector<int> &active = context.activeJobs();
        for (size_t pos = 0; pos < active.size(); ++pos)
            m_queue.push(offer(context, static_cast<int>(pos), active[pos]));

        while (!m_queue.empty()) {
            const Offer top = m_queue.pop();
            if (!(top.gain > 0))
                break;
            if (context.atCap(top.index, top.kind))
                continue; // the reference drops the job
            if (context.add(top.index, top.kind) != AddResult::Ok)
                break; // first failure ends the slot
            m_queue.push(offer(context, top.position, top.index));
        }
    }

private:
    Offer offer(const SlotContext &context, int position, int index) const
    {
        const JobState &job = context.job(index);
        constexpr double kInitial = 2147483647.0; // -np.iinfo(np.int32).max, negated
        if (job.workers == 0)
            return {kInitial, position, TaskKind::Worker, index};
        if (job.ps == 0)
            return {kInitial, position, TaskKind::Ps, index};
        const double rem = job.estimatedEpochs - job.doneEpochs;
        const double now = m_table(job.type, job.ps, job.workers);
        const double workerGain = timeGain(rem, now, m_table(job.type, job.ps, job.workers + 1));
        const double psGain = timeGain(rem, now, m_table(job.type, job.ps + 1, job.workers));
        if (psGain >= workerGain)
            return {psGain, position, TaskKind::Ps, index};
        return {workerGain, position, TaskKind::Worker, index};
    }

    EpochTable m_table{EpochTable::Source::True};
    OfferHeap m_queue;
};

class OptimusPaper final : public Scheduler
{
public:
    std::string name() const override { return "optimus-paper"; }

    void schedule(SlotContext &context) override
    {
        const std::vector<int> &active = context.activeJobs();
        const Demand total = context.cluster().totalCapacity();
        m_blocked.assign(active.size(), {false, false});
        OfferHeap &queue = m_queue;
        queue.clear();

        for (size_t pos = 0; pos < active.size(); ++pos) {
            if (context.add(active[pos], TaskKind::Bundle) == AddResult::Ok) {
                if (auto o = offer(context, total, static_cast<int>(pos), active[pos]))
                    queue.push(*o);
            }
        }
        while (!queue.empty()) {
            const Offer top = queue.pop();
            if (!(top.gain > 0))
                break;
            if (context.add(top.index, top.kind) != AddResult::Ok)
                m_blocked[static_cast<size_t>(top.position)][top.kind == TaskKind::Ps] = true;
            if (auto o = offer(context, total, top.position, top.index))
                queue.push(*o);
        }
    }

private:
    static double dominantShare(const Demand &demand, const Demand &total)
    {
        double share = 0.0;
        for (int r = 0; r < kResourceTypes; ++r) {
            if (demand[r] <= 0)
                continue;
            share = std::max(share, total[r] > 0 ? static_cast<double>(demand[r]) / total[r]
                                                 : kInf);
        }
        return share;
    }

    // Gain per unit of dominant share; a task that needs nothing gains without limit.
    static double perShare(double gain, double share)
    {
        if (share == 0.0)
            return gain > 0 ? kInf : gain;
        return gain / share;
    }

    std::optional<Offer> offer(const SlotContext &context, const Demand &total, int position,
                               int index) const
    {
        const JobState &job = context.job(index);
        const double rem = job.remainingEpochs();
        const double now = context.estimatedEpochsPerSlot(index, job.ps, job.workers);
        const auto &blocked = m_blocked[static_cast<size_t>(position)];
        std::optional<Offer> best;
        // PS first so that it wins ties, as in the reference.
        if (!blocked[1] && !context.atCap(index, TaskKind::Ps)) {
            const double next = context.estimatedEpochsPerSlot(index, job.ps + 1, job.workers);
            const double g = perShare(timeGain(rem, safe(now), safe(next)),
                                      dominantShare(context.demandOf(index, TaskKind::Ps), total));
            best = Offer{g, position, TaskKind::Ps, index};
        }
        if (!blocked[0] && !context.atCap(index, TaskKind::Worker)) {
            const double next = context.estimatedEpochsPerSlot(index, job.ps, job.workers + 1);
            const double g =
                perShare(timeGain(rem, safe(now), safe(next)),
                         dominantShare(context.demandOf(index, TaskKind::Worker), total));
            if (!best || g > best->gain)
                best = Offer{g, position, TaskKind::Worker, index};
        }
        return best;
    }

    // A fitted model may dip below zero: no progress, infinite remaining time.
    static double safe(double epochsPerSlot) { return epochsPerSlot > 0 ? epochsPerSlot : 0.0; }

    std::vector<std::array<bool, 2>> m_blocked; // per position: worker, PS did not fit
    OfferHeap m_queue;
};

} // namespace

std::unique_ptr<Scheduler> makeOptimus()
{
    return std::make_unique<OptimusReference>();
}

std::unique_ptr<Scheduler> makeOptimusPaper()
{
    return std::make_unique<OptimusPaper>();
}

} // namespace dl2
