#pragma once
// Reinforcement learning (docs/model.md section 6; what we keep of the paper and where we depart,
// with the runs behind each choice: core/learning/README.md):
//   - actor-critic: the policy and the value network have separate Adam optimizers (policy
//     1e-4, value 1e-3); V is regressed on the return; return = slot reward (+ discount x
//     V(first state of the next slot) when discount > 0; the reference's 0 is the default);
//     the critic alone is trained for criticWarmup updates first (an SL checkpoint has an
//     untrained value network, whose noise would otherwise drive the policy);
//   - credit "slot" (the paper): every action of a slot gets the slot's return. Credit
//     "split" (default): the stop-or-continue decision gets the slot return (advantage
//     against V), the choice among tasks gets the task's counterfactual return, i.e. the
//     slot reward minus the slot reward with that one task removed from its job's final
//     allocation (Simulator::slotProgress; the slot reward is a deterministic function of
//     the allocation, so this is exact). With taskCredit "remaining" (a departure, README
//     "SRPT-weighted task credit") that counterfactual is divided by the job's remaining share
//     (taskCreditWeight); with taskMarginal "added" it is the job's gain from the task at
//     the allocation it was added to instead of at the final one. Ablation
//     per-action-reward: each action gets its own job's progress;
//   - entropy bonus 0.1 x the MEAN entropy over the action layout (the reference's mean);
//   - the kind of task a job gets (beyond the paper, off by default; dl2 only): kindEpsilon
//     (a random kind of the same job's), kindEntropyWeight (the entropy of each row's
//     worker/PS/bundle mix) and kindCredit "expected" (the exact returns of all of a row's
//     kinds: the all-actions gradient for the kind, the expected return for the row);
//   - N environments (threads) step one slot each per update; the batch weights every
//     environment equally (= averaging their gradients);
//   - experience replay (uniform, prioritised by |advantage| or none) of 8192 samples; with
//     importanceClip > 0 the policy-gradient term is weighted by pi/mu clipped to
//     [0, importanceClip], mu = the behaviour probability (incl. exploration); 0 (default)
//     trains on every sample at full weight, as the reference does;
//   - job-aware exploration: in poor states (worker without PS, PS without worker,
//     worker:PS ratio beyond threshold 10) the corrective action replaces the policy's with
//     probability epsilon 0.4; stopEpsilon > 0 also makes a decision stop with that
//     probability (beyond the paper: otherwise early stops are never tried); exploration
//     Reference uses the reference code's rules instead, which override far more decisions;
//   - the trained policy is validated and shipped as deployed: decode "sample" (seeded) by
//     default for dl2, as the reference deploys it; the best checkpoint on the validation
//     seeds (100-109 by default; training traces use seeds seedBase = 1000, 1001, ...; test
//     seeds 1-10 are never touched) is kept;
//   - credit "episode" (input-dependent baseline, Mao et al., ICLR 2019; as in Decima): each
//     update runs `envs` rollouts of the SAME training trace to its end with the current
//     policy; a decision in slot t of rollout k gets G(k, t) - mean over the rollouts of
//     G(., t), G = the (discount^s-weighted; 0 = undiscounted) sum of the slot rewards from t on,
//     with reward = minus the unfinished jobs (so G is the JCT still to come, exactly). The
//     arrivals, which are the same in every rollout, cancel out of the advantage. No critic,
//     no replay (on-policy); a random `episodeKeep` share of the decisions is trained on, in
//     one step per update. Credit "episode-job": the same rollouts, split as in "split": stop
//     or continue from that JCT-to-come advantage, the choice of task from its job's own
//     completion slot in the rollout against the mean over the rollouts of that job's (the
//     job's share of the JCT; what other jobs gain or lose is left out);
//   - credit "vine" (the vine of Schulman et al., TRPO, ICML 2015, with common random numbers):
//     a trunk rollout of a training trace advances one slot per update; at each of its slots
//     `envs` branches copy the trunk's simulator, each samples that slot's decisions with its
//     own random numbers and then plays on (`vineHorizon` slots, 0 = to the end) with random
//     numbers common to all branches (the policy is reseeded per slot), so the branches differ
//     by that slot's allocation and what follows from it. Every decision of the branch slot
//     gets its branch's JCT still to come minus the mean over the branches: decisions the
//     branches share cancel, the ones they differ in carry the signal. With `vineStreams` M > 1
//     the branches are envs / M allocations, each played on with M streams (common to the
//     allocations) and scored by its mean: the rest of the run's randomness averages out
//     (measureCreditSignal below says how much of it there is). With `vineGreedy` the trunk
//     and every slot after the branch slot play the policy's arg max without exploration
//     (the policy as deployed with --decode greedy): the branches' returns are exact values
//     of their allocations under the deployed policy, with no randomness after the branch
//     slot (rollout policy improvement; only the branch slot samples). No critic, no replay;
//   - trust region (`klWeight` > 0): the policy loss adds klWeight x KL(warm-up || policy),
//     the warm-up being the --init (or starting) policy, frozen;
//   - control: the same run with the policy's advantages shuffled across each batch (the
//     critic still sees true returns): what "learning" must beat;
//   - ablations: "no-value" (baseline = running mean return), "no-exploration", "no-replay",
//     "per-action-reward".
//   - algorithm "es" replaces all of the above by evolution strategies on the output layer
//     (estrainer.cpp): the policy's average JCT on training traces is the objective, which
//     is what evaluation measures. Requires --init; uses steps (iterations), seed, lr,
//     threads, validation and output.

