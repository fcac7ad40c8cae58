#include "rltrainer.h"

#include "advantagescales.h"
#include "checkpoint.h"
#include "checkpointwriter.h"
#include "distributed.h"
#include "dl2policy.h"
#include "error.h"
#include "learner.h"
#include "modelprofile.h"
#include "parallel.h"
#include "trainingrecipe.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace dl2 {

namespace {

// The PSs and workers a task of this kind adds to its job.
std::pair<int, int> taskDelta(TaskKind kind)
{
    return {kind == TaskKind::Worker ? 0 : 1, kind == TaskKind::Ps ? 0 : 1};
}

} // namespace

void checkAblations(const std::vector<std::string> &ablations)
{
    for (const auto &a : ablations)
        checkKnown("ablation", a, {"no-value", "no-exploration", "no-replay", "per-action-reward"});
}

void checkCredit(const std::string &credit)
{
    checkKnown("credit", credit, {"slot", "split", "episode", "episode-job", "vine"});
}

void checkTaskCredit(const std::string &taskCredit)
{
    checkKnown("task credit", taskCredit, {"progress", "remaining", "time"});
}

TaskCredit taskCreditFromString(const std::string &taskCredit)
{
    checkTaskCredit(taskCredit);
    return taskCredit == "remaining" ? TaskCredit::Remaining
           : taskCredit == "time"    ? TaskCredit::Time
                                     : TaskCredit::Progress;
}

double taskGain(TaskCredit credit, const JobState &job, double with, double without, double final)
{
    const double gain = with - without;
    switch (credit) {
    case TaskCredit::Remaining:
        return taskCreditWeight(job) * gain;
    case TaskCredit::Time: {
        const double speed = std::max(with, final);
        return speed > 1e-12 ? std::clamp(gain / speed, -1.0, 1.0) : 0.0;
    }
    case TaskCredit::Progress:
        break;
    }
    return gain;
}

double taskCreditWeight(const JobState &job)
{
    if (job.estimatedEpochs <= 0)
        return 1.0;
    const double doneBefore = job.doneEpochs - job.epochsThisSlot;
    return 1.0 / std::clamp(1.0 - doneBefore / job.estimatedEpochs, 0.05, 1.0);
}

// The counterfactual return of the task sample `x` added, weighted as `credit` says
// (taskGain). `added` false: its job's contribution to the slot reward with the final
// allocation minus the contribution without that task (leave-one-out: every task of a kind
// gets the last one's gain). `added` true: its job's gain from it at the allocation it was
// added to (the gains of a job's tasks add up to its gain over its slot-start allocation).
float taskCounterfactual(const Simulator &sim, const Sample &x, TaskCredit credit, bool added)
{
    const JobState &j = sim.jobs()[size_t(x.jobIndex)];
    const auto [dp, dw] = taskDelta(actionKind(x.action));
    const int index = x.jobIndex;
    const int ps = added ? x.psBefore + dp : j.ps, workers = added ? x.workersBefore + dw : j.workers;
    const double with = sim.slotProgress(index, ps, workers);
    const double final = credit == TaskCredit::Time ? sim.slotProgress(index, j.ps, j.workers) : with;
    return float(taskGain(credit, j, with,
                          sim.slotProgress(index, std::max(0, ps - dp), std::max(0, workers - dw)), final));
}

std::vector<double> reachableProgress(const Simulator &sim, int index)
{
    const int psSide = sim.options().maxPs + 1, workerSide = sim.options().maxWorkers + 1;
    std::vector<double> best(size_t(psSide * workerSide));
    const auto at = [&](int p, int w) -> double & { return best[size_t(p * workerSide + w)]; };
    for (int p = psSide - 1; p >= 0; --p)
        for (int w = workerSide - 1; w >= 0; --w) {
            double b = sim.slotProgress(index, p, w);
            if (p + 1 < psSide)
                b = std::max(b, at(p + 1, w));
            if (w + 1 < workerSide)
                b = std::max(b, at(p, w + 1));
            at(p, w) = b;
        }
    return best;
}

double reachableAt(const std::vector<double> &reach, const SimulationOptions &caps, int ps, int workers)
{
    return reach[size_t(std::clamp(ps, 0, caps.maxPs) * (caps.maxWorkers + 1) + std::clamp(workers, 0, caps.maxWorkers))];
}

double windowExitGain(const Simulator &sim, const std::vector<bool> &inWindow, TaskCredit credit)
{
    double sum = 0.0;
    int n = 0;
    for (size_t i = 0; i < sim.jobs().size(); ++i) {
        const JobState &j = sim.jobs()[i];
        if (j.epochsThisSlot <= 0 || (i < inWindow.size() && inWindow[i]))
            continue;
        const int index = int(i);
        const double now = sim.slotProgress(index, j.ps, j.workers);
        const double best = reachableAt(reachableProgress(sim, index), sim.options(), j.ps, j.workers);
        sum += taskGain(credit, j, best, now, best);
        ++n;
    }
    return n > 0 ? sum / n : 0.0;
}

namespace {

bool has(const std::vector<std::string> &v, const char *name)
{
    return std::find(v.begin(), v.end(), name) != v.end();
}

// One training environment: a simulator on a training trace and an acting policy.
struct Env
{
    int id = 0;
    std::unique_ptr<Simulator> sim;
    std::unique_ptr<Dl2Policy> policy;
    std::unique_ptr<PolicyNetwork> critic; // V for bootstrapping (only with a discount)
    std::vector<Sample> current, pending, finished;
    double lastReward = 0.0;
    // Credit "episode": which decisions are kept, the rollout's slot rewards and the slot of
    // each kept sample in `finished`.
    Rng keep{0};
    std::vector<double> slotRewards;
    std::vector<int> sampleSlot;
    // Credit "vine": decisions are recorded only in the branch slot; the branch's return; how
    // the policy acts in the branch slot (vineGreedy: after it, argMaxActor()).
    bool record = true;
    double branchReturn = 0.0;
    ActorOptions actor;
    // Action mix and slot-end allocation since the last curve point.
    std::array<long long, 4> kinds{}; // worker, PS, bundle, stop decisions
    double workers = 0.0, ps = 0.0, running = 0.0;
};

// Credit "vine" with vineGreedy, after the branch slot: the policy as deployed with --decode
// greedy (arg max, no exploration, nothing recorded).
ActorOptions argMaxActor()
{
    ActorOptions a;
    a.greedy = true;
    return a;
}

// One actor-critic run (see rltrainer.h), as the steps train() takes: load the networks,
// settle the options, make the environments; then per update step the environments, gather
// a batch, update the networks and record a curve point.
class ActorCritic
{
public:
    explicit ActorCritic(const RlOptions &options);
    TrainResult train(const TrainProgress &progress, const std::atomic<bool> *cancel);
    CreditSignal creditSignal(int slots);

private:
    // A batch: fresh samples (subsampled) and replayed ones.
    struct Batch
    {
        std::vector<Sample> fresh, freshUsed;
        std::vector<const Sample *> samples;
        std::vector<int> replayed;
    };

