#include "decisiongate.h"

#include "error.h"
#include "targetplacement.h"

#include <algorithm>
#include <optional>
#include <set>

namespace dl2 {

GateMode gateModeFromString(const std::string &text)
{
    if (text == "automatic" || text == "auto")
        return GateMode::Automatic;
    if (text == "review")
        return GateMode::Review;
    if (text == "rules")
        return GateMode::Rules;
    throw Error("unknown gate mode '" + text + "' (known: automatic, review, rules)");
}

const char *toString(GateMode mode)
{
    switch (mode) {
    case GateMode::Automatic:
        return "automatic";
    case GateMode::Review:
        return "review";
    case GateMode::Rules:
        return "rules";
    }
    return "?";
}

const char *toString(GateEntry::Verdict verdict)
{
    switch (verdict) {
    case GateEntry::Verdict::Approved:
        return "approved";
    case GateEntry::Verdict::Rejected:
        return "rejected";
    case GateEntry::Verdict::Pending:
        break;
    }
    return "pending";
}

namespace {
QJsonObject entryJson(const GateEntry &e)
{
    QJsonObject o = toJson(e.decision.to);
    o.insert(QStringLiteral("verdict"), QString::fromLatin1(toString(e.verdict)));
    return o;
}
} // namespace

// Sets some entries to new values; undo restores the old ones.
class DecisionGate::SetEntries : public GateCommand
{
public:
    SetEntries(DecisionGate &gate, std::vector<std::pair<int, GateEntry>> before,
               std::vector<std::pair<int, GateEntry>> after, std::string kind)
        : m_gate(gate), m_before(std::move(before)), m_after(std::move(after)),
          m_kind(std::move(kind))
    {
    }
    void redo() override
    {
        for (const auto &[i, e] : m_after)
            m_gate.assign(i, e, m_kind, false);
    }
    void undo() override
    {
        for (const auto &[i, e] : m_before)
            m_gate.assign(i, e, m_kind, true);
    }
    std::string text() const override
    {
        if (m_after.size() == 1)
            return m_kind + " " + m_after.front().second.decision.id;
        return m_kind + " (" + std::to_string(m_after.size()) + " decisions)";
    }

private:
    DecisionGate &m_gate;
    std::vector<std::pair<int, GateEntry>> m_before, m_after;
    std::string m_kind;
};

DecisionGate::DecisionGate(Options options, ProfileSet profiles)
    : m_options(std::move(options)), m_profiles(std::move(profiles))
{
    if (m_options.actor.empty())
        m_options.actor = AuditLog::osUser();
}

DecisionGate::~DecisionGate()
{
    if (m_sink)
        m_sink->clear(); // commands refer to this gate
}

double DecisionGate::predictedSpeed(int profile, const Allocation &a) const
{
    if (profile < 0 || profile >= m_profiles.size() || a.ps <= 0 || a.workers <= 0)
        return 0.0;
    return m_profiles[profile].speed->speed(a.ps, a.workers);
}

std::vector<ResizeDecision> DecisionGate::diff(const ClusterView &view,
                                               const std::vector<Allocation> &proposals,
                                               const std::string &runId,
                                               const ConfidenceByJob &confidence) const
{
    if (proposals.size() != view.jobs.size())
        throw Error("gate: " + std::to_string(proposals.size()) + " proposals for " +
                    std::to_string(view.jobs.size()) + " jobs");
    std::vector<ResizeDecision> out;
    for (size_t i = 0; i < view.jobs.size(); ++i) {
        const JobState &j = view.jobs[i];
        if (j.status == JobStatus::Finished)
            continue;
        const Allocation target = i < view.targets.size() ? view.targets[i] : Allocation{};
        if (proposals[i].sameSize(target))
            continue;
        ResizeDecision d;
        d.id = ResizeDecision::makeId(runId, view.nextSlot, j.id);
        d.slot = view.nextSlot;
        d.job = j.id;
        d.from = {{j.ps, j.workers}, j.tasks};
        d.to = proposals[i];
        d.speedBefore = predictedSpeed(j.type, d.from);
        d.speedAfter = predictedSpeed(j.type, d.to);
        if (const auto c = confidence.find(j.id); c != confidence.end()) {
            d.probability = c->second.probability;
            d.value = c->second.value;
        }
        out.push_back(std::move(d));
    }
    return out;
}

int DecisionGate::open(const ClusterView &view, const std::vector<Allocation> &proposals,
                       const std::string &runId, const ConfidenceByJob &confidence)
{
    if (m_open)
        throw Error("gate: the batch of slot " + std::to_string(m_slot) + " is still open");
    std::vector<ResizeDecision> decisions = diff(view, proposals, runId, confidence);
    std::optional<AuditLog::Batch> batch; // proposals and automatic verdicts: one transaction
    if (m_audit)
        batch.emplace(*m_audit);
    if (m_audit) {
        // The state the policy planned on (to learn from this log later) and the reward the
        // cluster reported for the slot before it.
        m_audit->recordSlotState(runId, view, m_profiles, m_policy, m_policyVersion);
        if (view.nextSlot > 0)
            m_audit->recordSlotReward(runId, view.nextSlot - 1, view.reward);
        m_audit->recordProposals(decisions, m_policyVersion);
        // Leave out what an earlier run already closed (same stable id).
        std::erase_if(decisions, [&](const ResizeDecision &d) {
            const auto r = m_audit->find(d.id);
            return r && r->state != "proposed";
        });
    }
    // The gate opens only once the log has the batch: a refused write (full disk) leaves it
    // closed, so nothing can be committed and sent that the log never saw proposed.
    std::vector<GateEntry> entries;
    for (auto &d : decisions)
        entries.push_back({std::move(d), GateEntry::Verdict::Pending, {}});
    for (GateEntry &e : entries) {
        std::string rule;
        if (m_options.mode == GateMode::Automatic)
            rule = "automatic";
        else if (m_options.mode == GateMode::Rules)
            rule = m_options.rules.match(e.decision);
        if (rule.empty())
            continue;
        GateEntry after = e;
        after.verdict = GateEntry::Verdict::Approved;
        after.reason = rule;
        if (m_audit)
            m_audit->recordAction(e.decision.id, e.decision.job, "auto-approve", "gate",
                                  entryJson(e), entryJson(after), rule);
        e = after;
    }
    if (batch)
        batch->commit();
    m_view = view;
    m_slot = view.nextSlot;
    m_entries = std::move(entries);
    m_open = true;
    m_deadline = now() + m_options.reviewDeadline;
    return static_cast<int>(m_entries.size());
}

int DecisionGate::pending() const
{
    return static_cast<int>(
        std::count_if(m_entries.begin(), m_entries.end(),
                      [](const GateEntry &e) { return e.verdict == GateEntry::Verdict::Pending; }));
}

int DecisionGate::indexOf(const std::string &id) const
{
    for (size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].decision.id == id)
            return static_cast<int>(i);
    throw Error("gate: no decision '" + id + "' in the batch of slot " + std::to_string(m_slot));
}

