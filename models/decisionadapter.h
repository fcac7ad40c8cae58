#pragma once
// The one place where the console learns what a policy decided and why.
//
// A scheduler exposes its decision record through core's Scheduler interface
// (recordDecisions / lastDecisions / decisionLayout, core/decisionrecord.h); the learned DL2
// policies keep one, the others do not and the inspector says it is available for dl2 /
// dl2-plus. Data flow: worker thread -> DecisionLog (a value) -> SnapshotPacket ->
// DecisionInspector.

#include "decisionrecord.h"

#include <QList>
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
    int first = 0;       // offset in a row of DecisionRecord::features
    int count = 1;       // > 1: one-hot group (a model name), or 0/1 inputs if `bits`
    bool bits = false;   // shown as how many are set
};

struct DecisionLog
{
    bool available = false; // false: the policy does not expose decisions
    int slot = -1;
    QString policy; // "dl2", "dl2-plus"
    QString notes;  // how the policy's slot works (forced bundles, ...); when not available: why
    std::vector<FeatureColumn> columns; // of the per-job features
    std::vector<FeatureColumn> globals; // of DecisionRecord::global
    // One per inference. Implicitly shared: a window-60 slot's 1,500 records are about 15 MB,
    // and the log goes from the worker to the session to the inspector's models by value.
    QList<dl2::DecisionRecord> steps;

    // V(s) of the first inference: the state at the start of the slot.
    std::optional<double> slotValue() const;
};

// "worker", "PS", "bundle", "stop" for action a of a state with `rows` rows.
QString actionKindName(int action, int rows);
// What happened to an inference's task: "" (placed, or stop), "no capacity", "at cap".
QString taskResultText(const dl2::DecisionRecord &step);

// Called on the worker thread for a scheduler whose slots are displayed: sets how much of
// its decisions the policy records (Full for a slot the inspector shows, SlotValue for the
// reward plot's V(s) of every slot). Returns whether it keeps a record.
bool prepareForDecisions(dl2::Scheduler &scheduler,
                         dl2::DecisionRecording level = dl2::DecisionRecording::Full);
// Called on the worker thread right after a slot was simulated with `scheduler`.
DecisionLog collectDecisions(const dl2::Scheduler &scheduler, int slot);
// Live operations: lets the planner fill each ResizeDecision's probability and value from
// the learned policy's decision record (no-op for other policies).
void attachDecisionReader(dl2::PolicyPlanner &planner);

} // namespace dl2console
