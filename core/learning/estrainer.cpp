// RL fine-tuning by evolution strategies (RlOptions::algorithm == "es"); see rltrainer.h.
//
// The greedy policy's output layer is moved along a low-dimensional set of coordinates
// (RlOptions::esScope, see coordinates()): each iteration draws `esPairs` Gaussian directions, runs the greedy policy at
// theta + sigma e and theta - sigma e on the same `esTraces` training traces (common random
// numbers: the simulator is deterministic), turns the 2 x pairs mean avg JCTs into centred
// ranks, and takes an Adam step on the rank-weighted sum of the directions (Salimans et al.,
// 2017, "Evolution Strategies as a Scalable Alternative to Reinforcement Learning"). The
// objective is exactly what evaluation measures (average JCT of the greedy policy), so there is
// no sampled-vs-greedy gap and no credit assignment across a slot's hundreds of decisions.
// The policies run on the torch-free PolicyNetwork; libtorch only writes the checkpoint.
// Distributed (RlOptions::comm): every rank draws the same directions and runs its share of the
// (member, trace) simulations; the results are summed across ranks (each entry has exactly
// one non-zero term), so every rank takes the same step, bit for bit, as one process would.

#include "checkpoint.h"
#include "distributed.h"
#include "dl2policy.h"
#include "error.h"
#include "modelprofile.h"
#include "rltrainer.h"
#include "simulator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <numeric>
#include <thread>

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

} // namespace

