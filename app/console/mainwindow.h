#pragma once
// The console's main window: wires the session to the views and owns the layout. Every
// dock/page is its own class in widgets/; this file only assembles and connects them.

#include "livetypes.h"
#include "sessiontypes.h"

#include <QMainWindow>

#include <functional>

class QAction;
class QDockWidget;
class QTabWidget;
class QToolBar;

namespace dl2console {

class AuditLogPanel;
class ClusterOccupancyView;
class ComparisonPage;
class ConsoleSession;
class DecisionInspector;
class ImportTraceDialog;
class DecisionQueuePanel;
class InstructorTools;
class JobSpeedPlot;
class JobTableModel;
class JobTablePanel;
class OnlineLearningPlot;
class RewardPlot;
class SessionStatusBar;
class SessionToolBar;
class Settings;
class TimelineScrubber;
class TrainingPage;
class UtilisationPlot;
class ViewRefresher;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    // restoreLayout = false: default layout, nothing saved on close (screenshots, tests).
    explicit MainWindow(Settings *settings, bool restoreLayout = true, QWidget *parent = nullptr);
    ~MainWindow() override;

    // Loads a run; errors are shown in a message box when interactive, else only signalled.
    void load(const SessionSetup &setup);
    // Live operations: what a live run connects to (agent, token, audit file) and its gate
    // settings; startLive() operates the current scenario/policy through the gate.
    void setLiveDefaults(const LiveSetup &setup);
    const LiveSetup &liveDefaults() const { return m_liveDefaults; }
    void startLive();
    static QString defaultAuditFile();
    void setInteractiveErrors(bool on) { m_interactiveErrors = on; }
    void resetLayout();
    // Dock sizes as fractions of the current window (default layout at any window size).
    void applyDefaultDockSizes();
    void showComparison();
    void showTraining();
    // Raises a tabbed dock: "jobs", "queue", "decisions", "audit" (or a dock's objectName).
    // False for an unknown name.
    bool raiseDock(const QString &name);
    static QStringList dockNames();

    ConsoleSession *session() const { return m_session; }
    ViewRefresher *refresher() const { return m_refresher; }
    JobTableModel *jobModel() const { return m_jobModel; }
    JobTablePanel *jobPanel() const { return m_jobPanel; }
    ClusterOccupancyView *occupancyView() const { return m_occupancy; }
    TimelineScrubber *scrubber() const { return m_scrubber; }
    SessionToolBar *toolBar() const { return m_toolBar; }
    SessionStatusBar *sessionStatusBar() const { return m_status; }
    JobSpeedPlot *jobSpeedPlot() const { return m_jobSpeed; }
    DecisionInspector *decisionInspector() const { return m_decisions; }
    RewardPlot *rewardPlot() const { return m_reward; }
    ComparisonPage *comparisonPage() const { return m_comparison; }
    TrainingPage *trainingPage() const { return m_training; }
    DecisionQueuePanel *decisionQueue() const { return m_queue; }
    AuditLogPanel *auditLog() const { return m_audit; }
    // Live mode: Operations > Learn (checkable) and the online learning curve beside the reward.
    QAction *learnAction() const { return m_learn; }
    OnlineLearningPlot *onlineLearningPlot() const { return m_learningPlot; }
    // Side-by-side replay, presentation mode and replay export.
    InstructorTools *instructorTools() const { return m_instructor; }
    // Shows an error like the console's own (message box when interactive, errorShown()).
    void reportError(const QString &message) { onError(message); }
    static QString defaultPolicy();
    // File > Import public trace…: opens the import dialog (non-modal; the trace it imports
    // is opened in the session, on the trace's own cluster). Returns it for tests/screenshots.
    ImportTraceDialog *openImportDialog();

Q_SIGNALS:
    void errorShown(const QString &message);

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    QDockWidget *addDock(QWidget *content, const QString &title, const QString &objectName,
                         Qt::DockWidgetArea area);
    void buildDocks();
    void buildMenus();
    void connectSession();
    void onError(const QString &message);
    void openTraceFile();
    void openPolicyFile();
    void openSpeedTable();
    // Loads the current setup with some fields changed (menus).
    void reload(const std::function<void(SessionSetup &)> &change);
    void onSelection(const QList<int> &jobIds);
    void saveState();
    void onTabChanged(int index);
    void onLiveChanged();
    void updateConnector();
    void updateLiveView();
    void onGateSettings(const GateSettings &settings);
    void updateLearning();

    Settings *m_settings;
    bool m_restoreLayout;
    bool m_interactiveErrors = true;
    ConsoleSession *m_session;
    ViewRefresher *m_refresher;
    JobTableModel *m_jobModel;
    SessionToolBar *m_toolBar;
    TimelineScrubber *m_scrubber;
    SessionStatusBar *m_status;
    QTabWidget *m_tabs;
    ClusterOccupancyView *m_occupancy;
    ComparisonPage *m_comparison;
    TrainingPage *m_training;
    JobTablePanel *m_jobPanel;
    UtilisationPlot *m_utilisation;
    RewardPlot *m_reward;
    JobSpeedPlot *m_jobSpeed;
    DecisionInspector *m_decisions;
    DecisionQueuePanel *m_queue;
    AuditLogPanel *m_audit;
    OnlineLearningPlot *m_learningPlot;
    QAction *m_learn = nullptr;
    InstructorTools *m_instructor = nullptr;
    LiveSetup m_liveDefaults;
    QList<QDockWidget *> m_docks;
    QByteArray m_defaultState;
    QByteArray m_liveState; // dock layout of the Cluster tab while another page is shown
    QToolBar *m_timelineBar = nullptr;
    QAction *m_measuredSpeeds = nullptr;
    QAction *m_fittedSpeeds = nullptr;
    SessionSetup m_lastGood;
    bool m_haveLastGood = false;
};

} // namespace dl2console