    void loadNetworks();
    void settleOptions();
    void seedRandomNumbers();
    void makeEnvironments();
    std::uint64_t nextTraceSeed();
    void restart(Env &e);
    void restart(Env &e, const Trace &trace);
    std::unique_ptr<Simulator> simulatorOn(const Trace &trace) const;
    void stepEnvironment(Env &e);
    void countAllocation(Env &e);
    void runEpisode(Env &e);
    Batch episodeBatch(double &rewardMean);
    std::uint64_t slotSeed(int slot, std::uint64_t stream) const;
    void runBranch(Env &e, int draws, int continuation);
    Simulator &trunk();
    void advanceTrunk();
    Batch vineBatch(double &rewardMean);
    void creditReturns(Env &e, double reward);
    void finishSamples(Env &e);
    Batch gatherBatch(double &rewardSum);
    bool anyRankUpdates(const Batch &batch) const;
    void update(long long step, Batch &batch);
    CurvePoint curvePoint(long long step, bool validate);
    void validateStart(const TrainProgress &progress);
    TrainerState state() const;
    void save(long long step, double jct);
    void saveResume(long long step);
    void markValueTrained(long long step);
    TrainingInfo trainingInfo() const;
    double seconds() const;

    const RlOptions &o;
    const Scenario &m_scenario;
    const ProfileSet m_profiles;
    // Distributed: rank r runs its own environments on trace seeds base + episode x W + r and
    // its own random numbers; rank 0 draws exactly what a single process does.
    Communicator *const m_comm;
    const int m_rank, m_world;
    std::unique_ptr<Learner> m_learner;
    PolicySpec m_spec;
    std::optional<ResumeState> m_resumed;
    TrainingInfo m_resumedInfo; // how the resumed run was trained (checkResumedRecipe)
    // Settled options.
    bool m_startValueTrained = false; // the start checkpoint's value network was trained
    bool m_split = false, m_useValue = true, m_explore = true, m_perAction = false;
    TaskCredit m_taskCredit = TaskCredit::Progress;
    bool m_taskAdded = false;
    bool m_kindExpected = false; // kind credit "expected" or "expected-balanced"
    bool m_kindBalanced = false; // kind credit "expected-balanced"
    bool m_kindEveryRow = false; // kind credit "every-row"
    bool m_rowExpected = false;  // row credit other than "sampled"
    bool m_stopExpected = false; // row credit "expected-stop", "lookahead-stop", "window-stop" or "regret-stop"
    bool m_rowLookahead = false; // row credit "lookahead-stop", "window-stop" or "regret-stop"
    bool m_rowRegret = false;    // row credit "regret-stop"
    bool m_rowWindow = false;    // row credit "window-stop"
    bool m_episodic = false; // episode, episode-job or vine: no critic, no replay, one step per update
    bool m_vine = false;
    std::unique_ptr<Simulator> m_trunk; // vine: the rollout the branches start from
    std::uint64_t m_trunkTrace = 0;
    double m_gamma = 1.0; // episode credit: the discount of the return
    bool m_unfinished = false;
    ReplayMode m_replayMode = ReplayMode::Uniform;
    double m_rewardScale = 1.0, m_discount = 0.0;
    SimulationOptions m_simOptions;
    Rng m_rng;
    std::optional<ReplayBuffer> m_replay;
    std::shared_ptr<const ParameterSet> m_params;
    std::vector<Env> m_envs;
    std::unique_ptr<ParallelPool> m_pool; // a thread per environment, started once
    std::uint64_t m_episode = 0;
    std::optional<CheckpointWriter> m_writer;
    TrainResult m_result;
    AdvantageScales m_scales;
    double m_baseline = 0.0; // the running mean return of the no-value ablation
    bool m_baselineSet = false;
    RlLossOptions m_loss;
    CurvePoint m_acc; // losses and rewards since the last curve point
    int m_accCount = 0;
    std::chrono::steady_clock::time_point m_start;
};

ActorCritic::ActorCritic(const RlOptions &options)
    : o(options), m_scenario(scenarioByName(o.scenario)),
      m_profiles(o.profiles ? *o.profiles : ProfileSet::reference()), m_comm(o.comm.get()),
      m_rank(m_comm ? m_comm->rank() : 0), m_world(m_comm ? m_comm->worldSize() : 1),
      m_rng(o.seed * 104729 + 3)
{
    registerBaselines();
    loadNetworks();
    settleOptions();
    seedRandomNumbers();
    m_replay.emplace(o.bufferSize,
                     m_replayMode == ReplayMode::None ? ReplayMode::Uniform : m_replayMode);
    m_params = m_learner->parameters();
    makeEnvironments();
    m_result.checkpoint = o.output;
    if (m_resumed)
        checkResumedRecipe(m_resumedInfo, trainingInfo(), o.resume);
    m_writer.emplace(o.output, m_spec, trainingInfo(), m_world, o.saveOptimizer, !m_resumed);
    if (m_resumed) {
        m_result.bestValidationAvgJct = m_resumed->bestValidationAvgJct;
        m_result.bestStep = m_resumed->bestStep;
        const auto &v = m_resumed->values;
        m_scales.advantageStd = v[0];
        m_scales.advantageStdSet = v[1] != 0.0;
        m_scales.taskStd = v[2];
        m_scales.taskStdSet = v[3] != 0.0;
        m_baseline = v[4];
        m_baselineSet = v[5] != 0.0;
    }
    m_start = std::chrono::steady_clock::now();
    if (!m_result.curve.empty()) // the clock goes on from the interrupted run
        m_start -= std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(m_result.curve.back().seconds));
    m_loss.entropyWeight = o.entropyWeight;
    m_loss.kindEntropyWeight = o.kindEntropyWeight;
    m_loss.importanceClip = o.importanceClip;
    m_loss.useValue = m_useValue;
    m_loss.split = m_split;
    m_loss.kindExpected = m_kindExpected;
    m_loss.kindBalanced = m_kindBalanced;
    m_loss.kindEveryRow = m_kindEveryRow;
    m_loss.rowExpected = m_rowExpected;
    m_loss.stopExpected = m_stopExpected;
    m_loss.rowPerDecision = o.rowScale == "decision";
    m_loss.rowRegret = m_rowRegret;
    m_loss.stopBest = o.stopCredit == "best";
    m_loss.klWeight = o.klWeight;
}

