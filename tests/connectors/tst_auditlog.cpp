// AuditLog (survives reopen, re-send logic) and the simulated backend (idempotent apply,
// state directory resume), plus the operating loop's recovery in-process.
#include "auditevents.h"
#include "auditlog.h"
#include "error.h"
#include "operatingloop.h"
#include "simulatedconnector.h"

#include <QFile>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <thread>

using namespace dl2;

namespace {

ResizeDecision decision(const std::string &run, int slot, int job, int ps, int workers)
{
    ResizeDecision d;
    d.id = ResizeDecision::makeId(run, slot, job);
    d.slot = slot;
    d.job = job;
    d.to = {ps, workers, {}};
    return d;
}

// A full disk for the audit log, as `dl2 operate --debug-audit-full-file` injects it.
struct DiskFull
{
    QString flag;
    explicit DiskFull(const QTemporaryDir &dir) : flag(dir.filePath(QStringLiteral("disk-full")))
    {
        AuditLog::injectDiskFullWhile(flag.toStdString());
    }
    ~DiskFull() { AuditLog::injectDiskFullWhile({}); }
    void set(bool full) const
    {
        QFile f(flag);
        if (full)
            f.open(QIODevice::WriteOnly);
        else
            f.remove();
    }
};

QString integrityCheck(const std::string &path)
{
    QString result;
    {
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("check"));
        db.setDatabaseName(QString::fromStdString(path));
        db.open();
        QSqlQuery q(db);
        q.exec(QStringLiteral("PRAGMA integrity_check"));
        while (q.next())
            result += q.value(0).toString();
    }
    QSqlDatabase::removeDatabase(QStringLiteral("check"));
    return result;
}

// The simulated cluster; the disk of the audit log fills up right after the agent applied
// the batch of slot `fullAt` (so its acknowledgments cannot be recorded) and, unless
// `staysFull`, frees up again after `fullFor`. Records whether anything was sent while full.
class FillingDisk : public SimulatedConnector
{
public:
    FillingDisk(const DiskFull &disk, int fullAt, std::chrono::milliseconds fullFor, bool staysFull)
        : SimulatedConnector("dl2-small", 1), m_disk(disk), m_fullAt(fullAt), m_fullFor(fullFor),
          m_staysFull(staysFull)
    {
    }
    ~FillingDisk() override
    {
        if (m_freer.joinable())
            m_freer.join();
    }
    std::vector<Acknowledgment> apply(const std::vector<ResizeDecision> &d) override
    {
        if (QFile::exists(m_disk.flag))
            ++sentWhileFull;
        auto acks = SimulatedConnector::apply(d);
        if (!d.empty() && d.front().slot == m_fullAt && !m_filled) {
            m_filled = true;
            m_disk.set(true);
            if (!m_staysFull)
                m_freer = std::thread([this] {
                    std::this_thread::sleep_for(m_fullFor);
                    m_disk.set(false);
                });
        }
        return acks;
    }
    std::atomic<int> sentWhileFull{0};

private:
    const DiskFull &m_disk;
    int m_fullAt;
    std::chrono::milliseconds m_fullFor;
    bool m_staysFull, m_filled = false;
    std::thread m_freer;
};

} // namespace

