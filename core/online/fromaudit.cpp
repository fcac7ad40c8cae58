#include "fromaudit.h"

#include "auditlog.h"
#include "checkpoint.h"
#include "dl2policy.h"
#include "error.h"
#include "experience.h"
#include "fileio.h"
#include "learner.h"
#include "policyplanner.h"
#include "registerpolicies.h"
#include "policynetwork.h"
#include "stateencoder.h"

#include <QJsonDocument>
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace dl2 {

namespace {

struct LabelledSlot
{
    ClusterView view;
    std::map<int, Allocation> applied; // job id -> (ps, workers) that ran
    std::set<int> overriddenJobs;
    std::set<int> decidedJobs; // jobs with a decision (approved, overridden or rejected)
    int weight = 1;
};

// Job id -> the greedy policy's (ps, workers) on the slot.
std::map<int, Allocation> proposal(Dl2Policy &policy, const ClusterView &view,
                                   const ProfileSet &profiles)
{
    PolicyPlanner::RebuiltSlot slot = PolicyPlanner::rebuild(view);
    SlotContext ctx = slot.context(profiles);
    policy.schedule(ctx);
    std::map<int, Allocation> out;
    for (int i : slot.active)
        out[slot.jobs[size_t(i)].id] = Allocation{slot.jobs[size_t(i)].ps,
                                                  slot.jobs[size_t(i)].workers, {}};
    return out;
}

// The operators' allocation taught in the student's own order (task-level DAgger on the
// recorded state): from the rebuilt slot, the student takes, among the tasks the applied
// allocation still needs, the one it ranks highest; every state on that path is labelled with
// the set of tasks still needed (stop once none is). Replaying the allocation in a fixed order
// (TeacherRecorder) teaches states the greedy student never visits (it adds a job's PSs before
// its workers, the replay bundles first), and the student then drifts off the allocation.
std::vector<Sample> rollIn(const PolicySpec &spec, std::shared_ptr<const ParameterSet> params,
                           const ClusterView &view, const std::map<int, Allocation> &applied,
                           const ProfileSet &profiles, const std::string &labels)
{
    PolicyPlanner::RebuiltSlot slot = PolicyPlanner::rebuild(view);
    SlotContext ctx = slot.context(profiles);
    StateEncoder encoder(spec);
    PolicyNetwork network(spec, std::move(params));
    const PlacementRule rule =
        spec.feasibilityMask ? PlacementRule::FirstFit : ctx.options().placement;
    std::vector<int> remW(slot.jobs.size(), 0), remP(slot.jobs.size(), 0);
    for (int i : slot.active)
        if (const auto a = applied.find(slot.jobs[size_t(i)].id); a != applied.end()) {
            remW[size_t(i)] = a->second.workers;
            remP[size_t(i)] = a->second.ps;
        }
    if (spec.initialBundles)
        for (int i : slot.active)
            if (ctx.add(i, TaskKind::Bundle, rule) == AddResult::Ok) {
                remW[size_t(i)] = std::max(0, remW[size_t(i)] - 1);
                remP[size_t(i)] = std::max(0, remP[size_t(i)] - 1);
            }
    std::vector<Sample> out;
    EncodedState state;
    encoder.encode(ctx, state);
    std::vector<float> logits;
    for (int n = 0; n < 20000 && state.validActions() > 1; ++n) {
        std::vector<float> target(size_t(state.actionCount()), 0.0f);
        float total = 0.0f;
        for (int r = 0; r < state.rows; ++r) {
            const int i = state.jobIndex[size_t(r)];
            if (i < 0)
                continue;
            const bool w = remW[size_t(i)] > 0, p = remP[size_t(i)] > 0;
            const bool flags[3] = {w, p, w && p};
            for (int k = 0; k < 3; ++k)
                if (flags[k] && state.mask[size_t(3 * r + k)]) {
                    target[size_t(3 * r + k)] = 1.0f;
                    total += 1.0f;
                }
        }
        if (total == 0.0f) {
            out.push_back(Sample::fromState(state, state.stopAction()));
            break;
        }
        network.logits(state, logits);
        int action = -1;
        for (int a = 0; a < state.stopAction(); ++a)
            if (target[size_t(a)] > 0.0f && (action < 0 || logits[size_t(a)] > logits[size_t(action)]))
                action = a;
        Sample x = Sample::fromState(state, action);
        if (labels == "multi") {
            x.target = std::move(target);
        } else if (labels == "set") {
            for (float &t : target)
                t /= total;
            x.target = std::move(target);
        } // "student": one-hot on the needed task the student ranks highest
        out.push_back(std::move(x));
        const int job = state.jobIndex[size_t(actionRow(action))];
        const TaskKind kind = actionKind(action);
        if (ctx.add(job, kind, rule) != AddResult::Ok) {
            remW[size_t(job)] = remP[size_t(job)] = 0; // cannot be placed: no longer asked for
            encoder.encode(ctx, state);
            continue;
        }
        if (kind != TaskKind::Ps)
            --remW[size_t(job)];
        if (kind != TaskKind::Worker)
            --remP[size_t(job)];
        encoder.update(ctx, job, state);
    }
    return out;
}

struct Match
{
    double all = 0.0;
    double overridden = 0.0;
    double overriddenDistance = 0.0; // mean |PSs - PSs applied| + |workers - workers applied|
};

Match matchRate(const PolicySpec &spec, std::shared_ptr<const ParameterSet> params,
                const std::vector<LabelledSlot> &slots, const ProfileSet &profiles)
{
    PolicySpec greedy = spec;
    greedy.decode = Decode::Greedy;
    Dl2Policy policy(greedy, std::move(params));
    int n = 0, hit = 0, on = 0, ohit = 0;
    double distance = 0.0;
    for (const LabelledSlot &s : slots) {
        const auto got = proposal(policy, s.view, profiles);

        for (int job : s.decidedJobs) {
            const auto g = got.find(job);
            const bool same = g != got.end() && g->second.sameSize(s.applied.at(job));

            ++n;
            hit += same ? 1 : 0;
            if (s.overriddenJobs.count(job)) {
                ++on;
                ohit += same ? 1 : 0;
                const Allocation &a = s.applied.at(job);
                distance += g == got.end() ? a.ps + a.workers
                                           : std::abs(g->second.ps - a.ps) +
                                                 std::abs(g->second.workers - a.workers);
            }
        }
    }
    return {n ? double(hit) / n : 0.0, on ? double(ohit) / on : 0.0, on ? distance / on : 0.0};
}

} // namespace

std::string AuditSlReport::toText() const
{
    char buf[1400];
    std::snprintf(buf, sizeof buf,
                  "slots with state %d, used %d, skipped %d (a decision invalid or never closed)\n"
                  "decisions used: %d approved as proposed, %d overridden, %d rejected (kept "
                  "current); %d unusable; %d jobs left unchanged by the policy\n"
                  "samples %lld; loss %.4f -> %.4f\n"
                  "greedy proposal = applied allocation: %.1f%% -> %.1f%% of decided jobs "
                  "(overridden ones %.1f%% -> %.1f%%, mean distance to the operator's allocation "
                  "%.2f -> %.2f tasks)\n",
                  slotsWithState, slotsUsed, slotsSkipped, approved, overridden, rejected,
                  unusable, unchangedJobs, samples, lossBefore, lossAfter, 100.0 * matchBefore,
                  100.0 * matchAfter, 100.0 * overrideMatchBefore, 100.0 * overrideMatchAfter,
                  overrideDistanceBefore, overrideDistanceAfter);
    std::string text = buf;
    if (!checkpoint.empty())
        text += "checkpoint " + checkpoint + "\n";
    return text;
}

AuditSlReport trainFromAudit(const AuditSlOptions &o, const TrainProgress &progress,
                             const std::atomic<bool> *cancel)
{
    const ProfileSet profiles = o.profiles ? *o.profiles : ProfileSet::reference();
    if (o.overrideWeight < 1)
        throw Error("--override-weight must be at least 1");
    AuditLog audit(o.audit);
    const std::vector<AuditLog::SlotState> states = audit.slotStates(profiles);
    if (states.empty())
        throw Error("audit log '" + o.audit + "' holds no slot states" +
                    (audit.openedSchema() < 3 ? std::string(" (it was written by a dl2 older "
                                                            "than audit schema 3, which did not "
                                                            "record them)")
                                              : std::string(" (no slot was operated)")));
    // What was proposed (the "proposed" event's allocation) and what became of each decision.
    std::map<std::string, Allocation> proposed;
    for (const AuditLog::EventRow &e : audit.events())
        if (e.kind == "proposed")
            proposed[e.decisionId] =
                allocationFromJson(QJsonDocument::fromJson(QByteArray::fromStdString(e.after)).object());
    std::map<std::string, std::vector<AuditLog::Record>> bySlot; // "<run>/<slot>"
    for (AuditLog::Record &r : audit.decisions()) {
        const std::string key = r.decision.id.substr(0, r.decision.id.rfind('/'));
        bySlot[key].push_back(std::move(r));
    }

    AuditSlReport report;
    report.slotsWithState = int(states.size());
    std::vector<LabelledSlot> slots;
    for (const AuditLog::SlotState &st : states) {
        LabelledSlot ls;
        ls.view = st.view;
        for (size_t i = 0; i < st.view.jobs.size(); ++i) {
            const JobState &j = st.view.jobs[i];
            if (j.status == JobStatus::Finished)
                continue;
            const Allocation t = i < st.view.targets.size() ? st.view.targets[i] : Allocation{};
            ls.applied[j.id] = Allocation{t.ps, t.workers, {}};
        }
        bool usable = true;
        int approved = 0, overridden = 0, rejected = 0;
        for (const AuditLog::Record &r : bySlot[st.runId + "/" + std::to_string(st.slot)]) {
            const ResizeDecision &d = r.decision;
            const bool applied = r.state == "committed" || r.state == "sent" ||
                                 (r.state == "acknowledged" && r.ack != "invalid");
            if (r.state == "rejected") {
                ls.applied[d.job] = Allocation{d.from.ps, d.from.workers, {}};
                ++rejected;
            } else if (applied) {
                ls.applied[d.job] = Allocation{d.to.ps, d.to.workers, {}};
                const auto p = proposed.find(d.id);
                if (p != proposed.end() && !p->second.sameSize(d.to)) {
                    ls.overriddenJobs.insert(d.job);
                    ++overridden;
                } else {
                    ++approved;
                }
            } else {
                usable = false;
                ++report.unusable;
                continue;
            }
            ls.decidedJobs.insert(d.job);
        }
        if (!usable) {
            ++report.slotsSkipped;
            continue;
        }
        report.approved += approved;
        report.overridden += overridden;
        report.rejected += rejected;
        report.unchangedJobs += int(ls.applied.size() - ls.decidedJobs.size());
        ls.weight = ls.overriddenJobs.empty() ? 1 : o.overrideWeight;
        slots.push_back(std::move(ls));
    }
    report.slotsUsed = int(slots.size());
    if (slots.empty())
        throw Error("audit log '" + o.audit + "': no usable slot (every slot has a decision the "
                    "cluster refused or that never closed)");

    // The network to start from: --init, else the shipped policy of the kind (default: the
    // learned policy that operated, as the log names it).
    std::string init = o.init;
    if (init.empty()) {
        PolicyKind kind = PolicyKind::Dl2Plus;
        if (o.kind)
            kind = *o.kind;
        else if (states.front().policy == "dl2")
            kind = PolicyKind::Dl2;
        else if (states.front().policy != "dl2-plus")
            throw Error("audit log '" + o.audit + "' was operated by '" + states.front().policy +
                        "', not a learned policy: pass --init CKPT or --policy dl2|dl2-plus");
        init = shippedPolicyPath(kind, slots.front().view.scenario);
    }
    const Checkpoint start = readCheckpoint(init);
    const PolicySpec spec = start.spec;
    Learner learner(start, o.learningRate, false);
    if (o.labels == "multi")
        learner.setSlMultiLabel(true);
    else if (o.labels != "set" && o.labels != "student")
        throw Error("--labels: expected student, multi or set, got '" + o.labels + "'");

    // Samples: the applied allocation on the rebuilt state, in the student's order (rollIn),
    // regenerated as the student changes; an overridden slot's samples are repeated.
    std::vector<Sample> pool;
    auto regenerate = [&] {
        pool.clear();
        const auto params = learner.parameters();
        for (const LabelledSlot &s : slots) {
            std::vector<Sample> mine = rollIn(spec, params, s.view, s.applied, profiles, o.labels);
            for (int k = 0; k < s.weight; ++k)
                pool.insert(pool.end(), mine.begin(), mine.end());
        }
    };
    regenerate();
    if (pool.empty())
        throw Error("audit log '" + o.audit + "': the applied allocations give no samples");
    report.samples = static_cast<long long>(pool.size());

    std::vector<const Sample *> all;
    for (const Sample &x : pool)
        all.push_back(&x);
    report.lossBefore = learner.slLoss(all);
    const Match before = matchRate(spec, learner.parameters(), slots, profiles);
    report.matchBefore = before.all;
    report.overrideMatchBefore = before.overridden;
    report.overrideDistanceBefore = before.overriddenDistance;

    Rng rng(o.seed * 7919 + 11);
    for (long long step = 1; step <= o.steps; ++step) {
        if (cancel && cancel->load())
            break;
        if (step > 1 && o.refresh > 0 && (step - 1) % o.refresh == 0)
            regenerate();
        std::vector<const Sample *> batch;
        const int n = std::min<int>(o.batchSize, int(pool.size()));
        for (int k = 0; k < n; ++k)
            batch.push_back(&pool[size_t(rng.below(pool.size()))]);
        CurvePoint p;
        p.step = step;
        p.trainLoss = learner.slUpdate(batch);
        if (progress)
            progress(step, o.steps, p);
    }
    regenerate();
    all.clear();
    for (const Sample &x : pool)
        all.push_back(&x);
    report.lossAfter = learner.slLoss(all);
    const Match after = matchRate(spec, learner.parameters(), slots, profiles);
    report.matchAfter = after.all;
    report.overrideMatchAfter = after.overridden;
    report.overrideDistanceAfter = after.overriddenDistance;

    if (!o.output.empty()) {
        TrainingInfo info = start.info;
        info.trainer = "sl";
        info.teacher = "audit:" + o.audit;
        info.learningRate = o.learningRate;
        info.batchSize = o.batchSize;
        info.step = o.steps;
        info.seed = o.seed;
        writeFileAtomically(o.output, encodeCheckpoint(spec, info, learner.archive(o.saveOptimizer),
                                                       o.saveOptimizer));
        report.checkpoint = o.output;
    }
    return report;
}

} // namespace dl2