// From a resume checkpoint (weights, optimizer, ResumeState), an init checkpoint or fresh.
void ActorCritic::loadNetworks()
{
    std::shared_ptr<const ParameterSet> warmUp; // the trust region's reference, if not the start
    long long startTieWindowSteps = 0;          // of the checkpoint started from (-1: tied throughout)
    if (!o.resume.empty()) {
        const Checkpoint c = readResumeCheckpoint(o.resume, o.kind);
        if (!c.info.resume.present || c.info.trainer != "rl" || c.info.resume.values.size() != 6)
            throw Error(c.origin + ": no actor-critic resume state (written by `dl2 train rl` with its optimizer state?)");
        if (!c.hasOptimizer)
            throw Error(c.origin + ": written --weights-only, without the optimizer state a resume needs");
        checkResumeWorldSize(c.info.resume, m_world, c.origin);
        m_spec = c.spec;
        m_startValueTrained = c.info.valueTrained;
        startTieWindowSteps = c.info.tieWindowSteps;
        m_learner = std::make_unique<Learner>(c, o.learningRate, true, o.valueLearningRate);
        m_resumed = c.info.resume;
        m_resumedInfo = c.info;
        m_result.curve = curveBefore(c);
        if (o.klWeight > 0 && !o.init.empty())
            warmUp = readCheckpoint(o.init, o.kind).parameters;
    } else if (!o.init.empty()) {
        const Checkpoint c = readCheckpoint(o.init, o.kind);
        warmUp = c.parameters;
        m_spec = c.spec;
        m_startValueTrained = c.info.valueTrained;
        startTieWindowSteps = c.info.tieWindowSteps;
        m_learner = std::make_unique<Learner>(c, o.learningRate, c.info.trainer == "rl",
                                              o.valueLearningRate);
    } else {
        m_spec = o.spec ? *o.spec : defaultSpec(o.kind, m_scenario.window, m_profiles.size());
        m_learner = std::make_unique<Learner>(m_spec, o.learningRate, o.seed, o.valueLearningRate);
    }
    if (o.tieWindow) {
        checkTiedWindow(m_spec);
        // Tying weights that learned untied would start them again from one entry of each
        // class: the warm-up would be lost.
        if (startTieWindowSteps != -1)
            throw Error("--tie-window: " + (o.resume.empty() ? o.init : o.resume) +
                        " was not trained with its window's weights tied throughout (SL "
                        "--tie-window all); tying would replace them");
        m_learner->setTiedWindow(true);
    }
    for (const auto &[name, scale] : {std::pair{"type", o.typeStepScale}, std::pair{"count", o.countStepScale}}) {
        if (!(scale > 0.0 && scale <= 1000.0))
            throw Error(std::string("--") + name + "-step-scale: expected a factor in (0, 1000], got " +
                        std::to_string(scale));
        if (scale != 1.0 && !o.tieWindow)
            throw Error(std::string("--") + name + "-step-scale steps the type's weights of a network tied "
                        "across the window: it needs --tie-window");
    }
    if (o.typeStepScale != 1.0 || o.countStepScale != 1.0)
        m_learner->setTypeStepScale(o.typeStepScale, o.countStepScale);
    checkKnown("optimizer", o.optimizer, {"adam", "sgd"});
    checkKnown("learning-rate anneal", o.lrAnneal, {"constant", "linear"});
    if (o.optimizer == "sgd")
        m_learner->setPlainGradientDescent();
    if (o.klWeight > 0)
        m_learner->setReference(warmUp ? *warmUp : *m_learner->parameters());
    // A resumed run validates as it did: without --decode it keeps its decoding, and another
    // one would make its best-so-far incomparable.
    if (!o.resume.empty() && o.decode && *o.decode != m_spec.decode)
        throw Error(o.resume + ": the run was validated with --decode " + toString(m_spec.decode) +
                    ", this one with --decode " + toString(*o.decode) +
                    "; a resumed run keeps its decoding");
    if (o.decode)
        m_spec.decode = *o.decode;
    else if (m_spec.kind == PolicyKind::Dl2 && o.resume.empty())
        m_spec.decode = Decode::Sample;
}

// Credit, ablations and reward.
void ActorCritic::settleOptions()
{
    checkCredit(o.credit);
    m_vine = o.credit == "vine";
    m_episodic = o.credit == "episode" || o.credit == "episode-job" || m_vine;
    if (m_episodic && (has(o.ablations, "no-value") || has(o.ablations, "no-replay") ||
                       has(o.ablations, "per-action-reward")))
        throw Error("--credit " + o.credit + " has no critic and no replay and credits whole rollouts: "
                    "of the ablations only no-exploration applies");
    if (m_episodic && o.envs < 2)
        throw Error("--credit " + o.credit + " needs --envs 2 or more: the baseline is the mean over the " +
                    (m_vine ? "branches from one slot" : "rollouts of one trace") + " (8 is a good start)");
    if (o.vineHorizon < 0 || (o.vineHorizon > 0 && !m_vine))
        throw Error("--horizon applies to --credit vine only and counts slots (0 = to the end)");
    if (o.vineStreams < 1 || (o.vineStreams > 1 && !m_vine))
        throw Error("--streams applies to --credit vine only (1 or more)");
    if (o.vineGreedy && (!m_vine || o.vineStreams > 1))
        throw Error("--continuation greedy applies to --credit vine with one stream: the arg max "
                    "continuation has no random numbers to average over");
    if (m_vine && (o.envs % o.vineStreams != 0 || o.envs / o.vineStreams < 2))
        throw Error("--credit vine needs --envs a multiple of --streams, at least 2 x --streams: two "
                    "allocations of the slot or more, each played on with every stream");
    if (m_episodic && !(o.episodeKeep > 0.0 && o.episodeKeep <= 1.0))
        throw Error("--keep: expected a share in (0, 1]");
    // per-action-reward replaces the credit: plain policy gradient on each job's own progress.
    m_split = (o.credit == "split" || o.credit == "episode-job") && !has(o.ablations, "per-action-reward");
    m_useValue = !m_episodic && !has(o.ablations, "no-value");
    m_explore = !has(o.ablations, "no-exploration");
    m_replayMode = m_episodic || has(o.ablations, "no-replay") ? ReplayMode::None : o.replay;
    m_perAction = has(o.ablations, "per-action-reward");
    m_taskCredit = taskCreditFromString(o.taskCredit); // checked
    checkKnown("task marginal", o.taskMarginal, {"final", "added"});
    m_taskAdded = o.taskMarginal == "added";
    checkKnown("kind credit", o.kindCredit, {"sampled", "expected", "expected-balanced", "every-row"});
    m_kindExpected = o.kindCredit != "sampled";
    m_kindBalanced = o.kindCredit == "expected-balanced";
    m_kindEveryRow = o.kindCredit == "every-row";
    if (m_kindExpected && !m_taskAdded)
        throw Error("--kind-credit " + o.kindCredit + " compares a job's tasks at the allocation the task "
                    "was added to: it needs --task-marginal added (and --credit split)");
    checkKnown(
        "row credit", o.rowCredit,
        {"sampled", "expected", "expected-stop", "lookahead-stop", "window-stop", "regret-stop"});
    m_rowExpected = o.rowCredit != "sampled";
    m_rowWindow = o.rowCredit == "window-stop";
    m_rowRegret = o.rowCredit == "regret-stop";
    m_rowLookahead = o.rowCredit == "lookahead-stop" || m_rowWindow || m_rowRegret;
    m_stopExpected = o.rowCredit == "expected-stop" || m_rowLookahead;
    checkKnown("row scale", o.rowScale, {"batch", "decision"});
    if (o.rowScale != "batch" && !m_rowExpected)
        throw Error("--row-scale " + o.rowScale +
                    " scales the gains of a row credit: it needs --row-credit "
                    "expected, expected-stop, lookahead-stop, window-stop or regret-stop");
    checkKnown("stop credit", o.stopCredit, {"expected", "best"});
    if (o.stopCredit != "expected" && !m_stopExpected)
        throw Error("--stop-credit " + o.stopCredit +
                    " credits continuing against stop: it needs --row-credit "
                    "expected-stop, lookahead-stop, window-stop or regret-stop");
    if (m_rowExpected && !m_taskAdded)
        throw Error("--row-credit " + o.rowCredit + " credits every task at the allocation its job had "
                    "when the decision was taken: it needs --task-marginal added (and --credit split)");
    if (m_kindEveryRow && !m_rowExpected)
        throw Error("--kind-credit every-row credits the kinds of every window row with the gains "
                    "the row credit computes: it needs --row-credit expected, expected-stop, "
                    "lookahead-stop, window-stop or regret-stop");
    if (m_rowWindow && m_spec.kind != PolicyKind::Dl2)
        throw Error(
            "--row-credit window-stop credits a job's way out of dl2's window; dl2-plus has "
            "no window (every job is in view): use lookahead-stop");
    if ((o.kindEpsilon > 0.0 || o.kindEntropyWeight > 0.0 || m_kindExpected) && m_spec.kind != PolicyKind::Dl2)
        throw Error("--kind-epsilon, --kind-entropy and --kind-credit " +
                    std::string(m_kindExpected ? o.kindCredit : "expected") +
                    " apply to the faithful dl2 network only, whose window rows each hold a job's "
                    "worker, PS and bundle");
    if (m_taskAdded && (o.credit != "split" || m_perAction))
        throw Error("--task-marginal added sets the task counterfactual of --credit split, " +
                    (m_perAction ? std::string("which the per-action-reward ablation replaces")
                                 : "which --credit " + o.credit + " does not use"));
    if (m_taskCredit != TaskCredit::Progress && (o.credit != "split" || m_perAction))
        throw Error("--task-credit " + o.taskCredit + " weights the task counterfactual of --credit split, " +
                    (m_perAction ? std::string("which the per-action-reward ablation replaces")
                                 : "which --credit " + o.credit + " does not use"));
    // The episode return is the JCT still to come only with the unfinished-jobs reward.
    m_unfinished = o.unfinishedJobsReward.value_or(m_episodic || m_spec.kind == PolicyKind::Dl2Plus);
    m_gamma = o.discount > 0.0 ? o.discount : 1.0;
    m_rewardScale = m_unfinished ? 0.02 : 1.0;
    m_discount = m_useValue ? o.discount : 0.0; // bootstrapping (not the episode return's)
    m_simOptions = m_scenario.simulation;
    m_simOptions.unfinishedJobsReward = m_unfinished;
}

