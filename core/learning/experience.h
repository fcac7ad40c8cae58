#pragma once
// Training samples (one per inference) and the replay buffer: uniform or prioritised
// (proportional to |advantage| + epsilon), bounded, oldest overwritten.

#include "stateencoder.h"
#include "rng.h"

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace dl2 {

// A sample's rows x jobDim inputs, kept sparse when most of them are zero: dl2's window of 60
// with per-type count features is 15,060 inputs with 5-10 % nonzero, and the SL trainer keeps
// 65,536 samples (3.9 GB dense). Denser inputs (dl2-plus) are kept as they are.
class SampleInputs
{
public:
    SampleInputs() = default;
    SampleInputs(const std::vector<float> &dense) { assign(dense.data(), dense.size()); }
    void assign(const float *dense, size_t size);
    size_t size() const { return m_size; }
    bool sparse() const { return m_sparse; }
    // Writes the inputs to dst[0, size()); with zeroed == true dst is already all zeros.
    void writeTo(float *dst, bool zeroed = false) const;
    std::vector<float> dense() const;
    size_t bytes() const { return m_index.capacity() * sizeof(std::uint32_t) + m_value.capacity() * sizeof(float); }

private:
    size_t m_size = 0;
    bool m_sparse = false;
    std::vector<std::uint32_t> m_index; // sparse: positions of the nonzero inputs (ascending)
    std::vector<float> m_value;         // sparse: their values; dense: all size() inputs
};

struct Sample
{
    int rows = 0;
    SampleInputs jobs;         // rows x jobDim
    std::vector<float> global;
    std::vector<std::uint8_t> mask; // 3 x rows + 1
    int action = 0;            // 3 x rows = stop
    float behaviourProb = 1.0f; // probability the acting policy chose `action` with
    float ret = 0.0f;          // return credited to the action
    // Split credit: the counterfactual return of the task this action added (the slot reward
    // minus the slot reward without that task); NaN for stop and when not computed.
    float taskRet = std::numeric_limits<float>::quiet_NaN();
    int jobIndex = -1;         // acted-on job (per-action reward ablation)
    // The acted-on job's PSs and workers when the action was taken (task marginal "added").
    std::int16_t psBefore = 0, workersBefore = 0;
    // Kind credit "expected": the counterfactual return of each task the acted-on row allowed
    // (worker, PS, bundle; NaN where masked or not computed), taken like taskRet.
    std::array<float, 3> kindRet{std::numeric_limits<float>::quiet_NaN(),
                                 std::numeric_limits<float>::quiet_NaN(),
                                 std::numeric_limits<float>::quiet_NaN()};
    // Kind credit "expected-balanced": the acted-on job's type (JobState::type), -1 unknown.
    std::int16_t jobType = -1;
    // Row credit "expected": the window rows with an allowed task when the decision was taken,
    // with their job and its allocation then (kept until the slot ends), and from them the
    // exact return of every task action of the layout (3 x rows; NaN where not allowed).
    struct RowAllocation
    {
        std::int16_t row = 0, ps = 0, workers = 0;
        std::int32_t job = -1;
    };
    std::vector<RowAllocation> rowAllocations;
    std::vector<float> actionRet;
    // Row credit "regret-stop": each task action's row headroom (its job's best reachable
    // progress against its progress then, weighted like actionRet; 0 where not allowed). The
    // choice among tasks is taught actionRet minus it, the task's regret.
    std::vector<float> actionHeadroom;
    int env = 0;
    // SL "set" labels: a distribution over the 3 x rows + 1 actions (empty: one-hot `action`).
    std::vector<float> target;

    static Sample fromState(const EncodedState &state, int action);
    // The inverse of fromState (rows keep their order); reuses `out`'s buffers.
    void toState(const PolicySpec &spec, EncodedState &out) const;
};

// Permutes the rows of a dl2 (flat window) sample: the SL "window shuffling" augmentation.
Sample shuffledWindow(const Sample &sample, Rng &rng);

enum class ReplayMode { None, Uniform, Prioritised };
const char *toString(ReplayMode mode);
ReplayMode replayModeFromString(const std::string &name);

class ReplayBuffer
{
public:
    ReplayBuffer(int capacity, ReplayMode mode);
    int size() const { return static_cast<int>(m_samples.size()); }
    void add(Sample sample, float priority = 1.0f);
    // Indices of `count` samples (with replacement).
    std::vector<int> sample(int count, Rng &rng) const;
    const Sample &at(int index) const { return m_samples[size_t(index)]; }
    void setPriority(int index, float priority);

private:
    int m_capacity;
    ReplayMode m_mode;
    std::vector<Sample> m_samples;
    std::vector<float> m_priority;
    int m_next = 0;
};

} // namespace dl2
