// RL fine-tuning by evolution strategies (RlOptions::algorithm == "es"); see rltrainer.h.
//
// The policy's output layer is moved along a low-dimensional set of coordinates
// (RlOptions::esScope, see coordinates()): each iteration draws `esPairs` Gaussian directions, runs the policy at
// theta + sigma e and theta - sigma e on the same `esTraces` training traces (common random
// numbers: the simulator is deterministic, and a sampling policy draws from the same seeded
// stream in every member), turns the 2 x pairs mean avg JCTs into centred
// ranks, and takes an Adam step on the rank-weighted sum of the directions (Salimans et al.,
// 2017, "Evolution Strategies as a Scalable Alternative to Reinforcement Learning"). The
// policy decodes as deployed (RlOptions::decode, else as the --init checkpoint says), so the
// objective is exactly what evaluation measures, with no credit assignment across a slot's
// hundreds of decisions.
// The policies run on the torch-free PolicyNetwork; libtorch only writes the checkpoint.
// Distributed (RlOptions::comm): every rank draws the same directions and runs its share of the
// (member, trace) simulations; the results are summed across ranks (each entry has exactly
// one non-zero term), so every rank takes the same step, bit for bit, as one process would.

#include "checkpoint.h"
#include "checkpointwriter.h"
#include "distributed.h"
#include "dl2policy.h"
#include "error.h"
#include "modelprofile.h"
#include "parallel.h"
#include "rltrainer.h"
#include "simulator.h"
#include "trainingrecipe.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <numeric>

namespace dl2 {

namespace {

// One coordinate moves a set of parameter entries together.
struct Coordinate
{
    std::vector<std::pair<std::string, size_t>> entries;
};

// dl2 (flat window): an action's output row is 3 x row + kind, and every window row is
// the same job slot (the window is shuffled in training), so a coordinate moves one kind's
// entries in every row together: per kind (worker, PS, bundle) one bias and one weight per
// hidden unit, and the stop row's own bias and weights. dl2-plus: every entry of the job head
// and of the stop output layer. Scope "bias": the biases only.
std::vector<Coordinate> coordinates(const PolicySpec &spec, const ParameterSet &p,
                                    const std::string &scope)
{
    std::vector<Coordinate> out;
    const bool weights = scope == "head";
    if (scope != "head" && scope != "bias" && scope != "all")
        throw Error("es: unknown scope '" + scope + "' (known: head, bias, all)");
    if (scope == "all") { // every entry of the policy network: what several ranks make practical
        for (const auto &[name, t] : p)
            if (name.rfind("policy.", 0) == 0)
                for (size_t i = 0; i < t.data.size(); ++i)
                    out.push_back(Coordinate{{{name, i}}});
        return out;
    }
    if (spec.kind == PolicyKind::Dl2) {
        const ParameterTensor &w = p.at("policy.out.weight");
        const int actions = int(w.shape[0]), hidden = int(w.shape[1]);
        const int rows = (actions - 1) / 3;
        for (int k = 0; k < 4; ++k) {
            const bool stop = k == 3;
            Coordinate bias;
            for (int r = 0; r < (stop ? 1 : rows); ++r)
                bias.entries.emplace_back("policy.out.bias",
                                          size_t(stop ? actions - 1 : 3 * r + k));
            out.push_back(std::move(bias));
            if (!weights)
                continue;
            for (int h = 0; h < hidden; ++h) {
                Coordinate c;
                for (int r = 0; r < (stop ? 1 : rows); ++r)
                    c.entries.emplace_back("policy.out.weight",
                                           size_t(stop ? actions - 1 : 3 * r + k) * size_t(hidden) +
                                               size_t(h));
                out.push_back(std::move(c));
            }
        }
        return out;
    }
    for (const char *layer : {"policy.jobhead", "policy.stop2"}) {
        const std::string b = std::string(layer) + ".bias", wn = std::string(layer) + ".weight";
        for (size_t i = 0; i < p.at(b).data.size(); ++i)
            out.push_back(Coordinate{{{b, i}}});
        if (weights)
            for (size_t i = 0; i < p.at(wn).data.size(); ++i)
                out.push_back(Coordinate{{{wn, i}}});
    }
    return out;
}

// The starting checkpoint, decoding as `decode` says when given (written into the result).
Checkpoint startingPoint(const RlOptions &o)
{
    Checkpoint c = readCheckpoint(o.init, o.kind);
    if (o.decode)
        c.spec.decode = *o.decode;
    return c;
}

std::shared_ptr<const ParameterSet> moved(const ParameterSet &base,
                                          const std::vector<Coordinate> &coords,
                                          const std::vector<double> &theta)
{
    auto p = std::make_shared<ParameterSet>(base);
    for (size_t i = 0; i < coords.size(); ++i)
        for (const auto &[name, index] : coords[i].entries)
            (*p)[name].data[index] += float(theta[i]);
    return p;
}

// Centred ranks in [-0.5, 0.5] (lower JCT = higher rank).
std::vector<double> centredRanks(const std::vector<double> &jct)
{
    std::vector<size_t> order(jct.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return jct[a] > jct[b]; });
    std::vector<double> r(jct.size());
    const double n = double(std::max<size_t>(2, jct.size()) - 1);
    for (size_t k = 0; k < order.size(); ++k)
        r[order[k]] = double(k) / n - 0.5;
    return r;
}

// One ES run, as the steps train() takes: per iteration draw the traces and the directions,
// run every (member, trace) simulation, take the Adam step on the centred ranks and record a
// curve point.
class EvolutionStrategies
{
public:
    explicit EvolutionStrategies(const RlOptions &options);
    TrainResult train(const TrainProgress &progress, const std::atomic<bool> *cancel);

private:
    TrainingInfo resume();
    std::vector<std::shared_ptr<const ParameterSet>>
    members(const std::vector<std::vector<double>> &eps) const;
    std::vector<double> fitness(const std::vector<std::shared_ptr<const ParameterSet>> &params,
                                const std::vector<Trace> &traces);
    void adamStep(long long step, const std::vector<double> &ranks,
                  const std::vector<std::vector<double>> &eps);
    void iterate(long long step);
    void recordPoint(long long step, bool validate, const TrainProgress &progress);
    TrainerState state() const;
    void save(long long step, double jct, const ParameterSet &params);
    void saveResume(long long step);

