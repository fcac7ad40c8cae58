#pragma once
// Training samples (one per inference) and the replay buffer: uniform or prioritised
// (proportional to |advantage| + epsilon), bounded, oldest overwritten.

#include "stateencoder.h"
#include "rng.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace dl2 {

struct Sample
{
    int rows = 0;
    std::vector<float> jobs;   // rows x jobDim
    std::vector<float> global;
    std::vector<std::uint8_t> mask; // 3 x rows + 1
    int action = 0;            // 3 x rows = stop
    float behaviourProb = 1.0f; // probability the acting policy chose `action` with
    float ret = 0.0f;          // return credited to the action
    // Split credit: the counterfactual return of the task this action added (the slot reward
    // minus the slot reward without that task); NaN for stop and when not computed.
    float taskRet = std::numeric_limits<float>::quiet_NaN();
    int jobIndex = -1;         // acted-on job (per-action reward ablation)
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
