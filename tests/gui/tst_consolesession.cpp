// ConsoleSession: snapshots served from the worker thread (keyframes + replay) equal a direct
// Simulator run at every requested slot, forwards and backwards; stale loads are dropped;
// bad trace files are reported, not crashed on.

#include "consolesession.h"
#include "scenario.h"
#include "scheduler.h"
#include "simulationworker.h"
#include "simulator.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace dl2console;

class TestConsoleSession : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { dl2::registerBaselines(); }
    void seekMatchesDirectSimulation_data();
    void seekMatchesDirectSimulation();
    void everyPolicyReplaysFromKeyframes();
    void playAndStep();
    void newerLoadWins();
    void badTraceFileIsAnError();
    void traceFileReplays();
};

namespace {
std::vector<dl2::SlotSnapshot> directRun(const std::string &scenarioName, const std::string &policy)
{
    const auto &scenario = dl2::scenarioByName(scenarioName);
    auto profiles = dl2::ProfileSet::reference();
    dl2::Simulator sim(scenario.cluster, profiles, scenario.trace(profiles, 1),
                       scenario.simulation);
    auto scheduler = dl2::makeScheduler(policy);
    scheduler->reset();
    std::vector<dl2::SlotSnapshot> out;
    while (!sim.done()) {
        sim.step(*scheduler);
        out.push_back(sim.snapshot());
    }
    return out;
}

void compareSnapshots(const dl2::SlotSnapshot &a, const dl2::SlotSnapshot &b)
{
    QCOMPARE(a.slot, b.slot);
    QCOMPARE(a.running, b.running);
    QCOMPARE(a.finished, b.finished);
    QCOMPARE(a.nodeUsage, b.nodeUsage);
    QCOMPARE(a.jobs.size(), b.jobs.size());
    for (size_t i = 0; i < a.jobs.size(); ++i) {
        QCOMPARE(a.jobs[i].id, b.jobs[i].id);
        QCOMPARE(a.jobs[i].status, b.jobs[i].status);
        QCOMPARE(a.jobs[i].workers, b.jobs[i].workers);
        QCOMPARE(a.jobs[i].ps, b.jobs[i].ps);
        QCOMPARE(a.jobs[i].doneEpochs, b.jobs[i].doneEpochs);
        QCOMPARE(a.jobs[i].tasks, b.jobs[i].tasks);
    }
}
} // namespace

void TestConsoleSession::seekMatchesDirectSimulation_data()
{
    QTest::addColumn<QList<int>>("slotList");
    QTest::newRow("forward") << QList<int>{0, 1, 2, 3, 15};
    QTest::newRow("jumps") << QList<int>{37, 4, 23, 22, 9, 11};
    QTest::newRow("past the end") << QList<int>{100000};
}

void TestConsoleSession::seekMatchesDirectSimulation()
{
    QFETCH(QList<int>, slotList);
    const auto expected = directRun("dl2-small", "drf");
    ConsoleSession session;
    SessionSetup setup;
    setup.scenario = QStringLiteral("dl2-small");
    setup.policy = QStringLiteral("drf");
    session.load(setup);
    for (int slot : std::as_const(slotList)) {
        QVERIFY(session.waitForSlot(slot, 30000));
        const int want = std::min<int>(slot, static_cast<int>(expected.size()) - 1);
        compareSnapshots(session.snapshot(), expected[want]);
        QVERIFY(session.lastKnownSlot() >= want);
        const auto &summary = session.timeline()[want];
        QCOMPARE(summary.slot, want);
        QCOMPARE(summary.running, expected[want].running);
    }
    // The scan ahead completes the timeline; its last slot is the run's last.
    QTRY_VERIFY_WITH_TIMEOUT(session.runComplete(), 120000); // a hang guard (sanitizers, load)
    QCOMPARE(session.lastKnownSlot(), static_cast<int>(expected.size()) - 1);
}

