#pragma once
// State encoding and action masking of the learned policies (docs/model.md section 5; dl2-plus
// differences in policyspec.h). The encoder is incremental: after a task is added only that
// job's row, the global features and the mask change, so one inference stays cheap.
//
// Actions: a = 3 * row + k with k = 0 worker, 1 PS, 2 bundle; a = 3 * rows is stop.

#include "policyspec.h"
#include "types.h"

#include <cstdint>
#include <vector>

namespace dl2 {

class SlotContext;

struct EncodedState
{
    int rows = 0;      // dl2: J (empty positions padded with zeros); dl2-plus: jobs in view
    int jobDim = 0;
    int globalDim = 0;
    std::vector<float> jobs;          // rows x jobDim
    std::vector<float> global;        // globalDim
    std::vector<std::uint8_t> mask;   // 3 x rows + 1; mask[3 x rows] (stop) is always 1
    std::vector<int> jobIndex;        // context job index per row, -1 for an empty position
    // Feasibility (fits on some node) per distinct task demand, as the mask last saw it.
    std::vector<std::pair<Demand, bool>> feasible;
    // Change tracking for incremental consumers (PolicyNetwork): a full encode gives a new
    // encodeId (0 = untracked, e.g. a state rebuilt from a training sample); each partial
    // update rewrites one row (updatedRow) and the globals, and counts in `updates`.
    std::uint64_t encodeId = 0;
    std::uint64_t updates = 0;
    int updatedRow = -1;

    int actionCount() const { return 3 * rows + 1; }
    int stopAction() const { return 3 * rows; }
    bool isStop(int action) const { return action == 3 * rows; }
    int validActions() const;
};

// Action a's row and task kind (a must not be the stop action).
inline int actionRow(int action) { return action / 3; }
TaskKind actionKind(int action);

class StateEncoder
{
public:
    explicit StateEncoder(const PolicySpec &spec);

    const PolicySpec &spec() const { return m_spec; }
    // Full encoding of the context (window, rows, global features, mask).
    void encode(const SlotContext &context, EncodedState &state) const;
    // After a task was added to `jobIndex`: updates its row, the global features and the mask
    // (re-encodes everything if the job left the window).
    void update(const SlotContext &context, int jobIndex, EncodedState &state) const;

    void encodeJob(const SlotContext &context, int jobIndex, float *row) const;
    void encodeGlobal(const SlotContext &context, float *global) const;
    void computeMask(const SlotContext &context, EncodedState &state) const;
    // Mask of one row (uses state.feasible).
    void computeRowMask(const SlotContext &context, int row, EncodedState &state) const;
    // Window: dl2 = first J unfinished jobs by arrival not at both caps; dl2-plus = all such.
    std::vector<int> window(const SlotContext &context) const;

private:
    PolicySpec m_spec;
};

} // namespace dl2
