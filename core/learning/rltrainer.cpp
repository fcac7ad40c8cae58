#include "rltrainer.h"

#include "checkpoint.h"
#include "distributed.h"
#include "dl2policy.h"
#include "error.h"
#include "fileio.h"
#include "learner.h"
#include "modelprofile.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <thread>

namespace dl2 {

void checkAblations(const std::vector<std::string> &ablations)
{
    for (const auto &a : ablations)
        if (a != "no-value" && a != "no-exploration" && a != "no-replay" && a != "per-action-reward")
            throw Error("unknown ablation '" + a +
                        "' (known: no-value, no-exploration, no-replay, per-action-reward)");
}

void checkCredit(const std::string &credit)
{
    if (credit != "slot" && credit != "split")
        throw Error("unknown credit '" + credit + "' (known: slot, split)");
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
    std::unique_ptr<PolicyNetwork> critic; // V for bootstrapping
    std::vector<Sample> current, pending, finished;
    double lastReward = 0.0;
    // Action mix and slot-end allocation since the last curve point.
    std::array<long long, 4> kinds{}; // worker, PS, bundle, stop decisions
    double workers = 0.0, ps = 0.0, running = 0.0;
};

// The counterfactual return of the task sample `x` added: its job's contribution to the
// slot reward with the final allocation minus the contribution without that task.
float counterfactual(const Simulator &sim, const Sample &x)
{
    const JobState &j = sim.jobs()[size_t(x.jobIndex)];
    const TaskKind kind = actionKind(x.action);
    const int dp = kind == TaskKind::Worker ? 0 : 1;
    const int dw = kind == TaskKind::Ps ? 0 : 1;
    const int index = x.jobIndex;
    return float(sim.slotProgress(index, j.ps, j.workers) -
                 sim.slotProgress(index, std::max(0, j.ps - dp), std::max(0, j.workers - dw)));
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
    const Scenario &scenario = scenarioByName(o.scenario);
    const ProfileSet profiles = o.profiles ? *o.profiles : ProfileSet::reference();
    registerBaselines();

    // Distributed: rank r runs its own environments on trace seeds base + episode x W + r and
    // its own random numbers; rank 0 draws exactly what a single process does.
    Communicator *comm = o.comm.get();
    const int rank = comm ? comm->rank() : 0;
    const int world = comm ? comm->worldSize() : 1;
    std::unique_ptr<Learner> learner;
    PolicySpec spec;
    std::optional<ResumeState> resumed;
    if (!o.resume.empty()) {
        const Checkpoint c = readCheckpoint(o.resume, o.kind);
        if (!c.info.resume.present || c.info.trainer != "rl" || c.info.resume.values.size() != 6)
            throw Error(o.resume + ": no actor-critic resume state (written by `dl2 train rl` with its optimizer state?)");
        if (!c.hasOptimizer)
            throw Error(o.resume + ": written --weights-only, without the optimizer state a resume needs");
        spec = c.spec;
        learner = std::make_unique<Learner>(c, o.learningRate, true, o.valueLearningRate);
        resumed = c.info.resume;
    } else if (!o.init.empty()) {
        const Checkpoint c = readCheckpoint(o.init, o.kind);
        spec = c.spec;
        learner = std::make_unique<Learner>(c, o.learningRate, c.info.trainer == "rl",
                                            o.valueLearningRate);
    } else {
        spec = o.spec ? *o.spec : defaultSpec(o.kind, scenario.window, profiles.size());
        learner = std::make_unique<Learner>(spec, o.learningRate, o.seed, o.valueLearningRate);
    }
    if (o.decode)
        spec.decode = *o.decode;
    else if (spec.kind == PolicyKind::Dl2)
        spec.decode = Decode::Sample;
    checkCredit(o.credit);
    // per-action-reward replaces the credit: plain policy gradient on each job's own progress.
    const bool split = o.credit == "split" && !has(o.ablations, "per-action-reward");
    const bool useValue = !has(o.ablations, "no-value");
    const bool explore = !has(o.ablations, "no-exploration");
    const ReplayMode replayMode = has(o.ablations, "no-replay") ? ReplayMode::None : o.replay;
    const bool perAction = has(o.ablations, "per-action-reward");
    const bool unfinished = o.unfinishedJobsReward.value_or(spec.kind == PolicyKind::Dl2Plus);
    const double rewardScale = unfinished ? 0.02 : 1.0;
    const double discount = useValue ? o.discount : 0.0;

    SimulationOptions simOptions = scenario.simulation;
    simOptions.unfinishedJobsReward = unfinished;

    Rng rng(o.seed * 104729 + 3);
    if (resumed)
        rng.setState(resumed->rng.at(0));
    if (rank > 0)
        rng.setState(rng.state() ^ (0x9E3779B97F4A7C15ULL * std::uint64_t(rank)));
    if (comm)
        learner->setGradientReducer([comm, world](std::vector<float> &g) {
            comm->allReduceSum(g.data(), g.size());
            for (float &x : g)
                x /= float(world);
        });
    ReplayBuffer replay(o.bufferSize, replayMode == ReplayMode::None ? ReplayMode::Uniform : replayMode);
    auto params = learner->parameters();

    std::vector<Env> envs(size_t(std::max(1, o.envs)));
    std::uint64_t episode = resumed ? resumed->nextSeed : 0;
    const std::uint64_t policySeed = o.seed * 1000 + (resumed ? std::uint64_t(resumed->step) * 7919 : 0);
    auto restart = [&](Env &e) {
        const std::uint64_t seed = o.trainSeedBase + episode++ * std::uint64_t(world) + std::uint64_t(rank);
        e.sim = std::make_unique<Simulator>(scenario.cluster, profiles, scenario.trace(profiles, seed), simOptions);
    };
    for (size_t i = 0; i < envs.size(); ++i) {
        Env &e = envs[i];
        e.id = int(i);
        restart(e);
        e.policy = std::make_unique<Dl2Policy>(spec, params, policySeed + std::uint64_t(rank) * envs.size() + i);
        e.critic = std::make_unique<PolicyNetwork>(spec, params);
        ActorOptions actor;
        actor.sample = true;
        actor.epsilon = explore ? o.epsilon : 0.0;
        actor.threshold = o.threshold;
        actor.stopEpsilon = o.stopEpsilon;
        Env *ep = &e;
        actor.onDecision = [ep](const EncodedState &s, int action, float mu, int job) {
            Sample x = Sample::fromState(s, action);
            x.behaviourProb = mu;
            x.jobIndex = job;
            x.env = ep->id;
            ep->current.push_back(std::move(x));
        };
        e.policy->setActor(std::move(actor));
    }

    // One slot of one environment; finished samples get their returns.
    auto stepEnv = [&](Env &e) {
        e.current.clear();
        e.sim->step(*e.policy);
        const double r = e.sim->rewards().empty() ? 0.0 : e.sim->rewards().back() * rewardScale;
        e.lastReward = r;
        if (perAction) {
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
            for (auto &x : e.current) {
                x.ret = float(r);
                if (split && x.jobIndex >= 0)
                    x.taskRet = float(counterfactual(*e.sim, x) * rewardScale);
            }
        }
        for (const auto &x : e.current)
            ++e.kinds[x.jobIndex < 0 ? 3 : size_t(actionKind(x.action))];
        for (const auto &j : e.sim->jobs())
            if (j.workers > 0 && j.ps > 0) {
                e.workers += j.workers;
                e.ps += j.ps;
                e.running += 1.0;
            }
        // Bootstrap the previous slot's samples with V(first state of this slot).
        if (!e.current.empty() && !e.pending.empty()) {
            float v = 0.0f;
            if (discount > 0.0) {
                e.critic->resetCache();
                EncodedState first;
                e.current.front().toState(spec, first);
                v = e.critic->value(first);
            }
            for (auto &x : e.pending) {
                x.ret += float(discount) * v;
                e.finished.push_back(std::move(x));
            }
            e.pending.clear();
        }
        if (!e.current.empty()) {
            if (perAction || discount <= 0.0) {
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
    };

    TrainingInfo info;
    info.trainer = "rl";
    info.scenario = o.scenario;
    info.replay = toString(replayMode);
    info.learningRate = o.learningRate;
    info.batchSize = o.batchSize;
    info.bufferSize = o.bufferSize;
    info.envs = int(envs.size());
    info.entropyWeight = o.entropyWeight;
    info.epsilon = explore ? o.epsilon : 0.0;
    info.threshold = o.threshold;
    info.discount = discount;
    info.importanceClip = o.importanceClip;
    info.credit = o.credit;
    info.valueLearningRate = o.valueLearningRate;
    info.criticWarmup = o.criticWarmup;
    info.stopEpsilon = o.stopEpsilon;
    info.control = o.control;
    info.unfinishedJobsReward = unfinished;
    info.ablations = o.ablations;
    info.seed = o.seed;
    TrainResult result;
    result.checkpoint = o.output;
    double taskStd = 1.0; // running RMS of the task advantages
    bool taskStdSet = false;
    double baseline = 0.0;
    bool baselineSet = false;
    double advantageStd = 1.0; // running RMS of advantages: the scale of the policy gradient
    bool advantageStdSet = false;
    long long firstStep = 1;
    if (resumed) {
        firstStep = resumed->step + 1;
        result.bestValidationAvgJct = resumed->bestValidationAvgJct;
        result.bestStep = resumed->bestStep;
        const auto &v = resumed->values;
        advantageStd = v[0];
        advantageStdSet = v[1] != 0.0;
        taskStd = v[2];
        taskStdSet = v[3] != 0.0;
        baseline = v[4];
        baselineSet = v[5] != 0.0;
    }
    auto save = [&](long long step, double jct) {
        if (o.output.empty())
            return;
        info.step = step;
        info.validationAvgJct = jct;
        ResumeState &r = info.resume;
        r.present = true;
        r.step = step;
        r.rng = {rng.state()};
        r.nextSeed = episode;
        r.bestValidationAvgJct = result.bestValidationAvgJct;
        r.bestStep = result.bestStep;
        r.values = {advantageStd, advantageStdSet ? 1.0 : 0.0, taskStd, taskStdSet ? 1.0 : 0.0,
                    baseline, baselineSet ? 1.0 : 0.0};
        r.worldSize = world;
        writeFileAtomically(o.output, encodeCheckpoint(spec, info, learner->archive(o.saveOptimizer),
                                                       o.saveOptimizer));
    };
    const auto start = std::chrono::steady_clock::now();
    auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };

    RlLossOptions loss;
    loss.entropyWeight = o.entropyWeight;
    loss.importanceClip = o.importanceClip;
    loss.useValue = useValue;
    loss.split = split;
    CurvePoint acc;
    int accCount = 0;

    // Validation of the starting point (the SL policy) so RL never ships worse than it.
    if (!resumed) {
        CurvePoint p;
        p.validationAvgJct = evaluatePolicyDistributed(comm, scenario, profiles, spec, params,
                                                       o.validationSeeds, o.threads);
        p.seconds = seconds();
        recordCurvePoint(
            result, p, o.output, [&] { save(0, p.validationAvgJct); }, progress, o.steps);
    }

    for (long long step = firstStep; step <= o.steps; ++step) {
        if (anyRank(comm, cancel && cancel->load())) {
            result.cancelled = true;
            break;
        }
        if (envs.size() == 1) {
            stepEnv(envs[0]);
        } else {
            std::vector<std::thread> pool;
            for (size_t i = 1; i < envs.size(); ++i)
                pool.emplace_back([&, i] { stepEnv(envs[i]); });
            stepEnv(envs[0]);
            for (auto &t : pool)
                t.join();
        }
        double rewardSum = 0.0;
        std::vector<Sample> fresh;
        for (auto &e : envs) {
            rewardSum += e.lastReward;
            for (auto &x : e.finished)
                fresh.push_back(std::move(x));
            e.finished.clear();
            if (e.sim->done())
                restart(e);
        }
        // Batch: fresh samples (subsampled to the batch size), filled up from replay.
        // With replay, at most half the batch is fresh: a slot's samples share one return, so
        // a batch of one slot alone carries almost no signal.
        const int freshLimit = replayMode == ReplayMode::None || replay.size() < o.batchSize
                                   ? o.batchSize
                                   : o.batchSize / 2;
        std::vector<Sample> freshUsed;
        if (int(fresh.size()) > freshLimit) {
            for (int i = 0; i < freshLimit; ++i) {
                const size_t k = size_t(i) + size_t(rng.below(fresh.size() - size_t(i)));
                std::swap(fresh[size_t(i)], fresh[k]);
            }
            freshUsed.assign(fresh.begin(), fresh.begin() + freshLimit);
        } else {
            freshUsed = fresh;
        }
        std::vector<const Sample *> batch;
        for (const auto &x : freshUsed)
            batch.push_back(&x);
        std::vector<int> replayed;
        if (replayMode != ReplayMode::None && replay.size() > 0 && int(batch.size()) < o.batchSize) {
            replayed = replay.sample(o.batchSize - int(batch.size()), rng);
            for (int k : replayed)
                batch.push_back(&replay.at(k));
        }
        // Distributed: every rank steps when any has samples (an empty one adds a zero
        // gradient); the average runs over all ranks.
        bool update = !batch.empty();
        if (comm) {
            double n = update ? 1.0 : 0.0;
            comm->allReduceSum(&n, 1);
            update = n > 0.0;
        }
        if (update) {
            // Equal weight per environment.
            std::vector<int> perEnv(envs.size(), 0);
            for (const Sample *x : batch)
                ++perEnv[size_t(x->env)];
            int present = 0;
            for (int n : perEnv)
                present += n > 0 ? 1 : 0;
            std::vector<float> weights;
            for (const Sample *x : batch)
                weights.push_back(1.0f / float(present * perEnv[size_t(x->env)]));
            if (!useValue && !batch.empty()) {
                double mean = 0.0;
                for (const Sample *x : batch)
                    mean += x->ret;
                mean /= double(batch.size());
                baseline = baselineSet ? 0.95 * baseline + 0.05 * mean : mean;
                baselineSet = true;
                loss.baseline = baseline;
            }
            loss.advantageScale = 1.0 / std::max(1e-3, advantageStd);
            loss.taskAdvantageScale = 1.0 / std::max(1e-6, taskStd);
            loss.permutation.clear();
            if (o.control) {
                for (size_t k = 0; k < batch.size(); ++k)
                    loss.permutation.push_back(std::int64_t(k));
                for (size_t k = batch.size(); k > 1; --k)
                    std::swap(loss.permutation[k - 1], loss.permutation[size_t(rng.below(k))]);
            }
            loss.policyWeight = (useValue && step <= o.criticWarmup) ? 0.0 : 1.0;
            const RlUpdateStats st = learner->rlUpdate(batch, weights, loss);
            if (!batch.empty()) {
                double m2 = 0.0;
                for (float a : st.advantages)
                    m2 += double(a) * a;
                const double batchStd = std::sqrt(m2 / double(std::max<size_t>(1, st.advantages.size())));
                advantageStd = advantageStdSet ? 0.99 * advantageStd + 0.01 * batchStd : batchStd;
                advantageStdSet = true;
                double t2 = 0.0;
                int tn = 0;
                for (size_t k = 0; k < st.taskAdvantages.size(); ++k)
                    if (st.taskAdvantages[k] != 0.0f) {
                        t2 += double(st.taskAdvantages[k]) * st.taskAdvantages[k];
                        ++tn;
                    }
                if (tn > 0) {
                    const double batchTaskStd = std::sqrt(t2 / tn);
                    taskStd = taskStdSet ? 0.99 * taskStd + 0.01 * batchTaskStd : batchTaskStd;
                    taskStdSet = true;
                }
            }
            for (size_t k = 0; k < replayed.size(); ++k)
                replay.setPriority(replayed[k], std::fabs(st.advantages[freshUsed.size() + k]) + 0.01f);
            acc.trainLoss += st.policyLoss;
            acc.valueLoss += st.valueLoss;
            acc.entropy += st.entropy;
            ++accCount;
            float maxPriority = 1.0f;
            for (size_t k = 0; k < freshUsed.size(); ++k)
                maxPriority = std::max(maxPriority, std::fabs(st.advantages[k]) + 0.01f);
            if (replayMode != ReplayMode::None)
                for (auto &x : fresh)
                    replay.add(std::move(x), maxPriority);
            params = learner->parameters();
            for (auto &e : envs) {
                e.policy->setParameters(params);
                e.critic = std::make_unique<PolicyNetwork>(spec, params);
            }
        }
        acc.reward += rewardSum / double(envs.size());
        if (comm && o.hashEvery > 0 && step % o.hashEvery == 0)
            checkSameWeights(comm, *params, step);

        const bool validate = step % o.validateEvery == 0 || step == o.steps;
        if (validate || step % 20 == 0) {
            CurvePoint p;
            p.step = step;
            p.seconds = seconds();
            const int n = std::max(1, accCount);
            p.trainLoss = acc.trainLoss / n;
            p.valueLoss = acc.valueLoss / n;
            p.entropy = acc.entropy / n;
            p.reward = acc.reward / 20.0;
            acc = CurvePoint();
            accCount = 0;
            std::array<long long, 4> kinds{};
            double workers = 0.0, ps = 0.0, running = 0.0;
            for (auto &e : envs) {
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
            if (validate)
                p.validationAvgJct = evaluatePolicyDistributed(comm, scenario, profiles, spec, params,
                                                               o.validationSeeds, o.threads);
            recordCurvePoint(
                result, p, o.output, [&] { save(step, p.validationAvgJct); }, progress, o.steps);
        }
    }
    if (!o.output.empty())
        writeCurves(o.output, result.curve);
    return result;
}

} // namespace dl2