void DecisionGate::requireOpen() const
{
    if (!m_open)
        throw Error("gate: no open batch (it was committed)");
}

void DecisionGate::assign(int index, const GateEntry &entry, const std::string &kind, bool undoing)
{
    GateEntry &e = m_entries[static_cast<size_t>(index)];
    if (m_audit)
        m_audit->recordAction(e.decision.id, e.decision.job, undoing ? "undo " + kind : kind,
                              m_options.actor, entryJson(e), entryJson(entry));
    e = entry;
}

void DecisionGate::perform(std::vector<std::pair<int, GateEntry>> after, const std::string &kind)
{
    std::vector<std::pair<int, GateEntry>> before;
    for (const auto &[i, e] : after)
        before.emplace_back(i, m_entries[static_cast<size_t>(i)]);
    auto command = std::make_unique<SetEntries>(*this, std::move(before), std::move(after), kind);
    if (m_sink)
        m_sink->push(std::move(command));
    else
        command->redo();
}

void DecisionGate::approve(const std::string &id)
{
    requireOpen();
    const int i = indexOf(id);
    GateEntry e = m_entries[static_cast<size_t>(i)];
    e.verdict = GateEntry::Verdict::Approved;
    e.reason = "operator";
    perform({{i, e}}, "approve");
}

void DecisionGate::reject(const std::string &id)
{
    requireOpen();
    const int i = indexOf(id);
    GateEntry e = m_entries[static_cast<size_t>(i)];
    e.verdict = GateEntry::Verdict::Rejected;
    e.reason = "operator";
    perform({{i, e}}, "reject");
}

std::map<int, Allocation> DecisionGate::targetsAfterBatch(int index, const Allocation *to) const
{
    std::map<int, Allocation> targets;
    for (size_t k = 0; k < m_view.jobs.size(); ++k) {
        const JobState &j = m_view.jobs[k];
        if (j.status == JobStatus::Finished || j.type < 0 || j.type >= m_profiles.size())
            continue;
        targets[j.id] = k < m_view.targets.size() ? m_view.targets[k] : Allocation{};
    }
    for (size_t e = 0; e < m_entries.size(); ++e) {
        const auto it = targets.find(m_entries[e].decision.job);
        if (it == targets.end())
            continue;
        if (to && static_cast<int>(e) == index)
            it->second = *to;
        else if (m_entries[e].verdict == GateEntry::Verdict::Approved)
            it->second = m_entries[e].decision.to;
    }
    return targets;
}

