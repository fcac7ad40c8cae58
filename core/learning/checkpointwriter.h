#pragma once
// The one checkpoint writer the trainers (SL, actor-critic, ES) share: the policy a run keeps
// (best on validation, or the last) with the state a resumed run continues from.

#include "checkpoint.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dl2 {

struct TrainResult;

// A trainer's own part of the resume state.
struct TrainerState
{
    std::uint64_t rng = 0;       // its random-number generator
    std::uint64_t nextSeed = 0;  // of the next training trace
    std::vector<double> values;  // what else it needs (running statistics, ES's Adam state)
};

class CheckpointWriter
{
public:
    // Nothing is written when `path` is empty (no output, or a rank other than 0). `worldSize`
    // goes into the resume state (0: any world size resumes). Without `withOptimizer` the file
    // holds the weights only.
    CheckpointWriter(std::string path, PolicySpec spec, TrainingInfo info, int worldSize,
                     bool withOptimizer);

    bool enabled() const { return !m_path.empty(); }
    TrainingInfo &info() { return m_info; }

    // Writes (atomically) the checkpoint of `step`, whose validation avg JCT is `jct` (-1 =
    // not validated), with result's best so far and `state`; `network` is asked for the
    // weights (and optimizer state) only when something is written.
    void save(long long step, double jct, const TrainResult &result, TrainerState state,
              const std::function<NetworkArchive()> &network);

private:
    std::string m_path;
    PolicySpec m_spec;
    TrainingInfo m_info;
    int m_worldSize = 1;
    bool m_withOptimizer = true;
};

} // namespace dl2
