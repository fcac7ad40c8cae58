#pragma once
// The one place where the console learns what a policy decided and why.
//
// WIRING POINT (issue #4): the learned DL2 policy exposes its decision record through
// core/learning/dl2policy.h (Dl2Policy::setRecordDecisions / lastSlotDecisions). The adapter in
// decisionadapter.cpp reads it only when the console is built with the learning library
// (DL2_CONSOLE_DECISIONS, set in models/CMakeLists.txt when target dl2learning exists);
// otherwise no policy exposes decisions and the inspector shows "available when the policy
// is DL2". Everything downstream (session -> SnapshotPacket -> DecisionInspector) is wired.

#include <string>
#include <vector>

namespace dl2 {
class Scheduler;
}

namespace dl2console {

struct DecisionRow
{
    int step = 0;       // inference number within the slot
    int jobId = -1;     // -1 for "stop"
    std::string action; // "worker", "ps", "bundle", "stop"
    double probability = 0.0;
    double value = 0.0;  // critic estimate, when the policy has one
    bool masked = false; // the action was replaced (exploration / infeasible)
    std::string note;    // e.g. allocation result ("no capacity", "at cap")
};

struct DecisionLog
{
    bool available = false; // false: the policy does not expose decisions
    int slot = -1;
    std::vector<DecisionRow> rows;
};

// Called on the worker thread once per scheduler that serves displayed slots (switches the
// policy's decision recording on when it has one).
void prepareForDecisions(dl2::Scheduler &scheduler);
// Called on the worker thread right after each displayed slot was simulated.
DecisionLog collectDecisions(const dl2::Scheduler &scheduler, int slot);

} // namespace dl2console
