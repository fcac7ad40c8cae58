#pragma once
// What the operating loop needs from a cluster, whatever runs it (the in-process simulator,
// a remote agent over gRPC, later Kubernetes): a snapshot of nodes, jobs and progress, the
// events since a sequence number, and apply(decisions) -> one acknowledgment per decision.
// apply() is idempotent by decision id: a backend acknowledges an id it already applied as
// Duplicate and does not apply it again.

#include "cluster.h"
#include "jobstate.h"
#include "resizedecision.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace dl2 {

struct ClusterView
{
    std::string scenario;
    int nextSlot = 0; // the slot the next decisions are for
    bool done = false;
    int nodes = 0;
    Demand nodeCapacity{0, 0};
    double slotSeconds = 1200.0;
    int maxWorkers = 16;
    int maxPs = 16;
    int finished = 0;
    int totalJobs = 0;
    // Of the last slot the backend ran (nextSlot - 1; zero / empty before the first one).
    double reward = 0.0; // normalised progress (docs/model.md section 3)
    double cumulativeReward = 0.0;
    std::vector<int> arrivals;    // job ids that arrived in it
    std::vector<int> completions; // job ids that finished in it
    // How the backend places tasks that no decision pins to a node (DecisionGate checks
    // overrides with it).
    PlacementRule placement = PlacementRule::LeastLoaded;
    // Jobs that arrived by nextSlot, with the allocation that ran in the last slot
    // (workers/ps/tasks) and the one the backend will run next (targets, same order).
    std::vector<JobState> jobs;
    std::vector<Allocation> targets;
};

struct ClusterEvent
{
    enum class Kind
    {
        Arrival,
        Completion,
        Progress,
        Applied
    };
    std::int64_t seq = 0;
    int slot = 0;
    Kind kind = Kind::Progress;
    int job = 0;
    double doneEpochs = 0.0;
    double totalEpochs = 0.0;
    std::string decisionId;
};
const char *toString(ClusterEvent::Kind kind);

struct Acknowledgment
{
    enum class Status
    {
        Applied,
        Duplicate,
        Invalid
    };
    std::string decisionId;
    Status status = Status::Applied;
    std::string message;
    int appliedAtSlot = -1;
};
const char *toString(Acknowledgment::Status status);

// One slot the backend ran, as its history keeps it (GetHistory): what the console needs to
// show a slot it did not see live (it attached later, or scrubs back).
struct SlotRecord
{
    int slot = -1;
    double reward = 0.0;
    double cumulativeReward = 0.0;
    std::array<double, kResourceTypes> utilisation{0.0, 0.0};
    std::vector<int> arrivals;
    std::vector<int> completions;
    std::vector<JobState> jobs;          // arrived by the slot, as they ran in it (tasks, speed)
    std::vector<ResizeDecision> applied; // applied for this slot (with the policy's confidence)
};

// The backend's own record of an applied decision (to check none was lost or applied twice).
struct AppliedRecord
{
    std::string decisionId;
    int job = 0;
    int appliedAtSlot = 0;
    int applyCount = 0;
    int duplicateReceipts = 0;
};

class ClusterConnector
{
public:
    virtual ~ClusterConnector() = default;
    virtual std::string describe() const = 0;
    virtual ClusterView snapshot() = 0;
    virtual std::vector<ClusterEvent> events(std::int64_t afterSeq) = 0;
    virtual std::vector<Acknowledgment> apply(const std::vector<ResizeDecision> &decisions) = 0;
    // Runs the slot `expectedSlot` (simulated backends; a real cluster advances by itself).
    // Idempotent: returns false without stepping when that slot already ran.
    virtual bool advanceSlot(int expectedSlot) = 0;
    virtual std::vector<AppliedRecord> appliedRecord() = 0;
    // The slots fromSlot..toSlot (inclusive) the backend ran and still keeps, oldest first;
    // at most maxSlots of them. Empty when the backend keeps no history.
    virtual std::vector<SlotRecord> history(int fromSlot, int toSlot, int maxSlots = 1 << 30)
    {
        (void)fromSlot;
        (void)toSlot;
        (void)maxSlots;
        return {};
    }
};

// A backend dl2-agent can serve: beyond ClusterConnector it names itself and its scenario for
// Health, tells the next slot, and can block until events exist (followed WatchEvents).
class ServedConnector : public ClusterConnector
{
public:
    virtual std::string backendName() const = 0; // "sim", "kubernetes"
    virtual std::string scenarioName() const = 0;
    virtual int nextSlot() const = 0;
    // Blocks until an event after `afterSeq` exists or the timeout passes.
    virtual std::vector<ClusterEvent> waitForEvents(std::int64_t afterSeq,
                                                    std::chrono::milliseconds timeout) = 0;
};

} // namespace dl2
