#pragma once
// The learned schedulers "dl2" (faithful) and "dl2-plus" (improved); see policyspec.h for
// every difference. Per slot: (dl2 only) one bundle per unfinished job, then one task per
// inference until stop, a failed allocation, or no valid action is left. A deployed policy
// decodes as its spec says (arg max of the masked probabilities, or a sample seeded by the
// policy's seed); trainers switch on sampling + job-aware exploration through ActorOptions
// and observe every decision.
// For the console's decision inspector, recordDecisions(Full) keeps, for each inference of the
// last slot, the state, the masked probabilities, the chosen action and V(s)
// (Scheduler::lastDecisions, decisionrecord.h); SlotValue keeps only V(s) at the slot's start.
// Recording never changes a decision: an arg max is taken on the logits either way.

#include "checkpoint.h"
#include "scheduler.h"
#include "stateencoder.h"
#include "rng.h"

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dl2 {

class PolicyNetwork;

// Job-aware exploration: Exploration (policyspec.h).
struct ActorOptions
{
    bool sample = false;    // sample from the policy instead of arg max
    bool greedy = false;    // arg max even where the spec decodes by sampling (over `sample`)
    double epsilon = 0.0;   // job-aware exploration probability in poor states (Paper)
    double threshold = 10.0; // worker:PS (or PS:worker) ratio that counts as poor (Paper)
    Exploration exploration = Exploration::Paper; // which rules, when epsilon > 0
    // Stop exploration: with this probability a decision that is not stop becomes stop (the
    // slot ends early), so the value of stopping is ever observed (beyond the reference).
    double stopEpsilon = 0.0;
    // Kind exploration (beyond the paper): with this probability the task a decision adds (after
    // the rules above) is replaced by one of its job's allowed tasks (worker, PS, bundle) drawn
    // uniformly, so every kind of task keeps being tried on every job type even when the
    // policy has stopped choosing it.
    double kindEpsilon = 0.0;
    // Called for every inference: state before the action, the action, the probability the
    // behaviour policy chose it with, the acted-on job index (-1 for stop).
    std::function<void(const EncodedState &, int action, float behaviourProb, int jobIndex)> onDecision;
};

// How many decisions a policy made, and how many of them exploration (job-aware or stop)
// replaced, since the counts were last taken.
struct ExplorationCounts
{
    long long decisions = 0;
    long long explored = 0;
};

class Dl2Policy final : public Scheduler
{
public:
    Dl2Policy(const PolicySpec &spec, std::shared_ptr<const ParameterSet> parameters,
              std::uint64_t seed = 1);
    ~Dl2Policy() override;

    std::string name() const override;
    void reset() override;
    void schedule(SlotContext &context) override;

    const PolicySpec &spec() const { return m_spec; }
    void setParameters(std::shared_ptr<const ParameterSet> parameters);
    // Restarts the sampling stream from `seed` (online learning draws the learning policy and
    // its frozen reference from the same numbers each slot: common random numbers).
    void reseed(std::uint64_t seed) { m_rng = Rng(seed); }
    void setActor(ActorOptions options) { m_actor = std::move(options); }
    bool recordDecisions(DecisionRecording level) override
    {
        m_recording = level;
        return true;
    }
    const std::vector<DecisionRecord> &lastDecisions() const override { return m_decisions; }
    std::optional<double> lastSlotValue() const override { return m_slotValue; }
    // Names the columns of the policy's state, in the encoder's order (stateencoder.cpp).
    DecisionLayout decisionLayout() const override;
    bool sampling() const
    {
        return !m_actor.greedy && (m_actor.sample || m_spec.decode == Decode::Sample);
    }
    // Whether V(s) is reported (lastSlotValue, DecisionRecord::value): on unless the value
    // network was never trained (TrainingInfo::valueTrained; the policy factory sets it).
    void setValueEstimates(bool on) { m_valueEstimates = on; }
    bool valueEstimates() const { return m_valueEstimates; }
    // Safety bound on inferences per slot.
    void setMaxInferences(int n) { m_maxInferences = n; }
    // The counts since the last call (the trainers' curves: the share exploration overrode).
    ExplorationCounts takeExplorationCounts()
    {
        return std::exchange(m_counts, ExplorationCounts());
    }

private:
    int choose(const EncodedState &state, const std::vector<float> &probs, float &behaviour,
               bool &explored);
    int exploreKind(const EncodedState &state, const std::vector<float> &probs, int action,
                    float &behaviour, bool &explored);
    int paperOverride(const EncodedState &state) const;
    int referenceOverride(const EncodedState &state, const std::vector<float> &probs);

    PolicySpec m_spec;
    StateEncoder m_encoder;
    std::unique_ptr<PolicyNetwork> m_network;
    ActorOptions m_actor;
    Rng m_rng;
    std::uint64_t m_seed;
    DecisionRecording m_recording = DecisionRecording::Off;
    std::optional<double> m_slotValue;
    int m_maxInferences = 20000;
    bool m_valueEstimates = true;
    std::vector<DecisionRecord> m_decisions;
    EncodedState m_state;
    std::vector<float> m_probs;
    std::vector<int> m_workers, m_ps; // per row, for exploration
    ExplorationCounts m_counts;
    int m_psWorkerRatio = 5;                 // Reference exploration: drawn per slot
    std::array<long long, 3> m_kindCounts{}; // ... worker / PS / bundle decisions so far
};

} // namespace dl2
