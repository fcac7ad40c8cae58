// LockstepReplay: two policies on one trace stay on the same slot through step, seek and
// play. Every time the pair announces a slot, both sessions (each on its own worker thread)
// really show it (or, for a run that already ended, its last slot), and what the views get
// equals a direct Simulator run of each policy at that slot. Also: the slot captions say what
// arrived, finished and changed, and the cumulative JCT of a whole run is its total JCT.

#include "consolesession.h"
#include "lockstepreplay.h"
#include "pairmetricsplot.h"
#include "scenario.h"
#include "scheduler.h"
#include "simulator.h"
#include "slotcaption.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace dl2console;

namespace {
std::vector<dl2::SlotSnapshot> directRun(const std::string &policy, dl2::RunResult *result = nullptr)
{
    const auto &scenario = dl2::scenarioByName("dl2-small");
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
    if (result)
        *result = sim.result();
    return out;
}

// The policies of the pair: two baselines whose runs differ in length on dl2-small (checked
// in initTestCase, so "the shorter run stays on its last slot" is really exercised).
const QString kLeft = QStringLiteral("drf");
const QString kRight = QStringLiteral("srtf");

bool sameAllocations(const dl2::SlotSnapshot &a, const dl2::SlotSnapshot &b)
{
    if (a.slot != b.slot || a.jobs.size() != b.jobs.size() || a.nodeUsage != b.nodeUsage)
        return false;
    for (size_t i = 0; i < a.jobs.size(); ++i)
        if (a.jobs[i].workers != b.jobs[i].workers || a.jobs[i].ps != b.jobs[i].ps ||
            a.jobs[i].status != b.jobs[i].status || a.jobs[i].doneEpochs != b.jobs[i].doneEpochs)
            return false;
    return true;
}

// Watches every slotChanged: both sessions must be idle at the side slot right then, and the
// shown snapshots must be of those slots.
struct LockstepWatch
{
    explicit LockstepWatch(LockstepReplay &r) : replay(r)
    {
        QObject::connect(&r, &LockstepReplay::slotChanged, &r, [this](int slot) {
            seen << slot;
            for (int side = 0; side < 2; ++side) {
                const int want = replay.sideSlot(side, slot);
                const ConsoleSession *s = replay.session(side);
                if (!s->isIdle() || s->currentSlot() != want ||
                    replay.shownSnapshot(side).slot != want)
                    violations << QStringLiteral("pair slot %1: side %2 shows %3 (session %4, "
                                                 "idle %5), wanted %6")
                                      .arg(slot)
                                      .arg(side)
                                      .arg(replay.shownSnapshot(side).slot)
                                      .arg(s->currentSlot())
                                      .arg(s->isIdle())
                                      .arg(want);
            }
        });
    }
    LockstepReplay &replay;
    QList<int> seen;
    QStringList violations;
};
} // namespace

class TestLockstepReplay : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void stepAndSeekKeepLockstep();
    void playKeepsLockstep();
    void playAtClockSpeedNeverRunsAhead();
    void draggedSeeksEndTogether();
    void errorNamesThePolicy();
    void captionsSayWhatHappened();
    void cumulativeJctOfTheRunIsItsTotalJct();

private:
    std::vector<dl2::SlotSnapshot> m_expected[2];
    dl2::RunResult m_result[2];
};

void TestLockstepReplay::initTestCase()
{
    dl2::registerBaselines();
    m_expected[0] = directRun(kLeft.toStdString(), &m_result[0]);
    m_expected[1] = directRun(kRight.toStdString(), &m_result[1]);
    QVERIFY2(m_expected[0].size() != m_expected[1].size(),
             "the fixture needs two runs of different length");
}

void TestLockstepReplay::stepAndSeekKeepLockstep()
{
    LockstepReplay replay;
    LockstepWatch watch(replay);
    SessionSetup trace;
    trace.scenario = QStringLiteral("dl2-small");
    replay.load(trace, kLeft, kRight);
    QVERIFY(replay.waitForSlot(0));
    QCOMPARE(replay.policy(0), kLeft);
    QCOMPARE(replay.policy(1), kRight);

    auto check = [&](int slot) {
        QCOMPARE(replay.currentSlot(), slot);
        for (int side = 0; side < 2; ++side) {
            const auto &expected = m_expected[side];
            const int want = std::min<int>(slot, static_cast<int>(expected.size()) - 1);
            QCOMPARE(replay.sideSlot(side, slot), want);
            QVERIFY2(sameAllocations(replay.shownSnapshot(side), expected[want]),
                     qPrintable(QStringLiteral("side %1 at pair slot %2").arg(side).arg(slot)));
        }
    };
    for (int i = 1; i <= 5; ++i) {
        replay.stepForward();
        QVERIFY(replay.waitForSlot(i));
        check(i);
    }
    replay.stepBack();
    replay.stepBack();
    QVERIFY(replay.waitForSlot(3));
    check(3);
    for (int slot : {37, 4, 23, 22, 9}) {
        replay.seek(slot);
        QTRY_VERIFY_WITH_TIMEOUT(replay.isIdle() && replay.currentSlot() == slot, 30000);
        check(slot);
    }
    // Past the end: the pair stops at the longer run's last slot, the shorter run stays on its.
    const int last = static_cast<int>(std::max(m_expected[0].size(), m_expected[1].size())) - 1;
    replay.seek(100000);
    QVERIFY(replay.waitForSlot(100000));
    QVERIFY(replay.runComplete());
    QCOMPARE(replay.lastKnownSlot(), last);
    check(last);
    const int shorter = m_expected[0].size() < m_expected[1].size() ? 0 : 1;
    QVERIFY(replay.shownSnapshot(shorter).slot < replay.currentSlot());
    QVERIFY2(watch.violations.isEmpty(), qPrintable(watch.violations.join(u'\n')));
}

