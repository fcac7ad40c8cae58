#pragma once
// The GUI-thread side of one live run: owns the worker thread and its OperationsWorker, keeps
// the last copies of the gate's batch and the connector state, and forwards operator
// commands by queued calls. Never blocks: every gate, audit-log and gRPC call runs on the
// worker thread. One object per live run (ConsoleSession replaces it to restart).

#include "jobtracker.h"
#include "livetypes.h"

#include <QObject>
#include <QPointer>

class QThread;

namespace dl2console {

class OperationsWorker;

class LiveOperations : public QObject
{
    Q_OBJECT
public:
    explicit LiveOperations(const LiveSetup &setup, QObject *parent = nullptr);
    ~LiveOperations() override;

    const LiveSetup &setup() const { return m_setup; }
    const GateBatch &batch() const { return m_batch; }
    const ConnectorStatus &connector() const { return m_connector; }
    const GateSettings &gateSettings() const { return m_gateSettings; }
    bool isStarted() const { return m_started; }
    bool runComplete() const { return m_runComplete; }
    // A slot was requested and has neither opened a batch nor completed yet.
    bool isBusy() const { return m_busy; }
    bool canRunSlot() const { return m_started && !m_busy && !m_batch.open && !m_runComplete; }

    void runSlot();
    void approve(const QString &id);
    void reject(const QString &id);
    void overrideDecision(const QString &id, int ps, int workers); // -> overrideFinished
    void approveAll();
    void undo();
    void redo();
    void commit();
    void setGateSettings(const GateSettings &settings);
    // Online learning (the Learn toggle): the learner is a dl2-train child (learnerprocess.h).
    void setLearning(bool on);
    bool isLearningWanted() const { return m_learnWanted; }
    const LearningStatus &learning() const { return m_learning; }
    // The online learning curve and the version changes (both since live operation started).
    const std::vector<LearningPoint> &learningCurve() const { return m_curve; }
    const std::vector<LearningMark> &learningMarks() const { return m_marks; }

Q_SIGNALS:
    void started(const dl2console::RunInfo &info);
    void failed(const QString &message);
    void connectorChanged();
    void batchChanged();
    void slotCompleted(const dl2console::LiveSlotPacket &packet);
    void historyLoaded(const std::vector<dl2console::LiveSlotPacket> &packets);
    void finished();
    void commandFailed(const QString &message);
    void overrideFinished(const QString &id, const QString &error);
    void learningChanged();
    void learningFailed(const QString &message);

private:
    template <typename F>
    void post(F &&call);

    LiveSetup m_setup;
    GateSettings m_gateSettings;
    QThread *m_thread;
    QPointer<OperationsWorker> m_worker;
    GateBatch m_batch;
    ConnectorStatus m_connector;
    bool m_started = false;
    bool m_busy = false;
    bool m_runComplete = false;
    bool m_learnWanted = false;
    LearningStatus m_learning;
    std::vector<LearningPoint> m_curve;
    std::vector<LearningMark> m_marks;
};

} // namespace dl2console
