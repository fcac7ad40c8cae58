#pragma once
// The headless operating loop: every slot, snapshot -> policy -> gate -> audit log (commit)
// -> connector.apply -> audit log (acks) -> advance. On start it re-sends every decision the
// audit log committed but never saw acknowledged; at the end it checks the audit log against
// the backend's own record (lost = approved here but unknown there, duplicated = applied
// more than once there).

#include "auditlog.h"
#include "clusterconnector.h"
#include "decisiongate.h"
#include "policyplanner.h"

#include <QJsonObject>
#include <functional>

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
    bool done = false;
    double seconds = 0.0;
    std::vector<double> latenciesMs; // proposal -> acknowledgment, per applied decision
    QJsonObject toJson() const;
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

    int resendUnacknowledged();
    // Runs at most `slots` slots (fewer when the cluster is done); throws dl2::Error.
    OperateSummary run(int slotCount);
    // Fills lost / duplicated / unacknowledged / unknownToAudit.
    void verify(OperateSummary &summary);

private:
    void acknowledge(const std::vector<Acknowledgment> &acks, OperateSummary &summary);

    ClusterConnector &m_connector;
    PolicyPlanner &m_planner;
    DecisionGate &m_gate;
    AuditLog &m_audit;
    OperateSummary m_summary;
    int m_exitAfterCommit = -1;
    std::function<bool(const OperateSummary &)> m_progress;
};

} // namespace dl2
