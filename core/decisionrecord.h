#pragma once
// What a policy decided in a slot and why: one record per inference of a learned policy (the
// state its network saw, the masked probabilities, the chosen action, V(s)) and the names of
// the state's columns. Any Scheduler may keep one (Scheduler::recordDecisions); the learned
// DL2 policies do. Read by the console's decision inspector and, reduced to the outcome
// (PolicyActionSummary), by the operating loop for each resize decision's confidence.

#include "types.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dl2 {

class Scheduler;

// How much a learned policy records of its decisions (Scheduler::recordDecisions): nothing;
// only V(s) at the start of each slot (one value-network pass per slot: the console's reward
// plot of a whole run); or every inference's record (the decision inspector's slot; a second
// network pass and a copy of the state per inference).
enum class DecisionRecording { Off, SlotValue, Full };

struct DecisionRecord
{
    int slot = 0;
    int inference = 0;
    int jobDim = 0;
    std::vector<int> jobIds;           // per row (-1 = empty window position)
    // The inputs, rows x jobDim, exactly as the network saw them (read them with feature(i)
    // or denseFeatures()): in `features`, or, when most of them are 0 (dl2's per-type count
    // features: about 18 of 251 per row), only the non-zero ones in `sparseFeatures`, by
    // index, with `features` empty. A slot of the window-60 policy has 1,500 inferences of
    // 15,060 inputs each: dense, its records took 91 MB.
    std::vector<float> features;
    std::vector<std::pair<std::uint32_t, float>> sparseFeatures;
    std::vector<float> global;         // global features (dl2-plus)
    std::vector<float> probabilities;  // masked, renormalised, 3 x rows + 1: a masked action has 0
    std::vector<std::uint8_t> mask;    // 3 x rows + 1, 1 = valid (a valid action's probability
                                       // can still round to 0)
    // a = 3 x row + k (k = 0 worker, 1 PS, 2 bundle); a = 3 x rows is stop.
    int action = 0;
    bool stop = false;
    int jobId = -1;                    // acted-on job (-1 for stop)
    TaskKind kind = TaskKind::Worker;
    int workersBefore = 0, psBefore = 0; // the acted-on job's, before this action
    bool explored = false;             // replaced by job-aware exploration (training only)
    // V(s) of the value network; none when that network was never trained (a policy trained
    // by SL or ES alone: its estimate would be noise, Dl2Policy::setValueEstimates).
    std::optional<float> value;
    AddResult result = AddResult::Ok;  // of the acted-on task (Ok for stop)

    int rows() const { return static_cast<int>(jobIds.size()); }
    bool isMasked(int a) const
    {
        return mask.empty() ? probabilities[static_cast<size_t>(a)] <= 0.0f
                            : !mask[static_cast<size_t>(a)];
    }
    int validActions() const;
    // Stores `inputs` (rows x jobDim) densely, or sparsely when that takes less memory.
    void setFeatures(const std::vector<float> &inputs);
    float feature(std::size_t index) const;
    std::vector<float> denseFeatures() const;
    std::size_t featureCount() const { return jobIds.size() * static_cast<std::size_t>(jobDim); }
};

// One named column of the state a policy saw. A one-hot group (dl2's job type) is one column
// of `count` entries; so is a group of 0/1 inputs (`bits`: dl2's per-type count features),
// shown as how many of them are set.
struct DecisionFeature
{
    std::string name;
    std::string description; // what the number means
    int first = 0;           // offset in a row of DecisionRecord::features (or in global)
    int count = 1;
    bool bits = false;
};

// How to read a policy's records: its name, how its slot works, its columns.
struct DecisionLayout
{
    std::string policy; // "dl2", "dl2-plus"
    std::string notes;
    std::vector<DecisionFeature> columns; // of a row of DecisionRecord::features
    std::vector<DecisionFeature> globals; // of DecisionRecord::global
};

// The outcome of one inference, all the operating loop needs for a decision's confidence.
struct PolicyActionSummary
{
    int jobId = -1;      // -1 for stop
    bool placed = false; // the task was allocated (not stop, not a failed allocation)
    double probability = 0.0;
    std::optional<double> value; // V(s) before the action (none: value network untrained)
};

// Switches a scheduler's decision record on; false when it keeps none.
bool recordPolicyActions(Scheduler &scheduler);
// The inferences of the scheduler's last slot (empty when it keeps no record).
std::vector<PolicyActionSummary> lastPolicyActions(const Scheduler &scheduler);

} // namespace dl2
