#pragma once
// One deterministic colour per job, shared by every view (table, occupancy, plots): the same
// job id always gets the same colour, neighbouring ids get clearly different hues (golden
// angle), and the lightness adapts to a light or dark background.

#include <QColor>

namespace dl2console {

class JobPalette
{
public:
    static QColor color(int jobId, bool darkBackground = false);
    // Readable text colour on top of color(jobId).
    static QColor textOn(const QColor &background);
    // Is this palette's window colour dark?
    static bool isDark(const QColor &windowColor) { return windowColor.lightnessF() < 0.5; }
};

} // namespace dl2console