    const RlOptions &o;
    const Scenario &m_scenario;
    const ProfileSet m_profiles;
    const Checkpoint m_init;
    const PolicySpec &m_spec;
    const ParameterSet &m_base;
    const std::vector<Coordinate> m_coords;
    const size_t D;
    const int m_threads;
    ParallelPool m_pool; // m_threads threads, started once
    Communicator *const m_comm;
    std::vector<double> m_theta, m_m, m_v; // the move of the coordinates; Adam's moments
    Rng m_rng;
    std::uint64_t m_nextSeed;
    long long m_firstStep = 1;
    TrainResult m_result;
    std::optional<CheckpointWriter> m_writer;
    std::chrono::steady_clock::time_point m_start;
    double m_rewardAcc = 0.0; // the population's mean avg JCTs since the last curve point
    int m_rewardCount = 0;
};

EvolutionStrategies::EvolutionStrategies(const RlOptions &options)
    : o(options), m_scenario(scenarioByName(o.scenario)),
      m_profiles(o.profiles ? *o.profiles : ProfileSet::reference()),
      m_init(startingPoint(o)), m_spec(m_init.spec), m_base(*m_init.parameters),
      m_coords(coordinates(m_spec, m_base, o.esScope)), D(m_coords.size()),
      m_threads(std::max(1, o.threads)), m_pool(m_threads), m_comm(o.comm.get()), m_theta(D, 0.0), m_m(D, 0.0),
      m_v(D, 0.0), m_rng(o.seed * 15485863 + 7), m_nextSeed(o.trainSeedBase)
{
    TrainingInfo resumedInfo; // how the resumed run was trained (checkResumedRecipe)
    if (!o.resume.empty())
        resumedInfo = resume();
    TrainingInfo info = m_init.info;
    info.trainer = "rl-es";
    info.esPairs = o.esPairs;
    info.esTraces = o.esTraces;
    info.esSigma = o.esSigma;
    info.esScope = o.esScope;
    info.scenario = o.scenario;
    info.learningRate = o.learningRate;
    info.seed = o.seed;
    if (!o.resume.empty())
        checkResumedRecipe(resumedInfo, info, o.resume);
    m_result.checkpoint = o.output;
    // Weights only, and any world size resumes: the result does not depend on it.
    m_writer.emplace(o.output, m_spec, std::move(info), 0, false, o.resume.empty());
    m_start = std::chrono::steady_clock::now();
    if (!m_result.curve.empty()) // the clock goes on from the interrupted run
        m_start -= std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(m_result.curve.back().seconds));
}