void ActorCritic::seedRandomNumbers()
{
    if (m_resumed)
        m_rng.setState(m_resumed->rng.at(0));
    if (m_rank > 0)
        m_rng.setState(m_rng.state() ^ (0x9E3779B97F4A7C15ULL * std::uint64_t(m_rank)));
    if (m_comm)
        m_learner->setGradientReducer([comm = m_comm, world = m_world](std::vector<float> &g) {
            comm->allReduceSum(g.data(), g.size());
            for (float &x : g)
                x /= float(world);
        });
}

// The next training trace of this rank.
std::uint64_t ActorCritic::nextTraceSeed()
{
    return o.trainSeedBase + m_episode++ * std::uint64_t(m_world) + std::uint64_t(m_rank);
}

void ActorCritic::restart(Env &e)
{
    restart(e, m_scenario.trace(m_profiles, nextTraceSeed()));
}

void ActorCritic::restart(Env &e, const Trace &trace)
{
    e.sim = simulatorOn(trace);
}

std::unique_ptr<Simulator> ActorCritic::simulatorOn(const Trace &trace) const
{
    return std::make_unique<Simulator>(m_scenario.cluster, m_profiles, trace, m_simOptions);
}

void ActorCritic::makeEnvironments()
{
    m_envs = std::vector<Env>(size_t(std::max(1, o.envs)));
    m_pool = std::make_unique<ParallelPool>(int(m_envs.size()));
    m_episode = m_resumed ? m_resumed->nextSeed : 0;
    const std::uint64_t policySeed =
        o.seed * 1000 + (m_resumed ? std::uint64_t(m_resumed->step) * 7919 : 0);
    for (size_t i = 0; i < m_envs.size(); ++i) {
        Env &e = m_envs[i];
        e.id = int(i);
        if (!m_episodic) // the episode credits start every environment on one trace per update
            restart(e);
        e.policy = std::make_unique<Dl2Policy>(
            m_spec, m_params, policySeed + std::uint64_t(m_rank) * m_envs.size() + i);
        if (m_discount > 0.0)
            e.critic = std::make_unique<PolicyNetwork>(m_spec, m_params);
        e.keep.setState(o.seed * 7777 + std::uint64_t(m_rank) * 1000003 + i);
        ActorOptions actor;
        actor.sample = true;
        actor.epsilon = m_explore ? o.epsilon : 0.0;
        actor.threshold = o.threshold;
        actor.exploration = o.exploration;
        actor.stopEpsilon = o.stopEpsilon;
        actor.kindEpsilon = o.kindEpsilon;
        Env *ep = &e;
        const double keep = m_episodic && !m_vine ? o.episodeKeep : 1.0;
        const bool rows = m_rowExpected;
        actor.onDecision = [ep, keep, rows](const EncodedState &s, int action, float mu, int job) {
            if (!ep->record || (keep < 1.0 && ep->keep.uniform() >= keep))
                return;
            Sample x = Sample::fromState(s, action);
            x.behaviourProb = mu;
            x.jobIndex = job;
            x.env = ep->id;
            if (job >= 0) {
                x.psBefore = std::int16_t(ep->sim->jobs()[size_t(job)].ps);
                x.workersBefore = std::int16_t(ep->sim->jobs()[size_t(job)].workers);
            }
            for (int r = 0; rows && r < s.rows; ++r) {
                const int j = s.jobIndex[size_t(r)];
                if (j >= 0 && (s.mask[size_t(3 * r)] || s.mask[size_t(3 * r + 1)] || s.mask[size_t(3 * r + 2)])) {
                    const JobState &js = ep->sim->jobs()[size_t(j)];
                    x.rowAllocations.push_back({std::int16_t(r), std::int16_t(js.ps), std::int16_t(js.workers), j});
                }
            }
            ep->current.push_back(std::move(x));
        };
        e.actor = actor;
        e.policy->setActor(std::move(actor));
    }
}

TrainingInfo ActorCritic::trainingInfo() const
{
    TrainingInfo info;
    info.trainer = "rl";
    info.scenario = o.scenario;
    info.replay = toString(m_replayMode);
    info.learningRate = o.learningRate;
    info.batchSize = o.batchSize;
    info.bufferSize = o.bufferSize;
    info.envs = int(m_envs.size());
    info.entropyWeight = o.entropyWeight;
    info.epsilon = m_explore ? o.epsilon : 0.0;
    info.exploration = toString(o.exploration);
    info.threshold = o.threshold;
    info.discount = m_discount;
    info.importanceClip = o.importanceClip;
    info.credit = o.credit;
    info.taskCredit = o.taskCredit;
    info.taskMarginal = o.taskMarginal;
    info.kindCredit = o.kindCredit;
    info.rowCredit = o.rowCredit;
    info.rowScale = o.rowScale;
    info.stopCredit = o.stopCredit;
    info.valueLearningRate = o.valueLearningRate;
    info.optimizer = o.optimizer;
    info.lrAnneal = o.lrAnneal;
    info.criticWarmup = o.criticWarmup;
    info.stopEpsilon = o.stopEpsilon;
    info.kindEpsilon = o.kindEpsilon;
    info.kindEntropyWeight = o.kindEntropyWeight;
    info.control = o.control;
    info.tieWindowSteps = o.tieWindow ? -1 : 0;
    info.typeStepScale = o.typeStepScale;
    info.countStepScale = o.countStepScale;
    info.unfinishedJobsReward = m_unfinished;
    info.ablations = o.ablations;
    info.seed = o.seed;
    return info;
}