void TestLockstepReplay::playKeepsLockstep()
{
    LockstepReplay replay;
    LockstepWatch watch(replay);
    SessionSetup trace;
    trace.scenario = QStringLiteral("dl2-small");
    replay.load(trace, kLeft, kRight);
    QVERIFY(replay.waitForSlot(0));
    watch.seen.clear();
    replay.setSpeed(0); // as fast as both simulators go: the pair waits for the slower one
    replay.setPlaying(true);
    QVERIFY(replay.isPlaying());
    QTRY_VERIFY_WITH_TIMEOUT(!replay.isPlaying(), 60000);
    const int last = static_cast<int>(std::max(m_expected[0].size(), m_expected[1].size())) - 1;
    QCOMPARE(replay.currentSlot(), last);
    // Every slot once, in order: nothing skipped, nothing shown twice.
    QCOMPARE(watch.seen.size(), last);
    for (int i = 0; i < watch.seen.size(); ++i)
        QCOMPARE(watch.seen[i], i + 1);
    QVERIFY2(watch.violations.isEmpty(), qPrintable(watch.violations.join(u'\n')));
    for (int side = 0; side < 2; ++side)
        QVERIFY(sameAllocations(replay.shownSnapshot(side), m_expected[side].back()));
}

void TestLockstepReplay::playAtClockSpeedNeverRunsAhead()
{
    LockstepReplay replay;
    LockstepWatch watch(replay);
    SessionSetup trace;
    trace.scenario = QStringLiteral("dl2-small");
    replay.load(trace, kLeft, kRight);
    QVERIFY(replay.waitForSlot(0));
    replay.setSpeed(60);
    replay.setPlaying(true);
    QTRY_VERIFY_WITH_TIMEOUT(replay.currentSlot() >= 12, 20000);
    replay.setPlaying(false);
    QTRY_VERIFY(replay.isIdle());
    const int at = replay.currentSlot();
    // Paused: both sessions rest on the pair's slot, no request left in flight.
    QTest::qWait(100);
    QCOMPARE(replay.currentSlot(), at);
    for (int side = 0; side < 2; ++side) {
        QVERIFY(replay.session(side)->isIdle());
        QCOMPARE(replay.session(side)->currentSlot(), at);
    }
    for (int i = 1; i < watch.seen.size(); ++i)
        QCOMPARE(watch.seen[i], watch.seen[i - 1] + 1);
    QVERIFY2(watch.violations.isEmpty(), qPrintable(watch.violations.join(u'\n')));
}

void TestLockstepReplay::draggedSeeksEndTogether()
{
    LockstepReplay replay;
    LockstepWatch watch(replay);
    SessionSetup trace;
    trace.scenario = QStringLiteral("dl2-small");
    replay.load(trace, kLeft, kRight);
    QVERIFY(replay.waitForSlot(0));
    for (int slot : {5, 40, 12, 33, 18, 7}) // a dragged scrubber: no wait in between
        replay.seek(slot);
    QCOMPARE(replay.targetSlot(), 7);
    QTRY_VERIFY_WITH_TIMEOUT(replay.isIdle(), 30000);
    QCOMPARE(replay.currentSlot(), 7);
    for (int side = 0; side < 2; ++side)
        QVERIFY(sameAllocations(replay.shownSnapshot(side), m_expected[side][7]));
    QVERIFY2(watch.violations.isEmpty(), qPrintable(watch.violations.join(u'\n')));
}