// Directions and traces are the same at any world size: any world size resumes (the state is
// written with world size 0, which checkResumeWorldSize accepts).
TrainingInfo EvolutionStrategies::resume()
{
    const Checkpoint c = readResumeCheckpoint(o.resume, o.kind);
    const ResumeState &r = c.info.resume;
    if (!r.present || r.values.size() != 3 * D || r.rng.size() != 1)
        throw Error(c.origin + ": no ES resume state for this policy and scope (written by "
                               "`dl2 train rl --algorithm es` with the same --init and --es-scope?)");
    std::copy(r.values.begin(), r.values.begin() + long(D), m_theta.begin());
    std::copy(r.values.begin() + long(D), r.values.begin() + long(2 * D), m_m.begin());
    std::copy(r.values.begin() + long(2 * D), r.values.end(), m_v.begin());
    m_rng.setState(r.rng[0]);
    m_nextSeed = r.nextSeed;
    m_firstStep = r.step + 1;
    m_result.bestValidationAvgJct = r.bestValidationAvgJct;
    m_result.bestStep = r.bestStep;
    m_result.curve = curveBefore(c);
    return c.info;
}

TrainerState EvolutionStrategies::state() const
{
    std::vector<double> values = m_theta;
    values.insert(values.end(), m_m.begin(), m_m.end());
    values.insert(values.end(), m_v.begin(), m_v.end());
    return {m_rng.state(), m_nextSeed, std::move(values)};
}

void EvolutionStrategies::save(long long step, double jct, const ParameterSet &params)
{
    m_writer->save(step, jct, m_result, state(), [&] { return NetworkArchive{params, {}}; });
}

// CKPT.resume: theta, Adam moments, random numbers and the next trace seed after `step`.
void EvolutionStrategies::saveResume(long long step)
{
    if (step > 0)
        m_writer->saveResume(step, m_result, state(), [&] {
            return NetworkArchive{*moved(m_base, m_coords, m_theta), {}};
        });
}

// theta +- sigma e for each direction e: the population, in pairs.
std::vector<std::shared_ptr<const ParameterSet>>
EvolutionStrategies::members(const std::vector<std::vector<double>> &eps) const
{
    std::vector<std::shared_ptr<const ParameterSet>> params;
    for (int k = 0; k < 2 * o.esPairs; ++k) {
        std::vector<double> t = m_theta;
        const double sign = k % 2 == 0 ? 1.0 : -1.0;
        for (size_t i = 0; i < D; ++i)
            t[i] += sign * o.esSigma * eps[size_t(k / 2)][i];
        params.push_back(moved(m_base, m_coords, t));
    }
    return params;
}

// Each member's mean avg JCT over the traces: every (member, trace) run, on `threads`
// threads (distributed: this rank's share, summed across the ranks).
std::vector<double>
EvolutionStrategies::fitness(const std::vector<std::shared_ptr<const ParameterSet>> &params,
                             const std::vector<Trace> &traces)
{
    std::vector<double> jct(params.size() * traces.size(), 0.0);
    m_pool.run(int(jct.size()), [&](int i) {
        const size_t k = size_t(i);
        if (!ownedByRank(m_comm, k))
            return;
        const size_t member = k / traces.size(), trace = k % traces.size();
        Simulator sim(m_scenario.cluster, m_profiles, traces[trace], m_scenario.simulation);
        Dl2Policy policy(m_spec, params[member], 1);
        jct[k] = runSimulation(sim, policy).avgJct;
    });
    if (m_comm)
        m_comm->allReduceSum(jct.data(), jct.size());
    std::vector<double> out(params.size(), 0.0);
    for (size_t k = 0; k < jct.size(); ++k)
        out[k / traces.size()] += jct[k] / double(traces.size());
    return out;
}