class TestAuditLog : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void survivesReopen()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("audit.db")).toStdString();
        std::string runId;
        {
            AuditLog log(path);
            runId = log.runId();
            const auto a = decision(runId, 0, 1, 2, 2), b = decision(runId, 0, 2, 1, 1),
                       c = decision(runId, 0, 3, 1, 1);
            QCOMPARE(log.recordProposals({a, b, c}).size(), size_t(3));
            QCOMPARE(log.recordProposals({a}).size(), size_t(0)); // same id: left alone
            log.recordAction(b.id, 2, "reject", "alice", {}, {});
            log.recordCommit({a, c}, {b}, "alice");
            log.recordSent({a}, false, "test");
            // Crash here: a sent, c committed, neither acknowledged.
        }
        {
            AuditLog log(path);
            QCOMPARE(log.runId(), runId);
            const auto pending = log.unacknowledged();
            QCOMPARE(pending.size(), size_t(2));
            QCOMPARE(pending[0].job, 1);
            QCOMPARE(pending[1].job, 3);
            QCOMPARE(log.find(runId + "/0/2")->state, std::string("rejected"));
            log.recordSent(pending, true, "test");
            log.recordAcks(
                {{pending[0].id, Acknowledgment::Status::Duplicate, "already applied", 0},
                 {pending[1].id, Acknowledgment::Status::Applied, {}, 0}});
        }
        AuditLog log(path);
        QVERIFY(log.unacknowledged().empty());
        QCOMPARE(log.idsInState("acknowledged").size(), size_t(2));
        const auto events = log.events(1);
        std::vector<std::string> kinds;
        for (const auto &e : events)
            kinds.push_back(e.kind);
        QCOMPARE(kinds, (std::vector<std::string>{"proposed", "committed", "sent", "resent",
                                                  "acknowledged"}));
        QCOMPARE(log.events(2)[1].actor, std::string("alice"));
    }

    // Schema 2 keeps the policy's probability and V(s) of each proposal in their own columns
    // (an override drops them from the decision JSON); a schema-1 log is migrated on open.
    void confidenceKeptAndOldLogsMigrated()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("new.db")).toStdString();
        {
            AuditLog log(path);
            QCOMPARE(log.openedSchema(), AuditLog::kSchema);
            ResizeDecision d = decision(log.runId(), 0, 1, 2, 3);
            d.probability = 0.625;
            d.value = -1.5;
            const ResizeDecision plain = decision(log.runId(), 0, 2, 1, 1);
            log.recordProposals({d, plain});
            ResizeDecision overridden = d;
            overridden.to = {1, 1, {}};
            overridden.probability.reset();
            log.recordCommit({overridden}, {plain}, "alice");
            const auto r = log.find(d.id);
            QVERIFY(r && !r->decision.probability);       // the final decision: the operator's
            QCOMPARE(r->probability.value_or(-1), 0.625); // what the policy said
            QCOMPARE(r->value.value_or(0), -1.5);
            QVERIFY(!log.find(plain.id)->probability && !log.find(plain.id)->value);
            const auto events = log.events(1);
            QCOMPARE(events.front().kind, std::string("proposed"));
            QCOMPARE(events.front().probability.value_or(-1), 0.625);
        }

        // A log as schema 1 wrote it: no columns, confidence only inside the decision JSON.
        const QString old = dir.filePath(QStringLiteral("old.db"));
        {
            QSqlDatabase db =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v1"));
            db.setDatabaseName(old);
            QVERIFY(db.open());
            QSqlQuery q(db);
            for (
                const char *sql :
                {"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)",
                 "INSERT INTO meta VALUES ('run_id', 'oldrun'), ('schema', '1')",
                 "CREATE TABLE decisions (id TEXT PRIMARY KEY, slot INTEGER, job INTEGER, "
                 "state TEXT NOT NULL, ack TEXT, decision TEXT NOT NULL, updated TEXT)",
                 "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT "
                 "NULL, decision_id TEXT, job INTEGER, kind TEXT NOT NULL, actor TEXT, before "
                 "TEXT, after TEXT, detail TEXT)",
                 R"(INSERT INTO decisions VALUES ('oldrun/3/7', 3, 7, 'acknowledged', 'applied', '{"id":"oldrun/3/7","slot":3,"job":7,"from":{"ps":0,"workers":0},"to":{"ps":1,"workers":2},"probability":0.8125,"value":2.25}', NULL))",
                 R"(INSERT INTO decisions VALUES ('oldrun/3/8', 3, 8, 'committed', NULL, '{"id":"oldrun/3/8","slot":3,"job":8,"from":{"ps":0,"workers":0},"to":{"ps":1,"workers":1}}', NULL))",
                 "INSERT INTO events(time, decision_id, job, kind, actor) VALUES "
                 "('2026-01-01T00:00:00.000Z', 'oldrun/3/7', 7, 'proposed', 'policy')"})
                QVERIFY2(q.exec(QString::fromLatin1(sql)), sql);
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v1"));
        {
            AuditLog log(old.toStdString());
            QCOMPARE(log.openedSchema(), 1);
            QCOMPARE(log.runId(), std::string("oldrun"));
            const auto r = log.find("oldrun/3/7");
            QVERIFY(r);
            QCOMPARE(r->probability.value_or(-1), 0.8125);
            QCOMPARE(r->value.value_or(0), 2.25);
            QVERIFY(!log.find("oldrun/3/8")->probability);
            QCOMPARE(log.unacknowledged().size(), size_t(1)); // the rest of the log still works
            QCOMPARE(log.events(7).front().value.value_or(0), 2.25);
            ResizeDecision next = decision("oldrun", 4, 7, 1, 3);
            next.probability = 0.5;
            log.recordProposals({next});
            QCOMPARE(log.find(next.id)->probability.value_or(-1), 0.5);
        }
        AuditLog reopened(old.toStdString());
        QCOMPARE(reopened.openedSchema(), AuditLog::kSchema); // migrated once
        QCOMPARE(reopened.decisions().size(), size_t(3));

        // A log from a newer program is refused, not silently misread.
        {
            QSqlDatabase db =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v9"));
            db.setDatabaseName(QString::fromStdString(path));
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("UPDATE meta SET value = '9' WHERE key = 'schema'")));
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v9"));
        try {
            AuditLog newer(path);
            QFAIL("a log of schema 9 was opened");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("has schema 9, newer than this program's (3)") !=
                         std::string::npos,
                     e.what());
        }
    }

    // Schema 3: the snapshot each slot was planned on (rebuilds the policy's state), the
    // policy version per decision and the reward the cluster reported; a schema-2 log gets
    // the table and the column when opened and keeps working.
    void slotStatesAndSchema2Migration()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("s.db")).toStdString();
        SimulatedConnector sim("dl2-small", 1);
        sim.advanceSlot(0);
        sim.advanceSlot(1);
        ClusterView view = sim.snapshot();
        QVERIFY(view.jobs.size() >= 2);
        view.jobs[0].totalEpochs = view.jobs[0].estimatedEpochs + 7.0; // an in-process truth
        {
            AuditLog log(path);
            log.recordSlotState(log.runId(), view, ProfileSet::reference(), "dl2-plus", "v3");
            log.recordSlotState(log.runId(), view, ProfileSet::reference(), "drf", "v9"); // kept
            log.recordSlotReward(log.runId(), view.nextSlot, 0.75);
            log.recordSlotReward(log.runId(), view.nextSlot + 5, 1.0); // no state: ignored
            log.recordProposals({decision(log.runId(), view.nextSlot, 1, 1, 2)}, "v3");
            log.recordLearningEvent("learner", "rollback to v2", {});
            const auto states = log.slotStates(ProfileSet::reference());
            QCOMPARE(states.size(), size_t(1));
            const AuditLog::SlotState &st = states[0];
            QCOMPARE(st.slot, view.nextSlot);
            QCOMPARE(st.policy, std::string("dl2-plus"));
            QCOMPARE(st.policyVersion, std::string("v3"));
            QCOMPARE(st.reward.value_or(-1), 0.75);
            QCOMPARE(st.view.jobs.size(), view.jobs.size());
            for (size_t i = 0; i < view.jobs.size(); ++i) {
                QCOMPARE(st.view.jobs[i].id, view.jobs[i].id);
                QCOMPARE(st.view.jobs[i].type, view.jobs[i].type);
                QCOMPARE(st.view.jobs[i].totalEpochs, view.jobs[i].totalEpochs);
                QCOMPARE(st.view.jobs[i].estimatedEpochs, view.jobs[i].estimatedEpochs);
                QCOMPARE(st.view.jobs[i].doneEpochs, view.jobs[i].doneEpochs);
                QCOMPARE(st.view.targets[i], view.targets[i]);
            }
            QCOMPARE(log.decisions().front().policyVersion, std::string("v3"));
            QCOMPARE(log.events().front().policyVersion, std::string("v3"));
            QCOMPARE(log.events().back().kind, std::string("learning"));
            QCOMPARE(log.events().back().detail, std::string("rollback to v2"));
        }
        // The viewers' read-only reader sees the same versions.
        QCOMPARE(readAuditEvents(path).front().policyVersion, std::string("v3"));
        // Make it a schema-2 log: no slots table, no policy_version column.
        {
            QSqlDatabase db =
                QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("v2"));
            db.setDatabaseName(QString::fromStdString(path));
            QVERIFY(db.open());
            QSqlQuery q(db);
            for (const char *sql : {"DROP TABLE slots", "ALTER TABLE decisions DROP COLUMN "
                                                        "policy_version",
                                    "UPDATE meta SET value = '2' WHERE key = 'schema'"})
                QVERIFY2(q.exec(QString::fromLatin1(sql)), sql);
        }
        QSqlDatabase::removeDatabase(QStringLiteral("v2"));
        // Read-only, it must not migrate: the events come without versions.
        {
            const auto events = readAuditEvents(path);
            QVERIFY(!events.empty());
            QVERIFY(events.front().policyVersion.empty());
        }
        {
            AuditLog log(path);
            QCOMPARE(log.openedSchema(), 2);
            QVERIFY(log.slotStates(ProfileSet::reference()).empty());
            QCOMPARE(log.decisions().size(), size_t(1));
            QVERIFY(log.decisions().front().policyVersion.empty());
            log.recordSlotState(log.runId(), view, ProfileSet::reference(), "dl2", "v1");
            QCOMPARE(log.slotStates(ProfileSet::reference()).size(), size_t(1));
        }
        QCOMPARE(AuditLog(path).openedSchema(), AuditLog::kSchema);
    }

    void backendIgnoresAppliedIds()
    {
        SimulatedConnector sim("dl2-small", 1);
        const ClusterView v = sim.snapshot();
        QVERIFY(!v.jobs.empty());
        const int job = v.jobs.front().id;
        const auto d = decision("r", 0, job, 2, 2);
        auto acks = sim.apply({d});
        QVERIFY(acks[0].status == Acknowledgment::Status::Applied);
        acks = sim.apply({d, decision("r", 0, 99999, 1, 1), decision("r", 1, job, -1, 2)});
        QVERIFY(acks[0].status == Acknowledgment::Status::Duplicate);
        QVERIFY(acks[1].status == Acknowledgment::Status::Invalid);
        QVERIFY(acks[2].status == Acknowledgment::Status::Invalid);
        const auto record = sim.appliedRecord();
        QCOMPARE(record.size(), size_t(1));
        QCOMPARE(record[0].applyCount, 1);
        QCOMPARE(record[0].duplicateReceipts, 1);
        QVERIFY(sim.advanceSlot(0));
        QVERIFY(!sim.advanceSlot(0)); // idempotent
        const ClusterView after = sim.snapshot();
        QCOMPARE(after.nextSlot, 1);
        QCOMPARE(after.jobs.front().workers, 2);
    }

    void stateDirResumesTheSameCluster()
    {
        QTemporaryDir dir;
        const std::string state = dir.filePath(QStringLiteral("state")).toStdString();
        const std::string audit = dir.filePath(QStringLiteral("audit.db")).toStdString();
        SimulatedConnector reference("dl2-small", 3);
        {
            SimulatedConnector sim("dl2-small", 3, state);
            AuditLog log(audit);
            PolicyPlanner planner("drf");
            DecisionGate gate({});
            OperatingLoop loop(sim, planner, gate, log);
            const auto s = loop.run(6);
            QCOMPARE(s.slotsRun, 6);
            QVERIFY(s.applied > 0);
        }
        SimulatedConnector resumed("dl2-small", 999,
                                   state); // scenario and seed come from the state
        QCOMPARE(resumed.scenario(), std::string("dl2-small"));
        QVERIFY(resumed.restored());
        QCOMPARE(resumed.nextSlot(), 6);
        AuditLog log(audit);
        QCOMPARE(resumed.appliedRecord().size(), log.idsInState("acknowledged").size());
        // Replaying the acknowledged decisions slot by slot on a fresh backend gives the same jobs.
        auto records = log.decisions();
        size_t k = 0;
        for (int slot = 0; slot < 6; ++slot) {
            std::vector<ResizeDecision> batch;
            while (k < records.size() && records[k].decision.slot == slot)
                batch.push_back(records[k++].decision);
            reference.apply(batch);
            reference.advanceSlot(slot);
        }
        const ClusterView a = resumed.snapshot(), b = reference.snapshot();
        QCOMPARE(a.jobs.size(), b.jobs.size());
        for (size_t i = 0; i < a.jobs.size(); ++i) {
            QCOMPARE(a.jobs[i].doneEpochs, b.jobs[i].doneEpochs);
            QCOMPARE(a.jobs[i].workers, b.jobs[i].workers);
            QCOMPARE(a.jobs[i].ps, b.jobs[i].ps);
        }
    }

    void journalDropsATornLastRecord()
    {
        QTemporaryDir dir;
        const std::string state = dir.filePath(QStringLiteral("state")).toStdString();
        const QString journal = dir.filePath(QStringLiteral("state/agent-journal.jsonl"));
        int job = 0;
        {
            SimulatedConnector sim("dl2-small", 1, state);
            job = sim.snapshot().jobs.front().id;
            sim.apply({decision("r", 0, job, 1, 1)});
            QVERIFY(sim.advanceSlot(0));
        }
        QFile f(journal);
        QVERIFY(f.open(QIODevice::Append));
        f.write("{\"t\":\"apply\",\"id\":\"r/1/"); // crash mid-write
        f.close();
        {
            SimulatedConnector sim("dl2-small", 1, state);
            QCOMPARE(sim.nextSlot(), 1);
            QCOMPARE(sim.appliedRecord().size(), size_t(1));
            sim.apply({decision("r", 1, job, 2, 2)}); // appends cleanly after the dropped bytes
        }
        SimulatedConnector sim("dl2-small", 1, state);
        QCOMPARE(sim.appliedRecord().size(), size_t(2));
        // A corrupt record in the middle is an error, not silently skipped.
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray text = f.readAll();
        f.close();
        text.replace("\"t\":\"advance\"", "\"t\":\"advance\"}}}");
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(text);
        f.close();
        QVERIFY_THROWS_EXCEPTION(Error, SimulatedConnector("dl2-small", 1, state));
    }

    void loopResendsAfterCrashBetweenCommitAndSend()
    {
        QTemporaryDir dir;
        const std::string audit = dir.filePath(QStringLiteral("audit.db")).toStdString();
        SimulatedConnector sim("dl2-small", 1);
        {
            // A run that committed slot 0's batch and died before sending it.
            AuditLog log(audit);
            PolicyPlanner planner("drf");
            DecisionGate gate({});
            gate.setAuditLog(&log);
            const ClusterView v = sim.snapshot();
            QVERIFY(gate.open(v, planner.plan(v), log.runId()) > 0);
            QVERIFY(!gate.commit().empty());
        }
        AuditLog log(audit);
        const size_t committed = log.unacknowledged().size();
        QVERIFY(committed > 0);
        PolicyPlanner planner("drf");
        DecisionGate gate({});
        OperatingLoop loop(sim, planner, gate, log);
        auto s = loop.run(3);
        loop.verify(s);
        QCOMPARE(s.resent, int(committed));
        QCOMPARE(s.lost, 0);
        QCOMPARE(s.duplicated, 0);
        QCOMPARE(s.unacknowledged, 0);
        QCOMPARE(s.unknownToAudit, 0);
        // Slot 0's decisions were not proposed again (same stable ids).
        QCOMPARE(int(sim.appliedRecord().size()), s.applied);
        QCOMPARE(s.startSlot, 0);
    }

    // A full disk fails the whole write (AuditWriteError, diskFull()), leaves the log as it
    // was, and the log takes writes again once there is room.
    void fullDiskFailsWritesWhole()
    {
        QTemporaryDir dir;
        const DiskFull disk(dir);
        const std::string path = dir.filePath(QStringLiteral("audit.db")).toStdString();
        AuditLog log(path);
        const auto a = decision(log.runId(), 0, 1, 1, 1), b = decision(log.runId(), 0, 2, 1, 1);
        log.recordProposals({a});
        disk.set(true);
        try {
            log.recordProposals({b});
            QFAIL("the write succeeded on a full disk");
        } catch (const AuditWriteError &e) {
            QVERIFY2(e.diskFull(), e.what());
            QVERIFY2(QByteArray(e.what()).contains(QByteArray::fromStdString(path)), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(AuditWriteError, log.recordCommit({a}, {}, "test"));
        QVERIFY(!log.find(b.id));
        QCOMPARE(log.find(a.id)->state, std::string("proposed"));
        disk.set(false);
        log.recordCommit({a}, {}, "test");
        QCOMPARE(log.find(a.id)->state, std::string("committed"));
        QCOMPARE(integrityCheck(path), QStringLiteral("ok"));
    }

    // A batch whose proposals cannot be recorded never opens: nothing can be committed and
    // sent that the log did not see proposed.
    void gateStaysClosedWhenProposalsCannotBeRecorded()
    {
        QTemporaryDir dir;
        const DiskFull disk(dir);
        AuditLog log(dir.filePath(QStringLiteral("audit.db")).toStdString());
        SimulatedConnector sim("dl2-small", 1);
        PolicyPlanner planner("drf");
        DecisionGate gate({});
        gate.setAuditLog(&log);
        const ClusterView v = sim.snapshot();
        disk.set(true);
        QVERIFY_THROWS_EXCEPTION(AuditWriteError, gate.open(v, planner.plan(v), log.runId()));
        QVERIFY(!gate.isOpen());
        QVERIFY(log.decisions().empty());
        disk.set(false);
        QVERIFY(gate.open(v, planner.plan(v), log.runId()) > 0);
        QCOMPARE(int(log.decisions().size()), int(gate.entries().size()));
    }

    // The disk fills up after the agent applied a batch: the loop stops approving (sends
    // nothing while full), holds the acknowledgments, records them once there is room, and
    // carries on; nothing lost, nothing applied twice.
    void loopStopsApprovingOnAFullDiskAndResumes()
    {
        QTemporaryDir dir;
        const DiskFull disk(dir);
        const std::string path = dir.filePath(QStringLiteral("audit.db")).toStdString();
        FillingDisk sim(disk, 1, std::chrono::milliseconds(400), false);
        AuditLog log(path);
        PolicyPlanner planner("drf");
        DecisionGate gate({});
        OperatingLoop loop(sim, planner, gate, log);
        std::vector<std::string> notices;
        loop.setNotice([&](const std::string &n) { notices.push_back(n); });
        loop.setAuditWait(std::chrono::seconds(30), std::chrono::milliseconds(50));
        auto s = loop.run(6);
        loop.verify(s);
        QCOMPARE(s.slotsRun, 6);
        QCOMPARE(s.auditStops, 1);
        QVERIFY(s.auditStoppedSeconds >= 0.3);
        QCOMPARE(sim.sentWhileFull.load(), 0);
        QCOMPARE(s.lost, 0);
        QCOMPARE(s.duplicated, 0);
        QCOMPARE(s.unacknowledged, 0);
        QCOMPARE(s.unknownToAudit, 0);
        QVERIFY(s.applied > 0);
        QCOMPARE(int(sim.appliedRecord().size()), s.applied);
        QCOMPARE(notices.size(), size_t(2));
        QVERIFY2(notices[0].find("database or disk is full") != std::string::npos &&
                     notices[0].find("approving nothing") != std::string::npos,
                 notices[0].c_str());
        QVERIFY2(notices[1].find("takes writes again") != std::string::npos, notices[1].c_str());
        for (const auto &r : log.decisions())
            QCOMPARE(r.state, std::string("acknowledged"));
        QCOMPARE(integrityCheck(path), QStringLiteral("ok"));
    }

    // A disk that stays full: the loop gives up after the wait with a clear error; the next
    // run (room again) records what the agent applied, by re-sending it.
    void loopGivesUpOnADiskThatStaysFull()
    {
        QTemporaryDir dir;
        const DiskFull disk(dir);
        const std::string path = dir.filePath(QStringLiteral("audit.db")).toStdString();
        FillingDisk sim(disk, 1, {}, true);
        {
            AuditLog log(path);
            PolicyPlanner planner("drf");
            DecisionGate gate({});
            OperatingLoop loop(sim, planner, gate, log);
            loop.setNotice([](const std::string &) {});
            loop.setAuditWait(std::chrono::milliseconds(300), std::chrono::milliseconds(50));
            try {
                loop.run(6);
                QFAIL("no error");
            } catch (const Error &e) {
                QVERIFY2(QByteArray(e.what()).contains("still refused after"), e.what());
                QVERIFY2(QByteArray(e.what()).contains("acknowledgments were not recorded"),
                         e.what());
            }
        }
        QCOMPARE(sim.sentWhileFull.load(), 0);
        disk.set(false);
        AuditLog log(path);
        const auto held = log.unacknowledged();
        QVERIFY(!held.empty()); // applied by the agent, "sent" in the log
        PolicyPlanner planner("drf");
        DecisionGate gate({});
        OperatingLoop loop(sim, planner, gate, log);
        auto s = loop.run(2);
        loop.verify(s);
        QCOMPARE(s.resent, int(held.size()));
        QCOMPARE(s.acknowledgedDuplicate, int(held.size())); // the agent had them already
        QCOMPARE(s.lost, 0);
        QCOMPARE(s.duplicated, 0);
        QCOMPARE(s.unacknowledged, 0);
    }

    // Killed after the batch of a slot was acknowledged but before the slot advanced: the
    // restart does not decide that slot again (its ids are closed) and only advances it.
    void loopResumesAClosedSlotWithoutDecidingItAgain()
    {
        QTemporaryDir dir;
        const std::string audit = dir.filePath(QStringLiteral("audit.db")).toStdString();
        SimulatedConnector sim("dl2-small", 1);
        size_t firstBatch = 0;
        {
            AuditLog log(audit);
            PolicyPlanner planner("drf");
            DecisionGate gate({});
            gate.setAuditLog(&log);
            const ClusterView v = sim.snapshot();
            gate.open(v, planner.plan(v), log.runId());
            const auto approved = gate.commit();
            firstBatch = approved.size();
            QVERIFY(firstBatch > 0);
            log.recordSent(approved, false, "sim");
            log.recordAcks(sim.apply(approved)); // ... and the process dies here
        }
        AuditLog log(audit);
        PolicyPlanner planner("drf");
        DecisionGate gate({});
        OperatingLoop loop(sim, planner, gate, log);
        auto s = loop.run(3);
        loop.verify(s);
        QCOMPARE(s.resent, 0);
        QCOMPARE(s.startSlot, 0);
        QCOMPARE(s.slotsRun, 3);
        QCOMPARE(s.lost, 0);
        QCOMPARE(s.duplicated, 0);
        for (const auto &r : sim.appliedRecord())
            QCOMPARE(r.applyCount, 1);
        QCOMPARE(int(sim.appliedRecord().size()), int(firstBatch) + s.applied);
    }
};

QTEST_GUILESS_MAIN(TestAuditLog)
#include "tst_auditlog.moc"
