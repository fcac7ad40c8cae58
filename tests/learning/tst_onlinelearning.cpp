// dl2 operate --learn on the simulated agent: online actor-critic from a deliberately poor
// warm-up beats its own frozen copy (the shadow reference, on the same live states) within a
// bounded number of slots; a sabotaged update trips the safety rail (rolling reward below the
// reference by more than the margin): learning pauses, the last good version is restored, and
// the audit log and the following decisions show it; a late update waits for a later slot.
#include "auditlog.h"
#include "checkpoint.h"
#include "decisiongate.h"
#include "learner.h"
#include "onlinelearner.h"
#include "operatingloop.h"
#include "policyplanner.h"
#include "registerpolicies.h"
#include "simulatedconnector.h"

#include <QTemporaryDir>
#include <QTest>

using namespace dl2;

namespace {

// A fresh dl2-plus network whose PS output is raised by `psBias` logits: jobs get PSs instead
// of workers, and a PS without a worker makes no progress (a poor warm-up, as tst_rltrainer's).
std::string writeWarmUp(const QTemporaryDir &dir, float psBias)
{
    PolicySpec spec = defaultSpec(PolicyKind::Dl2Plus, 20, 8);
    spec.decode = Decode::Sample;
    ParameterSet p = initialParameters(spec, 7);
    p.at("policy.jobhead.bias").data[1] += psBias;
    const std::string path = dir.path().toStdString() + "/warmup.dl2ckpt";
    TrainingInfo info;
    info.scenario = "dl2-small";
    writeCheckpoint(path, spec, info, p);
    return path;
}

struct Run
{
    OnlineSummary learning;
    OperateSummary operate;
};

Run operate(const QTemporaryDir &dir, OnlineOptions o, int slotCount, const std::string &audit)
{
    SimulatedConnector cluster("dl2-small", 1);
    AuditLog log(audit);
    o.directory = dir.path().toStdString() + "/learn";
    OnlineLearner learner(o, &log);
    PolicyPlanner planner(learner.takeActingPolicy(), ProfileSet::reference());
    learner.setPlanner(&planner);
    DecisionGate gate({});
    OperatingLoop loop(cluster, planner, gate, log);
    loop.setSlotObserver(&learner);
    Run r;
    r.operate = loop.run(slotCount);
    r.learning = learner.finish();
    return r;
}

double mean(const std::vector<OnlinePoint> &c, size_t from, size_t to, bool reference)
{
    double s = 0.0;
    for (size_t i = from; i < to; ++i)
        s += reference ? c[i].reference : c[i].reward;
    return s / double(to - from);
}

} // namespace

