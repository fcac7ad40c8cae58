#pragma once
// Speed (epochs per slot) and allocation (workers solid, PSs dashed) over time of the jobs
// selected in the job table, in the jobs' palette colours.

#include "modelprofile.h"
#include "sessiontypes.h"

#include <QWidget>
#include <vector>

class QCPAxisRect;

namespace dl2console {

class Plot;

class JobSpeedPlot : public QWidget
{
    Q_OBJECT
public:
    explicit JobSpeedPlot(QWidget *parent = nullptr);

    void setProfiles(const dl2::ProfileSet &profiles, double slotSeconds);
    // jobTypes: profile index per job in trace order; ids: job id per trace index.
    void setJobs(const std::vector<int> &ids, const std::vector<int> &types);
    void setSelectedJobs(const QList<int> &jobIds);
    QList<int> selectedJobs() const { return m_selected; }
    void setTimeline(const std::vector<SlotSummary> &timeline, int currentSlot, int lastSlot);
    Plot *plot() const { return m_plot; }
    // With no job selected, "Select jobs in…" (on) or just "No job selected" (presentation
    // mode and exports, where nobody can click).
    void setHintsShown(bool on);
    QString message() const; // the empty state's text over the plot; empty when jobs are plotted

private:
    void rebuild();

    Plot *m_plot;
    QCPAxisRect *m_allocRect;
    dl2::ProfileSet m_profiles;
    double m_slotSeconds = 1200.0;
    std::vector<int> m_ids, m_types;
    QList<int> m_selected;
    const std::vector<SlotSummary> *m_timeline = nullptr;
    int m_current = -1;
    int m_last = 0;
    bool m_hints = true;
};

} // namespace dl2console
