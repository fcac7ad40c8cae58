#include "policyprobe.h"

#include "dl2policy.h"
#include "error.h"
#include "policynetwork.h"
#include "rng.h"
#include "simulator.h"
#include "stateencoder.h"

#include <algorithm>
#include <cmath>

namespace dl2 {

namespace {

double workerShare(const std::vector<float> &p, int row)
{
    const double sum = double(p[size_t(3 * row)]) + p[size_t(3 * row + 1)] + p[size_t(3 * row + 2)];
    return sum > 0 ? p[size_t(3 * row)] / sum : 0.0;
}

} // namespace

TypeProbe::Band TypeProbe::bandOf(int workers, int ps)
{
    if (workers > 1)
        return MoreWorkers;
    if (ps <= 1)
        return OneWorkerOnePs;
    return ps <= kFewPs ? OneWorkerFewPs : OneWorkerManyPs;
}

const char *TypeProbe::bandKey(int band)
{
    static const char *const keys[kBands] = {"one_worker_one_ps", "one_worker_2_to_8_ps",
                                             "one_worker_9_ps_or_more", "more_workers"};
    static_assert(kFewPs == 8, "the keys and texts name the bands' bounds");
    return keys[band];
}

const char *TypeProbe::bandText(int band)
{
    static const char *const texts[kBands] = {
        "at one worker and one PS", "at one worker and 2-8 PSs", "at one worker and 9 PSs or more",
        "at two workers or more"};
    return texts[band];
}

double TypeProbe::spread(int band) const
{
    double largest = 0.0;
    for (size_t own = 0; own < q[band].size(); ++own)
        if (rows[band][own] > 0)
            for (const double v : q[band][own])
                largest = std::max(largest, std::abs(v - q[band][own][own]));
    return largest;
}

std::string defaultProbeScenario(const Checkpoint &c)
{
    return c.info.scenario.empty() ? std::string("dl2-reference") : c.info.scenario;
}

TypeProbe probeTypes(const Checkpoint &c, const Scenario &scenario, const ProfileSet &profiles,
                     const TypeProbeOptions &options)
{
    const PolicySpec &spec = c.spec;
    if (spec.kind != PolicyKind::Dl2 || !spec.features.oneHotType)
        throw Error(c.origin + ": only for the faithful dl2 network with one-hot job types");
    if (spec.types != profiles.size())
        throw Error(c.origin + ": the network knows " + std::to_string(spec.types) + " job types, the profiles " +
                    std::to_string(profiles.size()));
    const int T = spec.types, F = spec.jobDim();
    const bool perType = spec.features.counts == CountFeatures::PerType;
    const int countBits = 2 * kCountLevels; // a type's worker and PS bits (encodeJob's order)
    const auto countsOf = [&](int type) { return spec.countBitsFrom() + type * countBits; };

    // The decision states, from the policy as deployed.
    Simulator sim(scenario.cluster, profiles, scenario.trace(profiles, options.seed), scenario.simulation);
    Dl2Policy policy(spec, c.parameters, options.seed);
    // A reservoir sample (Algorithm R) of the decisions from firstSlot on: every decision is
    // kept with the same probability, whichever slot it comes in.
    struct Kept
    {
        int slot = 0;
        EncodedState state;
        std::vector<TypeProbe::Band> bands; // each row's job's band at the decision
    };
    std::vector<Kept> kept;
    Rng draw(options.seed ^ 0x9E3779B97F4A7C15ULL);
    long long seen = 0;
    ActorOptions actor;
    actor.sample = spec.decode == Decode::Sample;
    actor.onDecision = [&](const EncodedState &s, int, float, int) {
        if (sim.slot() < options.firstSlot || options.states <= 0)
            return;
        ++seen;
        size_t at = kept.size();
        if (int(kept.size()) >= options.states) {
            at = size_t(draw.below(std::uint64_t(seen)));
            if (at >= kept.size())
                return;
        } else {
            kept.emplace_back();
        }
        Kept &k = kept[at];
        k.slot = sim.slot();
        k.state = s;
        k.bands.assign(size_t(s.rows), TypeProbe::OneWorkerOnePs);
        for (int row = 0; row < s.rows; ++row)
            if (s.jobIndex[size_t(row)] >= 0) {
                const auto &job = sim.jobs()[size_t(s.jobIndex[size_t(row)])];
                k.bands[size_t(row)] = TypeProbe::bandOf(job.workers, job.ps);
            }
    };
    policy.setActor(std::move(actor));
    for (int slot = 0; slot < options.playSlots && !sim.done(); ++slot)
        sim.step(policy);
    std::stable_sort(kept.begin(), kept.end(),
                     [](const Kept &a, const Kept &b) { return a.slot < b.slot; });

    TypeProbe r;
    for (int t = 0; t < T; ++t)
        r.types.push_back(profiles[t].name);
    for (int w = 0; w < TypeProbe::kBands; ++w) {
        r.rows[w].assign(size_t(T), 0);
        r.q[w].assign(size_t(T), std::vector<double>(size_t(T), 0.0));
    }
    r.statesKept = int(kept.size());
    for (const Kept &k : kept)
        r.stateSlots.push_back(k.slot);
    PolicyNetwork net(spec, c.parameters);
    std::vector<float> p;
    for (const Kept &k : kept) {
        EncodedState s = k.state;
        s.encodeId = 0; // rebuilt rows: no incremental inference
        for (int row = 0; row < s.rows; ++row) {
            if (s.jobIndex[size_t(row)] < 0 || !s.mask[size_t(3 * row)])
                continue;
            float *x = &s.jobs[size_t(row) * size_t(F)];
            const std::vector<float> original(x, x + F);
            const int own = int(std::max_element(x, x + T) - x);
            const int band = k.bands[size_t(row)];
            for (int t = 0; t < T; ++t) {
                std::copy(original.begin(), original.end(), x);
                x[own] = 0.0f;
                x[t] = 1.0f;
                if (perType && t != own)
                    for (int b = 0; b < countBits; ++b) {
                        x[countsOf(t) + b] = original[size_t(countsOf(own) + b)];
                        x[countsOf(own) + b] = 0.0f;
                    }
                net.probabilities(s, p);
                r.q[band][size_t(own)][size_t(t)] += workerShare(p, row);
            }
            std::copy(original.begin(), original.end(), x);
            ++r.rows[band][size_t(own)];
        }
    }
    for (int w = 0; w < TypeProbe::kBands; ++w)
        for (int o = 0; o < T; ++o)
            for (double &v : r.q[w][size_t(o)])
                v /= std::max(1, r.rows[w][size_t(o)]);

    // A tied network's own units per position (Learner::setTiedWindow's layout).
    r.tied = c.info.tieWindowSteps == -1 && spec.hidden1 >= spec.window && spec.hidden2 >= spec.window;
    if (!r.tied)
        return r;
    const int J = spec.window;
    const std::array<int, 2> widths{spec.hidden1, spec.hidden2};
    std::array<std::vector<int>, 2> rowsOn; // per layer and own unit: the rows it was active for
    for (size_t l = 0; l < 2; ++l) {
        r.layers[l].own = widths[l] / J;
        r.layers[l].global = widths[l] - J * r.layers[l].own;
        rowsOn[l].assign(size_t(r.layers[l].own), 0);
    }
    int positions = 0;
    for (const Kept &k : kept) {
        const EncodedState &s = k.state;
        const auto [h1, h2] = net.hiddenLayers(s);
        const std::array<const std::vector<float> *, 2> h{&h1, &h2};
        for (size_t l = 0; l < 2; ++l) {
            TypeProbe::Layer &layer = r.layers[l];
            for (int row = 0; row < s.rows; ++row)
                if (s.jobIndex[size_t(row)] >= 0)
                    for (int k = 0; k < layer.own; ++k)
                        if ((*h[l])[size_t(row * layer.own + k)] > 0) {
                            layer.ownActive += 1;
                            ++rowsOn[l][size_t(k)];
                        }
            for (int u = J * layer.own; u < widths[l]; ++u)
                layer.globalActive += (*h[l])[size_t(u)] > 0;
        }
        positions += int(std::count_if(s.jobIndex.begin(), s.jobIndex.end(), [](int j) { return j >= 0; }));
    }
    for (size_t l = 0; l < 2; ++l) {
        TypeProbe::Layer &layer = r.layers[l];
        layer.ownActive /= std::max(1, positions);
        layer.globalActive /= double(std::max<size_t>(1, kept.size()));
        for (int n : rowsOn[l])
            layer.ownVarying += n > 0 && n < positions;
    }
    // Position 0's own units and inputs (tied: every position's are the same).
    const auto &w1 = c.parameters->at("policy.fc1.weight").data;
    const size_t inputs = size_t(J) * size_t(F);
    const int own1 = r.layers[0].own;
    for (int k = 0; k < own1; ++k)
        for (int i = 0; i < F; ++i)
            (i < T ? r.typeWeight : r.otherWeight) += std::abs(w1[size_t(k) * inputs + size_t(i)]);
    r.typeWeight /= double(own1 * T);
    r.otherWeight /= double(own1 * (F - T));
    return r;
}

} // namespace dl2