void DecisionGate::checkCapacity(int index, const Allocation &to) const
{
    if (to.ps < 0 || to.workers < 0 || to.ps > m_view.maxPs || to.workers > m_view.maxWorkers)
        throw Error("override: " + describe(to) + " is outside the caps (0.." +
                    std::to_string(m_view.maxPs) + " PSs, 0.." + std::to_string(m_view.maxWorkers) +
                    " workers)");
    // Aggregate demand of what the cluster would run after this batch.
    const std::map<int, Allocation> after = targetsAfterBatch(index, &to);
    Demand used{0, 0};
    for (const JobState &j : m_view.jobs) {
        const auto it = after.find(j.id);
        if (it == after.end())
            continue;
        const ModelProfile &p = m_profiles[j.type];
        used = used + (it->second.workers * p.workerDemand) + (it->second.ps * p.psDemand);
    }
    const Demand total = m_view.nodes * m_view.nodeCapacity;
    for (int r = 0; r < kResourceTypes; ++r)
        if (used[r] > total[r])
            throw Error("override: " + describe(to) + " needs " + std::to_string(used[r]) + " " +
                        (r == 0 ? "CPU" : "GPU") + " slots in total, the cluster has " +
                        std::to_string(total[r]));

    // Per node: place everything as the cluster will at the start of the slot (the same rule,
    // targetplacement.h). Refused when the job itself does not get the whole override, or when
    // it pushes out a job that gets its whole allocation without it.
    const int job = m_entries[static_cast<size_t>(index)].decision.job;
    const char *rule = m_view.placement == PlacementRule::FirstFit
                           ? "first-fit placement (a task goes to the least-loaded node it fits on)"
                           : "least-loaded placement (a task goes to the least-loaded node, or "
                             "fails when it does not fit there)";
    const auto shortfalls = placementShortfalls(m_view, after, m_profiles);
    for (const PlacementShortfall &s : shortfalls)
        if (s.job == job)
            throw Error("override: " + describe(to) +
                        " does not fit on the nodes: under the "
                        "cluster's " +
                        rule + " job " + std::to_string(job) + " would get only " +
                        describe(s.placed));
    if (shortfalls.empty())
        return;
    std::set<int> shortBefore;
    for (const PlacementShortfall &s :
         placementShortfalls(m_view, targetsAfterBatch(index, nullptr), m_profiles))
        shortBefore.insert(s.job);
    for (const PlacementShortfall &s : shortfalls)
        if (!shortBefore.count(s.job))
            throw Error("override: " + describe(to) + " leaves no room on the nodes for job " +
                        std::to_string(s.job) + ": under the cluster's " + rule + " it would get " +
                        describe(s.placed) + " instead of " + describe(s.wanted));
}

void DecisionGate::override(const std::string &id, int ps, int workers)
{
    requireOpen();
    const int i = indexOf(id);
    GateEntry e = m_entries[static_cast<size_t>(i)];
    Allocation to{{ps, workers}, {}};
    checkCapacity(i, to);
    e.decision.to = to;
    for (const JobState &j : m_view.jobs)
        if (j.id == e.decision.job)
            e.decision.speedAfter = predictedSpeed(j.type, to);
    e.decision.probability.reset();
    e.verdict = GateEntry::Verdict::Approved;
    e.reason = "operator override";
    perform({{i, e}}, "override");
}

void DecisionGate::approveAll()
{
    requireOpen();
    std::vector<std::pair<int, GateEntry>> after;
    for (size_t i = 0; i < m_entries.size(); ++i) {
        if (m_entries[i].verdict != GateEntry::Verdict::Pending)
            continue;
        GateEntry e = m_entries[i];
        e.verdict = GateEntry::Verdict::Approved;
        e.reason = "operator";
        after.emplace_back(static_cast<int>(i), std::move(e));
    }
    if (!after.empty())
        perform(std::move(after), "approve all");
}

std::chrono::steady_clock::time_point DecisionGate::now() const
{
    return m_options.clock ? m_options.clock() : std::chrono::steady_clock::now();
}

int DecisionGate::resolveDeadline(bool force)
{
    requireOpen();
    if (!force && now() < m_deadline)
        return 0;
    int n = 0;
    std::optional<AuditLog::Batch> batch;
    if (m_audit)
        batch.emplace(*m_audit);
    std::vector<GateEntry> entries = m_entries; // applied once the log has the verdicts
    for (auto &e : entries) {
        if (e.verdict != GateEntry::Verdict::Pending)
            continue;
        GateEntry after = e;
        after.verdict = m_options.atDeadline == DeadlineDefault::Apply
                            ? GateEntry::Verdict::Approved
                            : GateEntry::Verdict::Rejected;
        after.reason = "deadline";
        if (m_audit)
            m_audit->recordAction(
                e.decision.id, e.decision.job, "deadline", "gate", entryJson(e), entryJson(after),
                m_options.atDeadline == DeadlineDefault::Apply ? "apply" : "keep current");
        e = after;
        ++n;
    }
    if (batch)
        batch->commit();
    m_entries = std::move(entries);
    return n;
}

std::vector<ResizeDecision> DecisionGate::commit()
{
    requireOpen();
    if (const int p = pending(); p > 0)
        throw Error("gate: " + std::to_string(p) + " decisions of slot " + std::to_string(m_slot) +
                    " still wait for review");
    std::vector<ResizeDecision> approved, rejected;
    for (const auto &e : m_entries)
        (e.verdict == GateEntry::Verdict::Approved ? approved : rejected).push_back(e.decision);
    if (m_audit)
        m_audit->recordCommit(approved, rejected, m_options.actor);
    if (m_sink)
        m_sink->clear();
    m_open = false;
    return approved;
}

} // namespace dl2
