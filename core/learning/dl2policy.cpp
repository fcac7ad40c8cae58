#include "dl2policy.h"

#include "decisionlatency.h"
#include "error.h"
#include "policynetwork.h"
#include "simulator.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <limits>

namespace dl2 {

namespace {
using Clock = std::chrono::steady_clock;
double micros(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double, std::micro>(b - a).count();
}
} // namespace

Dl2Policy::Dl2Policy(const PolicySpec &spec, std::shared_ptr<const ParameterSet> parameters,
                     std::uint64_t seed)
    : m_spec(spec), m_encoder(spec),
      m_network(std::make_unique<PolicyNetwork>(spec, std::move(parameters))), m_rng(seed),
      m_seed(seed)
{
}

Dl2Policy::~Dl2Policy() = default;

std::string Dl2Policy::name() const { return toString(m_spec.kind); }

void Dl2Policy::reset()
{
    m_rng = Rng(m_seed);
    m_kindCounts = {};
    m_decisions.clear();
    m_slotValue.reset();
    m_network->resetCache();
}

void Dl2Policy::setParameters(std::shared_ptr<const ParameterSet> parameters)
{
    m_network = std::make_unique<PolicyNetwork>(m_spec, std::move(parameters));
}

int Dl2Policy::choose(const EncodedState &s, const std::vector<float> &probs, float &behaviour,
                      bool &explored)
{
    explored = false;
    int action = s.stopAction();
    if (sampling()) {
        const double u = m_rng.uniform();
        double acc = 0.0;
        int last = s.stopAction();
        for (int a = 0; a < s.actionCount(); ++a) {
            if (!s.mask[size_t(a)] || probs[size_t(a)] <= 0.0f)
                continue;
            last = a;
            acc += probs[size_t(a)];
            if (u < acc) {
                action = a;
                break;
            }
        }
        if (u >= acc)
            action = last;
    } else {
        float best = -std::numeric_limits<float>::infinity();
        for (int a = 0; a < s.actionCount(); ++a)
            if (s.mask[size_t(a)] && probs[size_t(a)] > best) {
                best = probs[size_t(a)];
                action = a;
            }
    }
    // The behaviour probability of an action under the stop-exploration mixture.
    const bool stopValid = s.mask[size_t(s.stopAction())] != 0;
    const double stopEps = stopValid ? m_actor.stopEpsilon : 0.0;
    auto mixed = [&](int a) {
        return (1.0 - stopEps) * probs[size_t(a)] + (s.isStop(a) ? stopEps : 0.0);
    };
    if (stopEps > 0.0 && !s.isStop(action) && m_rng.uniform() < stopEps) {
        action = s.stopAction();
        explored = true;
    }
    behaviour = float(mixed(action));
    if (m_actor.epsilon <= 0.0)
        return action;
    if (m_actor.exploration == Exploration::Reference) {
        // As the reference trains: the policy's probability of whatever was done, no
        // correction for the rules (they are not a distribution one could evaluate).
        const int forced = referenceOverride(s, probs);
        if (forced >= 0 && forced != action) {
            explored = true;
            action = forced;
            behaviour = float(mixed(action));
        }
        if (!s.isStop(action))
            ++m_kindCounts[size_t(action % 3)]; // a = 3 * row + kind
        return action;
    }
    const int override = paperOverride(s);
    if (override < 0)
        return action;
    const double eps = m_actor.epsilon;
    if (m_rng.uniform() < eps) {
        explored = true;
        action = override;
    }
    behaviour = float((1.0 - eps) * mixed(action) + (action == override ? eps : 0.0));
    return action;
}

// Kind exploration: with probability kindEpsilon the task `action` adds becomes one of its job's
// allowed tasks drawn uniformly. The behaviour probability is the mixture's, taken over the
// policy's distribution (the job-aware rules before it are not a distribution).
int Dl2Policy::exploreKind(const EncodedState &s, const std::vector<float> &probs, int action,
                           float &behaviour, bool &explored)
{
    const double eps = m_actor.kindEpsilon;
    if (eps <= 0.0 || s.isStop(action))
        return action;
    const int row = actionRow(action);
    std::array<int, 3> kinds{};
    int n = 0;
    float rowMass = 0.0f;
    for (int k = 0; k < 3; ++k)
        if (s.mask[size_t(3 * row + k)]) {
            kinds[size_t(n++)] = 3 * row + k;
            rowMass += probs[size_t(3 * row + k)];
        }
    if (m_rng.uniform() < eps) {
        const int drawn = kinds[size_t(m_rng.below(std::uint64_t(n)))];
        explored = explored || drawn != action;
        action = drawn;
    }
    behaviour = float((1.0 - eps) * probs[size_t(action)] + eps * rowMass / n);
    return action;
}

// The paper's job-aware exploration: the first poor job in the window gets the corrective task.
int Dl2Policy::paperOverride(const EncodedState &s) const
{
    for (int r = 0; r < s.rows; ++r) {
        if (s.jobIndex[size_t(r)] < 0)
            continue;
        const int w = m_workers[size_t(r)], p = m_ps[size_t(r)];
        int a = -1;
        if (w > 0 && p == 0)
            a = 3 * r + 1;
        else if (p > 0 && w == 0)
            a = 3 * r;
        else if (p > 0 && double(w) / p > m_actor.threshold)
            a = 3 * r + 1;
        else if (w > 0 && double(p) / w > m_actor.threshold)
            a = 3 * r;
        if (a >= 0 && s.mask[size_t(a)])
            return a;
    }
    return -1;
}

// The reference code's rules (rl_env.py, real speeds, PS/worker with bundles), in its order:
// each later rule that fires overrides an earlier one. -1: none fired.
int Dl2Policy::referenceOverride(const EncodedState &s, const std::vector<float> &probs)
{
    auto allowed = [&](int a) { return s.mask[size_t(a)] && probs[size_t(a)] > 0.0f; };
    int action = -1;
    // Resource balance: the window job with the fewest tasks against the one with the most.
    int minTasks = std::numeric_limits<int>::max(), maxTasks = 0, minRow = -1;
    for (int r = 0; r < s.rows; ++r) {
        if (s.jobIndex[size_t(r)] < 0)
            continue;
        const int tasks = m_workers[size_t(r)] + m_ps[size_t(r)];
        maxTasks = std::max(maxTasks, tasks);
        if (tasks < minTasks) {
            minTasks = tasks;
            minRow = r;
        }
    }
    if (minRow >= 0 && minTasks > 0 &&
        maxTasks / minTasks > 3 + int(m_rng.below(3)) && allowed(3 * minRow + 2) &&
        allowed(3 * minRow))
        action = m_rng.uniform() < 0.5 ? 3 * minRow + 2 : 3 * minRow;
    // The first window job a rule fires for.
    const long long decided = m_kindCounts[0] + m_kindCounts[1] + m_kindCounts[2];
    const auto rare = std::min_element(m_kindCounts.begin(), m_kindCounts.end());
    for (int r = 0; r < s.rows; ++r) {
        if (s.jobIndex[size_t(r)] < 0)
            continue;
        const int w = m_workers[size_t(r)], p = m_ps[size_t(r)];
        if (*rare > 0 && double(*rare) / double(decided) < 0.001) {
            const int a = 3 * r + int(rare - m_kindCounts.begin());
            if (allowed(a))
                return a;
        }
        if (w == 0 || p == 0) {
            int a = action;
            if (w == 0 && p == 0 && allowed(3 * r + 2) && m_rng.uniform() < 0.5)
                a = 3 * r + 2;
            if (w == 0 && allowed(3 * r))
                a = 3 * r;
            if (p == 0 && allowed(3 * r + 1))
                a = 3 * r + 1;
            return a;
        }
        if (p > w * m_psWorkerRatio && m_rng.uniform() < 0.5) {
            if (allowed(3 * r + 2) && allowed(3 * r))
                return m_rng.uniform() < 0.5 ? 3 * r + 2 : 3 * r;
        } else if (2 * w >= p && m_rng.uniform() < 0.5) {
            if (allowed(3 * r + 2) && allowed(3 * r + 1))
                return m_rng.uniform() < 0.01 ? 3 * r + 2 : 3 * r + 1;
        }
    }
    return action;
}

void Dl2Policy::schedule(SlotContext &ctx)
{
    const auto slotStart = Clock::now();
    const bool timing = decisionlatency::enabled();
    if (m_spec.kind == PolicyKind::Dl2 && m_spec.types != ctx.profiles().size())
        throw Error(std::string("dl2 policy: trained for ") + std::to_string(m_spec.types) +
                    " job types, the simulation has " + std::to_string(ctx.profiles().size()) +
                    " (retrain, or use dl2-plus which is type-free)");
    m_decisions.clear();
    m_slotValue.reset();
    m_network->resetCache();
    if (m_actor.epsilon > 0.0 && m_actor.exploration == Exploration::Reference)
        m_psWorkerRatio = 3 + int(m_rng.below(5));
    const PlacementRule rule = m_spec.feasibilityMask ? PlacementRule::FirstFit
                                                      : ctx.options().placement;
    if (m_spec.initialBundles)
        for (int i : ctx.activeJobs())
            if (ctx.add(i, TaskKind::Bundle, rule) == AddResult::NoCapacity)
                break;

    // dl2 decides for its window only: the simulator counts the jobs never in it.
    const bool windowed = m_spec.kind == PolicyKind::Dl2;
    if (windowed)
        ctx.limitView();
    auto markWindow = [&] {
        if (windowed)
            for (const int i : m_state.jobIndex)
                if (i >= 0)
                    ctx.markInView(i);
    };
    std::vector<float> latencies;
    auto t = Clock::now();
    m_encoder.encode(ctx, m_state);
    markWindow();
    for (int n = 0; n < m_maxInferences; ++n) {
        if (m_state.validActions() <= 1)
            break; // empty window or nothing allowed but stop
        // Greedy evaluation needs no softmax: arg max of the masked logits (also when the
        // record wants probabilities, so that recording cannot change a decision).
        const bool greedyOnly = !sampling() && m_actor.epsilon <= 0.0 && m_actor.stopEpsilon <= 0.0 &&
                                m_actor.kindEpsilon <= 0.0 && !m_actor.onDecision;
        if (greedyOnly)
            m_network->logits(m_state, m_probs);
        else
            m_network->probabilities(m_state, m_probs);
        if (n == 0 && m_recording != DecisionRecording::Off && m_valueEstimates)
            m_slotValue = m_network->value(m_state);
        if (m_actor.epsilon > 0.0) {
            m_workers.assign(size_t(m_state.rows), 0);
            m_ps.assign(size_t(m_state.rows), 0);
            for (int r = 0; r < m_state.rows; ++r)
                if (m_state.jobIndex[size_t(r)] >= 0) {
                    m_workers[size_t(r)] = ctx.job(m_state.jobIndex[size_t(r)]).workers;
                    m_ps[size_t(r)] = ctx.job(m_state.jobIndex[size_t(r)]).ps;
                }
        }
        float behaviour = 1.0f;
        bool explored = false;
        const int action = exploreKind(m_state, m_probs, choose(m_state, m_probs, behaviour, explored),
                                       behaviour, explored);
        ++m_counts.decisions;
        m_counts.explored += explored ? 1 : 0;
        const bool stop = m_state.isStop(action);
        const int job = stop ? -1 : m_state.jobIndex[size_t(actionRow(action))];
        if (timing) {
            const auto now = Clock::now();
            latencies.push_back(float(micros(t, now)));
        }
        if (m_actor.onDecision)
            m_actor.onDecision(m_state, action, behaviour, job);
        DecisionRecord *rec = nullptr;
        if (m_recording == DecisionRecording::Full) {
            m_decisions.emplace_back();
            rec = &m_decisions.back();
            rec->slot = ctx.slot();
            rec->inference = n;
            rec->jobDim = m_state.jobDim;
            for (int i : m_state.jobIndex)
                rec->jobIds.push_back(i >= 0 ? ctx.job(i).id : -1);
            rec->setFeatures(m_state.jobs);
            rec->global = m_state.global;
            rec->probabilities = m_probs;
            if (greedyOnly)
                maskedSoftmax(m_state.mask, rec->probabilities);
            rec->mask = m_state.mask;
            rec->action = action;
            rec->stop = stop;
            rec->explored = explored;
            if (m_valueEstimates)
                rec->value = n == 0 ? float(*m_slotValue) : m_network->value(m_state);
            if (!stop) {
                rec->jobId = ctx.job(job).id;
                rec->kind = actionKind(action);
                rec->workersBefore = ctx.job(job).workers;
                rec->psBefore = ctx.job(job).ps;
            }
        }
        if (stop)
            break;
        t = Clock::now();
        const AddResult result = ctx.add(job, actionKind(action), rule);
        if (rec)
            rec->result = result;
        if (result != AddResult::Ok)
            break; // dl2: the slot ends at the first failed allocation
        m_encoder.update(ctx, job, m_state);
        // The window changes only when a job leaves it at both caps (StateEncoder::update).
        if (ctx.atCap(job, TaskKind::Worker) && ctx.atCap(job, TaskKind::Ps))
            markWindow();
    }
    if (timing)
        decisionlatency::addSlot(latencies, micros(slotStart, Clock::now()));
}

namespace {

// Said where V(s) would be: why there is none.
std::string valueNote(bool valueEstimates)
{
    return valueEstimates ? "" : " No V(s): this policy's value network was never trained (only the actor-critic trains it).";
}

} // namespace

DecisionLayout Dl2Policy::decisionLayout() const
{
    DecisionLayout layout;
    layout.policy = toString(m_spec.kind);
    auto add = [](std::vector<DecisionFeature> &to, const char *name, std::string what,
                  int count = 1) {
        const int first = to.empty() ? 0 : to.back().first + to.back().count;
        to.push_back({name, std::move(what), first, count});
    };
    auto &c = layout.columns;
    if (m_spec.kind == PolicyKind::Dl2) {
        const bool norm = m_spec.features.normalise;
        if (m_spec.features.oneHotType)
            add(c, "type",
                "Job type (model), one-hot over " + std::to_string(m_spec.types) +
                    " types in the network input",
                m_spec.types);
        else
            add(c, "type",
                norm ? "Job type id + 1, divided by the number of types" : "Job type id + 1");
        add(c, "age", norm ? "Slots since arrival a, as a / (a + 10)" : "Slots since arrival");
        add(c, "remaining", "Fraction of the job's epochs still to run");
        add(c, "dom. share",
            norm ? "Dominant resource share x nodes / max workers"
                 : "Dominant resource share of the job in the cluster");
        add(c, "workers", norm ? "Workers / max workers" : "Workers so far this slot");
        add(c, "PSs", norm ? "PSs / max PSs" : "Parameter servers so far this slot");
        if (m_spec.features.counts == CountFeatures::PerType) {
            add(c, "counts",
                "Per-type count features: for each job type in turn, [this type and workers >= "
                "c] for c = 2.." + std::to_string(kCountLevels + 1) +
                    ", then the same for PSs (only the job's own type has bits set). "
                    "Shown: how many bits are set (workers - 1 + PSs - 1, each at most " +
                    std::to_string(kCountLevels) + ")",
                2 * kCountLevels * m_spec.types);
            c.back().bits = true;
        }
        const std::string window = "Window: first " + std::to_string(m_spec.window) +
                                   " jobs by arrival.";
        layout.notes = m_spec.initialBundles
                           ? "dl2 first gives every unfinished job one bundle (1 worker + 1 PS); "
                             "then each inference adds one task until stop, a failed allocation "
                             "or no valid action. " +
                                 window
                           : "Each inference adds one task until stop, a failed allocation or "
                             "no valid action. " +
                                 window;
        layout.notes += valueNote(m_valueEstimates);
        return layout;
    }
    add(c, "remaining", "Fraction of the job's epochs still to run");
    add(c, "age", "Slots since arrival a, as a / (a + 10)");
    add(c, "workers", "Workers / max workers");
    add(c, "PSs", "PSs / max PSs");
    add(c, "w CPU", "CPU demand of one worker / node CPU capacity");
    add(c, "w GPU", "GPU demand of one worker / node GPU capacity");
    add(c, "PS CPU", "CPU demand of one PS / node CPU capacity");
    add(c, "progress",
        "Estimated fraction of the remaining epochs done this slot with the current allocation");
    add(c, "gain w", "Gain in that fraction from one more worker");
    add(c, "gain PS", "Gain in that fraction from one more PS");
    add(c, "gain b", "Gain in that fraction from one more worker and PS (bundle)");
    add(c, "log rem.", "log(1 + remaining epochs) / 10");
    add(c, "slots left", "Estimated slots to finish at the current allocation / 100 (capped at 1)");
    add(c, "running", "1 when the job has at least one worker and one PS");
    if (m_spec.features.bestSetting) {
        add(c, "best w gap",
            "(Workers of the job's fastest setting on the cluster's speed model - workers) / "
            "max workers");
        add(c, "best PS gap",
            "(PSs of the job's fastest setting on the cluster's speed model - PSs) / max PSs");
        add(c, "slots at best", "Slots to finish at the fastest setting / 100 (capped at 1)");
        add(c, "of best", "Speed now as a share of the fastest setting's speed");
    }
    auto &g = layout.globals;
    add(g, "free CPU", "Free CPU share of the cluster");
    add(g, "free GPU", "Free GPU share of the cluster");
    add(g, "load", "Unfinished jobs n, as n / (n + 20)");
    add(g, "running", "Share of unfinished jobs that run");
    layout.notes = "dl2-plus: each inference adds one task (worker, PS or bundle) to any "
                   "unfinished job until stop; tasks that fit on no node are masked." +
                   valueNote(m_valueEstimates);
    return layout;
}

} // namespace dl2
