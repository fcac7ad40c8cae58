#pragma once
// Reinforcement learning (spec section 6, with the section 9 corrections):
//   - actor-critic: advantage = return - V(s), return = slot reward + discount x V(first
//     state of the next slot) (bootstrapped one slot ahead; discount 0.9 as in the paper;
//     0 gives the reference code's per-slot bandit); every action of a slot gets that
//     slot's return (or, ablation per-action-reward, its own job's progress);
//   - entropy bonus 0.1, Adam 1e-4, batch 256, one update per slot;
//   - N environments (threads) step one slot each per update; the batch weights every
//     environment equally (= averaging their gradients);
//   - experience replay (uniform, prioritised by |advantage| or none) of 8192 samples, with
//     off-policy correction: the policy-gradient term is weighted by the importance ratio
//     pi(a|s) / mu(a|s) clipped to [0, importanceClip], mu = the behaviour probability stored
//     with the sample (including the exploration mixture);
//   - job-aware exploration: in poor states (worker without PS, PS without worker,
//     worker:PS ratio beyond threshold 10) the corrective action replaces the policy's with
//     probability epsilon 0.4;
//   - the best checkpoint on the validation seeds (100-109 by default; training traces use
//     seeds seedBase = 1000, 1001, ...; test seeds 1-10 are never touched) is kept;
//   - ablations: "no-value" (baseline = running mean return), "no-exploration", "no-replay",
//     "per-action-reward".
//   - algorithm "es" replaces all of the above by evolution strategies on the output layer
//     (estrainer.cpp): the greedy policy's average JCT on training traces is the objective,
//     which is what evaluation measures. Requires --init; uses steps (iterations), seed, lr,
//     threads, validation and output;
//   - the critic is warmed up first (criticWarmup updates train only V; an SL checkpoint
//     has an untrained value network, whose noise would otherwise drive the policy);
//   - advantages are scaled by their running RMS (not normalised per batch), and with replay
//     at most half of a batch is fresh (one slot's samples share one return).

#include "curves.h"
#include "experience.h"
#include "policyspec.h"
#include "sltrainer.h"

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace dl2 {

struct RlOptions
{
    std::string scenario = "dl2-reference";
    std::optional<ProfileSet> profiles; // job types and speed model (default: the reference set)
    std::string init;               // checkpoint to start from (empty: fresh networks of `kind`)
    PolicyKind kind = PolicyKind::Dl2;
    std::optional<PolicySpec> spec; // for fresh networks
    int envs = 1;
    long long steps = 1000;
    std::uint64_t seed = 1;
    double learningRate = 1e-4;
    int batchSize = 256;
    int bufferSize = 8192;
    double entropyWeight = 0.1;
    double epsilon = 0.4;
    double threshold = 10.0;
    double discount = 0.9;
    double importanceClip = 1.0;
    ReplayMode replay = ReplayMode::Uniform;
    std::optional<bool> unfinishedJobsReward; // default: dl2-plus yes, dl2 no (reference reward)
    std::vector<std::string> ablations;      // no-value, no-exploration, no-replay, per-action-reward
    std::uint64_t trainSeedBase = 1000;
    std::vector<std::uint64_t> validationSeeds = seedRange(100, 109);
    int validateEvery = 200;
    int criticWarmup = 300; // updates that train only the value network first (0 = none)
    int threads = 1;
    std::string output;
    bool saveOptimizer = true;
    std::string algorithm = "actor-critic"; // or "es"
    // es: antithetic direction pairs per iteration; training traces per iteration (shared by
    // all members); perturbation scale; "head" (output layer, see estrainer.cpp) or "bias".
    int esPairs = 8;
    int esTraces = 4;
    double esSigma = 0.1;
    std::string esScope = "head";
};

class RlTrainer
{
public:
    explicit RlTrainer(RlOptions options);
    TrainResult run(const TrainProgress &progress = {}, const std::atomic<bool> *cancel = nullptr);

private:
    RlOptions m_options;
};

// The "es" algorithm (estrainer.cpp); RlTrainer::run dispatches to it.
TrainResult runEsTrainer(const RlOptions &options, const TrainProgress &progress,
                         const std::atomic<bool> *cancel);

// Throws dl2::Error for an unknown ablation name.
void checkAblations(const std::vector<std::string> &ablations);

} // namespace dl2
