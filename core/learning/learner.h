#pragma once
// The trainable side of a policy: libtorch modules (policy + value network) and their
// optimizers (Adam; the policy's can be plain gradient descent) behind a torch-free
// interface. Only learner.cpp includes <torch/torch.h>; it is part of dl2training, which only
// dl2-train (and the training tests) link.

#include "checkpoint.h"
#include "experience.h"
#include "policyspec.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dl2 {

struct RlLossOptions
{
    // Entropy bonus weight. The entropy is the MEAN over the action layout (the reference's
    // mean over batch x actions), not the sum: a sum over 3J + 1 actions is 3J + 1 times
    // stronger and alone drives the policy to uniform.
    double entropyWeight = 0.1;
    // dl2 (beyond the paper): adds kindEntropyWeight x the entropy of each window row's mix of
    // worker, PS and bundle (the row's task probabilities renormalised), averaged over the rows
    // with an allowed task. The mean entropy over 3J + 1 actions barely sees that mix: a row
    // can stop adding workers while the layout's entropy hardly moves.
    double kindEntropyWeight = 0.0;
    // Importance ratios pi/mu clipped to [0, clip]; 0 = no correction (every sample at full
    // weight, as the reference trains on its exploration decisions).
    double importanceClip = 0.0;
    bool useValue = true;        // false: ablation, baseline = `baseline`
    double baseline = 0.0;
    double policyWeight = 1.0;        // 0 during the critic warm-up
    double advantageScale = 1.0;      // advantages are multiplied by this (trainer: 1 / running RMS)
    // Split credit: the decision "stop or add a task" is credited with the slot return
    // (advantage against V), the choice of task among the tasks with the task's own
    // counterfactual return (Sample::taskRet, centred on the batch mean, times
    // taskAdvantageScale).
    bool split = false;
    // Split with Sample::kindRet: the choice of kind within the row gets the all-actions
    // gradient of sum_k pi(k | row) kindRet_k, the choice of row the advantage of its
    // expected return under that mix (RlOptions::kindCredit "expected").
    bool kindExpected = false;
    // With kindExpected: the kind term of each sample is weighted so that every job type in
    // the batch carries the same total weight (Sample::jobType; RlOptions::kindCredit
    // "expected-balanced"). The common types otherwise teach the tied network the kind the
    // rare ones get.
    bool kindBalanced = false;
    // Split with Sample::actionRet (RlOptions::rowCredit "expected"): the choice of task given
    // that the policy continues gets the all-actions gradient of sum_a pi(a | continue)
    // actionRet_a over every task of the window, in every sample that has them; replaces the
    // row and kind terms. stopExpected ("expected-stop"): stop or continue is credited the
    // same way, stop with 0 (it adds nothing) and continue with that expected return,
    // instead of the slot return against V.
    bool rowExpected = false;
    bool stopExpected = false;
    // With stopExpected (RlOptions::stopCredit "best"): continue is credited with the largest
    // gain among the sample's allowed tasks instead of their expectation under the policy.
    bool stopBest = false;
    // With rowExpected (RlOptions::rowScale "decision"): each sample's actionRet divided by
    // their RMS over its allowed tasks, that RMS taken as at least a tenth of the batch's mean.
    bool rowPerDecision = false;
    // With rowExpected (RlOptions::kindCredit "every-row"): also every window row's choice of
    // kind, sum_k q(k | row) actionRet_(row, k) with q the row's own worker/PS/bundle mix,
    // averaged over the rows with an allowed task: each job's kind is taught at every decision,
    // however unlikely the policy is to pick its row.
    bool kindEveryRow = false;
    // With rowExpected (RlOptions::rowCredit "regret-stop"): the choice among tasks is taught
    // actionRet minus Sample::actionHeadroom, each task's regret: 0 for every task that keeps
    // its job's best within reach, whatever the job, so the order among jobs gets no gradient
    // and only tasks that lose reachable progress are pushed down. Stop or continue still
    // uses actionRet.
    bool rowRegret = false;
    double taskAdvantageScale = 1.0;
    // Control runs: when non-empty (size = batch), sample i's policy-gradient advantages are
    // those of sample permutation[i], which keeps their distribution and destroys their
    // pairing with the actions. The critic still learns from the true returns.
    std::vector<std::int64_t> permutation;
    // Trust region: adds klWeight x KL(reference || policy), averaged like the other terms,
    // where the reference is the policy frozen by Learner::setReference (the warm-up).
    double klWeight = 0.0;
};
struct RlUpdateStats
{
    double policyLoss = 0.0;
    double valueLoss = 0.0;
    double entropy = 0.0;
    std::vector<float> advantages; // per sample (raw return - baseline), for priorities
    std::vector<float> taskAdvantages; // split: per sample (taskRet - batch mean; 0 for stop)
    double kl = 0.0; // KL(reference || policy) on the batch (0 without a reference)
};

