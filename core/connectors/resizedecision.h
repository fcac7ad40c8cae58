#pragma once
// One proposed change of a job's allocation for one slot, from the policy's allocation to the
// cluster: who (job), when (slot), from -> to (PSs, workers, nodes), and what the speed model
// predicts before and after. The id "<run-id>/<slot>/<job>" is unique and stable, so a
// re-proposal after a restart maps onto the same audit record and the same agent record.

#include "types.h"

#include <QJsonObject>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dl2 {

// A job's (ps, workers) and, when the policy placed them, where its tasks run.
struct Allocation : TaskCounts
{
    std::vector<TaskPlacement> tasks; // empty: the backend places the tasks
    int taskCount() const { return ps + workers; }
    bool sameSize(const Allocation &o) const { return TaskCounts(*this) == TaskCounts(o); }
    bool operator==(const Allocation &) const = default;
};

// What a learned policy reports about its proposal for one job (see PolicyPlanner).
struct ActionConfidence
{
    std::optional<double> probability;
    std::optional<double> value;
};
using ConfidenceByJob = std::map<int, ActionConfidence>; // key: job id

struct ResizeDecision
{
    std::string id;
    int slot = 0;
    int job = 0;
    Allocation from;
    Allocation to;
    double speedBefore = 0.0; // steps/s predicted by the speed model
    double speedAfter = 0.0;
    std::optional<double> probability; // of the policy's action, when the policy has one
    std::optional<double> value;       // critic's value estimate, when the policy has one

    static std::string makeId(const std::string &runId, int slot, int job);
    bool isScaleDown() const
    {
        return to.ps <= from.ps && to.workers <= from.workers && !(to.sameSize(from));
    }
    int taskChange() const;
    bool operator==(const ResizeDecision &) const = default;
};

QJsonObject toJson(const Allocation &allocation);
Allocation allocationFromJson(const QJsonObject &object);
QJsonObject toJson(const ResizeDecision &decision);
ResizeDecision decisionFromJson(const QJsonObject &object);
std::string describe(const Allocation &allocation); // "2 PS / 3 workers"

} // namespace dl2
