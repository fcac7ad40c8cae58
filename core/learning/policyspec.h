#pragma once
// What a learned policy is: its kind, state encoding, network sizes and the inference-loop
// rules. Stored in every checkpoint and checked on load.
//
// dl2 (faithful to the paper / reference code, docs/model.md section 5):
//   - window of J jobs by arrival (jobs at both caps left out), J x F flattened input with
//     F = type (one-hot by default = paper, raw id with oneHotType=false = code) + 5 features
//     (slots since arrival, remaining fraction, dominant share, workers, PSs), unnormalised by
//     default (the code) or normalised (FeatureOptions::normalise);
//   - 3J + 1 actions (worker / PS / bundle for window position i, then stop);
//   - two hidden ReLU layers (paper: 256 each) + softmax; value net with the same body;
//   - every unfinished job first gets one bundle; the slot ends on stop, the first failed
//     allocation on the simulation's placement rule, or an empty window.
// dl2-plus (improvements, docs/model.md section 9):
//   - per-job encoder shared across jobs (permutation invariant, any number of jobs, no
//     window truncation), type-free normalised job features (demands, speed gains from the
//     profile's speed estimate) so new job types need no retraining, global features
//     (free CPU/GPU capacity, load) fed to the heads, a separate stop output;
//   - feasibility masking over all nodes (FirstFit): a task that fits nowhere is masked and a
//     task that fits somewhere is placed there, so the slot never ends on a failed allocation;
//   - no forced bundle per job (the policy decides who runs);
//   - trained with reward = minus unfinished jobs per slot (exact JCT signal), optionally.

#include <string>

namespace dl2 {

enum class PolicyKind { Dl2, Dl2Plus };
const char *toString(PolicyKind kind);
// Throws dl2::Error for anything but "dl2" / "dl2-plus".
PolicyKind policyKindFromString(const std::string &name);

// How a deployed policy turns its probabilities into a decision. The reference deploys and
// validates the sampled policy (SELECT_ACTION_MAX_PROB = False); sampling is seeded by the
// policy's seed (per simulation), so a run stays deterministic.
enum class Decode { Greedy, Sample };
const char *toString(Decode decode);
// Throws dl2::Error for anything but "greedy" / "sample".
Decode decodeFromString(const std::string &name);

// Job-aware exploration (dl2, training only):
//   - Paper: in a poor state (a window job with workers but no PS, PSs but no worker, or a
//     worker:PS ratio beyond `threshold`) the first such job's corrective task replaces the
//     policy's choice with probability `epsilon` (the paper's description).
//   - Reference: the rules of the authors' code (rl_env.py), which override far more often:
//     the least-resourced window job gets a worker or a bundle when the most-resourced one has
//     3-5 x its tasks; then, for the first window job that matches: a job without a worker or
//     a PS gets it; a job with more than r x as many PSs as workers (r drawn per slot, 3-7)
//     gets a worker or a bundle with probability 1/2; a job with at least half as many workers
//     as PSs gets a PS (1 in 100: a bundle) with probability 1/2; and a task kind chosen in
//     under 0.1 % of the decisions so far is forced. `epsilon` > 0 only switches it on
//     (the no-exploration ablation sets 0); `threshold` is not used.
enum class Exploration { Paper, Reference };
const char *toString(Exploration e);
// Throws dl2::Error for anything but "paper" / "reference".
Exploration explorationFromString(const std::string &name);

// How dl2 (faithful) encodes a job's workers and PSs. `Scalar`: the two counts (the paper's
// state). `PerType` (a departure, training choice): also, for every job type t and every level
// c = 2..16, the bits [type = t and workers >= c] and [type = t and PSs >= c] (2 x 15 x types
// more inputs per job; counts above 16 read as 16). The same information as the scalars, in a
// form where "this type has reached c" is one input: the scalar students' logits fall with the
// count as a straight line and cannot stop at each type's own count (core/learning/README.md,
// "Per-type count features").
enum class CountFeatures { Scalar, PerType };
const char *toString(CountFeatures counts);
// Throws dl2::Error for anything but "scalar" / "per-type".
CountFeatures countFeaturesFromString(const std::string &name);
inline constexpr int kCountLevels = 15; // c = 2..16
// A dl2 job row (StateEncoder::encodeJob): the type (one-hot: `types` entries), these scalar
// features (age, remaining, dominant share, workers, PSs), then per type the count bits.
inline constexpr int kJobScalarFeatures = 5;

struct FeatureOptions
{
    bool oneHotType = true;
    bool normalise = false;
    // dl2-plus only: four more job features from the speed model the cluster runs on (the
    // measured table where there is one): the gap from the job's workers and PSs to its
    // fastest setting within the caps, the slots left at that setting, and the share of that
    // speed it reaches now. The type-free features see only the fitted estimate's one-step
    // gains, which on the measured (non-concave) surface do not show where the best setting
    // is; the faithful dl2 learns it per type from its one-hot type instead.
    bool bestSetting = false;
    CountFeatures counts = CountFeatures::Scalar; // dl2 only
};

struct PolicySpec
{
    PolicyKind kind = PolicyKind::Dl2;
    int window = 40;  // J; dl2-plus: 0 = every unfinished job
    int types = 8;    // job types the dl2 one-hot encodes
    FeatureOptions features;
    int hidden1 = 256;
    int hidden2 = 256;
    bool initialBundles = true;
    bool feasibilityMask = false;
    Decode decode = Decode::Greedy; // stored in checkpoints; an old file (no field) is greedy

    int jobDim() const;
    // dl2: where a job row's per-type count bits start (after the type input and the scalar
    // features); type t's 2 x kCountLevels bits (workers, then PSs) follow at t x 2 kCountLevels.
    int countBitsFrom() const;
    int globalDim() const;
    // dl2: J x jobDim (the flat network input); dl2-plus: jobDim.
    int stateDim() const;
    // dl2: 3J + 1; dl2-plus: 4 (worker, PS, bundle per job + stop) as stored in checkpoints.
    int actionDim() const;
};

// The defaults of a kind for a scenario window and type count.
PolicySpec defaultSpec(PolicyKind kind, int window, int types);

inline constexpr int kPlusJobFeatures = 14;
inline constexpr int kPlusBestSettingFeatures = 4;
inline constexpr int kPlusGlobalFeatures = 4;

} // namespace dl2
