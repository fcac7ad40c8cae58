#pragma once
// Status bar of the console: slot, simulated time, job counts, utilisation, the speed model
// (and policy file) of the run, connector state, and a one-line hint for first-time users.

#include "jobstate.h"
#include "livetypes.h"

#include <QStatusBar>

class QLabel;

namespace dl2console {

class SessionStatusBar : public QStatusBar
{
    Q_OBJECT
public:
    explicit SessionStatusBar(QWidget *parent = nullptr);
    void setSnapshot(const dl2::SlotSnapshot &snapshot, double slotSeconds);
    void setConnectorState(const QString &text);
    // "● agent HOST:PORT · connected", "● embedded simulator · gate: review", ...
    void setConnector(const ConnectorStatus &status, const QString &gate);
    QString connectorText() const;
    void setHint(const QString &text);
    // "speeds: measured (exact RBF) · cluster 200 nodes · policy my.dl2ckpt"
    void setRun(const QString &speedModel, int nodes, const QString &checkpoint);
    QString runText() const;
    QString slotText() const;
    QString jobsText() const;

private:
    QLabel *m_hint, *m_slot, *m_time, *m_jobs, *m_util, *m_run, *m_connector;
};

} // namespace dl2console
