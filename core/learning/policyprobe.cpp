#include "policyprobe.h"

#include "dl2policy.h"
#include "error.h"
#include "policynetwork.h"
#include "simulator.h"
#include "stateencoder.h"

#include <algorithm>
#include <cmath>

namespace dl2 {

namespace {

// A layer's ReLU outputs for one input (weights [out, in], torch layout).
std::vector<double> reluLayer(const ParameterTensor &w, const ParameterTensor &b, const std::vector<double> &in)
{
    const size_t outs = b.data.size(), ins = in.size();
    std::vector<double> out(outs);
    for (size_t o = 0; o < outs; ++o) {
        double z = b.data[o];
        const float *row = &w.data[o * ins];
        for (size_t i = 0; i < ins; ++i)
            z += double(row[i]) * in[i];
        out[o] = std::max(0.0, z);
    }
    return out;
}

double workerShare(const std::vector<float> &p, int row)
{
    const double sum = double(p[size_t(3 * row)]) + p[size_t(3 * row + 1)] + p[size_t(3 * row + 2)];
    return sum > 0 ? p[size_t(3 * row)] / sum : 0.0;
}

} // namespace

TypeProbe probeTypes(const Checkpoint &c, const Scenario &scenario, const ProfileSet &profiles,
                     const TypeProbeOptions &options)
{
    const PolicySpec &spec = c.spec;
    if (spec.kind != PolicyKind::Dl2 || !spec.features.oneHotType)
        throw Error("policy probe: only for the faithful dl2 network with one-hot job types");
    if (spec.types != profiles.size())
        throw Error("policy probe: the network knows " + std::to_string(spec.types) + " job types, the profiles " +
                    std::to_string(profiles.size()));
    const int T = spec.types, F = spec.jobDim();
    const bool perType = spec.features.counts == CountFeatures::PerType;
    const int countBits = 2 * kCountLevels; // a type's worker and PS bits (encodeJob's order)

    // The decision states, from the policy as deployed.
    Simulator sim(scenario.cluster, profiles, scenario.trace(profiles, options.seed), scenario.simulation);
    Dl2Policy policy(spec, c.parameters, options.seed);
    std::vector<EncodedState> states;
    std::vector<std::vector<int>> workers; // per kept state, each row's job's workers then
    long long decisions = 0;
    ActorOptions actor;
    actor.sample = spec.decode == Decode::Sample;
    actor.onDecision = [&](const EncodedState &s, int, float, int) {
        if (sim.slot() < options.firstSlot || int(states.size()) >= options.states || decisions++ % 7 != 0)
            return;
        states.push_back(s);
        std::vector<int> &w = workers.emplace_back(size_t(s.rows), 0);
        for (int row = 0; row < s.rows; ++row)
            if (s.jobIndex[size_t(row)] >= 0)
                w[size_t(row)] = sim.jobs()[size_t(s.jobIndex[size_t(row)])].workers;
    };
    policy.setActor(std::move(actor));
    for (int slot = 0; slot < options.playSlots && !sim.done(); ++slot)
        sim.step(policy);

    TypeProbe r;
    for (int t = 0; t < T; ++t)
        r.types.push_back(profiles[t].name);
    for (int w = 0; w < 2; ++w) {
        r.rows[w].assign(size_t(T), 0);
        r.q[w].assign(size_t(T), std::vector<double>(size_t(T), 0.0));
    }
    r.statesKept = int(states.size());
    PolicyNetwork net(spec, c.parameters);
    std::vector<float> p;
    for (size_t n = 0; n < states.size(); ++n) {
        EncodedState s = states[n];
        s.encodeId = 0; // rebuilt rows: no incremental inference
        for (int row = 0; row < s.rows; ++row) {
            if (s.jobIndex[size_t(row)] < 0 || !s.mask[size_t(3 * row)])
                continue;
            float *x = &s.jobs[size_t(row) * size_t(F)];
            const std::vector<float> original(x, x + F);
            const int own = int(std::max_element(x, x + T) - x);
            const int band = workers[n][size_t(row)] <= 1 ? 0 : 1;
            for (int t = 0; t < T; ++t) {
                std::copy(original.begin(), original.end(), x);
                x[own] = 0.0f;
                x[t] = 1.0f;
                if (perType && t != own)
                    for (int b = 0; b < countBits; ++b) {
                        x[T + 5 + t * countBits + b] = original[size_t(T + 5 + own * countBits + b)];
                        x[T + 5 + own * countBits + b] = 0.0f;
                    }
                net.probabilities(s, p);
                r.q[band][size_t(own)][size_t(t)] += workerShare(p, row);
            }
            std::copy(original.begin(), original.end(), x);
            ++r.rows[band][size_t(own)];
        }
    }
    for (int w = 0; w < 2; ++w)
        for (int o = 0; o < T; ++o)
            for (double &v : r.q[w][size_t(o)])
                v /= std::max(1, r.rows[w][size_t(o)]);

    // A tied network's own units per position (Learner::setTiedWindow's layout).
    r.tied = c.info.tieWindowSteps == -1 && spec.hidden1 >= spec.window && spec.hidden2 >= spec.window;
    if (!r.tied)
        return r;
    const int J = spec.window;
    r.ownUnits1 = spec.hidden1 / J;
    r.ownUnits2 = spec.hidden2 / J;
    r.globalUnits1 = spec.hidden1 - J * r.ownUnits1;
    r.globalUnits2 = spec.hidden2 - J * r.ownUnits2;
    const ParameterSet &P = *c.parameters;
    const auto &w1 = P.at("policy.fc1.weight"), &b1 = P.at("policy.fc1.bias");
    const auto &w2 = P.at("policy.fc2.weight"), &b2 = P.at("policy.fc2.bias");
    std::vector<int> on1(size_t(r.ownUnits1), 0), on2(size_t(r.ownUnits2), 0);
    int positions = 0;
    for (const EncodedState &s : states) {
        const std::vector<double> in(s.jobs.begin(), s.jobs.end());
        const std::vector<double> h1 = reluLayer(w1, b1, in), h2 = reluLayer(w2, b2, h1);
        for (int row = 0; row < s.rows; ++row) {
            if (s.jobIndex[size_t(row)] < 0)
                continue;
            ++positions;
            for (int k = 0; k < r.ownUnits1; ++k)
                if (h1[size_t(row * r.ownUnits1 + k)] > 0) {
                    r.ownActive1 += 1;
                    ++on1[size_t(k)];
                }
            for (int k = 0; k < r.ownUnits2; ++k)
                if (h2[size_t(row * r.ownUnits2 + k)] > 0) {
                    r.ownActive2 += 1;
                    ++on2[size_t(k)];
                }
        }
        for (int u = J * r.ownUnits1; u < spec.hidden1; ++u)
            r.globalActive1 += h1[size_t(u)] > 0;
        for (int u = J * r.ownUnits2; u < spec.hidden2; ++u)
            r.globalActive2 += h2[size_t(u)] > 0;
    }
    r.ownActive1 /= std::max(1, positions);
    r.ownActive2 /= std::max(1, positions);
    r.globalActive1 /= std::max<size_t>(1, states.size());
    r.globalActive2 /= std::max<size_t>(1, states.size());
    for (int n : on1)
        r.ownVarying1 += n > 0 && n < positions;
    for (int n : on2)
        r.ownVarying2 += n > 0 && n < positions;
    // Position 0's own units and inputs (tied: every position's are the same).
    const size_t inputs = size_t(J) * size_t(F);
    for (int k = 0; k < r.ownUnits1; ++k) {
        const float *row = &w1.data[size_t(k) * inputs];
        for (int i = 0; i < F; ++i)
            (i < T ? r.typeWeight : r.otherWeight) += std::abs(row[i]);
    }
    r.typeWeight /= double(r.ownUnits1 * T);
    r.otherWeight /= double(r.ownUnits1 * (F - T));
    return r;
}

} // namespace dl2
