#pragma once
// Two policies side by side on the same trace, in lockstep (LockstepReplay): one cluster view
// per policy, a jobs table with both allocations and their difference, GPU utilisation and
// cumulative JCT of both on one plot, and a caption strip. Play, step and seek drive both; a
// job selected in any view is selected in all of them.

#include "captionbar.h"
#include "sessiontypes.h"

#include <QWidget>
#include <array>

class QAction;
class QComboBox;
class QLabel;
class QSplitter;
class QTableView;

namespace dl2console {

class ClusterOccupancyView;
class LockstepReplay;
class PairJobFilterProxyModel;
class PairJobTableModel;
class PairMetricsPlot;
class TimelineScrubber;
class ViewRefresher;

class SideBySidePage : public QWidget
{
    Q_OBJECT
public:
    explicit SideBySidePage(QWidget *parent = nullptr);
    ~SideBySidePage() override;

    void setPolicies(const QStringList &names, const QStringList &descriptions);
    // The trace both replays run (scenario + seed, or a trace file); the policy is ignored.
    void setTrace(const SessionSetup &trace);
    SessionSetup trace() const { return m_trace; }
    void setPolicyPair(const QString &left, const QString &right);
    QString policy(int side) const;
    // Loads the trace under both chosen policies unless exactly that pair is loaded already.
    void ensureLoaded();
    void reload();

    // The parts export and presentation mode can show or hide: "cluster", "jobs", "plot".
    static QStringList sectionNames();
    void setSectionsVisible(const QStringList &sections);
    // One caption per policy for the pair slot on display (presentation mode, export).
    QList<CaptionBar::Line> captionLines() const;
    void setControlsVisible(bool on); // policy pickers, playback bar, scrubber
    // Presentation mode and exports: no controls (the pickers, the playback bar, the jobs
    // filter), no mouse hints, the jobs table without its Model and Arrival columns and with
    // the room to show its other columns whole; off restores the page.
    void setPresenting(bool on);
    bool isPresenting() const { return m_presenting; }

    void selectJob(int jobId); // -1 clears
    int selectedJob() const { return m_selected; }

    LockstepReplay *replay() const { return m_replay; }
    ViewRefresher *refresher() const { return m_refresher; }
    ClusterOccupancyView *occupancy(int side) const { return m_views[side]; }
    PairJobTableModel *jobModel() const { return m_jobModel; }
    PairJobFilterProxyModel *jobProxy() const { return m_jobProxy; }
    QTableView *jobView() const { return m_jobView; }
    PairMetricsPlot *metricsPlot() const { return m_plot; }
    TimelineScrubber *scrubber() const { return m_scrubber; }
    QAction *playAction() const { return m_play; }
    QAction *stepForwardAction() const { return m_stepForward; }
    QAction *stepBackAction() const { return m_stepBack; }
    QAction *firstAction() const { return m_first; }
    QAction *lastAction() const { return m_last; }
    QList<QAction *> playbackActions() const;

Q_SIGNALS:
    void errorOccurred(const QString &message);
    void selectionChanged(int jobId);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    QWidget *buildControls();
    QWidget *buildSide(int side);
    QWidget *buildJobs();
    void connectReplay();
    void onLoaded();
    void refreshHeaders();
    // The header of one side, as much of it as fits `width` pixels on one line.
    QString headerText(int side, int width, QString *full) const;
    void arrangeForPresentation();
    // Presenting: each column widened to the rows on display when they need more.
    void growColumnsToContents();
    void onTableSelection();

    LockstepReplay *m_replay;
    ViewRefresher *m_refresher;
    PairJobTableModel *m_jobModel;
    PairJobFilterProxyModel *m_jobProxy;
    SessionSetup m_trace;
    std::array<QComboBox *, 2> m_policyBoxes{};
    std::array<QLabel *, 2> m_headers{};
    std::array<ClusterOccupancyView *, 2> m_views{};
    QLabel *m_traceLabel = nullptr;
    QComboBox *m_speed = nullptr;
    QWidget *m_controls = nullptr;
    TimelineScrubber *m_scrubber = nullptr;
    QSplitter *m_vertical = nullptr;
    QWidget *m_clusterRow = nullptr;
    QWidget *m_jobsPanel = nullptr;
    QComboBox *m_jobFilter = nullptr;
    QTableView *m_jobView = nullptr;
    PairMetricsPlot *m_plot = nullptr;
    QSplitter *m_bottom = nullptr;
    QAction *m_play = nullptr, *m_stepForward = nullptr, *m_stepBack = nullptr,
            *m_first = nullptr, *m_last = nullptr;
    int m_selected = -1;
    bool m_selecting = false;
    bool m_presenting = false;
    QList<int> m_verticalSizes, m_bottomSizes; // before presenting
    int m_tableNeed = 0; // presenting: the widest the jobs table's columns needed so far
};

} // namespace dl2console
