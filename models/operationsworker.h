#pragma once
// The console's live operations host. Lives on its own worker thread and owns everything of
// a live run: the cluster connector (the embedded SimulatedConnector or a GrpcConnector to a
// dl2-agent), the policy planner, the DecisionGate with its QUndoStack, the AuditLog and the
// OperatingLoop that ties them together. Nothing here is touched from the GUI thread: the GUI
// invokes the public functions by queued calls and gets value copies back by signal.
//
// One slot: runSlot() opens the gate's batch (OperatingLoop::openSlot); a batch without
// pending decisions closes at once, otherwise it waits for the operator (approve, reject,
// override, approve all, undo/redo, commit) or for the review deadline, when the gate's
// default applies. Closing commits to the audit log, sends, acknowledges and advances.
//
// What it runs is built from the LiveSetup by buildLiveRig (liverig.h). A remote agent is
// called with a per-call deadline and no internal retries; on a failure the worker reconnects
// itself (AgentConnection: exponential backoff 1 s .. 30 s, publishing the countdown) and
// re-sends what was committed but never acknowledged. A rejected token is final.
//
// History: on attaching to a cluster that already ran slots, and after every reconnect, the
// worker reads the slots it did not see from the cluster's history (GetHistory: snapshot,
// reward, decisions applied with the policy's confidence) and publishes them (historyLoaded)
// before the current state.

#include "grpcconnector.h"
#include "liverig.h"
#include "livetypes.h"

#include <QObject>
#include <memory>
#include <optional>
#include <string>

class QTimer;

namespace dl2 {
class OperatingLoop;
class UndoStackSink;
} // namespace dl2

namespace dl2console {

class AgentConnection;
class LearnerProcess;

class OperationsWorker : public QObject
{
    Q_OBJECT
public:
    explicit OperationsWorker(QObject *parent = nullptr);
    ~OperationsWorker() override;

    // Invoked by queued calls from LiveOperations.
    void start(const dl2console::LiveSetup &setup);
    void setGateSettings(const dl2console::GateSettings &settings);
    void runSlot();
    void approve(const QString &id);
    void reject(const QString &id);
    void overrideDecision(const QString &id, int ps, int workers);
    void approveAll();
    void undo();
    void redo();
    void commit();
    // Online learning on or off (the Learn toggle; learnerprocess.h). With a batch open it
    // applies once the batch is closed (the planner changes).
    void setLearning(bool on);

Q_SIGNALS:
    void started(const dl2console::RunInfo &info);
    void failed(const QString &message);
    void connectorChanged(const dl2console::ConnectorStatus &status);
    void batchChanged(const dl2console::GateBatch &batch);
    void slotCompleted(const dl2console::LiveSlotPacket &packet);
    // Slots the cluster ran that this console did not see (attached mid-run, reconnected),
    // oldest first, before the slotCompleted() of the state they lead to.
    void historyLoaded(const std::vector<dl2console::LiveSlotPacket> &packets);
    void runComplete();
    void commandFailed(const QString &message);
    void overrideFinished(const QString &id, const QString &error);
    void learningChanged(const dl2console::LearningStatus &status);
    void learningPoint(const dl2console::LearningPoint &point);
    void learningMark(const dl2console::LearningMark &mark);
    // Learning could not start or stopped on an error; live operation goes on.
    void learningFailed(const QString &message);

private:
    void applyLearning(bool on);
    void learnerFailed();
    // The checkpoint the learned policy starts from (the run's, else the shipped one).
    QString policyCheckpoint() const;
    void buildGate();
    void tryConnect();
    void connectionLost(const std::string &why);
    void closeBatch();
    void publishBatch();
    void publishSlot(int approved, int rejected, const std::vector<dl2::Acknowledgment> &acks,
                     const std::vector<dl2::GateEntry> &entries);
    // Reads the cluster's history of the slots after the last published one up to lastSlot.
    void fetchHistory(int lastSlot);
    template <typename F>
    bool guarded(const QString &what, F &&f);

    LiveSetup m_setup;
    GateSettings m_gateSettings;
    bool m_gateDirty = false;
    LiveRig m_rig; // connector, audit log, planner, undo stack
    std::unique_ptr<dl2::DecisionGate> m_gate;
    std::unique_ptr<dl2::UndoStackSink> m_sink; // after the gate and the stack
    std::unique_ptr<dl2::OperatingLoop> m_loop;
    QTimer *m_deadlineTimer;
    AgentConnection *m_connection; // the connector's state; reconnects a remote agent
    dl2::AgentHealth m_health;
    int m_lastPublishedSlot = -1;
    LiveSlotPacket m_historyTail; // the last slot read from the history, until published
    bool m_started = false;
    bool m_resend = false;    // re-send unacknowledged decisions once connected
    bool m_runWanted = false; // a runSlot() came while disconnected
    bool m_done = false;
    // After m_rig (its planner owns the acting policy): destroyed first.
    std::unique_ptr<LearnerProcess> m_learner;
    std::optional<bool> m_learnWanted; // a toggle while a batch was open
    QString m_learnedCheckpoint;       // the last version in use when learning stopped
};

} // namespace dl2console
