#pragma once
// The reward of each slot (bars, normalised progress) and the cumulative reward (line, right
// axis), up to the slot on display. For a learned policy also its value estimate V(s) at the
// start of each slot (dashed line on its own, outer right axis); hidden for other policies.

#include "sessiontypes.h"

#include <QPointF>
#include <QVector>
#include <QWidget>
#include <vector>

class QCPAxis;
class QCPBars;
class QCPGraph;

namespace dl2console {

class Plot;

class RewardPlot : public QWidget
{
    Q_OBJECT
public:
    explicit RewardPlot(QWidget *parent = nullptr);
    void setTimeline(const std::vector<SlotSummary> &timeline, int currentSlot, int lastSlot);
    Plot *plot() const { return m_plot; }
    // Is the V(s) series shown (the timeline has value estimates)?
    bool hasValueSeries() const;
    // The V(s) points on display (slot, value).
    QVector<QPointF> valuePoints() const;
    // The reward bars plotted (slot, reward per slot), for tests.
    QVector<QPointF> rewardPoints() const;

private:
    void restyle();
    Plot *m_plot;
    QCPBars *m_bars;
    QCPAxis *m_valueAxis;
    QCPGraph *m_value;
};

} // namespace dl2console
