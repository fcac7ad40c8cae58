#pragma once
// CPU and GPU utilisation of the cluster per slot, up to the slot on display.

#include "sessiontypes.h"

#include <QWidget>
#include <vector>

namespace dl2console {

class Plot;

class UtilisationPlot : public QWidget
{
    Q_OBJECT
public:
    explicit UtilisationPlot(QWidget *parent = nullptr);
    void setTimeline(const std::vector<SlotSummary> &timeline, int currentSlot, int lastSlot);
    Plot *plot() const { return m_plot; }
    // Points of the CPU and GPU series plotted (tests).
    int pointCount(int series) const;

private:
    void restyle();
    Plot *m_plot;
};

} // namespace dl2console
