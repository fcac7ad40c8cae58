#pragma once
// The reward of each slot (bars, normalised progress) and the cumulative reward (line, right
// axis), up to the slot on display.

#include "sessiontypes.h"

#include <QWidget>
#include <vector>

class QCPBars;

namespace dl2console {

class Plot;

class RewardPlot : public QWidget
{
    Q_OBJECT
public:
    explicit RewardPlot(QWidget *parent = nullptr);
    void setTimeline(const std::vector<SlotSummary> &timeline, int currentSlot, int lastSlot);
    Plot *plot() const { return m_plot; }

private:
    void restyle();
    Plot *m_plot;
    QCPBars *m_bars;
};

} // namespace dl2console
