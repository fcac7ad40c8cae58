#pragma once
// The audit log (SQLite through Qt SQL, WAL journal, synchronous=FULL): every proposal, every
// operator action (OS user, time, before/after), every send and every acknowledgment.
// An approved decision is committed to the log (state "committed") BEFORE it is sent, so
// after a crash unacknowledged() lists exactly what must be re-sent; the backend ignores
// ids it already applied.
//
// Tables: meta(key, value) with the run id and the schema version; decisions(id, slot, job,
// state, ack, decision JSON, probability, value); events(seq, time, decision_id, job, kind,
// actor, before, after, detail).
//
// Schema 2 added decisions.probability and decisions.value: the learned policy's
// probability of its proposal and V(s), as proposed (an override replaces the decision JSON's
// allocation and drops its probability; these columns keep what the policy said). A schema-1
// log is migrated when opened, in one transaction: the columns are added and filled from each
// decision's JSON (absent there: NULL). A log of a newer schema is refused.
// Schema 3 (this version) adds what learning from the log needs (dl2 train sl --from-audit):
// decisions.policy_version (the checkpoint version that proposed the decision) and a table
// slots(id "<run id>/<slot>", run_id, slot, time, state, policy, policy_version, reward): the
// cluster snapshot the policy planned on, as the agent's wire format carries it (a serialised
// dl2.agent.v1.Snapshot: enough to rebuild the policy's state deterministically), and the
// reward the cluster reported for that slot once it ran. Learning events (a new online version,
// a rollback, learning paused) are events with kind "learning" and no decision. A schema-1 or
// -2 log is migrated when opened (columns and table added; older decisions have no state).
// Every failed write throws AuditWriteError and leaves the log as it was before the write.
// Not thread-safe: use one AuditLog per thread.

#include "clusterconnector.h"
#include "error.h"
#include "modelprofile.h"
#include "resizedecision.h"

#include <QJsonObject>
#include <QString>
#include <optional>
#include <string>
#include <vector>

namespace dl2 {

// A write to the audit log failed (full disk, I/O error, read-only file): nothing of the
// failed write is in the log. Also thrown by unacknowledged(), whose read can need a write
// (SQLite's recovery of a WAL left by a killed process) and fail on a full disk. The operating loop
// stops approving until the log takes writes again (operatingloop.h).
class AuditWriteError : public Error
{
public:
    using Error::Error;
    // SQLite said "database or disk is full" (SQLITE_FULL).
    bool diskFull() const;
};

class AuditLog
{
public:
    // Opens or creates the log; throws dl2::Error naming the file.
    explicit AuditLog(const std::string &path);
    ~AuditLog();
    AuditLog(const AuditLog &) = delete;
    AuditLog &operator=(const AuditLog &) = delete;

    // Testing (fault injection): audit logs opened afterwards fail every file write with
    // SQLITE_FULL, as on a full disk, while `flagFile` exists (an SQLite VFS over the default
    // one, auditfaultvfs.h). Empty: off.
    static void injectDiskFullWhile(const std::string &flagFile);

    const std::string &path() const { return m_path; }
    const std::string &runId() const { return m_runId; }
    static std::string osUser();
    static constexpr int kSchema = 3;
    // The schema the file had when opened (< kSchema: migrated to kSchema by this open).
    int openedSchema() const { return m_openedSchema; }

