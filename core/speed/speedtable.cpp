#include "speedmodel.h"

#include <algorithm>
#include <cmath>

namespace dl2 {

SpeedTable::SpeedTable(const SpeedModel &model, int maxPs, int maxWorkers)
    : m_maxPs(maxPs < 0 ? 0 : maxPs), m_maxWorkers(maxWorkers < 0 ? 0 : maxWorkers),
      m_values(static_cast<size_t>(m_maxPs + 1) * static_cast<size_t>(m_maxWorkers + 1), 0.0)
{
    // Row 0 and column 0 stay 0: no PS or no worker means no progress.
    for (int p = 1; p <= m_maxPs; ++p)
        for (int w = 1; w <= m_maxWorkers; ++w)
            m_values[static_cast<size_t>(p * (m_maxWorkers + 1) + w)] = model.speed(p, w);
}

double bestSpeed(const SpeedModel &model, int maxPs, int maxWorkers)
{
    double best = 0.0;
    for (int p = 1; p <= maxPs; ++p)
        for (int w = 1; w <= maxWorkers; ++w) {
            const double s = model.speed(p, w);
            if (std::isfinite(s))
                best = std::max(best, s);
        }
    return best;
}

bool isUsableSpeed(double speed, double best)
{
    return std::isfinite(speed) && speed > 0.0 && speed > kNegligibleSpeedFraction * best;
}

} // namespace dl2