TrainResult runEsTrainer(const RlOptions &o, const TrainProgress &progress,
                         const std::atomic<bool> *cancel)
{
    if (o.init.empty())
        throw Error(
            "es: --init CHECKPOINT is required (ES fine-tunes a trained policy's output layer)");
    if (o.esPairs < 1 || o.esTraces < 1 || !(o.esSigma > 0.0))
        throw Error("es: pairs and traces must be at least 1 and sigma positive");
    const Scenario &scenario = scenarioByName(o.scenario);
    const ProfileSet profiles = o.profiles ? *o.profiles : ProfileSet::reference();
    const Checkpoint init = readCheckpoint(o.init, o.kind);
    const PolicySpec &spec = init.spec;
    const ParameterSet &base = *init.parameters;
    const auto coords = coordinates(spec, base, o.esScope);
    const size_t D = coords.size();
    const int threads = std::max(1, o.threads);
    Communicator *comm = o.comm.get();

    std::vector<double> theta(D, 0.0), m(D, 0.0), v(D, 0.0);
    Rng rng(o.seed * 15485863 + 7);
    std::uint64_t nextSeed = o.trainSeedBase;
    long long firstStep = 1;
    TrainResult result;
    if (!o.resume.empty()) {
        // Directions and traces are the same at any world size: any world size resumes.
        const ResumeState r = readCheckpoint(o.resume, o.kind).info.resume;
        if (!r.present || r.values.size() != 3 * D || r.rng.size() != 1)
            throw Error(o.resume + ": no ES resume state for this policy and scope (written by "
                                   "`dl2 train rl --algorithm es` with the same --init and --es-scope?)");
        std::copy(r.values.begin(), r.values.begin() + long(D), theta.begin());
        std::copy(r.values.begin() + long(D), r.values.begin() + long(2 * D), m.begin());
        std::copy(r.values.begin() + long(2 * D), r.values.end(), v.begin());
        rng.setState(r.rng[0]);
        nextSeed = r.nextSeed;
        firstStep = r.step + 1;
        result.bestValidationAvgJct = r.bestValidationAvgJct;
        result.bestStep = r.bestStep;
    }

    TrainingInfo info = init.info;
    info.trainer = "rl-es";
    info.esPairs = o.esPairs;
    info.esTraces = o.esTraces;
    info.esSigma = o.esSigma;
    info.esScope = o.esScope;
    info.scenario = o.scenario;
    info.learningRate = o.learningRate;
    info.seed = o.seed;
    result.checkpoint = o.output;
    auto save = [&](long long step, double jct, const ParameterSet &params) {
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
        r.values = theta;
        r.values.insert(r.values.end(), m.begin(), m.end());
        r.values.insert(r.values.end(), v.begin(), v.end());
        r.worldSize = 0; // any: the result does not depend on it
        writeCheckpoint(o.output, spec, info, params);
    };
    const auto start = std::chrono::steady_clock::now();
    auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    if (firstStep == 1) {
        CurvePoint p;
        p.validationAvgJct = evaluatePolicyDistributed(comm, scenario, profiles, spec,
                                                       init.parameters, o.validationSeeds, threads);
        recordCurvePoint(
            result, p, o.output, [&] { save(0, p.validationAvgJct, base); }, progress, o.steps);
    }

    double rewardAcc = 0.0;
    int rewardCount = 0;
    for (long long step = firstStep; step <= o.steps; ++step) {
        if (anyRank(comm, cancel && cancel->load())) {
            result.cancelled = true;
            break;
        }
        std::vector<Trace> traces;
        for (int t = 0; t < o.esTraces; ++t)
            traces.push_back(scenario.trace(profiles, nextSeed++));
        const int members = 2 * o.esPairs;
        std::vector<std::vector<double>> eps(size_t(o.esPairs), std::vector<double>(D));
        for (auto &e : eps)
            for (auto &x : e)
                x = rng.normal();
        std::vector<std::shared_ptr<const ParameterSet>> params;
        for (int k = 0; k < members; ++k) {
            std::vector<double> t = theta;
            const double sign = k % 2 == 0 ? 1.0 : -1.0;
            for (size_t i = 0; i < D; ++i)
                t[i] += sign * o.esSigma * eps[size_t(k / 2)][i];
            params.push_back(moved(base, coords, t));
        }
        // Every (member, trace) run, on `threads` threads.
        std::vector<double> jct(size_t(members) * traces.size(), 0.0);
        std::atomic<size_t> next{0};
        std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
                try {
                    for (size_t k = next++; k < jct.size(); k = next++) {
                        if (!ownedByRank(comm, k))
                            continue;
                        const size_t member = k / traces.size(), trace = k % traces.size();
                        Simulator sim(scenario.cluster, profiles, traces[trace],
                                      scenario.simulation);
                        Dl2Policy policy(spec, params[member], 1);
                        jct[k] = runSimulation(sim, policy).avgJct;
                    }
                } catch (...) {
                    errors[size_t(t)] = std::current_exception();
                }
            });
        for (auto &th : pool)
            th.join();
        for (const auto &e : errors)
            if (e)
                std::rethrow_exception(e);
        if (comm)
            comm->allReduceSum(jct.data(), jct.size());
        std::vector<double> fitness(size_t(members), 0.0);
        for (size_t k = 0; k < jct.size(); ++k)
            fitness[k / traces.size()] += jct[k] / double(traces.size());
        for (double f : fitness)
            rewardAcc += f;
        rewardCount += members;
        const auto ranks = centredRanks(fitness);
        // Gradient ascent on the rank utility, with Adam.
        const double b1 = 0.9, b2 = 0.999;
        for (size_t i = 0; i < D; ++i) {
            double g = 0.0;
            for (int pIdx = 0; pIdx < o.esPairs; ++pIdx)
                g += (ranks[size_t(2 * pIdx)] - ranks[size_t(2 * pIdx + 1)]) * eps[size_t(pIdx)][i];
            g /= double(o.esPairs) * o.esSigma;
            m[i] = b1 * m[i] + (1 - b1) * g;
            v[i] = b2 * v[i] + (1 - b2) * g * g;
            const double mh = m[i] / (1 - std::pow(b1, double(step))),
                         vh = v[i] / (1 - std::pow(b2, double(step)));
            theta[i] += o.learningRate * mh / (std::sqrt(vh) + 1e-8);
        }

        const bool validate = step % o.validateEvery == 0 || step == o.steps;
        if (validate || step % 5 == 0) {
            CurvePoint p;
            p.step = step;
            p.seconds = seconds();
            p.reward = -rewardAcc / std::max(1, rewardCount); // minus the population's mean avg JCT
            rewardAcc = 0.0;
            rewardCount = 0;
            double norm = 0.0;
            for (double x : theta)
                norm += x * x;
            p.trainLoss = std::sqrt(norm); // how far the head has moved
            std::shared_ptr<const ParameterSet> current;
            if (validate) {
                current = moved(base, coords, theta);
                p.validationAvgJct = evaluatePolicyDistributed(comm, scenario, profiles, spec,
                                                               current, o.validationSeeds, threads);
            }
            recordCurvePoint(
                result, p, o.output, [&] { save(step, p.validationAvgJct, *current); }, progress,
                o.steps);
        }
    }
    if (!o.output.empty())
        writeCurves(o.output, result.curve);
    return result;
}

} // namespace dl2