TrainerState ActorCritic::state() const
{
    return {m_rng.state(), m_episode,
            {m_scales.advantageStd, m_scales.advantageStdSet ? 1.0 : 0.0, m_scales.taskStd,
             m_scales.taskStdSet ? 1.0 : 0.0, m_baseline, m_baselineSet ? 1.0 : 0.0}};
}

void ActorCritic::markValueTrained(long long step)
{
    // Every update trains the critic unless the run has none (no-value ablation, episodic).
    m_writer->info().valueTrained = m_startValueTrained || (m_useValue && step > 0);
}

void ActorCritic::save(long long step, double jct)
{
    markValueTrained(step);
    m_writer->save(step, jct, m_result, state(),
                   [&] { return m_learner->archive(o.saveOptimizer); });
}

double ActorCritic::seconds() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

// The samples' returns: the slot reward (split credit: and each task's counterfactual), or
// with per-action-reward each job's own progress.
void ActorCritic::creditReturns(Env &e, double r)
{
    if (m_perAction) {
        double meanProgress = 0.0;
        int n = 0;
        for (const auto &j : e.sim->jobs())
            if (j.totalEpochs > 0 && (j.active() || j.epochsThisSlot > 0)) {
                meanProgress += j.epochsThisSlot / j.totalEpochs;
                ++n;
            }
        meanProgress /= std::max(1, n);
        for (auto &x : e.current)
            x.ret = x.jobIndex >= 0 ? float(e.sim->jobs()[size_t(x.jobIndex)].epochsThisSlot /
                                            std::max(1e-9, e.sim->jobs()[size_t(x.jobIndex)].totalEpochs))
                                    : float(meanProgress);
    } else {
        // Row credit "expected": a job's slot progress at each allocation it was seen with,
        // computed once per slot.
        std::unordered_map<std::uint64_t, double> progress;
        const auto progressAt = [&](int job, int ps, int workers) {
            const std::uint64_t key = (std::uint64_t(job) << 32) | (std::uint64_t(ps) << 16) | std::uint64_t(workers);
            auto it = progress.find(key);
            if (it == progress.end())
                it = progress.emplace(key, e.sim->slotProgress(job, ps, workers)).first;
            return it->second;
        };
        // Row credit "lookahead-stop" or "window-stop": each job's reachableProgress, once per job and slot.
        const SimulationOptions &caps = e.sim->options();
        std::unordered_map<int, std::vector<double>> reach;
        const auto bestFrom = [&](int job, int ps, int workers) {
            auto it = reach.find(job);
            if (it == reach.end())
                it = reach.emplace(job, reachableProgress(*e.sim, job)).first;
            return reachableAt(it->second, caps, ps, workers);
        };
        // Row credit "window-stop": what a job's way out of the window is worth this slot.
        double exitGain = 0.0;
        if (m_rowWindow) {
            std::vector<bool> inWindow(e.sim->jobs().size(), false);
            for (const Sample &x : e.current)
                for (const Sample::RowAllocation &a : x.rowAllocations)
                    inWindow[size_t(a.job)] = true;
            exitGain = windowExitGain(*e.sim, inWindow, m_taskCredit);
        }
        for (size_t n = 0; n < e.current.size(); ++n) {
            Sample &x = e.current[n];
            x.ret = float(r);
            if (m_rowExpected) {
                x.actionRet.assign(size_t(3 * x.rows), std::numeric_limits<float>::quiet_NaN());
                if (m_rowRegret)
                    x.actionHeadroom.assign(size_t(3 * x.rows), 0.0f);
                for (const Sample::RowAllocation &a : x.rowAllocations) {
                    const JobState &j = e.sim->jobs()[size_t(a.job)];
                    const double base = progressAt(a.job, a.ps, a.workers);
                    const double final = progressAt(a.job, j.ps, j.workers);
                    const double headroom =
                        m_rowRegret ? taskGain(m_taskCredit, j, bestFrom(a.job, a.ps, a.workers),
                                               base, final)
                                    : 0.0;
                    for (int k = 0; k < 3; ++k) {
                        if (!x.mask[size_t(3 * a.row + k)])
                            continue;
                        const auto [dp, dw] = taskDelta(TaskKind(k));
                        const double with = m_rowLookahead ? bestFrom(a.job, a.ps + dp, a.workers + dw)
                                                           : progressAt(a.job, a.ps + dp, a.workers + dw);
                        double gain = taskGain(m_taskCredit, j, with, base, final);
                        if (exitGain > 0.0) // to both caps, then out of the window
                            gain = std::max(gain, taskGain(m_taskCredit, j, progressAt(a.job, caps.maxPs, caps.maxWorkers),
                                                           base, final) + exitGain);
                        x.actionRet[size_t(3 * a.row + k)] = float(gain * m_rewardScale);
                        if (m_rowRegret)
                            x.actionHeadroom[size_t(3 * a.row + k)] =
                                float(headroom * m_rewardScale);
                    }
                }
                x.rowAllocations.clear();
                x.rowAllocations.shrink_to_fit();
            }
            if (!m_split || x.jobIndex < 0)
                continue;
            // "added": the slot's last task was not added when its job did not grow (the
            // failed allocation that ended the slot); it gets no task credit.
            const JobState &j = e.sim->jobs()[size_t(x.jobIndex)];
            if (m_taskAdded && n + 1 == e.current.size() && j.ps == x.psBefore && j.workers == x.workersBefore)
                continue;
            x.taskRet = float(taskCounterfactual(*e.sim, x, m_taskCredit, m_taskAdded) * m_rewardScale);
            if (!m_kindExpected)
                continue;
            x.jobType = std::int16_t(j.type);
            if (m_rowExpected) // its gains replace the kind term: actionRet holds this row's too
                continue;
            const int chosen = x.action, row = actionRow(chosen);
            for (int k = 0; k < 3; ++k)
                if (x.mask[size_t(3 * row + k)]) {
                    x.action = 3 * row + k; // the same row's other kinds, at the same allocation
                    x.kindRet[size_t(k)] = float(taskCounterfactual(*e.sim, x, m_taskCredit, true) * m_rewardScale);
                }
            x.action = chosen;
        }
    }
}

