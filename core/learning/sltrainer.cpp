#include "sltrainer.h"

#include "checkpoint.h"
#include "checkpointwriter.h"
#include "distributed.h"
#include "dl2policy.h"
#include "error.h"
#include "learner.h"
#include "modelprofile.h"
#include "teacherrecorder.h"
#include "trainingrecipe.h"
#include "windowteacher.h"

#include <chrono>
#include <cmath>
#include <deque>

namespace dl2 {

namespace {

// Teacher samples on a list of traces (validation set).
std::vector<Sample> teacherSamples(const Scenario &scenario, const ProfileSet &profiles,
                                   const PolicySpec &spec, const std::string &teacher,
                                   const std::string &order, const std::string &labels,
                                   const std::vector<std::uint64_t> &seeds, size_t limit, Rng &rng)
{
    std::vector<Sample> out;
    for (auto seed : seeds) {
        Simulator sim(scenario.cluster, profiles, scenario.trace(profiles, seed), scenario.simulation);
        SchedulerConfig config;
        config.scenario = scenario.name;
        config.window = scenario.window;
        TeacherRecorder rec(makeScheduler(teacher, config), teacher, spec,
                            [&](Sample s) { out.push_back(std::move(s)); }, order, labels);
        while (!sim.done())
            sim.step(rec);
    }
    // Reservoir-style thinning to `limit` samples.
    while (out.size() > limit) {
        const size_t k = size_t(rng.below(out.size()));
        out[k] = std::move(out.back());
        out.pop_back();
    }
    return out;
}

double agreement(const PolicySpec &spec, std::shared_ptr<const ParameterSet> params,
                 const std::vector<Sample> &samples)
{
    if (samples.empty())
        return 0.0;
    PolicyNetwork net(spec, std::move(params));
    int agree = 0;
    std::vector<float> probs;
    EncodedState s;
    for (const Sample &x : samples) {
        x.toState(spec, s);
        net.resetCache();
        net.probabilities(s, probs);
        int best = 0;
        for (int a = 1; a < int(probs.size()); ++a)
            if (probs[size_t(a)] > probs[size_t(best)])
                best = a;
        // With set labels any task the teacher still needs counts as agreement.
        agree += (x.target.empty() ? best == x.action : x.target[size_t(best)] > 0.0f) ? 1 : 0;
    }
    return double(agree) / double(samples.size());
}

// DAgger actor: per slot, the teacher acts (and records) with probability beta; otherwise
// the teacher only labels a copy of the slot and the student acts on the real one.
class MixedActor final : public Scheduler
{
public:
    MixedActor(TeacherRecorder &recorder, std::uint64_t seed, std::function<void(Sample)> sink)
        : m_recorder(recorder), m_rng(seed), m_sink(std::move(sink))
    {
    }
    void setTaskLabels(bool on) { m_taskLabels = on; }
    std::string name() const override { return "dagger"; }
    void reset() override
    {
        m_recorder.reset();
        if (m_student)
            m_student->reset();
    }
    void schedule(SlotContext &ctx) override
    {
        const bool teacherActs = !m_student || m_beta >= 1.0 || m_rng.uniform() < m_beta;
        if (teacherActs) {
            m_recorder.schedule(ctx);
            ++teacherSlots;
        } else {
            m_target = m_recorder.label(ctx);
            m_ctx = &ctx;
            m_student->schedule(ctx);
            m_ctx = nullptr;
            ++studentSlots;
        }
    }
    void setStudent(const PolicySpec &spec, std::shared_ptr<const ParameterSet> params)
    {
        if (!m_student) {
            m_student = std::make_unique<Dl2Policy>(spec, std::move(params), 1);
            if (m_taskLabels) {
                ActorOptions actor;
                actor.onDecision = [this](const EncodedState &s, int action, float, int) {
                    labelDecision(s, action);
                };
                m_student->setActor(std::move(actor));
            }
        } else {
            m_student->setParameters(std::move(params));
        }
    }
    void setBeta(double beta) { m_beta = beta; }
    long long teacherSlots = 0, studentSlots = 0;

private:
    // The student's state before `action`: the target is uniform over the window tasks the
    // teacher's allocation still needs (worker, PS, bundle if both), stop if none.
    void labelDecision(const EncodedState &s, int action)
    {
        if (!m_ctx)
            return;
        Sample x = Sample::fromState(s, action);
        x.target.assign(size_t(s.actionCount()), 0.0f);
        float total = 0.0f;
        for (int r = 0; r < s.rows; ++r) {
            const int i = s.jobIndex[size_t(r)];
            if (i < 0 || size_t(i) >= m_target.size())
                continue;
            const bool w = m_ctx->job(i).workers < m_target[size_t(i)].first;
            const bool p = m_ctx->job(i).ps < m_target[size_t(i)].second;
            const bool flags[3] = {w, p, w && p};
            for (int k = 0; k < 3; ++k)
                if (flags[k] && s.mask[size_t(3 * r + k)]) {
                    x.target[size_t(3 * r + k)] = 1.0f;
                    total += 1.0f;
                }
        }
        if (total == 0.0f)
            x.target[size_t(s.stopAction())] = total = 1.0f;
        for (auto &t : x.target)
            t /= total;
        m_sink(std::move(x));
    }

