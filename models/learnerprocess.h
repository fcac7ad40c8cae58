#pragma once
// The console's online learning (the Learn toggle of live mode), on the operations worker's
// thread. The console never loads libtorch, so learning is split across two processes:
//   - here, the acting policy: the learning policy's current version, torch-free, sampling
//     as online learning acts (core/learning/onlineacting.h). It is the planner's policy;
//     every inference it makes is captured (state, action, its probability, job);
//   - a `dl2-train online-learner` child: after every slot it gets one frame (the view the
//     policy planned on, the gate's final entries, the version, the inferences) and runs the
//     same OnlineLearner as `dl2 operate --learn` - updates, versions vN.dl2ckpt, the frozen
//     reference in shadow, the rollback rail - and answers with JSON lines (versions, events,
//     curve points).
// A decision never waits for the learner: frames are written asynchronously after the slot
// closed, and a new version (or a rollback) is loaded from its checkpoint when the child
// announces it, between slots. The learner's events go to the console's audit log (one
// writer). When the child cannot start or dies, or a version does not load, learning stops
// with a message and live operation continues frozen at the version in use.

#include "actingtrace.h"
#include "livetypes.h"
#include "operatingloop.h"

#include <QObject>
#include <QProcess>
#include <memory>
#include <vector>

namespace dl2 {
class AuditLog;
class Dl2Policy;
class PolicyPlanner;
class Scheduler;
} // namespace dl2

namespace dl2console {

class LearnerProcess : public QObject, public dl2::SlotObserver
{
    Q_OBJECT
public:
    explicit LearnerProcess(QObject *parent = nullptr);
    ~LearnerProcess() override; // stops the child

    // The dl2-train to run: settings.program, else next to the running executable (and
    // ../cli in a build tree), else PATH; empty if none.
    static QString findProgram(const LearningSettings &settings);

    // Builds the acting policy from `initCheckpoint` (a file or shipped name; returned for the
    // planner) and starts the child. Throws dl2::Error naming what is wrong (no dl2-train, a
    // checkpoint that does not read, a directory that cannot be made). `audit` (optional)
    // gets the learning events.
    std::unique_ptr<dl2::Scheduler> start(const LearningSettings &settings,
                                          const QString &initCheckpoint, dl2::AuditLog *audit);
    // The planner that runs the acting policy: its version is set as versions change.
    void setPlanner(dl2::PolicyPlanner *planner);
    // Ends learning: closes the child's input (it finishes its update) and lets it go.
    void stop();
    const LearningStatus &status() const { return m_status; }
    // The checkpoint of the version deciding now.
    const QString &checkpoint() const { return m_checkpoint; }

    void beforePlan(const dl2::ClusterView &view) override;
    void afterSlot(const dl2::ClusterView &planned,
                   const std::vector<dl2::GateEntry> &entries) override;

Q_SIGNALS:
    void statusChanged(const dl2console::LearningStatus &status);
    void pointAdded(const dl2console::LearningPoint &point);
    void markAdded(const dl2console::LearningMark &mark);
    // Learning stopped on an error (the acting policy keeps its version).
    void failed(const QString &message);

private:
    void onOutput();
    void onLine(const QByteArray &line);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void fail(const QString &message);
    void event(const QString &detail, const QJsonObject &after = {});
    void setState(LearningStatus::State state, const QString &message = {});
    void detachActing();

    LearningSettings m_settings;
    QProcess *m_process = nullptr;
    dl2::AuditLog *m_audit = nullptr;
    dl2::PolicyPlanner *m_planner = nullptr;
    dl2::Dl2Policy *m_acting = nullptr; // owned by the planner
    dl2::ActingTrace m_captured; // of the slot in flight
    LearningStatus m_status;
    QString m_checkpoint;
    QByteArray m_out, m_errTail;
    int m_plannedVersion = 0; // of the slot in flight
    int m_nextSlot = 0;       // the next slot the policy plans
    bool m_stopping = false;
};

} // namespace dl2console
