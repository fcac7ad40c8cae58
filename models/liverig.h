#pragma once
// What a live run is built from, as LiveSetup asks for it (OperationsWorker runs it): the
// audit log, the policy planner (reading each decision's confidence; a frozen learned policy
// named by its checkpoint in the audit log), the undo stack of the gate's review and the
// cluster connector - the embedded simulator or a dl2-agent over gRPC, called once per
// request (the worker reconnects itself, see AgentConnection).

#include "livetypes.h"

#include <memory>
#include <string>

class QUndoStack;

namespace dl2 {
class AuditLog;
class ClusterConnector;
class GrpcConnector;
class PolicyPlanner;
class SimulatedConnector;
} // namespace dl2

namespace dl2console {

struct LiveRig
{
    LiveRig();
    ~LiveRig();
    LiveRig(LiveRig &&) noexcept;
    LiveRig &operator=(LiveRig &&) noexcept;

    // Exactly one of the two connectors is set (the other owners come after them, so they
    // go first).
    std::unique_ptr<dl2::SimulatedConnector> simulated; // embedded
    std::unique_ptr<dl2::GrpcConnector> remote;         // a dl2-agent
    std::unique_ptr<dl2::AuditLog> audit;
    std::unique_ptr<dl2::PolicyPlanner> planner;
    std::unique_ptr<QUndoStack> undo;
    // The audit log's run id for an agent; a fresh one for a new simulator on a reused log.
    std::string runId;

    dl2::ClusterConnector &connector() const;
};

// Throws what opening the audit log, loading the policy or making the connector throws.
LiveRig buildLiveRig(const LiveSetup &setup);

} // namespace dl2console