class TestOnlineLearning : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        registerBaselines();
        registerLearnedPolicies();
        setTorchThreads(1);
    }

    // Reward per slot depends on the load, so the measure is paired: the live reward against
    // the frozen warm-up's on the same states (the shadow reference). An update on slot s's
    // reward decides from slot s+2 on; within 10-40 slots the live policy must earn more.
    void poorWarmUpImprovesOnline()
    {
        QTemporaryDir dir;
        OnlineOptions o;
        o.init = writeWarmUp(dir, 3.0f);
        o.updatesPerSlot = 8;
        o.margin = 1.0; // the rail is tested below; here learning runs its course
        o.deadline = std::chrono::minutes(5); // every update in time: reproducible
        o.window = 10;
        const Run r = operate(dir, o, 45, dir.filePath(QStringLiteral("a.db")).toStdString());
        const auto &c = r.learning.curve;
        QCOMPARE(int(c.size()), 44); // the last slot's reward comes with the next snapshot
        QCOMPARE(c[0].reward, c[0].reference); // v0 = the reference, same numbers, same state
        const double first = mean(c, 0, 10, false) / mean(c, 0, 10, true);
        const double later = mean(c, 10, 40, false) / mean(c, 10, 40, true);
        qInfo("live / reference reward: slots 0-9 %.3f, slots 10-39 %.3f (%d versions, PS share "
              "%.2f -> %.2f)",
              first, later, r.learning.versions, c.front().psShare, c.back().psShare);
        // The reference is the warm-up itself on the same states with the same random numbers:
        // without learning the ratio is exactly 1.
        QVERIFY2(later > 1.05, qPrintable(QStringLiteral("live / reference %1").arg(later)));
        // ... and the repair is the one the credit points at: fewer PS decisions.
        QVERIFY2(c.back().psShare < c.front().psShare - 0.15,
                 qPrintable(QStringLiteral("PS share %1 -> %2").arg(c.front().psShare).arg(c.back().psShare)));
        QCOMPARE(r.learning.rollbacks, 0);
        QCOMPARE(r.learning.slotsSkipped, 0);
        QVERIFY(r.learning.adopted >= 40);
        QCOMPARE(r.learning.lateUpdates, 0);
        // Memory: only the versions a rollback could restore are kept (the last good one and
        // those after it, about a window's worth), not all 40.
        QVERIFY2(r.learning.versionsHeld >= 1 && r.learning.versionsHeld <= o.window + 2,
                 qPrintable(QStringLiteral("%1 versions held").arg(r.learning.versionsHeld)));
        // Versioned checkpoints on disk, readable, and the decisions name their version.
        const Checkpoint last = readCheckpoint(
            dir.path().toStdString() + "/learn/v" + std::to_string(r.learning.version) + ".dl2ckpt");
        QCOMPARE(last.spec.kind, PolicyKind::Dl2Plus);
        // It records what the online learner trained with, not the warm-up's (empty) recipe.
        QCOMPARE(last.info.trainer, std::string("rl"));
        QCOMPARE(last.info.credit, std::string("split"));
        QCOMPARE(last.info.batchSize, o.batchSize);
        QCOMPARE(last.info.entropyWeight, o.entropyWeight);
        QCOMPARE(last.info.criticWarmup, o.criticWarmup);
        QCOMPARE(last.info.scenario, std::string("dl2-small"));
        AuditLog log(dir.filePath(QStringLiteral("a.db")).toStdString());
        const auto decisions = log.decisions();
        QCOMPARE(decisions.front().policyVersion, std::string("v0"));
        const std::string lastVersion = decisions.back().policyVersion; // vN: learn/vN.dl2ckpt
        QVERIFY(lastVersion.size() > 1 && lastVersion != "v0");
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("learn/%1.dl2ckpt")
                                               .arg(QString::fromStdString(lastVersion)))));
        QVERIFY(QFile::exists(dir.filePath(QStringLiteral("learn/online-curve.json"))));
    }

    void sabotagedUpdateRollsBack()
    {
        QTemporaryDir dir;
        OnlineOptions o;
        o.init = shippedPolicyPath(PolicyKind::Dl2Plus, "dl2-small"); // a good policy
        o.updatesPerSlot = 1;
        o.deadline = std::chrono::minutes(5);
        o.window = 5;
        o.margin = 0.10;
        o.sabotageVersion = 8;
        const std::string audit = dir.filePath(QStringLiteral("s.db")).toStdString();
        const Run r = operate(dir, o, 30, audit);
        QCOMPARE(r.learning.rollbacks, 1);
        QVERIFY(r.learning.paused);
        QVERIFY2(r.learning.lastGood < 8, qPrintable(QString::number(r.learning.lastGood)));
        QCOMPARE(r.learning.version, r.learning.lastGood);
        QVERIFY(r.learning.versionsHeld >= 1); // the restored one, at least
        // The audit log shows the rollback, and the decisions after it the restored version.
        AuditLog log(audit);
        int rollbackSeq = -1;
        for (const auto &e : log.events())
            if (e.kind == "learning" && e.detail.rfind("rollback", 0) == 0)
                rollbackSeq = int(e.seq);
        QVERIFY(rollbackSeq > 0);
        bool sabotagedDecided = false;
        for (const auto &rec : log.decisions())
            sabotagedDecided |= rec.policyVersion == "v8";
        QVERIFY(sabotagedDecided); // it did run before the rail caught it
        const auto events = log.events();
        std::string lastVersion;
        for (const auto &e : events)
            if (e.kind == "proposed" && e.seq > rollbackSeq)
                lastVersion = e.policyVersion;
        QCOMPARE(lastVersion, PolicyPlanner::versionName(r.learning.lastGood));
        // The rolling reward really was below the reference when it rolled back.
        bool breached = false;
        for (const auto &p : r.learning.curve)
            breached |= p.rollingReward < 0.9 * p.rollingReference;
        QVERIFY(breached);
    }

    // An update that misses its deadline does not hold the decision: the slot goes ahead with
    // the version in use and the update is adopted a slot later.
    void lateUpdateWaitsForTheNextSlot()
    {
        QTemporaryDir dir;
        OnlineOptions o;
        o.init = writeWarmUp(dir, 0.0f);
        o.updatesPerSlot = 40;
        o.deadline = std::chrono::milliseconds(1);
        const Run r = operate(dir, o, 12, dir.filePath(QStringLiteral("l.db")).toStdString());
        QVERIFY(r.learning.lateUpdates > 0);
        QVERIFY(r.learning.versions > 0);
        int sameVersionRuns = 0; // slots decided by the version before (the update was late)
        for (size_t i = 1; i < r.learning.curve.size(); ++i)
            sameVersionRuns += r.learning.curve[i].version == r.learning.curve[i - 1].version;
        QVERIFY(sameVersionRuns > 0);
    }
};

QTEST_GUILESS_MAIN(TestOnlineLearning)
#include "tst_onlinelearning.moc"