void TestLockstepReplay::errorNamesThePolicy()
{
    LockstepReplay replay;
    QSignalSpy errors(&replay, &LockstepReplay::errorOccurred);
    SessionSetup trace;
    trace.scenario = QStringLiteral("dl2-small");
    trace.traceFile = QStringLiteral("/nonexistent/trace.csv");
    replay.load(trace, kLeft, kRight);
    QTRY_VERIFY_WITH_TIMEOUT(errors.count() >= 2, 10000);
    const QString first = errors.at(0).at(0).toString() + errors.at(1).at(0).toString();
    QVERIFY2(first.contains(kLeft) && first.contains(kRight), qPrintable(first));
    QVERIFY2(first.contains(u"trace.csv"_qs), qPrintable(first));
    QVERIFY(!replay.waitForSlot(0, 200));
    // The failure is kept: a wait that starts after it returns at once, not at its timeout
    // (the headless export used to sit out 120 s per slot on a policy that failed to load).
    QVERIFY2(replay.error().contains(u"trace.csv"_qs), qPrintable(replay.error()));
    QElapsedTimer waited;
    waited.start();
    QVERIFY(!replay.waitForSlot(0, 60000));
    QVERIFY2(waited.elapsed() < 30000, qPrintable(QString::number(waited.elapsed())));
}

void TestLockstepReplay::captionsSayWhatHappened()
{
    const auto profiles = dl2::ProfileSet::reference();
    const auto &run = m_expected[0];
    int withArrival = -1, withCompletion = -1, withChange = -1;
    for (size_t i = 1; i < run.size(); ++i) {
        const auto &s = run[i];
        const SlotCaption c = captionFor(s, profiles);
        QCOMPARE(c.slot, s.slot);
        QCOMPARE(c.arrived.size(), s.arrivals.size());
        QCOMPARE(c.finished.size(), s.completions.size());
        // A change is a job whose allocation differs from the slot before (direct run).
        size_t changes = 0;
        const auto &before = run[i - 1];
        for (size_t j = 0; j < s.jobs.size(); ++j) {
            auto held = [](const dl2::JobState &job, int slot) {
                return job.status != dl2::JobStatus::Finished || job.finishTime >= slot;
            };
            const auto &now = s.jobs[j], &then = before.jobs[j];
            if (now.status == dl2::JobStatus::Pending ||
                (now.status == dl2::JobStatus::Finished && now.finishTime < s.slot))
                continue;
            const int w = held(now, s.slot) ? now.workers : 0, p = held(now, s.slot) ? now.ps : 0;
            const int pw = held(then, before.slot) && then.status != dl2::JobStatus::Pending
                               ? then.workers : 0;
            const int pp = held(then, before.slot) && then.status != dl2::JobStatus::Pending
                               ? then.ps : 0;
            if (w != pw || p != pp)
                ++changes;
        }
        QCOMPARE(c.changed.size(), changes);
        const QString text = c.text(kLeft, 100);
        QVERIFY(text.startsWith(QStringLiteral("Slot %1").arg(s.slot)));
        for (int id : s.arrivals)
            QVERIFY2(text.contains(QStringLiteral("#%1 ").arg(id)), qPrintable(text));
        if (!c.arrived.empty())
            withArrival = static_cast<int>(i);
        if (!c.finished.empty())
            withCompletion = static_cast<int>(i);
        if (!c.changed.empty())
            withChange = static_cast<int>(i);
    }
    QVERIFY(withArrival > 0 && withCompletion > 0 && withChange > 0);
    // Long lists are cut: "+N more".
    const SlotCaption busy = captionFor(run[static_cast<size_t>(withChange)], profiles);
    if (busy.changed.size() > 2)
        QVERIFY(busy.text(kLeft, 2).contains(
            QStringLiteral("+%1 more").arg(busy.changed.size() - 2)));
    const QString html = busy.text(kLeft, 3, true);
    QVERIFY(html.contains(u"&#9632;"_qs)); // a colour square per job
}

void TestLockstepReplay::cumulativeJctOfTheRunIsItsTotalJct()
{
    // Summed over the whole run, the per-slot job time equals avg JCT x jobs (dl2-small has
    // no unfinished jobs at the end).
    for (int side = 0; side < 2; ++side) {
        std::vector<SlotSummary> timeline;
        for (const auto &s : m_expected[side])
            timeline.push_back(summarise(s));
        const double total = PairMetricsPlot::cumulativeJct(timeline, static_cast<int>(timeline.size()) - 1);
        QCOMPARE(m_result[side].completed, m_result[side].jobs);
        QVERIFY2(std::abs(total - m_result[side].avgJct * m_result[side].jobs) < 1e-6,
                 qPrintable(QStringLiteral("%1 vs %2").arg(total).arg(m_result[side].avgJct *
                                                                      m_result[side].jobs)));
        // And it only grows.
        for (size_t i = 1; i < timeline.size(); ++i)
            QVERIFY(PairMetricsPlot::cumulativeJct(timeline, static_cast<int>(i)) >=
                    PairMetricsPlot::cumulativeJct(timeline, static_cast<int>(i) - 1));
    }
}

QTEST_MAIN(TestLockstepReplay)
#include "tst_lockstepreplay.moc"