// Gradient ascent on the rank utility, with Adam.
void EvolutionStrategies::adamStep(long long step, const std::vector<double> &ranks,
                                   const std::vector<std::vector<double>> &eps)
{
    const double b1 = 0.9, b2 = 0.999;
    for (size_t i = 0; i < D; ++i) {
        double g = 0.0;
        for (int pIdx = 0; pIdx < o.esPairs; ++pIdx)
            g += (ranks[size_t(2 * pIdx)] - ranks[size_t(2 * pIdx + 1)]) * eps[size_t(pIdx)][i];
        g /= double(o.esPairs) * o.esSigma;
        m_m[i] = b1 * m_m[i] + (1 - b1) * g;
        m_v[i] = b2 * m_v[i] + (1 - b2) * g * g;
        const double mh = m_m[i] / (1 - std::pow(b1, double(step))),
                     vh = m_v[i] / (1 - std::pow(b2, double(step)));
        m_theta[i] += o.learningRate * mh / (std::sqrt(vh) + 1e-8);
    }
}

void EvolutionStrategies::iterate(long long step)
{
    std::vector<Trace> traces;
    for (int t = 0; t < o.esTraces; ++t)
        traces.push_back(m_scenario.trace(m_profiles, m_nextSeed++));
    std::vector<std::vector<double>> eps(size_t(o.esPairs), std::vector<double>(D));
    for (auto &e : eps)
        for (auto &x : e)
            x = m_rng.normal();
    const std::vector<double> fit = fitness(members(eps), traces);
    for (double f : fit)
        m_rewardAcc += f;
    m_rewardCount += 2 * o.esPairs;
    adamStep(step, centredRanks(fit), eps);
}

void EvolutionStrategies::recordPoint(long long step, bool validate, const TrainProgress &progress)
{
    CurvePoint p;
    p.step = step;
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    p.reward = -m_rewardAcc / std::max(1, m_rewardCount); // minus the population's mean avg JCT
    m_rewardAcc = 0.0;
    m_rewardCount = 0;
    double norm = 0.0;
    for (double x : m_theta)
        norm += x * x;
    p.trainLoss = std::sqrt(norm); // how far the head has moved
    std::shared_ptr<const ParameterSet> current;
    if (validate) {
        current = moved(m_base, m_coords, m_theta);
        p.validationAvgJct = evaluatePolicyDistributed(m_comm, m_scenario, m_profiles, m_spec,
                                                       current, o.validationSeeds, m_threads);
    }
    recordCurvePoint(
        m_result, p, o.output, [&] { save(step, p.validationAvgJct, *current); }, progress,
        o.steps);
}

TrainResult EvolutionStrategies::train(const TrainProgress &progress,
                                       const std::atomic<bool> *cancel)
{
    if (m_firstStep == 1) {
        CurvePoint p;
        p.validationAvgJct = evaluatePolicyDistributed(m_comm, m_scenario, m_profiles, m_spec,
                                                       m_init.parameters, o.validationSeeds,
                                                       m_threads);
        recordCurvePoint(
            m_result, p, o.output, [&] { save(0, p.validationAvgJct, m_base); }, progress,
            o.steps);
    }
    m_result.lastStep = m_firstStep - 1;
    for (long long step = m_firstStep; step <= o.steps; ++step) {
        if (anyRank(m_comm, cancel && cancel->load())) {
            m_result.cancelled = true;
            break;
        }
        iterate(step);
        const bool validate = step % o.validateEvery == 0 || step == o.steps;
        if (validate || step % 5 == 0)
            recordPoint(step, validate, progress);
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

TrainResult runEsTrainer(const RlOptions &o, const TrainProgress &progress,
                         const std::atomic<bool> *cancel)
{
    if (o.init.empty())
        throw Error(
            "es: --init CHECKPOINT is required (ES fine-tunes a trained policy's output layer)");
    if (o.esPairs < 1 || o.esTraces < 1 || !(o.esSigma > 0.0))
        throw Error("es: pairs and traces must be at least 1 and sigma positive");
    return EvolutionStrategies(o).train(progress, cancel);
}

} // namespace dl2
