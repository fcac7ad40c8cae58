#pragma once
// Supervised warm-up (spec section 6): imitate a teacher scheduler. Cross-entropy on
// (state, teacher action) samples, Adam (0.005), batch 256 from a FIFO buffer of 8192,
// window shuffling for dl2. One update per simulated teacher slot once the buffer holds a
// batch. Reports train loss, validation loss and top-1 agreement on validation states, and
// the greedy policy's validation avg JCT; the best-on-validation checkpoint is kept.
// Seeds: training traces 1000, 1001, ... (seedBase), validation 100-109 by default; the
// test seeds 1-10 are never used in training.

#include "curves.h"
#include "policyspec.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dl2 {

struct SlOptions
{
    std::string scenario = "dl2-reference";
    std::string teacher = "drf";
    std::string teacherOrder = "auto"; // see teacherrecorder.h
    PolicyKind kind = PolicyKind::Dl2;
    std::optional<PolicySpec> spec; // default: defaultSpec(kind, scenario window, 8 types)
    long long steps = 300;
    std::uint64_t seed = 1;
    double learningRate = 0.005;
    int batchSize = 256;
    int bufferSize = 8192;
    bool shuffleWindow = true;
    std::uint64_t trainSeedBase = 1000;
    std::vector<std::uint64_t> validationSeeds = seedRange(100, 109);
    int validateEvery = 50;
    int threads = 1;
    std::string output;       // checkpoint path (empty: nothing written)
    bool saveOptimizer = true;
};

using TrainProgress = std::function<void(long long step, long long total, const CurvePoint &last)>;

class SlTrainer
{
public:
    explicit SlTrainer(SlOptions options);
    TrainResult run(const TrainProgress &progress = {}, const std::atomic<bool> *cancel = nullptr);

private:
    SlOptions m_options;
};

} // namespace dl2
