#pragma once
// The trainable side of a policy: libtorch modules (policy + value network) and their Adam
// optimizer behind a torch-free interface. Only learner.cpp includes <torch/torch.h>; it is
// part of dl2training, which only dl2-train (and the training tests) link.

#include "checkpoint.h"
#include "experience.h"
#include "policyspec.h"

#include <memory>
#include <string>
#include <vector>

namespace dl2 {

struct RlLossOptions
{
    double entropyWeight = 0.1;
    double importanceClip = 1.0; // ratios pi/mu clipped to [0, clip]
    bool useValue = true;        // false: ablation, baseline = `baseline`
    double baseline = 0.0;
    double valueWeight = 0.5;
    double policyWeight = 1.0;        // 0 during the critic warm-up
    bool normaliseAdvantages = false; // per-batch mean/std normalisation
    double advantageScale = 1.0;      // advantages are multiplied by this (trainer: 1 / running std)
};

struct RlUpdateStats
{
    double policyLoss = 0.0;
    double valueLoss = 0.0;
    double entropy = 0.0;
    std::vector<float> advantages; // per sample (raw return - baseline), for priorities
};

class Learner
{
public:
    Learner(const PolicySpec &spec, double learningRate, std::uint64_t seed);
    // Networks (and, if present and wanted, the optimizer state) from a checkpoint.
    Learner(const Checkpoint &checkpoint, double learningRate, bool loadOptimizer);
    ~Learner();
    Learner(const Learner &) = delete;
    Learner &operator=(const Learner &) = delete;

    const PolicySpec &spec() const;
    // One Adam step on the cross-entropy of the samples' actions; returns the loss.
    double slUpdate(const std::vector<const Sample *> &batch);
    // Cross-entropy without a step.
    double slLoss(const std::vector<const Sample *> &batch);
    // SL on samples with set targets: per-action binary cross-entropy on the logits ("is
    // this task needed"), instead of the soft cross-entropy. Off by default.
    void setSlMultiLabel(bool on);
    // One actor-critic step; weights[i] scales sample i's loss (they should sum to 1).
    RlUpdateStats rlUpdate(const std::vector<const Sample *> &batch,
                           const std::vector<float> &weights, const RlLossOptions &options);
    // A copy of the current weights for torch-free inference.
    std::shared_ptr<const ParameterSet> parameters() const;
    // The weights and (withOptimizer) the Adam state, for encodeCheckpoint.
    NetworkArchive archive(bool withOptimizer) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// at::set_num_threads, once, before training.
void setTorchThreads(int threads);

// Lets readCheckpoint read format version 1 (weights in a libtorch archive) in this process.
void enableLegacyCheckpoints();
// The libtorch archive a version-1 file held (tests of the conversion).
std::string legacyCheckpointArchive(const ParameterSet &parameters);

} // namespace dl2
