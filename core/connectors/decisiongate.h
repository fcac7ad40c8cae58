#pragma once
// Between the policy and the cluster: each slot the policy's allocation becomes one
// ResizeDecision per job whose allocation changes; the gate approves them automatically,
// holds them for review, or approves those its rules match. Operator actions (approve,
// reject, override, approve all) are commands: with a command sink (a QUndoStack adapter,
// see gateundo.h) they are undoable until commit(); without one they execute directly, so
// headless use and tests need no Qt Gui. At the review deadline, whatever is still pending
// gets the configured default (keep the current allocation, or apply the proposal).

#include "auditlog.h"
#include "clusterconnector.h"
#include "gaterules.h"
#include "modelprofile.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dl2 {

enum class GateMode
{
    Automatic,
    Review,
    Rules
};
enum class DeadlineDefault
{
    KeepCurrent,
    Apply
};
GateMode gateModeFromString(const std::string &text); // throws dl2::Error
const char *toString(GateMode mode);

struct GateEntry
{
    enum class Verdict
    {
        Pending,
        Approved,
        Rejected
    };
    ResizeDecision decision; // `to` is the proposal or the operator's override
    Verdict verdict = Verdict::Pending;
    std::string reason; // rule name, "operator", "deadline", ...
    bool operator==(const GateEntry &) const = default;
};
const char *toString(GateEntry::Verdict verdict); // "pending", "approved", "rejected"

// One undoable operator action.
class GateCommand
{
public:
    virtual ~GateCommand() = default;
    virtual void redo() = 0;
    virtual void undo() = 0;
    virtual std::string text() const = 0;
};

class GateCommandSink
{
public:
    virtual ~GateCommandSink() = default;
    virtual void push(std::unique_ptr<GateCommand> command) = 0; // executes it (redo)
    virtual void clear() = 0; // the batch was committed: nothing is undoable any more
};

class DecisionGate
{
public:
    struct Options
    {
        GateMode mode = GateMode::Automatic;
        GateRules rules;
        std::chrono::milliseconds reviewDeadline{60'000};
        DeadlineDefault atDeadline = DeadlineDefault::KeepCurrent;
        std::string actor; // OS user for operator actions (default: AuditLog::osUser())
        // The time the review deadline is measured on (tests step it; empty = steady_clock).
        std::function<std::chrono::steady_clock::time_point()> clock;
    };

    explicit DecisionGate(Options options, ProfileSet profiles = ProfileSet::reference());
    ~DecisionGate();

    void setAuditLog(AuditLog *log) { m_audit = log; }
    void setCommandSink(GateCommandSink *sink) { m_sink = sink; }
    // What open() records with each batch (audit schema 3): the policy and its version (the
    // checkpoint version of an online-learning run), next to the snapshot it planned on.
    void setPolicyVersion(std::string policy, std::string version)
    {
        m_policy = std::move(policy);
        m_policyVersion = std::move(version);
    }
    const std::string &policyVersion() const { return m_policyVersion; }
    const Options &options() const { return m_options; }

    // Opens the batch of `view.nextSlot`: proposals are the allocations the policy wants
    // (jobs in view order, one per job). Decisions already closed in the audit log (same id)
    // are left out. Applies the mode and rules. Returns the number of decisions.
    // `confidence` (learned policies) fills each decision's probability and value.
    int open(const ClusterView &view, const std::vector<Allocation> &proposals,
             const std::string &runId, const ConfidenceByJob &confidence = {});
    bool isOpen() const { return m_open; }
    int slot() const { return m_slot; }
    const std::vector<GateEntry> &entries() const { return m_entries; }
    int pending() const;
    std::chrono::steady_clock::time_point deadline() const { return m_deadline; }

    // Operator actions; throw dl2::Error on an unknown id, a closed batch or an invalid override
    // (outside the caps, beyond the cluster's totals, or not fitting on the nodes under the
    // cluster's placement rule, targetplacement.h: the message says which and why).
    void approve(const std::string &id);
    void reject(const std::string &id);
    void override(const std::string &id, int ps, int workers);
    void approveAll();
    // Pending decisions get the deadline default (when the deadline passed, or now if forced).
    int resolveDeadline(bool force = false);
    // Closes the batch: writes the verdicts to the audit log (approved ones as "committed")
    // and returns the approved decisions to send. Throws while decisions are pending.
    std::vector<ResizeDecision> commit();

    // Builds one decision per job whose allocation changes (exposed for the planner/tests).
    std::vector<ResizeDecision> diff(const ClusterView &view,
                                     const std::vector<Allocation> &proposals,
                                     const std::string &runId,
                                     const ConfidenceByJob &confidence = {}) const;
    double predictedSpeed(int profile, const Allocation &a) const;

private:
    class SetEntries;
    friend class SetEntries;
    int indexOf(const std::string &id) const;
    void requireOpen() const;
    void perform(std::vector<std::pair<int, GateEntry>> after, const std::string &kind);
    void assign(int index, const GateEntry &entry, const std::string &kind, bool undoing);
    // What the cluster would run after this batch (job id -> allocation): targets, approved
    // entries, and entry `index` at `to` when given.
    std::map<int, Allocation> targetsAfterBatch(int index, const Allocation *to) const;
    // Caps, cluster totals, and per-node fit under the cluster's placement rule.
    void checkCapacity(int index, const Allocation &to) const;
    std::chrono::steady_clock::time_point now() const;

    Options m_options;
    ProfileSet m_profiles;
    AuditLog *m_audit = nullptr;
    std::string m_policy;
    std::string m_policyVersion;
    GateCommandSink *m_sink = nullptr;
    bool m_open = false;
    int m_slot = -1;
    ClusterView m_view;
    std::vector<GateEntry> m_entries;
    std::chrono::steady_clock::time_point m_deadline;
};

} // namespace dl2
