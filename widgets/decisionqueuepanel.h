#pragma once
// The Decision queue dock: the gate's pending decisions of the current slot, operator
// actions with keyboard shortcuts (A approve, R reject, E edit/override, Shift+A approve
// all, Ctrl+Z / Ctrl+Shift+Z undo/redo until commit, Ctrl+Return commit), the countdown to
// the review deadline, and the gate settings (mode, rules file, deadline and its default).
// In replay mode (no live operations) the table is empty and the actions are disabled;
// choosing review or rules asks the main window to start live operations.
// While a slot of the live history is on display, the table shows that slot's batch read-only
// (final verdicts and the cluster's acknowledgments) and the headline says whether the live
// batch waits for review.

#include "livetypes.h"

#include <QPointer>
#include <QWidget>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;
class QTimer;
class QToolButton;

namespace dl2console {

class DecisionQueueModel;
class LiveOperations;
class OverrideDialog;

class DecisionQueuePanel : public QWidget
{
    Q_OBJECT
public:
    explicit DecisionQueuePanel(QWidget *parent = nullptr);

    void setLive(LiveOperations *live); // nullptr: replay mode
    void setGateSettings(const GateSettings &settings); // no signal
    // Shows a batch of the live history read-only (batch.history); showLive() returns to the
    // live batch.
    void showHistory(const GateBatch &batch);
    void showLive();
    bool isShowingHistory() const { return m_history; }
    GateSettings gateSettings() const;

    DecisionQueueModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QAction *approveAction() const { return m_approve; }
    QAction *rejectAction() const { return m_reject; }
    QAction *overrideAction() const { return m_override; }
    QAction *approveAllAction() const { return m_approveAll; }
    QAction *undoAction() const { return m_undo; }
    QAction *redoAction() const { return m_redo; }
    QAction *commitAction() const { return m_commit; }
    QComboBox *modeBox() const { return m_mode; }
    OverrideDialog *overrideDialog() const; // the open one, or nullptr
    QString headlineText() const;
    QString countdownText() const;
    QString messageText() const;
    // The decision id of the current row ("" when none).
    QString currentDecision() const;

Q_SIGNALS:
    void gateSettingsChanged(const dl2console::GateSettings &settings);

private:
    QToolButton *button(QAction *action);
    void onBatch();
    void updateActions();
    void updateCountdown();
    void showMessage(const QString &text);
    void decideCurrent(bool approve);
    void editCurrent();
    void selectNextPending(int fromRow);
    void chooseRulesFile();
    void emitSettings();

    QPointer<LiveOperations> m_live;
    DecisionQueueModel *m_model;
    QComboBox *m_mode;
    QLineEdit *m_rules;
    QToolButton *m_rulesButton;
    QSpinBox *m_deadline;
    QComboBox *m_atDeadline;
    QLabel *m_headline;
    QLabel *m_countdown;
    QTableView *m_view;
    QLabel *m_message;
    QTimer *m_tick;
    QAction *m_approve, *m_reject, *m_override, *m_approveAll, *m_undo, *m_redo, *m_commit;
    QPointer<OverrideDialog> m_dialog;
    bool m_updatingSettings = false;
    bool m_history = false;
};

} // namespace dl2console
