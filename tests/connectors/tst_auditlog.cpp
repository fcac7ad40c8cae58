// AuditLog (survives reopen, re-send logic) and the simulated backend (idempotent apply,
// state directory resume), plus the operating loop's recovery in-process.
#include "auditlog.h"
#include "error.h"
#include "operatingloop.h"
#include "simulatedconnector.h"

#include <QTemporaryDir>
#include <QTest>

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
};

QTEST_GUILESS_MAIN(TestAuditLog)
#include "tst_auditlog.moc"