    struct Record
    {
        ResizeDecision decision;
        std::string state; // proposed, approved, rejected, committed, sent, acknowledged, invalid
        std::string ack;   // applied / duplicate / invalid once acknowledged
        // The policy's probability and V(s) of the proposal (learned policies), as proposed.
        std::optional<double> probability;
        std::optional<double> value;
        std::string policyVersion; // the policy (checkpoint) version that proposed it
    };
    // One slot as the policy saw it (schema 3).
    struct SlotState
    {
        std::string runId;
        int slot = 0;
        std::string time;
        ClusterView view; // the snapshot the policy planned on
        std::string policy;
        std::string policyVersion;
        std::optional<double> reward; // reported by the cluster once the slot ran
    };
    struct EventRow
    {
        qint64 seq = 0;
        std::string time; // ISO 8601 UTC with milliseconds
        std::string decisionId;
        int job = 0;
        std::string kind;
        std::string actor;
        std::string before;
        std::string after;
        std::string detail;
        // Of the event's decision, as proposed (learned policies; absent otherwise).
        std::optional<double> probability;
        std::optional<double> value;
        std::string policyVersion; // of the policy that proposed the event's decision
    };

    // Groups several records into one transaction (one fsync); nests with the log's own.
    class Batch
    {
    public:
        explicit Batch(AuditLog &log) : m_log(log) { m_log.begin(); }
        ~Batch()
        {
            if (!m_done)
                m_log.rollback();
        }
        void commit()
        {
            m_log.commit();
            m_done = true;
        }

    private:
        AuditLog &m_log;
        bool m_done = false;
    };

    // New proposals (ids already in the log are left alone). Returns the ids that were new.
    // `policyVersion`: the version of the policy that proposed them (empty: unknown).
    std::vector<std::string> recordProposals(const std::vector<ResizeDecision> &decisions,
                                             const std::string &policyVersion = {});
    // The snapshot the policy planned slot view.nextSlot on (kept when already recorded);
    // job models are named by `profiles`.
    void recordSlotState(const std::string &runId, const ClusterView &view,
                         const ProfileSet &profiles, const std::string &policy,
                         const std::string &policyVersion);
    // The reward the cluster reported for a slot it ran (ignored for a slot without state).
    void recordSlotReward(const std::string &runId, int slot, double reward);
    // Every recorded slot state (oldest first); throws dl2::Error when a state does not decode
    // with `profiles` (a job model it does not know).
    std::vector<SlotState> slotStates(const ProfileSet &profiles) const;
    // A learning event (online version, rollback, pause): kind "learning", no decision.
    void recordLearningEvent(const std::string &actor, const std::string &detail,
                             const QJsonObject &after = {});
    std::optional<Record> find(const std::string &id) const;
    // An operator or rule action on an open batch: approve, reject, override, deadline,
    // auto-approve, undo, redo.
    void recordAction(const std::string &id, int job, const std::string &kind,
                      const std::string &actor, const QJsonObject &before, const QJsonObject &after,
                      const std::string &detail = {});
    // Closes a batch in one transaction: approved decisions (final `to`) -> committed,
    // rejected ones -> rejected.
    void recordCommit(const std::vector<ResizeDecision> &approved,
                      const std::vector<ResizeDecision> &rejected, const std::string &actor);
    void recordSent(const std::vector<ResizeDecision> &decisions, bool resend,
                    const std::string &target);
    void recordAcks(const std::vector<Acknowledgment> &acks);
    // Committed or sent, never acknowledged: what to re-send after a restart.
    std::vector<ResizeDecision> unacknowledged() const;

    // Queries for `dl2 audit` and the checks of the operating loop.
    std::vector<Record> decisions(std::optional<int> job = {}) const;
    std::vector<EventRow> events(std::optional<int> job = {}, const std::string &since = {}) const;
    std::vector<std::string> idsInState(const std::string &state) const;

private:
    [[noreturn]] void writeFailed(const std::string &what) const;
    void exec(const QString &sql) const;
    void begin() const;
    void commit() const;
    void rollback() const;
    void migrate(int from);
    void insertEvent(const std::string &id, int job, const std::string &kind,
                     const std::string &actor, const QString &before, const QString &after,
                     const std::string &detail) const;

    std::string m_path;
    QString m_connection;
    std::string m_runId;
    int m_openedSchema = kSchema;
    mutable int m_depth = 0; // open (nested) transactions
};

} // namespace dl2
