#pragma once
// Side-by-side replay: GPU utilisation (left axis) and cumulative JCT (right axis, the time
// every job has spent in the system so far, in job-slots) of both policies on one plot, up to
// the slot on display. Each policy keeps one colour; utilisation solid, cumulative JCT dashed.

#include "sessiontypes.h"

#include <QWidget>
#include <vector>

namespace dl2console {

class Plot;

class PairMetricsPlot : public QWidget
{
    Q_OBJECT
public:
    explicit PairMetricsPlot(QWidget *parent = nullptr);
    void setPolicies(const QString &left, const QString &right);
    // slots[side]: the slot that side shows (a run that ended stays on its last slot).
    void setTimelines(const std::vector<SlotSummary> &left, const std::vector<SlotSummary> &right,
                      int pairSlot, int lastSlot);
    Plot *plot() const { return m_plot; }
    // The legend in two rows (utilisation, cumulative JCT), not one: narrower, so a slide's
    // larger font leaves the jobs table beside the plot its width.
    void setLegendInTwoRows(bool on);
    // Graphs: 0/1 GPU utilisation of left/right, 2/3 cumulative JCT of left/right.
    static constexpr int kGraphs = 4;
    QVector<QPointF> points(int graph) const;
    QString graphName(int graph) const;
    QColor policyColor(int side) const;
    // Cumulative JCT of a timeline up to and including `slot` (job-slots).
    static double cumulativeJct(const std::vector<SlotSummary> &timeline, int slot);

private:
    void restyle();
    Plot *m_plot;
};

} // namespace dl2console
