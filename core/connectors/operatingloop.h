#pragma once
// The headless operating loop: every slot, snapshot -> policy -> gate -> audit log (commit)
// -> connector.apply -> audit log (acks) -> advance. On start it resumes from the audit log:
// it re-sends every decision the log committed but never saw acknowledged (the backend ignores
// ids it already applied), and a slot whose batch the log already closed is not decided again
// (the gate leaves closed ids out), only advanced. At the end it checks the audit log against
// the backend's own record (lost = approved here but unknown there, duplicated = applied
// more than once there).
//
// When the audit log cannot be written (AuditWriteError: a full disk, an I/O error) the loop
// stops approving: nothing is sent that the log has not committed, acknowledgments that came
// back but could not be recorded are held in memory, and every `auditRetry` it tries again
// the way a restart would (record the held acknowledgments, re-send the unacknowledged);
// it reports the stop and the recovery through the notice callback. After `auditWait` without
// a successful write it gives up with a dl2::Error; the decisions it held are re-sent (and
// acknowledged as duplicates) by the next run.

#include "auditlog.h"
#include "clusterconnector.h"
#include "decisiongate.h"
#include "policyplanner.h"

#include <QJsonObject>
#include <chrono>
#include <functional>
#include <optional>

namespace dl2 {

struct OperateSummary
{
    int startSlot = 0;
    int endSlot = 0;
    int slotsRun = 0;
    int proposed = 0;
    int approved = 0;
    int rejected = 0;
    int applied = 0;               // acknowledged as applied now
    int acknowledgedDuplicate = 0; // acknowledged as already applied (re-sends)
    int invalid = 0;
    int resent = 0;
    int lost = 0;           // approved in the audit log, unknown to the backend
    int duplicated = 0;     // applied more than once by the backend
    int unacknowledged = 0; // still committed/sent at the end
    int unknownToAudit = 0; // applied by the backend, not approved in the audit log
    int auditStops = 0;     // times the audit log refused a write and approving stopped
    double auditStoppedSeconds = 0.0;
    bool done = false;
    double seconds = 0.0;
    std::vector<double> latenciesMs; // proposal -> acknowledgment, per applied decision
    std::vector<double> decisionMs;  // per slot: snapshot taken -> the policy's proposals
    QJsonObject toJson() const;
};

// Sees every slot of the loop (online learning, operatingloop.h's users): called on the loop's
// thread, so it must not block for long (a learner adopts finished work here, never waits).
class SlotObserver
{
public:
    virtual ~SlotObserver() = default;
    // Before the slot's snapshot is taken (the slot before has ended): the last moment to
    // finish work for the coming decision.
    virtual void beforeSnapshot() {}
    // Before the policy plans view.nextSlot; view.reward is the reward the cluster reported
    // for the slot before. The time spent here counts as decision latency.
    virtual void beforePlan(const ClusterView &view) { (void)view; }
    // The policy has planned (its proposals are made): a learner may use the CPU again.
    virtual void afterPlan() {}
    // The batch of `planned.nextSlot` was committed and sent, and the slot ran: the view the
    // policy planned on and the gate's final entries (verdicts, overrides).
    virtual void afterSlot(const ClusterView &planned, const std::vector<GateEntry> &entries)
    {
        (void)planned;
        (void)entries;
    }
};

class OperatingLoop
{
public:
    OperatingLoop(ClusterConnector &connector, PolicyPlanner &planner, DecisionGate &gate,
                  AuditLog &audit);

    // Fault injection for tests: exit the process right after the batch of this slot was
    // committed to the audit log and before it is sent.
    void setExitAfterCommit(int slot) { m_exitAfterCommit = slot; }
    // Called after each slot (progress output); return false to stop.
    void setProgress(std::function<bool(const OperateSummary &)> progress)
    {
        m_progress = std::move(progress);
    }
    // Called by run() right after a slot's batch opened, before the deadline wait: a headless
    // operator's actions on the open gate (dl2 operate --override).
    void setOnOpen(std::function<void(DecisionGate &)> onOpen) { m_onOpen = std::move(onOpen); }
    // One-line notices (the audit log stopped taking writes, and took them again).
    void setNotice(std::function<void(const std::string &)> notice)
    {
        m_notice = std::move(notice);
    }
    void setSlotObserver(SlotObserver *observer) { m_observer = observer; }
    // How long to wait for the audit log to take writes again, and how often to try.
    void setAuditWait(std::chrono::milliseconds wait, std::chrono::milliseconds retry)
    {
        m_auditWait = wait;
        m_auditRetry = retry;
    }

    // Decision ids are "<run id>/<slot>/<job>"; the default run id is the audit log's. A client
    // that restarts a fresh backend on a reused audit log (the console's embedded simulator)
    // sets its own, so old closed decisions do not shadow the new ones.
    void setRunId(std::string runId) { m_runId = std::move(runId); }
    const std::string &runId() const { return m_runId; }

    int resendUnacknowledged();
    // Runs at most `slots` slots (fewer when the cluster is done); throws dl2::Error.
    // Nobody reviews a headless run: pending decisions wait out the gate's deadline.
    OperateSummary run(int slotCount);

    // One slot in two non-blocking halves, for interactive clients (the console):
    // openSlot() snapshots the cluster, plans and opens the gate's batch (false when the
    // cluster is done); the client resolves the batch (operator, rules, deadline), then
    // closeSlot() commits it to the audit log, sends it, records the acknowledgments and
    // advances the cluster. Both throw dl2::Error (connector failures included); after a
    // failure in closeSlot() the committed decisions are re-sent by resendUnacknowledged().
    bool openSlot();
    std::vector<Acknowledgment> closeSlot();
    const ClusterView &openView() const { return m_view; }
    const OperateSummary &summary() const { return m_summary; }
    // Fills lost / duplicated / unacknowledged / unknownToAudit.
    void verify(OperateSummary &summary);

private:
    void acknowledge(const std::vector<Acknowledgment> &acks, OperateSummary &summary);
    // Records the held acknowledgments and re-sends the unacknowledged (throws AuditWriteError
    // while the log still refuses writes).
    void recover();
    // The audit log refused a write: report, wait `auditRetry`, or give up after `auditWait`.
    void auditStopped(const AuditWriteError &e);
    void auditResumed();
    void notice(const std::string &text) const;

    ClusterConnector &m_connector;
    PolicyPlanner &m_planner;
    DecisionGate &m_gate;
    AuditLog &m_audit;
    OperateSummary m_summary;
    std::string m_runId;
    ClusterView m_view; // of the open slot
    std::chrono::steady_clock::time_point m_proposedAt;
    bool m_first = true;
    int m_exitAfterCommit = -1;
    std::function<bool(const OperateSummary &)> m_progress;
    std::function<void(const std::string &)> m_notice;
    std::function<void(DecisionGate &)> m_onOpen;
    SlotObserver *m_observer = nullptr;
    std::vector<Acknowledgment> m_unrecordedAcks; // received, not yet in the audit log
    std::chrono::milliseconds m_auditWait{std::chrono::minutes(10)};
    std::chrono::milliseconds m_auditRetry{std::chrono::seconds(1)};
    std::optional<std::chrono::steady_clock::time_point> m_auditStoppedAt;
};

} // namespace dl2