// Bootstraps the previous slot's samples with V(first state of this slot) and moves what
// has its return to `finished`.
void ActorCritic::finishSamples(Env &e)
{
    if (!e.current.empty() && !e.pending.empty()) {
        float v = 0.0f;
        if (m_discount > 0.0) {
            e.critic->resetCache();
            EncodedState first;
            e.current.front().toState(m_spec, first);
            v = e.critic->value(first);
        }
        for (auto &x : e.pending) {
            x.ret += float(m_discount) * v;
            e.finished.push_back(std::move(x));
        }
        e.pending.clear();
    }
    if (!e.current.empty()) {
        if (m_perAction || m_discount <= 0.0) {
            for (auto &x : e.current)
                e.finished.push_back(std::move(x));
        } else {
            e.pending = std::move(e.current);
        }
        e.current.clear();
    }
    if (e.sim->done()) {
        for (auto &x : e.pending)
            e.finished.push_back(std::move(x)); // terminal: V = 0
        e.pending.clear();
    }
}

// One slot of one environment; finished samples get their returns.
void ActorCritic::stepEnvironment(Env &e)
{
    e.current.clear();
    e.sim->step(*e.policy);
    const double r = e.sim->rewards().empty() ? 0.0 : e.sim->rewards().back() * m_rewardScale;
    e.lastReward = r;
    creditReturns(e, r);
    countAllocation(e);
    finishSamples(e);
}

// The slot's decisions by kind and its final allocation, for the curves.
void ActorCritic::countAllocation(Env &e)
{
    for (const auto &x : e.current)
        ++e.kinds[x.jobIndex < 0 ? 3 : size_t(actionKind(x.action))];
    for (const auto &j : e.sim->jobs())
        if (j.workers > 0 && j.ps > 0) {
            e.workers += j.workers;
            e.ps += j.ps;
            e.running += 1.0;
        }
}

// Credit "episode": one rollout to the end of the trace; the kept samples wait in
// `finished` with their slots.
void ActorCritic::runEpisode(Env &e)
{
    e.finished.clear();
    e.slotRewards.clear();
    e.sampleSlot.clear();
    while (!e.sim->done()) {
        e.current.clear();
        e.sim->step(*e.policy);
        e.slotRewards.push_back(e.sim->rewards().empty() ? 0.0 : e.sim->rewards().back() * m_rewardScale);
        countAllocation(e);
        for (auto &x : e.current) {
            e.sampleSlot.push_back(int(e.slotRewards.size()) - 1);
            e.finished.push_back(std::move(x));
        }
    }
    e.current.clear();
}

// When job j finished in the environment's rollout (the rollout's end if it did not).
double finishSlot(const Env &e, size_t j)
{
    const double f = e.sim->jobs()[j].finishTime;
    return f >= 0.0 ? f : double(e.slotRewards.size());
}

// Credit "episode": every environment plays the same new training trace to its end; a
// decision's return is its rollout's return from its slot on minus the mean of the
// rollouts' returns from that slot (a rollout that has ended contributes 0).
ActorCritic::Batch ActorCritic::episodeBatch(double &rewardMean)
{
    const Trace trace = m_scenario.trace(m_profiles, nextTraceSeed());
    for (auto &e : m_envs)
        restart(e, trace);
    m_pool->run(int(m_envs.size()), [&](int i) { runEpisode(m_envs[size_t(i)]); });
    size_t slots = 0;
    for (const auto &e : m_envs)
        slots = std::max(slots, e.slotRewards.size());
    std::vector<std::vector<double>> returns;
    std::vector<double> baseline(slots, 0.0);
    rewardMean = 0.0;
    for (const auto &e : m_envs) {
        std::vector<double> g(slots, 0.0);
        for (size_t t = e.slotRewards.size(); t-- > 0;)
            g[t] = e.slotRewards[t] + (t + 1 < slots ? m_gamma * g[t + 1] : 0.0);
        for (size_t t = 0; t < slots; ++t)
            baseline[t] += g[t] / double(m_envs.size());
        returns.push_back(std::move(g));
        double sum = 0.0;
        for (double r : e.slotRewards)
            sum += r;
        rewardMean += sum / double(std::max<size_t>(1, e.slotRewards.size())) / double(m_envs.size());
    }
    // episode-job: a job's completion slot in each rollout (its end if unfinished) and the
    // mean over the rollouts.
    std::vector<double> meanFinish;
    if (m_split)
        for (const auto &e : m_envs) {
            meanFinish.resize(e.sim->jobs().size(), 0.0);
            for (size_t j = 0; j < e.sim->jobs().size(); ++j)
                meanFinish[j] += finishSlot(e, j) / double(m_envs.size());
        }
    Batch b;
    for (size_t k = 0; k < m_envs.size(); ++k) {
        Env &e = m_envs[k];
        for (size_t i = 0; i < e.finished.size(); ++i) {
            const size_t t = size_t(e.sampleSlot[i]);
            e.finished[i].ret = float(returns[k][t] - baseline[t]);
            const int j = e.finished[i].jobIndex;
            if (m_split && j >= 0)
                e.finished[i].taskRet = float(meanFinish[size_t(j)] - finishSlot(e, size_t(j)));
            b.freshUsed.push_back(std::move(e.finished[i]));
        }
        e.finished.clear();
    }
    for (const auto &x : b.freshUsed)
        b.samples.push_back(&x);
    return b;
}

// Credit "vine": the policy's random numbers in one slot of the trunk's trace, from stream
// `stream` (0: the continuation every branch shares).
std::uint64_t ActorCritic::slotSeed(int slot, std::uint64_t stream) const
{
    Rng mix(m_trunkTrace * 0x9E3779B97F4A7C15ULL ^ (o.seed << 20) ^ (std::uint64_t(slot) << 8) ^
            (stream * 0xD1B54A32D192ED03ULL));
    mix.next();
    return mix.next();
}

// Credit "vine": from a copy of the trunk, the branch slot with the branch's own draws
// (`draws`; its decisions recorded), then up to vineHorizon slots with the continuation's
// random numbers (`continuation` 0: the ones common to every branch).
void ActorCritic::runBranch(Env &e, int draws, int continuation)
{
    if (e.sim)
        *e.sim = *m_trunk; // reuses the branch's buffers
    else
        e.sim = std::make_unique<Simulator>(*m_trunk);
    e.current.clear();
    e.policy->reseed(slotSeed(m_trunk->slot(), 1 + std::uint64_t(draws)));
    if (o.vineGreedy)
        e.policy->setActor(e.actor);
    e.record = true;
    e.sim->step(*e.policy);
    e.record = false;
    if (o.vineGreedy)
        e.policy->setActor(argMaxActor());
    countAllocation(e);
    e.finished = std::move(e.current);
    e.current.clear();
    auto reward = [&] { return e.sim->rewards().empty() ? 0.0 : e.sim->rewards().back() * m_rewardScale; };
    e.branchReturn = reward();
    e.lastReward = e.branchReturn;
    const std::uint64_t stream = continuation == 0 ? 0 : (std::uint64_t(1) << 32) + std::uint64_t(continuation);
    double weight = 1.0;
    for (int h = 1; !e.sim->done() && (o.vineHorizon == 0 || h <= o.vineHorizon); ++h) {
        e.policy->reseed(slotSeed(e.sim->slot(), stream));
        e.sim->step(*e.policy);
        weight *= m_gamma;
        e.branchReturn += weight * reward();
    }
}

// Credit "vine": the trunk, on a new training trace when it has ended.
Simulator &ActorCritic::trunk()
{
    if (!m_trunk || m_trunk->done()) {
        m_trunkTrace = nextTraceSeed();
        m_trunk = simulatorOn(m_scenario.trace(m_profiles, m_trunkTrace));
    }
    return *m_trunk;
}