#include "curves.h"
#include "experience.h"
#include "policyspec.h"
#include "sltrainer.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dl2 {

struct JobState;
class Simulator;

class Communicator;

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
    Exploration exploration = Exploration::Paper; // job-aware rules: the paper's or the code's (dl2policy.h)
    double discount = 0.0;
    double importanceClip = 0.0;
    double valueLearningRate = 1e-3;
    // The policy's optimizer: "adam" (default, the reference's) or "sgd" (plain gradient
    // descent, Learner::setPlainGradientDescent; the value network keeps its Adam).
    std::string optimizer = "adam";
    // The policy's learning rate over the run: "constant" (default) or "linear" (from
    // learningRate at the actor's first update down towards 0 at the last, as PPO
    // implementations anneal it), so the steps that drift a policy past its best shrink.
    std::string lrAnneal = "constant";
    std::string credit = "split"; // or "slot" (the paper), "episode", "episode-job" (input-dependent baseline), "vine"
    std::string taskCredit = "progress"; // split: the task's counterfactual progress, "remaining" or "time" (taskGain)
    // split: where the task's counterfactual is taken: "final" (leave it out of its job's final
    // allocation) or "added" (its job's gain from it at the allocation it was added to).
    std::string taskMarginal = "final";
    // split with taskMarginal "added": how the kind of task (worker, PS, bundle) chosen for a
    // job is credited. "sampled" (default): the chosen task's return, centred on the batch
    // mean, like the choice of job. "expected" (beyond the paper): the exact returns of all
    // of the row's kinds are known (the speed model), so the choice of kind gets the
    // all-actions gradient of sum_k pi(k | row) x return(k), and the choice of row its
    // expected return under that mix, centred on the batch mean: a job's kinds are compared
    // with each other, not with other jobs' tasks. "expected-balanced": the same, with each
    // job type's kind terms weighted to the same total in every batch (RlLossOptions::
    // kindBalanced), so that a type met in 1 % of the decisions is not taught the kind that
    // suits the type met in half of them. "every-row" (with rowCredit expected, expected-stop,
    // lookahead-stop, window-stop or regret-stop): every window row's kind, at every decision, by
    // the all-actions gradient of its own worker/PS/bundle mix on the row credit's gains
    // (RlLossOptions::kindEveryRow).
    std::string kindCredit = "sampled";
    // --credit split with --task-marginal added: how the choice of job is credited. "sampled"
    // (default): the chosen task's return (kindCredit says how its kind is). "expected"
    // (beyond the paper): every task of every window row is credited with its exact gain at
    // the allocations when the decision was taken, so the choice among all of them gets the
    // all-actions gradient. "expected-stop": also stop or continue, stop with 0 and continue
    // with the expected gain of the task the policy would add (no critic in the policy's
    // gradient: a one-step view that, on an uncontended cluster, adds every task that gains).
    // "lookahead-stop": the same, with each task's gain taken to the best slot progress its
    // job can still reach by adding tasks after it (within the caps), against its progress
    // without it: a task on the way to the job's best allocation gains even where the next
    // step alone would not, and every task past that allocation loses, so the policy learns
    // to stop growing a job there (the measured speeds are not concave: a one-step view stops
    // short of, or climbs past, the best). "window-stop": lookahead-stop, where a job's reach
    // also counts its way out of the window when jobs trained the slot outside it (the window
    // holds the first J jobs not at both caps): at both caps its row goes to a job that waits,
    // worth windowExitGain. A task then gains if it leads to the job's best allocation or,
    // when that is worth more, to both caps; without it a policy taught to stop each job at its
    // best keeps the window full and the jobs behind it at one worker and one PS.
    // "regret-stop": lookahead-stop, where the choice among tasks is taught each task's
    // regret, its lookahead gain minus its row's headroom (the job's best reachable progress
    // against its progress then; Sample::actionHeadroom): every task that keeps its job's best
    // within reach scores 0, whichever the job, so the order among jobs gets no gradient and
    // only tasks past a job's best are pushed down. On an uncontended cluster the order hardly
    // matters and the stop at each job's best is what sets the JCT. Stop or continue is
    // credited as by lookahead-stop. For dl2-plus the rows are the jobs in view (all of
    // them), and window-stop, which has no window there, is refused.
    std::string rowCredit = "sampled";
    // With a row credit other than "sampled": how its gains are scaled. "batch" (default):
    // as they are, the batch's spread of expected gains setting the step (AdvantageScales).
    // "decision" (beyond the paper): each decision's gains divided by their own RMS over its
    // allowed tasks (at least a tenth of the batch's mean RMS), so that the last tasks of a
    // slot, whose gains are a few per cent of a job's speed, are ranked as firmly as the
    // first, whose gains are its whole speed: the final allocation is set by the last ones.
    std::string rowScale = "batch";
    // With rowCredit "expected-stop", "lookahead-stop", "window-stop" or "regret-stop": what
    // continuing is credited with, stop's 0 against it. "expected" (default): the expected gain of
    // the task the policy would add. "best" (beyond the paper): the gain of the best task it could
    // add, so a policy whose mix still favours tasks that lose is taught to move to the task that
    // gains, not to stop the slot: stop is one action for every job, and what stops one
    // job's growth cuts every other job's short. The slot then stops where no task gains.
    std::string stopCredit = "expected";
    double episodeKeep = 0.01;    // episode: share of the decisions trained on
    int vineHorizon = 0;          // vine: slots played after the branch slot (0 = to the end)
    int vineStreams = 1;          // vine: random streams each allocation is played on with
    bool vineGreedy = false;      // vine: the trunk and the slots after the branch slot play arg max
    double klWeight = 0.0;        // trust region around the starting policy (0 = none)
    // dl2: keep the policy's weights tied across the window positions (Learner::setTiedWindow),
    // so that what one position's decisions teach, every position learns. The starting
    // checkpoint must be tied throughout (SL --tie-window all, or an actor-critic run with it).
    bool tieWindow = false;
    // With tieWindow, beyond the paper: the type one-hot's weights to each position's own
    // layer-1 units step this many times the learning rate (Learner::setTypeStepScale). A
    // DRF warm-up leaves the type's path small and linear, and the actor-critic moves the
    // shared output biases first (core/learning/README.md, "A faster type path").
    double typeStepScale = 1.0;
    // The same for the weights from each position's per-type count bits (--count-features
    // per-type), through which a tied network can stop at each type's own worker and PS counts.
    double countStepScale = 1.0;
    bool control = false;         // shuffled-advantage control
    double stopEpsilon = 0.0;
    // Beyond the paper, to keep every kind of task tried and chosen (ActorOptions::kindEpsilon,
    // RlLossOptions::kindEntropyWeight); 0 = off.
    double kindEpsilon = 0.0;
    double kindEntropyWeight = 0.0;
    std::optional<Decode> decode; // of the trained policy; default: dl2 sample, dl2-plus and es as loaded
    ReplayMode replay = ReplayMode::Uniform;
    std::optional<bool> unfinishedJobsReward; // default: dl2-plus yes, dl2 no (reference reward)
    std::vector<std::string> ablations;      // no-value, no-exploration, no-replay, per-action-reward
    std::uint64_t trainSeedBase = 1000;
    std::vector<std::uint64_t> validationSeeds = seedRange(100, 109);
    int validateEvery = 200;
    int criticWarmup = 200; // updates that train only the value network first (0 = none)
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
    // Distributed (distributed.h; null: one process). Actor-critic: every rank runs its own
    // `envs` environments on its own training traces, gradients are all-reduced (averaged) each
    // update and the weights compared by hash every `hashEvery` updates. ES: the (member, trace)
    // runs are split across the ranks and their results summed, so any world size gives the
    // single process's result. Validation seeds are split too; only rank 0 writes files.
    std::shared_ptr<Communicator> comm;
    int hashEvery = 50;
    // Continue from this checkpoint's weights, optimizer and ResumeState (same options).
    std::string resume;
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

