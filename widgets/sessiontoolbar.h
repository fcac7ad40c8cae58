#pragma once
// The main toolbar: what to simulate (scenario or trace file, seed, cluster size, policy or
// policy file) and playback (play/pause, step back/forward, speed). A view only: it reports
// requests as signals and the main window wires them to the session. Every action has a
// keyboard shortcut. It also carries the parts of the setup chosen in menus (speed model),
// so setup() is always the whole SessionSetup.
// Live operations: the operated cluster (backend and description) replaces the replay-only
// trace, seed and cluster-size controls, and "Back to live" leaves a slot of the live history.

#include "sessiontypes.h"

#include <QHash>
#include <QToolBar>

class QAction;
class QComboBox;
class QLabel;
class QSpinBox;

namespace dl2console {

class SessionToolBar : public QToolBar
{
    Q_OBJECT
public:
    explicit SessionToolBar(QWidget *parent = nullptr);

    void setScenarios(const QStringList &names, const QStringList &descriptions);
    void setPolicies(const QStringList &names, const QStringList &descriptions);
    // Nodes of each scenario (the cluster-size box shows it until the user changes it).
    void setScenarioNodes(const QHash<QString, int> &nodes);
    // A trace file that records its cluster runs on it: `nodes` is its default cluster size.
    void setTraceNodes(const QString &traceFile, int nodes);
    void addTraceFile(const QString &path);
    // A policy file (or shipped policy name) of a learned `kind`: an entry of the policy box.
    void addPolicyFile(const QString &kind, const QString &checkpoint);
    void setSetup(const SessionSetup &setup);
    SessionSetup setup() const;
    void setPlaying(bool playing);
    void setSpeed(double slotsPerSecond);
    // Live operations on `cluster` through `backend` ("sim", "kubernetes", "embedded"); the
    // trace, seed and open-trace controls are hidden (they describe a replay). Empty backend:
    // replay mode, the controls come back.
    void setLiveCluster(const QString &backend, const QString &cluster, const QString &address);
    QString liveClusterText() const;
    bool isLiveCluster() const;
    // Live mode (Back to live shown) and whether a slot of the history is on display (enabled).
    void setLiveView(bool live, bool viewingHistory);

    QAction *playAction() const { return m_play; }
    QAction *stepForwardAction() const { return m_stepForward; }
    QAction *stepBackAction() const { return m_stepBack; }
    QAction *firstAction() const { return m_first; }
    QAction *lastAction() const { return m_last; }
    QAction *openTraceAction() const { return m_openTrace; }
    QAction *fasterAction() const { return m_faster; }
    QAction *slowerAction() const { return m_slower; }
    QAction *backToLiveAction() const { return m_backToLive; }
    QComboBox *scenarioBox() const { return m_scenario; }
    QComboBox *policyBox() const { return m_policy; }
    QSpinBox *seedBox() const { return m_seed; }
    QSpinBox *nodesBox() const { return m_nodes; }
    QComboBox *speedBox() const { return m_speed; }

Q_SIGNALS:
    void setupRequested(const dl2console::SessionSetup &setup);
    void openTraceRequested();
    void speedRequested(double slotsPerSecond);

private:
    void emitSetup();
    void stepSpeed(int delta);
    int defaultNodes() const;

    QComboBox *m_scenario;
    QSpinBox *m_seed;
    QSpinBox *m_nodes;
    QHash<QString, int> m_scenarioNodes;
    QHash<QString, int> m_traceNodes; // by trace file
    SessionSetup m_menuParts; // speedModel, speedTable: chosen in menus, carried along
    QComboBox *m_policy;
    QComboBox *m_speed;
    QAction *m_play, *m_stepForward, *m_stepBack, *m_first, *m_last, *m_openTrace;
    QAction *m_faster, *m_slower;
    QAction *m_backToLive;
    QAction *m_backToLiveButton = nullptr; // the toolbar's widget action of m_backToLive
    QLabel *m_cluster;
    QAction *m_clusterAction = nullptr;
    QList<QAction *> m_replayOnly; // trace and seed widgets
    SessionSetup m_shown;          // as last set or requested
    bool m_updating = false;
};

} // namespace dl2console
