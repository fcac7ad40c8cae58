#include "jobpalette.h"

#include <cmath>

namespace dl2console {

QColor JobPalette::color(int jobId, bool darkBackground)
{
    // Golden-angle hue walk; three saturation/value bands so ids 8 apart still differ.
    const double hue = std::fmod(jobId * 137.508, 360.0);
    static constexpr double kSat[] = {0.70, 0.50, 0.85};
    static constexpr double kVal[] = {0.88, 0.75, 0.65};
    const int band = (jobId / 7) % 3;
    double v = kVal[band];
    if (darkBackground)
        v = std::min(1.0, v + 0.12);
    return QColor::fromHsvF(static_cast<float>(hue / 360.0), static_cast<float>(kSat[band]),
                            static_cast<float>(v));
}

QColor JobPalette::textOn(const QColor &background)
{
    const double luminance =
        0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    return luminance > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}

} // namespace dl2console