// Credit "vine": the trunk plays its next slot with the common random numbers.
void ActorCritic::advanceTrunk()
{
    Env &first = m_envs.front(); // after its branch: not recording (and arg max if vineGreedy)
    first.policy->reseed(slotSeed(m_trunk->slot(), 0));
    m_trunk->step(*first.policy);
}

// Credit "vine": the branches of the trunk's next slot, then the trunk moves on by it.
// Branch i plays allocation i / streams with continuation stream i % streams; an
// allocation's return is the mean over its streams (its decisions are the same in each).
ActorCritic::Batch ActorCritic::vineBatch(double &rewardMean)
{
    trunk();
    const size_t streams = size_t(o.vineStreams), allocations = m_envs.size() / streams;
    m_pool->run(int(m_envs.size()), [&](int i) {
        runBranch(m_envs[size_t(i)], int(size_t(i) / streams), int(size_t(i) % streams));
    });
    std::vector<double> returns(allocations, 0.0);
    double mean = 0.0;
    rewardMean = 0.0;
    for (size_t i = 0; i < m_envs.size(); ++i) {
        returns[i / streams] += m_envs[i].branchReturn / double(streams);
        mean += m_envs[i].branchReturn / double(m_envs.size());
        rewardMean += m_envs[i].lastReward / double(m_envs.size());
    }
    Batch b;
    for (size_t i = 0; i < m_envs.size(); ++i) {
        Env &e = m_envs[i];
        if (i % streams == 0)
            for (auto &x : e.finished) {
                x.ret = float(returns[i / streams] - mean);
                b.freshUsed.push_back(std::move(x));
            }
        e.finished.clear();
    }
    for (const auto &x : b.freshUsed)
        b.samples.push_back(&x);
    advanceTrunk();
    return b;
}

