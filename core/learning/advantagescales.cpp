#include "advantagescales.h"

#include <algorithm>
#include <cmath>

namespace dl2 {

void AdvantageScales::applyTo(RlLossOptions &loss) const
{
    loss.advantageScale = 1.0 / std::max(1e-3, advantageStd);
    loss.taskAdvantageScale = 1.0 / std::max(1e-6, taskStd);
}

void AdvantageScales::track(const RlUpdateStats &st)
{
    double m2 = 0.0;
    for (float a : st.advantages)
        m2 += double(a) * a;
    const double batchStd = std::sqrt(m2 / double(std::max<size_t>(1, st.advantages.size())));
    advantageStd = advantageStdSet ? 0.99 * advantageStd + 0.01 * batchStd : batchStd;
    advantageStdSet = true;
    double t2 = 0.0;
    int tn = 0;
    for (float a : st.taskAdvantages)
        if (a != 0.0f) {
            t2 += double(a) * a;
            ++tn;
        }
    if (tn > 0) {
        const double batchTaskStd = std::sqrt(t2 / tn);
        taskStd = taskStdSet ? 0.99 * taskStd + 0.01 * batchTaskStd : batchTaskStd;
        taskStdSet = true;
    }
}

} // namespace dl2