// How much one slot's allocation tells about the JCT still to come, i.e. the signal a per-slot
// credit from the JCT itself (credit "vine", and the episode credits) can have at a policy.
// At `slots` consecutive slots of training traces (the policy `options.init` playing the
// trunk, as credit "vine" does), envs/2 branch allocations of the slot are each played to the
// end (or vineHorizon slots) twice, with two different random streams for everything after
// the slot (common to the branches within each stream). A branch's advantage is its JCT still
// to come minus the mean over the branches of its stream; `correlation` is the Pearson
// correlation of the two measurements of the same branches' advantages (1: the allocation
// decides it; 0: the rest of the run's randomness does), `deviation` their standard deviation
// (job-slots). Needs options.init and an even options.envs >= 4.
struct CreditSignal
{
    int branches = 0;
    double correlation = 0.0;
    double deviation = 0.0;
    double seconds = 0.0;
};
CreditSignal measureCreditSignal(RlOptions options, int slots);

// Throws dl2::Error for an unknown ablation name.
void checkAblations(const std::vector<std::string> &ablations);
// Throws dl2::Error for an unknown credit name.
void checkCredit(const std::string &credit);
// Throws dl2::Error for an unknown task credit name (progress, remaining, time).
void checkTaskCredit(const std::string &taskCredit);
enum class TaskCredit { Progress, Remaining, Time };
TaskCredit taskCreditFromString(const std::string &taskCredit); // checked
// Split credit's task term after the slot `sim` just played: the counterfactual return of the
// task sample `x` (its jobIndex, action and psBefore/workersBefore), weighted as `credit`
// says (taskGain). `added` false (--task-marginal final):
// the job's slot progress with its final allocation minus without that task; true (added): the
// job's gain from the task at the allocation it was added to, so a job's tasks' gains add up
// to its gain over the allocation it started the slot with.
float taskCounterfactual(const Simulator &sim, const Sample &x, TaskCredit credit, bool added);

