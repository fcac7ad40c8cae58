#pragma once
// The main toolbar: what to simulate (scenario or trace file, seed, policy) and playback
// (play/pause, step back/forward, speed). A view only: it reports requests as signals and
// the main window wires them to the session. Every action has a keyboard shortcut.

#include "sessiontypes.h"

#include <QToolBar>

class QAction;
class QComboBox;
class QSpinBox;

namespace dl2console {

class SessionToolBar : public QToolBar
{
    Q_OBJECT
public:
    explicit SessionToolBar(QWidget *parent = nullptr);

    void setScenarios(const QStringList &names, const QStringList &descriptions);
    void setPolicies(const QStringList &names, const QStringList &descriptions);
    void addTraceFile(const QString &path);
    void setSetup(const SessionSetup &setup);
    SessionSetup setup() const;
    void setPlaying(bool playing);
    void setSpeed(double slotsPerSecond);

    QAction *playAction() const { return m_play; }
    QAction *stepForwardAction() const { return m_stepForward; }
    QAction *stepBackAction() const { return m_stepBack; }
    QAction *firstAction() const { return m_first; }
    QAction *lastAction() const { return m_last; }
    QAction *openTraceAction() const { return m_openTrace; }
    QAction *fasterAction() const { return m_faster; }
    QAction *slowerAction() const { return m_slower; }
    QComboBox *scenarioBox() const { return m_scenario; }
    QComboBox *policyBox() const { return m_policy; }
    QSpinBox *seedBox() const { return m_seed; }
    QComboBox *speedBox() const { return m_speed; }

Q_SIGNALS:
    void setupRequested(const dl2console::SessionSetup &setup);
    void openTraceRequested();
    void speedRequested(double slotsPerSecond);

private:
    void emitSetup();
    void stepSpeed(int delta);

    QComboBox *m_scenario;
    QSpinBox *m_seed;
    QComboBox *m_policy;
    QComboBox *m_speed;
    QAction *m_play, *m_stepForward, *m_stepBack, *m_first, *m_last, *m_openTrace;
    QAction *m_faster, *m_slower;
    bool m_updating = false;
};

} // namespace dl2console