    TeacherRecorder &m_recorder;
    std::unique_ptr<Dl2Policy> m_student;
    Rng m_rng;
    std::function<void(Sample)> m_sink;
    bool m_taskLabels = false;
    const SlotContext *m_ctx = nullptr;
    std::vector<std::pair<int, int>> m_target;
    double m_beta = 1.0;
};

// One supervised run (see sltrainer.h), as the steps train() takes: load the networks, draw
// the validation samples and measure the teacher, make the teacher (and DAgger student)
// actors; then per update simulate until the buffer holds a batch, take a step and, every
// validateEvery steps, validate and keep the best.
class Imitation
{
public:
    explicit Imitation(const SlOptions &options);
    TrainResult train(const TrainProgress &progress, const std::atomic<bool> *cancel);

private:
    void loadNetworks();
    void prepareValidation();
    void resumeRandomNumbers();
    void makeActors();
    std::unique_ptr<Simulator> newSim();
    void scheduleDagger(long long step);
    double updateOnce();
    CurvePoint validationPoint(long long step);
    void save(long long step, double jct);
    void saveResume(long long step);
    double seconds() const;

    const SlOptions &o;
    Scenario m_scenario; // with dl2's window J from the student's spec (the teachers use it)
    const ProfileSet m_profiles;
    // Distributed (data-parallel): rank r simulates the teacher on trace seeds base + r,
    // base + r + W, ... with its own random numbers; rank 0 draws what one process does.
    Communicator *m_comm = nullptr;
    int m_rank = 0, m_world = 1;
    std::optional<Checkpoint> m_initCheckpoint;
    std::optional<ResumeState> m_resumed;
    PolicySpec m_spec;
    std::unique_ptr<Learner> m_learner;
    std::string m_recorderLabels;
    Rng m_rng;
    TrainResult m_result;
    std::chrono::steady_clock::time_point m_start;
    std::vector<Sample> m_validation;
    long long m_firstStep = 1;
    std::deque<Sample> m_buffer;
    std::uint64_t m_nextSeed = 0;
    std::unique_ptr<Simulator> m_sim;
    std::unique_ptr<TeacherRecorder> m_recorder;
    std::unique_ptr<MixedActor> m_actor;
    long long m_daggerStart = 0;
    std::optional<CheckpointWriter> m_writer;
};

Imitation::Imitation(const SlOptions &options)
    : o(options), m_scenario(scenarioByName(o.scenario)),
      m_profiles(o.profiles ? *o.profiles : ProfileSet::reference()), m_rng(o.seed * 7919 + 17)
{
    registerBaselines();
    registerWindowTeachers();
    if (!isScheduler(o.teacher))
        throw Error("unknown teacher '" + o.teacher + "'");
    m_comm = o.comm.get();
    m_rank = m_comm ? m_comm->rank() : 0;
    m_world = m_comm ? m_comm->worldSize() : 1;
    loadNetworks();
    if (m_comm)
        m_learner->setGradientReducer([comm = m_comm, world = m_world](std::vector<float> &g) {
            comm->allReduceSum(g.data(), g.size());
            for (float &x : g)
                x /= float(world);
        });
    m_result.checkpoint = o.output;
    m_start = std::chrono::steady_clock::now();
    if (!m_result.curve.empty()) // the clock goes on from the interrupted run
        m_start -= std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(m_result.curve.back().seconds));
    prepareValidation();
    resumeRandomNumbers();
    makeActors();
    TrainingInfo info;
    info.trainer = "sl";
    info.scenario = o.scenario;
    info.teacher = o.teacher;
    info.learningRate = o.learningRate;
    info.batchSize = o.batchSize;
    info.bufferSize = o.bufferSize;
    info.seed = o.seed;
    info.slLabels = o.labels;
    info.teacherOrder = o.teacherOrder;
    info.tieWindowSteps = o.tieWindowSteps;
    info.tieInit = o.tieInit == "layer" ? std::string() : o.tieInit;
    info.valueTrained = m_initCheckpoint && m_initCheckpoint->info.valueTrained; // SL leaves it
    if (m_resumed)
        checkResumedRecipe(m_initCheckpoint->info, info, o.resume);
    m_writer.emplace(o.output, m_spec, std::move(info), m_world, o.saveOptimizer, !m_resumed);
}

// From a resume checkpoint (weights, optimizer, ResumeState), an init checkpoint or fresh;
// and the label kind.
void Imitation::loadNetworks()
{
    if (!o.resume.empty()) {
        m_initCheckpoint = readResumeCheckpoint(o.resume);
        const std::string &origin = m_initCheckpoint->origin;
        if (!m_initCheckpoint->info.resume.present || m_initCheckpoint->info.trainer != "sl")
            throw Error(origin + ": no SL resume state (written by `dl2 train sl`?)");
        if (!m_initCheckpoint->hasOptimizer)
            throw Error(origin + ": written --weights-only, without the optimizer state a resume needs");
        checkResumeWorldSize(m_initCheckpoint->info.resume, m_world, origin);
        m_result.curve = curveBefore(*m_initCheckpoint);
        m_resumed = m_initCheckpoint->info.resume;
    } else if (!o.init.empty()) {
        m_initCheckpoint = readCheckpoint(o.init);
        // Tying a network that learned untied would start it again from one entry of each
        // class: its training would be lost.
        if (o.tieWindowSteps != 0 && m_initCheckpoint->info.tieWindowSteps != -1)
            throw Error("--tie-window: " + o.init + " was not trained with its window's weights "
                        "tied throughout; tying would replace them (start from a fresh network)");
    }
    m_spec = m_initCheckpoint ? m_initCheckpoint->spec
             : o.spec         ? *o.spec
                              : defaultSpec(o.kind, m_scenario.window, m_profiles.size());
    if (m_spec.kind == PolicyKind::Dl2)
        m_scenario.window = m_spec.window;
    m_learner = m_initCheckpoint
                    ? std::make_unique<Learner>(*m_initCheckpoint, o.learningRate, m_resumed.has_value())
                    : std::make_unique<Learner>(m_spec, o.learningRate, o.seed);
    checkKnown("SL labels", o.labels, {"sequence", "set", "multi", "wfirst"});
    m_recorderLabels = o.labels == "multi" ? "set" : o.labels;
    m_learner->setSlMultiLabel(o.labels == "multi" || o.labels == "wfirst");
    checkKnown("tie init", o.tieInit, {"layer", "job"});
    // A resumed run keeps its option (its weights are tied already: nothing starts again).
    if (o.tieInit != "layer" && (o.tieWindowSteps == 0 || !o.init.empty()))
        throw Error("--tie-init " + o.tieInit + " sets how a fresh network is tied: it needs "
                    "--tie-window and no --init");
    if (o.tieWindowSteps != 0)
        checkTiedWindow(m_spec);
}

// The teacher's samples on the first validation seeds (loss and agreement), the agreement of
// chance, and the teacher's validation avg JCT.
void Imitation::prepareValidation()
{
    std::vector<std::uint64_t> lossSeeds(o.validationSeeds.begin(),
                                         o.validationSeeds.begin() +
                                             long(std::min<size_t>(2, o.validationSeeds.size())));
    m_validation = teacherSamples(m_scenario, m_profiles, m_spec, o.teacher, o.teacherOrder,
                                  m_recorderLabels, lossSeeds, 2048, m_rng);
    if (!m_validation.empty()) {
        double chance = 0.0;
        for (const auto &x : m_validation) {
            int valid = 0;
            for (auto m : x.mask)
                valid += m;
            int good = 1;
            if (!x.target.empty()) {
                good = 0;
                for (auto t : x.target)
                    good += t > 0.0f ? 1 : 0;
            }
            chance += double(std::max(1, good)) / std::max(1, valid);
        }
        m_result.chanceAgreement = chance / double(m_validation.size());
    }
    m_result.teacherValidationAvgJct = evaluateSchedulerDistributed(
        m_comm, m_scenario, m_profiles, o.teacher, o.validationSeeds, o.threads);
}

// The validation samples are the same on every rank; from here each draws its own.
void Imitation::resumeRandomNumbers()
{
    if (m_resumed) {
        m_rng.setState(m_resumed->rng.at(0));
        m_firstStep = m_resumed->step + 1;
        m_result.bestValidationAvgJct = m_resumed->bestValidationAvgJct;
        m_result.bestStep = m_resumed->bestStep;
    }
    if (m_rank > 0)
        m_rng.setState(m_rng.state() ^ (0x9E3779B97F4A7C15ULL * std::uint64_t(m_rank)));
}

std::unique_ptr<Simulator> Imitation::newSim()
{
    const std::uint64_t seed = m_nextSeed + std::uint64_t(m_rank);
    m_nextSeed += std::uint64_t(m_world);
    return std::make_unique<Simulator>(m_scenario.cluster, m_profiles,
                                       m_scenario.trace(m_profiles, seed), m_scenario.simulation);
}

// The first training simulator, the teacher recording into the buffer and the DAgger actor.
void Imitation::makeActors()
{
    m_nextSeed = m_resumed ? m_resumed->nextSeed : o.trainSeedBase;
    m_sim = newSim();
    SchedulerConfig teacherConfig;
    teacherConfig.scenario = m_scenario.name;
    teacherConfig.window = m_scenario.window;
    auto sink = [this](Sample s) {
        m_buffer.push_back(std::move(s));
        if (int(m_buffer.size()) > o.bufferSize)
            m_buffer.pop_front();
    };
    m_recorder = std::make_unique<TeacherRecorder>(makeScheduler(o.teacher, teacherConfig),
                                                   o.teacher, m_spec, sink, o.teacherOrder,
                                                   m_recorderLabels);
    if (o.daggerTasks && m_recorderLabels != "set")
        throw Error("DAgger task labels need set (or multi) labels");
    m_actor = std::make_unique<MixedActor>(
        *m_recorder,
        o.seed * 104729 + 3 + std::uint64_t(m_rank) * 7919 +
            (m_resumed ? std::uint64_t(m_resumed->step) * 15485863 : 0),
        sink);
    m_actor->setTaskLabels(o.dagger && o.daggerTasks);
    m_daggerStart = o.daggerStart >= 0 ? o.daggerStart : m_initCheckpoint ? 0 : o.steps / 5;
}

void Imitation::save(long long step, double jct)
{
    m_writer->save(step, jct, m_result, {m_rng.state(), m_nextSeed, {}},
                   [&] { return m_learner->archive(o.saveOptimizer); });
}

// CKPT.resume: the state after `step`, with the optimizer even when CKPT is --weights-only.
void Imitation::saveResume(long long step)
{
    if (step > 0)
        m_writer->saveResume(step, m_result, {m_rng.state(), m_nextSeed, {}},
                             [&] { return m_learner->archive(true); });
}

double Imitation::seconds() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

// DAgger: the student's weights (refreshed every daggerRefresh updates) and beta.
void Imitation::scheduleDagger(long long step)
{
    if (!o.dagger || step <= m_daggerStart)
        return;
    if (step == m_daggerStart + 1 || (step - m_daggerStart - 1) % std::max(1, o.daggerRefresh) == 0)
        m_actor->setStudent(m_spec, m_learner->parameters());
    const double beta = std::pow(o.daggerDecay, double(step - m_daggerStart) / 100.0);
    m_actor->setBeta(std::max(o.daggerBetaMin, beta));
}

// Simulates slots until the buffer holds a batch (and at least one new slot), then takes one
// step on a batch drawn from it; returns the loss.
double Imitation::updateOnce()
{
    do {
        if (m_sim->done())
            m_sim = newSim();
        m_sim->step(*m_actor);
    } while (int(m_buffer.size()) < o.batchSize);

    std::vector<Sample> batchStore;
    std::vector<const Sample *> batch;
    batchStore.reserve(size_t(o.batchSize));
    for (int b = 0; b < o.batchSize; ++b) {
        const Sample &s = m_buffer[size_t(m_rng.below(m_buffer.size()))];
        if (o.shuffleWindow && m_spec.kind == PolicyKind::Dl2)
            batchStore.push_back(shuffledWindow(s, m_rng));
        else
            batchStore.push_back(s);
    }
    for (const auto &s : batchStore)
        batch.push_back(&s);
    return m_learner->slUpdate(batch);
}

// Validation loss, agreement and avg JCT of the current weights.
CurvePoint Imitation::validationPoint(long long step)
{
    CurvePoint p;
    p.step = step;
    std::vector<const Sample *> vb;
    for (const auto &s : m_validation)
        vb.push_back(&s);
    p.validationLoss = m_learner->slLoss(vb);
    const auto params = m_learner->parameters();
    p.agreement = agreement(m_spec, params, m_validation);
    m_result.agreement = p.agreement;
    p.validationAvgJct = evaluatePolicyDistributed(m_comm, m_scenario, m_profiles, m_spec, params,
                                                   o.validationSeeds, o.threads);
    p.seconds = seconds();
    if (m_result.secondsToTeacher5 < 0 &&
        p.validationAvgJct <= 1.05 * m_result.teacherValidationAvgJct)
        m_result.secondsToTeacher5 = p.seconds;
    return p;
}

TrainResult Imitation::train(const TrainProgress &progress, const std::atomic<bool> *cancel)
{
    double lossSum = 0.0;
    int lossCount = 0;
    bool saved = false;
    m_result.lastStep = m_firstStep - 1;
    for (long long step = m_firstStep; step <= o.steps; ++step) {
        if (anyRank(m_comm, cancel && cancel->load())) {
            m_result.cancelled = true;
            break;
        }
        scheduleDagger(step);
        if (o.tieWindowSteps != 0)
            m_learner->setTiedWindow(o.tieWindowSteps < 0 || step <= o.tieWindowSteps, o.tieInit == "job");
        lossSum += updateOnce();
        ++lossCount;
        const bool validate = step % o.validateEvery == 0 || step == o.steps;
        if (validate) {
            const double trainLoss = lossSum / std::max(1, lossCount);
            lossSum = 0.0;
            lossCount = 0;
            CurvePoint p = validationPoint(step);
            p.trainLoss = trainLoss;
            recordCurvePoint(
                m_result, p, o.output,
                [&] {
                    save(step, p.validationAvgJct);
                    saved = true;
                },
                progress, o.steps);
        } else if (progress && step % 10 == 0) {
            CurvePoint p;
            p.step = step;
            p.seconds = seconds();
            p.trainLoss = lossSum / std::max(1, lossCount);
            progress(step, o.steps, p);
        }
        m_result.lastStep = step;
        if (validate)
            saveResume(step);
    }
    m_result.teacherSlots = m_actor->teacherSlots;
    m_result.studentSlots = m_actor->studentSlots;
    // A run that never validated still leaves a policy (a resumed one keeps the best before).
    if (!saved && m_result.bestStep < 0)
        save(m_result.curve.empty() ? 0 : m_result.curve.back().step, -1.0);
    saveResume(m_result.lastStep); // the end, or where Ctrl-C stopped the run
    if (!o.output.empty())
        writeCurves(o.output, m_result.curve);
    return m_result;
}

} // namespace

SlTrainer::SlTrainer(SlOptions options) : m_options(std::move(options))
{
    if (m_options.comm && m_options.comm->rank() != 0)
        m_options.output.clear(); // rank 0 alone writes the checkpoint and the curves
}

TrainResult SlTrainer::run(const TrainProgress &progress, const std::atomic<bool> *cancel)
{
    return Imitation(m_options).train(progress, cancel);
}

} // namespace dl2
