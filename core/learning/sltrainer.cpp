#include "sltrainer.h"

#include "checkpoint.h"
#include "error.h"
#include "fileio.h"
#include "learner.h"
#include "modelprofile.h"
#include "teacherrecorder.h"

#include <chrono>
#include <deque>

namespace dl2 {

namespace {

// Teacher samples on a list of traces (validation set).
std::vector<Sample> teacherSamples(const Scenario &scenario, const ProfileSet &profiles,
                                   const PolicySpec &spec, const std::string &teacher,
                                   const std::string &order,
                                   const std::vector<std::uint64_t> &seeds, size_t limit, Rng &rng)
{
    std::vector<Sample> out;
    for (auto seed : seeds) {
        Simulator sim(scenario.cluster, profiles, scenario.trace(profiles, seed), scenario.simulation);
        TeacherRecorder rec(makeScheduler(teacher), teacher, spec,
                            [&](Sample s) { out.push_back(std::move(s)); }, order);
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
        s.rows = x.rows;
        s.jobDim = spec.jobDim();
        s.globalDim = spec.globalDim();
        s.jobs = x.jobs;
        s.global = x.global;
        s.mask = x.mask;
        s.jobIndex.resize(size_t(x.rows));
        for (int r = 0; r < x.rows; ++r)
            s.jobIndex[size_t(r)] = r;
        net.resetCache();
        net.probabilities(s, probs);
        int best = 0;
        for (int a = 1; a < int(probs.size()); ++a)
            if (probs[size_t(a)] > probs[size_t(best)])
                best = a;
        agree += best == x.action ? 1 : 0;
    }
    return double(agree) / double(samples.size());
}

} // namespace

SlTrainer::SlTrainer(SlOptions options) : m_options(std::move(options)) {}

TrainResult SlTrainer::run(const TrainProgress &progress, const std::atomic<bool> *cancel)
{
    const SlOptions &o = m_options;
    const Scenario &scenario = scenarioByName(o.scenario);
    const ProfileSet profiles = ProfileSet::reference();
    registerBaselines();
    if (!isScheduler(o.teacher))
        throw Error("unknown teacher '" + o.teacher + "'");
    const PolicySpec spec = o.spec ? *o.spec : defaultSpec(o.kind, scenario.window, profiles.size());
    Learner learner(spec, o.learningRate, o.seed);
    Rng rng(o.seed * 7919 + 17);

    TrainResult result;
    result.checkpoint = o.output;
    const auto start = std::chrono::steady_clock::now();
    auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };

    std::vector<std::uint64_t> lossSeeds(o.validationSeeds.begin(),
                                         o.validationSeeds.begin() +
                                             long(std::min<size_t>(2, o.validationSeeds.size())));
    const std::vector<Sample> validation = teacherSamples(scenario, profiles, spec, o.teacher, o.teacherOrder, lossSeeds, 2048, rng);
    if (!validation.empty()) {
        double chance = 0.0;
        for (const auto &x : validation) {
            int valid = 0;
            for (auto m : x.mask)
                valid += m;
            chance += 1.0 / std::max(1, valid);
        }
        result.chanceAgreement = chance / double(validation.size());
    }
    result.teacherValidationAvgJct = evaluateScheduler(scenario, o.teacher, o.validationSeeds, o.threads);

    std::deque<Sample> buffer;
    std::uint64_t nextSeed = o.trainSeedBase;
    auto newSim = [&] {
        return std::make_unique<Simulator>(scenario.cluster, profiles,
                                           scenario.trace(profiles, nextSeed++), scenario.simulation);
    };
    auto sim = newSim();
    TeacherRecorder recorder(makeScheduler(o.teacher), o.teacher, spec, [&](Sample s) {
        buffer.push_back(std::move(s));
        if (int(buffer.size()) > o.bufferSize)
            buffer.pop_front();
    }, o.teacherOrder);

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
        writeFileAtomically(o.output, encodeCheckpoint(spec, info, learner.archive(o.saveOptimizer),
                                                       o.saveOptimizer));
    };

    double lossSum = 0.0;
    int lossCount = 0;
    bool saved = false;
    for (long long step = 1; step <= o.steps; ++step) {
        if (cancel && cancel->load()) {
            result.cancelled = true;
            break;
        }
        // Simulate teacher slots until the buffer holds a batch (and at least one new slot).
        do {
            if (sim->done())
                sim = newSim();
            sim->step(recorder);
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
            p.validationAvgJct = evaluatePolicy(scenario, spec, params, o.validationSeeds, o.threads);
            p.seconds = seconds();
            if (result.secondsToTeacher5 < 0 && p.validationAvgJct <= 1.05 * result.teacherValidationAvgJct)
                result.secondsToTeacher5 = p.seconds;
            if (result.bestValidationAvgJct < 0 || p.validationAvgJct < result.bestValidationAvgJct) {
                result.bestValidationAvgJct = p.validationAvgJct;
                result.bestStep = step;
                save(step, p.validationAvgJct);
                saved = true;
            }
            result.curve.push_back(p);
            if (!o.output.empty())
                writeCurves(o.output, result.curve);
            if (progress)
                progress(step, o.steps, p);
        } else if (progress && step % 10 == 0) {
            CurvePoint p;
            p.step = step;
            p.seconds = seconds();
            p.trainLoss = lossSum / std::max(1, lossCount);
            progress(step, o.steps, p);
        }
    }
    if (!saved)
        save(result.curve.empty() ? 0 : result.curve.back().step, -1.0);
    if (!o.output.empty())
        writeCurves(o.output, result.curve);
    return result;
}

} // namespace dl2