void TestConsoleSession::everyPolicyReplaysFromKeyframes()
{
    // Seeking restores a keyframe and replays with a second scheduler instance: that is only
    // right if every policy decides a slot from the slot's state alone. Check each one.
    for (const auto &info : dl2::registeredSchedulers()) {
        if (info.replaysHistory)
            continue; // needs an imported trace; traceFileReplays covers it
        const auto expected = directRun("dl2-small", info.name);
        ConsoleSession session;
        SessionSetup setup;
        setup.scenario = QStringLiteral("dl2-small");
        setup.policy = QString::fromStdString(info.name);
        session.load(setup);
        for (int slot : {27, 3, 14}) {
            QVERIFY2(session.waitForSlot(slot, 30000), info.name.c_str());
            const int want = std::min<int>(slot, static_cast<int>(expected.size()) - 1);
            compareSnapshots(session.snapshot(), expected[want]);
            if (QTest::currentTestFailed())
                qWarning("policy %s differs at slot %d", info.name.c_str(), slot);
        }
    }
}

void TestConsoleSession::playAndStep()
{
    ConsoleSession session;
    QSignalSpy playing(&session, &ConsoleSession::playingChanged);
    SessionSetup setup;
    setup.scenario = QStringLiteral("dl2-small");
    setup.policy = QStringLiteral("drf");
    session.load(setup);
    QVERIFY(session.waitForSlot(0));
    session.setSpeed(20);
    session.setPlaying(true);
    QCOMPARE(playing.count(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(session.currentSlot() >= 10, 20000);
    session.setPlaying(false);
    QTRY_VERIFY(session.isIdle());
    const int at = session.currentSlot();
    session.stepForward();
    QTRY_COMPARE(session.currentSlot(), at + 1);
    session.stepBack();
    session.stepBack();
    QTRY_COMPARE(session.currentSlot(), at - 1);
    // Playing to the end (as fast as possible) stops by itself.
    session.setSpeed(0);
    session.setPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(!session.isPlaying(), 60000);
    QVERIFY(session.runComplete());
    QCOMPARE(session.currentSlot(), session.lastKnownSlot());
}

void TestConsoleSession::newerLoadWins()
{
    ConsoleSession session;
    SessionSetup a;
    a.scenario = QStringLiteral("dl2-reference");
    a.policy = QStringLiteral("drf");
    SessionSetup b = a;
    b.scenario = QStringLiteral("dl2-small");
    b.seed = 2;
    session.load(a);
    session.seek(50);
    session.load(b); // before a's results arrive
    QVERIFY(session.waitForSlot(3));
    QCOMPARE(session.runInfo().traceName, u"dl2-small-seed2"_qs);
    QCOMPARE(session.snapshot().nodeUsage.size(), size_t(96));
    // Whatever the worker still sent for `a` is queued before its reply to a newer request.
    session.seek(4);
    QVERIFY(session.waitForSlot(4));
    QCOMPARE(session.snapshot().nodeUsage.size(), size_t(96));
    QCOMPARE(session.currentSlot(), 4);
}

void TestConsoleSession::badTraceFileIsAnError()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.csv"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("job_id,arrival_slot,model,epochs\n1,0,no-such-model,10\n2,x,resnet-50\n");
    f.close();
    ConsoleSession session;
    QSignalSpy errors(&session, &ConsoleSession::errorOccurred);
    SessionSetup setup;
    setup.traceFile = path;
    setup.policy = QStringLiteral("drf");
    session.load(setup);
    QTRY_COMPARE(errors.count(), 1);
    QVERIFY(!session.isLoaded());
    QVERIFY(errors.first().first().toString().contains(u"bad.csv"_qs));
    QVERIFY(!session.waitForSlot(0, 300));
}

void TestConsoleSession::traceFileReplays()
{
    QTemporaryDir dir;
    const auto &scenario = dl2::scenarioByName("dl2-small");
    const auto profiles = dl2::ProfileSet::reference();
    const std::string path = dir.filePath(QStringLiteral("small.csv")).toStdString();
    scenario.trace(profiles, 1).save(path);
    ConsoleSession session;
    SessionSetup setup;
    setup.scenario = QStringLiteral("dl2-small"); // cluster and options
    setup.traceFile = QString::fromStdString(path);
    setup.policy = QStringLiteral("drf");
    session.load(setup);
    QVERIFY(session.waitForSlot(12));
    // Same jobs as the generated trace: same replay.
    const auto expected = directRun("dl2-small", "drf");
    compareSnapshots(session.snapshot(), expected[12]);
}

QTEST_GUILESS_MAIN(TestConsoleSession)
#include "tst_consolesession.moc"