class Learner
{
public:
    // The policy and the value network have separate Adam optimizers (the reference's two
    // networks); valueLearningRate <= 0 uses learningRate for both.
    Learner(const PolicySpec &spec, double learningRate, std::uint64_t seed,
            double valueLearningRate = 0.0);
    // Networks (and, if present and wanted, the optimizer state) from a checkpoint. Optimizer
    // state from before the split into two optimizers is not loaded (fresh Adam moments).
    Learner(const Checkpoint &checkpoint, double learningRate, bool loadOptimizer,
            double valueLearningRate = 0.0);
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
    // dl2 only (SL, and the actor-critic with RlOptions::tieWindow): ties the policy's
    // weights across the window positions, so that the flat network computes the same function
    // of every position's features (permutation-equivariant, a shared per-job network with
    // pooled interactions, written as the paper's flat layers; each hidden layer gives
    // hidden / J units to every position, the rest are global). Switching it on ties the
    // weights (a fresh network from one entry of each class), and while on every SL and
    // actor-critic step keeps them tied. Off again, the layers train freely from there.
    // Throws dl2::Error for dl2-plus or fewer hidden units than positions.
    void setTiedWindow(bool on, bool perJobScale = false);
    // Tied dl2 with one-hot types only (after setTiedWindow(true)): the weights from a
    // position's type one-hot to its own layer-1 units take `oneHot` times the optimizer's
    // step, and those from its per-type count bits `counts` times (a larger learning rate on
    // the type's path alone: Adam's step does not grow with the gradient). Throws dl2::Error
    // when the network is not tied, has no one-hot type, or (counts != 1) no count bits.
    void setTypeStepScale(double oneHot, double counts = 1.0);
    // One actor-critic step (a policy step unless options.policyWeight is 0, and a value
    // step); weights[i] scales sample i's loss (they should sum to 1).
    RlUpdateStats rlUpdate(const std::vector<const Sample *> &batch,
                           const std::vector<float> &weights, const RlLossOptions &options);
    // Data-parallel training: after every backward pass and before the optimizer step, each
    // network's gradient (all its parameters, flattened in order) is handed to `reducer`,
    // which must replace it by the average over the ranks (distributed.h). With a reducer,
    // slUpdate/rlUpdate on an empty batch still take part, with a zero gradient.
    using GradientReducer = std::function<void(std::vector<float> &gradient)>;
    void setGradientReducer(GradientReducer reducer);
    // The policy steps by plain gradient descent (the gradient times the learning rate, after
    // the clipping and the tied window's class means) instead of Adam; the value network keeps
    // its Adam. Adam steps every weight by about the learning rate whatever the size of its
    // gradient, so weights whose gradient is mostly noise random-walk as fast as those with
    // signal; gradient descent steps each by its gradient (core/learning/README.md, "What
    // drifts and where it ends"). Adam moments loaded from a checkpoint are dropped, and
    // archive() then holds none for the policy.
    void setPlainGradientDescent();
    // The policy's learning rate from now on (Adam's or gradient descent's); the value
    // network's is left as it is.
    void setPolicyLearningRate(double learningRate);
    // Freezes these weights as the reference policy of RlLossOptions::klWeight.
    void setReference(const ParameterSet &parameters);
    // A copy of the current weights for torch-free inference.
    std::shared_ptr<const ParameterSet> parameters() const;
    // The weights and (withOptimizer) the Adam state, for encodeCheckpoint.
    NetworkArchive archive(bool withOptimizer) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Throws dl2::Error when Learner::setTiedWindow cannot tie this network (not dl2, or fewer
// hidden units than window positions).
void checkTiedWindow(const PolicySpec &spec);

// at::set_num_threads, once, before training.
void setTorchThreads(int threads);

// Lets readCheckpoint read format version 1 (weights in a libtorch archive) in this process.
void enableLegacyCheckpoints();
// The libtorch archive a version-1 file held (tests of the conversion).
std::string legacyCheckpointArchive(const ParameterSet &parameters);

} // namespace dl2
