// Shortest remaining first, served like FIFO (docs/model.md section 4, srtf_env.py).
//
// srtf (reference): jobs ordered by the remaining FRACTION of their epochs,
//   1 - done / estimated_total, computed exactly as the reference does (not clamped: with an
//   estimate below the truth it goes negative and such jobs come first), then by arrival,
//   then by id (the reference's last tie-break is arbitrary).
// srtf-time (textbook): jobs ordered by remaining processing TIME, in slots, at the
//   allocation this policy serves a job with when capacity allows: k = min(maxPs, maxWorkers)
//   bundles, i.e. remaining epochs (as the scheduler sees them) / epochs per slot at (k, k)
//   with the true speed (the same oracle the reference gives Optimus). A job that makes no
//   progress at (k, k) has infinite remaining time and comes last. Ties by arrival, then id.

#include "baselines.h"

#include "scheduler.h"

#include <algorithm>
#include <limits>

namespace dl2 {

namespace {

class SrtfScheduler final : public Scheduler
{
public:
    explicit SrtfScheduler(bool byTime) : m_byTime(byTime) {}
    std::string name() const override { return m_byTime ? "srtf-time" : "srtf"; }

    void schedule(SlotContext &context) override
    {
        const std::vector<int> &active = context.activeJobs();
        m_keyed.clear();
        m_keyed.reserve(active.size());
        const int k = std::min(context.maxPs(), context.maxWorkers());
        for (size_t pos = 0; pos < active.size(); ++pos) {
            const int index = active[pos];
            const JobState &job = context.job(index);
            double key = 0.0;
            if (m_byTime) {
                const double perSlot = context.epochsPerSlot(index, k, k);
                key = perSlot > 0 ? job.remainingEpochs() / perSlot
                                  : std::numeric_limits<double>::infinity();
            } else {
                key = 1.0 - job.doneEpochs / job.estimatedEpochs;
            }
            m_keyed.push_back({key, static_cast<int>(pos), index});
        }
        // Position in activeJobs() encodes (arrival, id).
        std::sort(m_keyed.begin(), m_keyed.end(), [](const Keyed &a, const Keyed &b) {
            return a.key != b.key ? a.key < b.key : a.position < b.position;
        });
        m_order.clear();
        for (const Keyed &e : m_keyed)
            m_order.push_back(e.index);
        detail::serveBundlesInOrder(context, m_order);
    }

private:
    struct Keyed
    {
        double key;
        int position;
        int index;
    };
    bool m_byTime;
    std::vector<Keyed> m_keyed; // reused across slots
    std::vector<int> m_order;
};

} // namespace

std::unique_ptr<Scheduler> makeSrtf()
{
    return std::make_unique<SrtfScheduler>(false);
}

std::unique_ptr<Scheduler> makeSrtfTime()
{
    return std::make_unique<SrtfScheduler>(true);
}

} // namespace dl2
