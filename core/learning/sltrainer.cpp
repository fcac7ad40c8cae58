#include "sltrainer.h"

#include "checkpoint.h"
#include "distributed.h"
#include "dl2policy.h"
#include "error.h"
#include "fileio.h"
#include "learner.h"
#include "modelprofile.h"
#include "teacherrecorder.h"
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

} // namespace

SlTrainer::SlTrainer(SlOptions options) : m_options(std::move(options))
{
    if (m_options.comm && m_options.comm->rank() != 0)
        m_options.output.clear(); // rank 0 alone writes the checkpoint and the curves
}

TrainResult SlTrainer::run(const TrainProgress &progress, const std::atomic<bool> *cancel)
{
    const SlOptions &o = m_options;
    const Scenario &scenario = scenarioByName(o.scenario);
    const ProfileSet profiles = o.profiles ? *o.profiles : ProfileSet::reference();
    registerBaselines();
    registerWindowTeachers();
    if (!isScheduler(o.teacher))
        throw Error("unknown teacher '" + o.teacher + "'");
    // Distributed (data-parallel): rank r simulates the teacher on trace seeds base + r,
    // base + r + W, ... with its own random numbers; rank 0 draws what one process does.
    Communicator *comm = o.comm.get();
    const int rank = comm ? comm->rank() : 0;
    const int world = comm ? comm->worldSize() : 1;
    std::optional<Checkpoint> initCheckpoint;
    std::optional<ResumeState> resumed;
    if (!o.resume.empty()) {
        initCheckpoint = readCheckpoint(o.resume);
        if (!initCheckpoint->info.resume.present || initCheckpoint->info.trainer != "sl")
            throw Error(o.resume + ": no SL resume state (written by `dl2 train sl`?)");
        if (!initCheckpoint->hasOptimizer)
            throw Error(o.resume + ": written --weights-only, without the optimizer state a resume needs");
        resumed = initCheckpoint->info.resume;
    } else if (!o.init.empty()) {
        initCheckpoint = readCheckpoint(o.init);
    }
    const PolicySpec spec = initCheckpoint ? initCheckpoint->spec
                            : o.spec     ? *o.spec
                                         : defaultSpec(o.kind, scenario.window, profiles.size());
    auto learnerPtr = initCheckpoint ? std::make_unique<Learner>(*initCheckpoint, o.learningRate, resumed.has_value())
                                     : std::make_unique<Learner>(spec, o.learningRate, o.seed);
    Learner &learner = *learnerPtr;
    if (o.labels != "sequence" && o.labels != "set" && o.labels != "multi" && o.labels != "wfirst")
        throw Error("unknown SL labels '" + o.labels + "' (known: sequence, set, multi, wfirst)");
    const std::string recorderLabels = o.labels == "multi" ? "set" : o.labels;
    learner.setSlMultiLabel(o.labels == "multi" || o.labels == "wfirst");
    Rng rng(o.seed * 7919 + 17);
    if (comm)
        learner.setGradientReducer([comm, world](std::vector<float> &g) {
            comm->allReduceSum(g.data(), g.size());
            for (float &x : g)
                x /= float(world);
        });

    TrainResult result;
    result.checkpoint = o.output;
    const auto start = std::chrono::steady_clock::now();
    auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };

    std::vector<std::uint64_t> lossSeeds(o.validationSeeds.begin(),
                                         o.validationSeeds.begin() +
                                             long(std::min<size_t>(2, o.validationSeeds.size())));
    const std::vector<Sample> validation = teacherSamples(scenario, profiles, spec, o.teacher, o.teacherOrder, recorderLabels, lossSeeds, 2048, rng);
    if (!validation.empty()) {
        double chance = 0.0;
        for (const auto &x : validation) {
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
        result.chanceAgreement = chance / double(validation.size());
    }
    result.teacherValidationAvgJct = evaluateSchedulerDistributed(
        comm, scenario, profiles, o.teacher, o.validationSeeds, o.threads);
    // The validation samples above are the same on every rank; from here each draws its own.
    long long firstStep = 1;
    if (resumed) {
        rng.setState(resumed->rng.at(0));
        firstStep = resumed->step + 1;
        result.bestValidationAvgJct = resumed->bestValidationAvgJct;
        result.bestStep = resumed->bestStep;
    }
    if (rank > 0)
        rng.setState(rng.state() ^ (0x9E3779B97F4A7C15ULL * std::uint64_t(rank)));

    std::deque<Sample> buffer;
    std::uint64_t nextSeed = resumed ? resumed->nextSeed : o.trainSeedBase;
    auto newSim = [&] {
        const std::uint64_t seed = nextSeed + std::uint64_t(rank);
        nextSeed += std::uint64_t(world);
        return std::make_unique<Simulator>(scenario.cluster, profiles,
                                           scenario.trace(profiles, seed), scenario.simulation);
    };
    auto sim = newSim();
    SchedulerConfig teacherConfig;
    teacherConfig.scenario = scenario.name;
    auto sink = [&](Sample s) {
        buffer.push_back(std::move(s));
        if (int(buffer.size()) > o.bufferSize)
            buffer.pop_front();
    };
    TeacherRecorder recorder(makeScheduler(o.teacher, teacherConfig), o.teacher, spec, sink,
                             o.teacherOrder, recorderLabels);
    if (o.daggerTasks && recorderLabels != "set")
        throw Error("DAgger task labels need set (or multi) labels");
    MixedActor actor(recorder, o.seed * 104729 + 3 + std::uint64_t(rank) * 7919 +
                                   (resumed ? std::uint64_t(resumed->step) * 15485863 : 0),
                     sink);
    actor.setTaskLabels(o.dagger && o.daggerTasks);
    const long long daggerStart = o.daggerStart >= 0 ? o.daggerStart : initCheckpoint ? 0 : o.steps / 5;

    TrainingInfo info;
    info.trainer = "sl";
    info.scenario = o.scenario;
    info.teacher = o.teacher;
    info.learningRate = o.learningRate;
    info.batchSize = o.batchSize;
    info.bufferSize = o.bufferSize;
    info.seed = o.seed;
    auto save = [&](long long step, double jct) {
        if (o.output.empty())
            return;
        info.step = step;
        info.validationAvgJct = jct;
        ResumeState &r = info.resume;
        r.present = true;
        r.step = step;
        r.rng = {rng.state()};
        r.nextSeed = nextSeed;
        r.bestValidationAvgJct = result.bestValidationAvgJct;
        r.bestStep = result.bestStep;
        r.worldSize = world;
        writeFileAtomically(o.output, encodeCheckpoint(spec, info, learner.archive(o.saveOptimizer),
                                                       o.saveOptimizer));
    };

    double lossSum = 0.0;
    int lossCount = 0;
    bool saved = false;
    for (long long step = firstStep; step <= o.steps; ++step) {
        if (anyRank(comm, cancel && cancel->load())) {
            result.cancelled = true;
            break;
        }
        if (o.dagger && step > daggerStart) {
            if (step == daggerStart + 1 || (step - daggerStart - 1) % std::max(1, o.daggerRefresh) == 0)
                actor.setStudent(spec, learner.parameters());
            const double beta = std::pow(o.daggerDecay, double(step - daggerStart) / 100.0);
            actor.setBeta(std::max(o.daggerBetaMin, beta));
        }
        // Simulate slots until the buffer holds a batch (and at least one new slot).
        do {
            if (sim->done())
                sim = newSim();
            sim->step(actor);
        } while (int(buffer.size()) < o.batchSize);

        std::vector<Sample> batchStore;
        std::vector<const Sample *> batch;
        batchStore.reserve(size_t(o.batchSize));
        for (int b = 0; b < o.batchSize; ++b) {
            const Sample &s = buffer[size_t(rng.below(buffer.size()))];
            if (o.shuffleWindow && spec.kind == PolicyKind::Dl2)
                batchStore.push_back(shuffledWindow(s, rng));
            else
                batchStore.push_back(s);
        }
        for (const auto &s : batchStore)
            batch.push_back(&s);
        lossSum += learner.slUpdate(batch);
        ++lossCount;

        const bool validate = step % o.validateEvery == 0 || step == o.steps;
        if (validate) {
            CurvePoint p;
            p.step = step;
            p.trainLoss = lossSum / std::max(1, lossCount);
            lossSum = 0.0;
            lossCount = 0;
            std::vector<const Sample *> vb;
            for (const auto &s : validation)
                vb.push_back(&s);
            p.validationLoss = learner.slLoss(vb);
            const auto params = learner.parameters();
            p.agreement = agreement(spec, params, validation);
            result.agreement = p.agreement;
            p.validationAvgJct = evaluatePolicyDistributed(comm, scenario, profiles, spec, params,
                                                           o.validationSeeds, o.threads);
            p.seconds = seconds();
            if (result.secondsToTeacher5 < 0 && p.validationAvgJct <= 1.05 * result.teacherValidationAvgJct)
                result.secondsToTeacher5 = p.seconds;
            recordCurvePoint(
                result, p, o.output,
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
    }
    result.teacherSlots = actor.teacherSlots;
    result.studentSlots = actor.studentSlots;
    if (!saved)
        save(result.curve.empty() ? 0 : result.curve.back().step, -1.0);
    if (!o.output.empty())
        writeCurves(o.output, result.curve);
    return result;
}

} // namespace dl2