// Row credit "lookahead-stop": after the slot `sim` just played, the best slot progress job
// `index` could have made at any allocation reached from (ps, workers) by adding tasks only,
// within the caps (SimulationOptions::maxPs, maxWorkers): entry ps x (maxWorkers + 1) +
// workers, for ps in [0, maxPs] and workers in [0, maxWorkers].
std::vector<double> reachableProgress(const Simulator &sim, int index);
// Its entry for (ps, workers), each clamped to [0, cap].
double reachableAt(const std::vector<double> &reach, const SimulationOptions &caps, int ps, int workers);

// Row credit "window-stop": after the slot `sim` just played, what one more free window row
// would have been worth: the mean, over the jobs that trained this slot but were never in the
// policy's window (`inWindow[i]` false; the window holds the first J jobs by arrival that are
// not at both caps, so a job leaves it only at both caps), of the credit (taskGain) of growing
// each from the allocation it trained at to its best (reachableProgress). 0 when no job was
// left out.
double windowExitGain(const Simulator &sim, const std::vector<bool> &inWindow, TaskCredit credit);

// A task's credit (taskCredit) when its job makes `without` progress this slot without it,
// `with` with it and `final` at the allocation the slot ended with (Simulator::slotProgress,
// shares of the job's whole training): "progress" with - without (the paper's reward);
// "remaining" that times taskCreditWeight; "time" the slots of its job's training the task
// saves, (with - without) / the job's speed, the speed being the larger of `with` and `final`
// (what the job goes on at once it has the task), clipped to [-1, 1] and 0 for a job that
// makes no progress. With no job waiting, a job's completion time is what its own speed
// decides, so "time" counts a task of a 100-slot job as much as one of a 2-slot job.
double taskGain(TaskCredit credit, const JobState &job, double with, double without, double final);

// The weight of a task's counterfactual progress under taskCredit "remaining": 1 / the share
// of its job (by the estimate the schedulers see) still to train at the start of the slot,
// the share taken as at least 1/20, so the weight lies in [1, 20]. A task then counts what it
// adds relative to what its job has left, as shortest-remaining-time ranks jobs, where the
// paper's reward counts it relative to the job's whole size.
double taskCreditWeight(const JobState &job);

} // namespace dl2