// See measureCreditSignal: branches i and i + envs/2 play the same branch-slot draws, the
// first half on continuation stream 0 and the second on stream 1.
CreditSignal ActorCritic::creditSignal(int slots)
{
    const auto start = std::chrono::steady_clock::now();
    const size_t half = m_envs.size() / 2;
    std::vector<double> first, second;
    for (int n = 0; n < slots; ++n) {
        trunk();
        m_pool->run(int(2 * half), [&](int i) {
            runBranch(m_envs[size_t(i)], int(size_t(i) % half), size_t(i) < half ? 0 : 1);
        });
        for (size_t h = 0; h < 2; ++h) {
            double mean = 0.0;
            for (size_t k = 0; k < half; ++k)
                mean += m_envs[h * half + k].branchReturn / double(half);
            for (size_t k = 0; k < half; ++k)
                (h == 0 ? first : second).push_back((m_envs[h * half + k].branchReturn - mean) / m_rewardScale);
        }
        for (auto &e : m_envs)
            e.finished.clear();
        advanceTrunk();
    }
    CreditSignal r;
    r.branches = int(first.size());
    double xy = 0.0, xx = 0.0, yy = 0.0;
    for (size_t k = 0; k < first.size(); ++k) {
        xy += first[k] * second[k];
        xx += first[k] * first[k];
        yy += second[k] * second[k];
    }
    r.correlation = xx > 0.0 && yy > 0.0 ? xy / std::sqrt(xx * yy) : 0.0;
    r.deviation = first.empty() ? 0.0 : std::sqrt(0.5 * (xx + yy) / double(first.size()));
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

// The finished samples of every environment (done ones restart), subsampled to the batch
// size and filled up from replay. With replay, at most half the batch is fresh: a slot's
// samples share one return, so a batch of one slot alone carries almost no signal.
ActorCritic::Batch ActorCritic::gatherBatch(double &rewardSum)
{
    Batch b;
    rewardSum = 0.0;
    for (auto &e : m_envs) {
        rewardSum += e.lastReward;
        for (auto &x : e.finished)
            b.fresh.push_back(std::move(x));
        e.finished.clear();
        if (e.sim->done())
            restart(e);
    }
    const int freshLimit = m_replayMode == ReplayMode::None || m_replay->size() < o.batchSize
                               ? o.batchSize
                               : o.batchSize / 2;
    if (int(b.fresh.size()) > freshLimit) {
        for (int i = 0; i < freshLimit; ++i) {
            const size_t k = size_t(i) + size_t(m_rng.below(b.fresh.size() - size_t(i)));
            std::swap(b.fresh[size_t(i)], b.fresh[k]);
        }
        b.freshUsed.assign(b.fresh.begin(), b.fresh.begin() + freshLimit);
    } else {
        b.freshUsed = b.fresh;
    }
    for (const auto &x : b.freshUsed)
        b.samples.push_back(&x);
    if (m_replayMode != ReplayMode::None && m_replay->size() > 0 &&
        int(b.samples.size()) < o.batchSize) {
        b.replayed = m_replay->sample(o.batchSize - int(b.samples.size()), m_rng);
        for (int k : b.replayed)
            b.samples.push_back(&m_replay->at(k));
    }
    return b;
}

// Distributed: every rank steps when any has samples (an empty one adds a zero gradient);
// the average runs over all ranks.
bool ActorCritic::anyRankUpdates(const Batch &batch) const
{
    bool update = !batch.samples.empty();
    if (m_comm) {
        double n = update ? 1.0 : 0.0;
        m_comm->allReduceSum(&n, 1);
        update = n > 0.0;
    }
    return update;
}

// One actor-critic step on the batch, every environment weighted equally; replay gets the
// fresh samples and the environments the new weights.
void ActorCritic::update(long long step, Batch &b)
{
    const auto &batch = b.samples;
    std::vector<int> perEnv(m_envs.size(), 0);
    for (const Sample *x : batch)
        ++perEnv[size_t(x->env)];
    int present = 0;
    for (int n : perEnv)
        present += n > 0 ? 1 : 0;
    // Vine: every decision of every branch counts once, so that the branches' advantage
    // multiplies the sum of its slot's log-probabilities (the slot's allocation is one action)
    // and the decisions the branches share cancel exactly (their advantages sum to zero).
    std::vector<float> weights;
    for (const Sample *x : batch)
        weights.push_back(m_vine ? 1.0f / float(batch.size())
                                 : 1.0f / float(present * perEnv[size_t(x->env)]));
    if (!m_useValue && !m_episodic && !batch.empty()) {
        double mean = 0.0;
        for (const Sample *x : batch)
            mean += x->ret;
        mean /= double(batch.size());
        m_baseline = m_baselineSet ? 0.95 * m_baseline + 0.05 * mean : mean;
        m_baselineSet = true;
        m_loss.baseline = m_baseline;
    }
    m_scales.applyTo(m_loss);
    m_loss.permutation.clear();
    if (o.control) {
        for (size_t k = 0; k < batch.size(); ++k)
            m_loss.permutation.push_back(std::int64_t(k));
        m_rng.shuffle(m_loss.permutation.begin(), m_loss.permutation.end());
    }
    m_loss.policyWeight = (m_useValue && step <= o.criticWarmup) ? 0.0 : 1.0;
    if (o.lrAnneal == "linear" && m_loss.policyWeight > 0.0) {
        // The actor's updates run from `first` to o.steps; the last takes 1/n of the rate.
        const long long first = m_useValue ? (long long)o.criticWarmup + 1 : 1;
        const double n = double(std::max(1LL, o.steps - first + 1));
        m_learner->setPolicyLearningRate(o.learningRate *
                                         std::max(0.0, 1.0 - double(step - first) / n));
    }
    const RlUpdateStats st = m_learner->rlUpdate(batch, weights, m_loss);
    if (!batch.empty())
        m_scales.track(st);
    for (size_t k = 0; k < b.replayed.size(); ++k)
        m_replay->setPriority(b.replayed[k],
                              std::fabs(st.advantages[b.freshUsed.size() + k]) + 0.01f);
    m_acc.trainLoss += st.policyLoss;
    m_acc.valueLoss += st.valueLoss;
    m_acc.entropy += st.entropy;
    ++m_accCount;
    float maxPriority = 1.0f;
    for (size_t k = 0; k < b.freshUsed.size(); ++k)
        maxPriority = std::max(maxPriority, std::fabs(st.advantages[k]) + 0.01f);
    if (m_replayMode != ReplayMode::None)
        for (auto &x : b.fresh)
            m_replay->add(std::move(x), maxPriority);
    m_params = m_learner->parameters();
    for (auto &e : m_envs) {
        e.policy->setParameters(m_params);
        if (m_discount > 0.0) // V bootstraps the return only then
            e.critic = std::make_unique<PolicyNetwork>(m_spec, m_params);
    }
}

// The losses, reward and action mix since the last point (and the validation avg JCT).
CurvePoint ActorCritic::curvePoint(long long step, bool validate)
{
    CurvePoint p;
    p.step = step;
    p.seconds = seconds();
    const int n = std::max(1, m_accCount);
    p.trainLoss = m_acc.trainLoss / n;
    p.valueLoss = m_acc.valueLoss / n;
    p.entropy = m_acc.entropy / n;
    p.reward = m_acc.reward / 20.0;
    m_acc = CurvePoint();
    m_accCount = 0;
    std::array<long long, 4> kinds{};
    double workers = 0.0, ps = 0.0, running = 0.0;
    for (auto &e : m_envs) {
        for (size_t k = 0; k < 4; ++k)
            kinds[k] += e.kinds[k];
        workers += e.workers;
        ps += e.ps;
        running += e.running;
        e.kinds = {};
        e.workers = e.ps = e.running = 0.0;
    }
    const double decisions = double(kinds[0] + kinds[1] + kinds[2] + kinds[3]);
    if (decisions > 0) {
        p.workerShare = double(kinds[0]) / decisions;
        p.psShare = double(kinds[1]) / decisions;
        p.bundleShare = double(kinds[2]) / decisions;
        p.stopShare = double(kinds[3]) / decisions;
    }
    if (running > 0) {
        p.workersPerJob = workers / running;
        p.psPerJob = ps / running;
    }
    ExplorationCounts counts;
    for (auto &e : m_envs) {
        const ExplorationCounts c = e.policy->takeExplorationCounts();
        counts.decisions += c.decisions;
        counts.explored += c.explored;
    }
    if (counts.decisions > 0)
        p.exploredFraction = double(counts.explored) / double(counts.decisions);
    if (validate)
        p.validationAvgJct = evaluatePolicyDistributed(m_comm, m_scenario, m_profiles, m_spec,
                                                       m_params, o.validationSeeds, o.threads);
    return p;
}

// CKPT.resume: the latest state, with the optimizer even when CKPT is --weights-only.
void ActorCritic::saveResume(long long step)
{
    if (step <= 0)
        return;
    markValueTrained(step); // (the last validation may lie before this step's updates)
    m_writer->saveResume(step, m_result, state(), [&] { return m_learner->archive(true); });
}

// Validation of the starting point (the SL policy) so RL never ships worse than it.
void ActorCritic::validateStart(const TrainProgress &progress)
{
    CurvePoint p;
    p.validationAvgJct = evaluatePolicyDistributed(m_comm, m_scenario, m_profiles, m_spec,
                                                   m_params, o.validationSeeds, o.threads);
    p.seconds = seconds();
    recordCurvePoint(
        m_result, p, o.output, [&] { save(0, p.validationAvgJct); }, progress, o.steps);
}

TrainResult ActorCritic::train(const TrainProgress &progress, const std::atomic<bool> *cancel)
{
    if (!m_resumed)
        validateStart(progress);
    const long long firstStep = m_resumed ? m_resumed->step + 1 : 1;
    m_result.lastStep = firstStep - 1;
    for (long long step = firstStep; step <= o.steps; ++step) {
        if (anyRank(m_comm, cancel && cancel->load())) {
            m_result.cancelled = true;
            break;
        }
        double reward = 0.0;
        Batch batch;
        if (m_vine) {
            batch = vineBatch(reward);
        } else if (m_episodic) {
            batch = episodeBatch(reward);
        } else {
            m_pool->run(int(m_envs.size()), [&](int i) { stepEnvironment(m_envs[size_t(i)]); });
            double rewardSum = 0.0;
            batch = gatherBatch(rewardSum);
            reward = rewardSum / double(m_envs.size());
        }
        if (anyRankUpdates(batch))
            update(step, batch);
        m_acc.reward += reward;
        if (m_comm && o.hashEvery > 0 && step % o.hashEvery == 0)
            checkSameWeights(m_comm, *m_params, step);
        const bool validate = step % o.validateEvery == 0 || step == o.steps;
        if (validate || step % 20 == 0) {
            const CurvePoint p = curvePoint(step, validate);
            recordCurvePoint(
                m_result, p, o.output, [&] { save(step, p.validationAvgJct); }, progress, o.steps);
        }
        m_result.lastStep = step;
        if (validate)
            saveResume(step);
    }
    saveResume(m_result.lastStep); // the end, or where Ctrl-C stopped the run
    if (!o.output.empty())
        writeCurves(o.output, m_result.curve);
    return m_result;
}

} // namespace

RlTrainer::RlTrainer(RlOptions options) : m_options(std::move(options))
{
    if (m_options.comm && m_options.comm->rank() != 0)
        m_options.output.clear(); // rank 0 alone writes the checkpoint and the curves
}

TrainResult RlTrainer::run(const TrainProgress &progress, const std::atomic<bool> *cancel)
{
    const RlOptions &o = m_options;
    if (o.algorithm == "es")
        return runEsTrainer(o, progress, cancel);
    if (o.algorithm != "actor-critic")
        throw Error("unknown RL algorithm '" + o.algorithm + "' (known: actor-critic, es)");
    checkAblations(o.ablations);
    return ActorCritic(o).train(progress, cancel);
}

CreditSignal measureCreditSignal(RlOptions options, int slots)
{
    if (options.init.empty())
        throw Error("credit signal: needs the policy to measure (--init)");
    if (options.envs < 4 || options.envs % 2 != 0)
        throw Error("credit signal: needs an even number of branches, 4 or more (--envs)");
    if (slots < 1)
        throw Error("credit signal: needs at least one slot");
    options.credit = "vine";
    options.output.clear();
    return ActorCritic(options).creditSignal(slots);
}

} // namespace dl2
