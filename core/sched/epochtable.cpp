#include "epochtable.h"

#include "scheduler.h"
#include "simulator.h"

namespace dl2 {

bool EpochTable::prepare(const SlotContext &context)
{
    const ProfileSet &profiles = context.profiles();
    const int maxPs = context.maxPs();
    const int maxWorkers = context.maxWorkers();
    const double slotSeconds = context.options().slotSeconds;
    auto modelOf = [this](const ModelProfile &p) {
        return m_source == Source::Estimate && p.estimate ? p.estimate : p.speed;
    };

    bool same = maxPs == m_maxPs && maxWorkers == m_maxWorkers && slotSeconds == m_slotSeconds &&
                profiles.size() == static_cast<int>(m_models.size());
    for (int t = 0; same && t < profiles.size(); ++t)
        same = modelOf(profiles[t]) == m_models[t] &&
               profiles[t].stepsPerEpoch == m_stepsPerEpoch[t];
    if (same)
        return false;

    m_maxPs = maxPs;
    m_maxWorkers = maxWorkers;
    m_slotSeconds = slotSeconds;
    m_stride = maxWorkers + 2;
    m_models.clear();
    m_stepsPerEpoch.clear();
    m_values.assign(static_cast<size_t>(profiles.size()), {});
    for (int t = 0; t < profiles.size(); ++t) {
        const ModelProfile &p = profiles[t];
        m_models.push_back(modelOf(p));
        m_stepsPerEpoch.push_back(p.stepsPerEpoch);
        auto &values = m_values[static_cast<size_t>(t)];
        values.assign(static_cast<size_t>((maxPs + 2) * m_stride), 0.0);
        if (!m_models.back())
            continue;
        for (int ps = 1; ps <= maxPs + 1; ++ps)
            for (int w = 1; w <= maxWorkers + 1; ++w)
                // The reference's f(p, w) * slot / steps_per_epoch, in that order.
                values[static_cast<size_t>(ps * m_stride + w)] =
                    m_models.back()->speed(ps, w) * slotSeconds / p.stepsPerEpoch;
    }
    return true;
}

} // namespace dl2
