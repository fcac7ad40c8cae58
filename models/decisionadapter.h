#pragma once
// The one place where the console learns what a policy decided and why.
//
// The learned DL2 policies expose their decision record through core/learning/dl2policy.h
// (Dl2Policy::setRecordDecisions / lastSlotDecisions). decisionadapter.cpp reads it only when
// the console is built with the learning library (DL2_CONSOLE_DECISIONS, set in
// models/CMakeLists.txt when target dl2learning exists); otherwise no policy exposes
// decisions and the inspector says it is available for dl2 / dl2-plus.
// Data flow: worker thread -> DecisionLog (a value) -> SnapshotPacket -> DecisionInspector.

#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

namespace dl2 {
class PolicyPlanner;
class Scheduler;
} // namespace dl2

namespace dl2console {

// One named column of the state the network saw. A one-hot group (dl2's job type) is one
// column showing the index of its hot entry.
struct FeatureColumn
{
    QString name;
    QString description; // tooltip: what the number means
    int first = 0;       // offset in a row of DecisionStep::features
    int count = 1;       // > 1: one-hot group
};

// One inference: the state, the masked action probabilities, the chosen action and V(s).
// Actions: a = 3 x row + k (k = 0 worker, 1 PS, 2 bundle); a = 3 x rows is stop.
struct DecisionStep
{
    int inference = 0;
    int jobDim = 0;
    std::vector<int> jobIds;          // per state row; -1 = empty window position
    std::vector<float> features;      // rows x jobDim, exactly as the network saw them
    std::vector<float> global;        // global features (dl2-plus)
    std::vector<float> probabilities; // masked and renormalised: a masked action has 0
    std::vector<std::uint8_t> mask;   // 1 = valid; a valid action's probability can round to 0
    int action = 0;
    int jobId = -1; // acted-on job, -1 for stop
    double value = 0.0;
    bool explored = false; // replaced by exploration (training only)
    QString result;        // empty = placed; "no capacity", "at cap"

    int rows() const { return static_cast<int>(jobIds.size()); }
    bool isStop() const { return action == 3 * rows(); }
    bool isMasked(int a) const
    {
        return mask.empty() ? probabilities[static_cast<size_t>(a)] <= 0.0f
                            : !mask[static_cast<size_t>(a)];
    }
    int validActions() const;
};

struct DecisionLog
{
    bool available = false; // false: the policy does not expose decisions
    int slot = -1;
    QString policy; // "dl2", "dl2-plus"
    QString notes;  // how the policy's slot works (forced bundles, ...); when not available: why
    std::vector<FeatureColumn> columns; // of the per-job features
    std::vector<FeatureColumn> globals; // of DecisionStep::global
    std::vector<DecisionStep> steps;

    // V(s) of the first inference: the state at the start of the slot.
    std::optional<double> slotValue() const;
};

// "worker", "PS", "bundle", "stop" for action a of a state with `rows` rows.
QString actionKindName(int action, int rows);

// Called on the worker thread once per scheduler that serves displayed slots (switches the
// policy's decision recording on when it has one). Returns whether it has one.
bool prepareForDecisions(dl2::Scheduler &scheduler);
// Called on the worker thread right after a slot was simulated with `scheduler`.
DecisionLog collectDecisions(const dl2::Scheduler &scheduler, int slot);
// V(s) of the first inference of the scheduler's last slot (no copy of the record).
std::optional<double> lastSlotValue(const dl2::Scheduler &scheduler);
// Live operations: lets the planner fill each ResizeDecision's probability and value from
// the learned policy's decision record (no-op for other policies).
void attachDecisionReader(dl2::PolicyPlanner &planner);

} // namespace dl2console
