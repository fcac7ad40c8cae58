// Hand-computed tiny scenarios pinning the simulator's slot semantics (docs/model.md section 3).
#include "error.h"
#include "scheduler.h"
#include "simulator.h"
#include "testprofiles.h"

#include <QTest>

#include <cmath>

using namespace dl2;

namespace {

// One profile: worker and PS need 2 CPU slots each, speed = w steps/s, 1 step per epoch.
ProfileSet linearProfiles()
{
    return ProfileSet({test::makeProfile("lin", {2, 0}, {2, 0}, [](int, int w) { return double(w); })});
}

Trace twoJobs(double epochs1, double epochs2)
{
    Trace t;
    t.name = "two";
    t.jobs = {{1, 0, "lin", epochs1, {}}, {2, 0, "lin", epochs2, {}}};
    return t;
}

SimulationOptions tenSecondSlots()
{
    SimulationOptions o;
    o.slotSeconds = 10.0; // epochs per slot = 10 x workers
    return o;
}

// A scheduler that places nothing.
class Idle final : public Scheduler
{
public:
    std::string name() const override { return "idle"; }
    void schedule(SlotContext &) override {}
};

// A scheduler that decides for the first active job only (a window of one): each active job
// gets one bundle, and only the first is marked as seen.
class WindowOfOne final : public Scheduler
{
public:
    std::string name() const override { return "window-of-one"; }
    void schedule(SlotContext &ctx) override
    {
        ctx.limitView();
        if (!ctx.activeJobs().empty())
            ctx.markInView(ctx.activeJobs().front());
        for (const int i : ctx.activeJobs())
            ctx.add(i, TaskKind::Bundle);
    }
};

} // namespace

class TestSimulator : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void drfTwoJobsFractionalLastSlot()
    {
        // One node of 8+8 slots holds two bundles ({4,0} each). DRF: job 1 then job 2 get a
        // bundle, the third bundle fails -> each runs at w=1: 10 epochs/slot.
        // Job 2 (25 epochs): 10, 10, then 5 of 10 -> finishes at 2.5.
        // Job 1 (50 epochs): 10, 10, 10, then alone with 2 bundles: 20 -> finishes at 4.0.
        // Rewards: 10/50 + 10/25 = 0.6, 0.6, 10/50 + 5/25 = 0.4, 20/50 = 0.4 -> mean 0.5.
        Simulator sim({1, {8, 8}}, linearProfiles(), twoJobs(50, 25), tenSecondSlots());
        auto drf = makeScheduler("drf");
        const RunResult r = runSimulation(sim, *drf);
        QCOMPARE(r.completed, 2);
        QCOMPARE(r.slotCount, 4);
        QCOMPARE(r.jcts.size(), size_t(2));
        QCOMPARE(r.jcts[0], 4.0);
        QCOMPARE(r.jcts[1], 2.5);
        QCOMPARE(r.avgJct, 3.25);
        QCOMPARE(r.makespan, 4.0);
        QCOMPARE(r.rewards.size(), size_t(4));
        QVERIFY(qFuzzyCompare(r.rewards[0], 0.6));
        QVERIFY(qFuzzyCompare(r.rewards[2], 0.4));
        QVERIFY(qFuzzyCompare(r.rewards[3], 0.4));
        QVERIFY(qFuzzyCompare(r.avgReward, 0.5));
    }

    void timeSpentPerJobAndSlot()
    {
        // The run of drfTwoJobsFractionalLastSlot: both jobs run from slot 0 with a bundle each;
        // job 2 finishes in slot 2, job 1 runs slot 3 with two bundles.
        Simulator sim({1, {8, 8}}, linearProfiles(), twoJobs(50, 25), tenSecondSlots());
        auto drf = makeScheduler("drf");
        const RunResult r = runSimulation(sim, *drf);
        const JobState &j1 = sim.jobs()[0], &j2 = sim.jobs()[1];
        QCOMPARE(j1.firstRunSlot, 0);
        QCOMPARE(j1.slotsRun, 4);
        QCOMPARE(j1.waitingSlots(r.slotCount), 0);
        QCOMPARE(j1.meanWorkers(), 1.25);
        QCOMPARE(j1.meanPs(), 1.25);
        QCOMPARE(j2.slotsRun, 3); // the slot it finished in counts
        QCOMPARE(j2.meanWorkers(), 1.0);
        QCOMPARE(r.slotJobs.size(), size_t(4));
        QCOMPARE(r.slotJobs[2].running, 2);
        QCOMPARE(r.slotJobs[3].running, 1);
        QCOMPARE(r.slotJobs[3].waiting, 0);
        QCOMPARE(r.slotJobs[3].workers, 2);
        QCOMPARE(r.slotJobs[3].ps, 2);

        // A run cut short before a late job arrives: never run, it waits 0; an idle scheduler
        // leaves every arrived job waiting to the end.
        SimulationOptions o = tenSecondSlots();
        o.maxSlots = 3;
        Trace t = twoJobs(50, 25);
        t.jobs.push_back({3, 10, "lin", 5, {}});
        Simulator idle({1, {8, 8}}, linearProfiles(), t, o);
        Idle none;
        const RunResult cut = runSimulation(idle, none);
        QCOMPARE(idle.jobs()[0].firstRunSlot, -1);
        QCOMPARE(idle.jobs()[0].slotsRun, 0);
        QCOMPARE(idle.jobs()[0].waitingSlots(cut.slotCount), 3);
        QCOMPARE(idle.jobs()[0].meanWorkers(), 0.0);
        QCOMPARE(idle.jobs()[2].waitingSlots(cut.slotCount), 0);
        QCOMPARE(cut.slotJobs[1].waiting, 2);
        QCOMPARE(cut.slotJobs[1].running, 0);
    }

    // A policy with a window: the jobs it never had in view are counted per slot and per job;
    // a policy without one reports -1 per slot and counts nothing.
    void jobsLeftOutOfAWindowAreCounted()
    {
        // As in drfTwoJobsFractionalLastSlot, each job runs with one bundle: job 2 finishes in
        // slot 2 (outside the window in slots 0-2), job 1 in slot 4, alone in view in slots 3-4.
        Simulator sim({1, {8, 8}}, linearProfiles(), twoJobs(50, 25), tenSecondSlots());
        WindowOfOne window;
        const RunResult r = runSimulation(sim, window);
        QCOMPARE(r.slotJobs.size(), size_t(5));
        // Slot by slot, the job left out says so for the slot just simulated only.
        Simulator stepped({1, {8, 8}}, linearProfiles(), twoJobs(50, 25), tenSecondSlots());
        for (int slot = 0; slot < 4; ++slot) {
            stepped.step(window);
            QCOMPARE(stepped.jobs()[0].outsideViewThisSlot, false);
            QCOMPARE(stepped.jobs()[1].outsideViewThisSlot, slot <= 2);
        }
        const int outside[] = {1, 1, 1, 0, 0};
        for (size_t s = 0; s < r.slotJobs.size(); ++s)
            QCOMPARE(r.slotJobs[s].outsideView, outside[s]);
        QCOMPARE(sim.jobs()[0].slotsOutsideView, 0);
        QCOMPARE(sim.jobs()[1].slotsOutsideView, 3);
        QCOMPARE(sim.jobs()[1].slotsRun, 3); // outside the window, it still ran with its bundle

        Simulator again({1, {8, 8}}, linearProfiles(), twoJobs(50, 25), tenSecondSlots());
        auto drf = makeScheduler("drf");
        const RunResult all = runSimulation(again, *drf);
        for (const SlotJobs &n : all.slotJobs)
            QCOMPARE(n.outsideView, -1);
        QCOMPARE(again.jobs()[1].slotsOutsideView, 0);
    }

    void timeSpentAgreesWithEverySlotForEveryPolicy()
    {
        // Recount, slot by slot from the jobs' allocations, what the simulator keeps, for
        // every baseline on a contended cluster (2 nodes: 4 bundles for 7 jobs).
        Trace t;
        t.name = "busy";
        t.jobs = {{1, 0, "lin", 80, {}}, {2, 0, "lin", 30, {}}, {3, 0, "lin", 45, {}},
                  {4, 1, "lin", 12, {}}, {5, 1, "lin", 60, {}}, {6, 2, "lin", 25, {}},
                  {7, 4, "lin", 9, {}}};
        for (const SchedulerInfo &info : registeredSchedulers()) {
            if (info.replaysHistory)
                continue;
            const QByteArray policy = QByteArray::fromStdString(info.name);
            Simulator sim({2, {8, 8}}, linearProfiles(), t, tenSecondSlots());
            auto scheduler = makeScheduler(info.name);
            scheduler->reset();
            std::vector<int> first(t.jobs.size(), -1), run(t.jobs.size(), 0);
            std::vector<std::int64_t> workers(t.jobs.size(), 0), ps(t.jobs.size(), 0);
            std::vector<SlotJobs> counted;
            while (!sim.done()) {
                const int slot = sim.slot();
                std::vector<bool> activeBefore;
                for (const JobState &j : sim.jobs())
                    activeBefore.push_back(j.active() || (j.status == JobStatus::Pending &&
                                                          j.arrivalSlot <= slot));
                sim.step(*scheduler);
                SlotJobs n;
                for (size_t i = 0; i < sim.jobs().size(); ++i) {
                    const JobState &j = sim.jobs()[i];
                    if (!activeBefore[i])
                        continue;
                    n.workers += j.workers;
                    n.ps += j.ps;
                    if (j.workers > 0 && j.ps > 0) {
                        ++n.running;
                        if (first[i] < 0)
                            first[i] = slot;
                        ++run[i];
                        workers[i] += j.workers;
                        ps[i] += j.ps;
                    } else {
                        ++n.waiting;
                    }
                }
                counted.push_back(n);
            }
            const RunResult r = sim.result();
            QVERIFY2(r.completed == int(t.jobs.size()), policy);
            QCOMPARE(r.slotJobs.size(), counted.size());
            int waited = 0;
            for (const SlotJobs &n : r.slotJobs)
                waited += n.waiting;
            QVERIFY2(waited > 0, policy); // the cluster is too small for every job at once
            for (size_t s = 0; s < counted.size(); ++s) {
                QVERIFY2(r.slotJobs[s].running == counted[s].running, policy);
                QVERIFY2(r.slotJobs[s].waiting == counted[s].waiting, policy);
                QVERIFY2(r.slotJobs[s].workers == counted[s].workers, policy);
                QVERIFY2(r.slotJobs[s].ps == counted[s].ps, policy);
            }
            for (size_t i = 0; i < t.jobs.size(); ++i) {
                const JobState &j = sim.jobs()[i];
                QVERIFY2(j.firstRunSlot == first[i], policy);
                QVERIFY2(j.slotsRun == run[i], policy);
                QVERIFY2(j.workerSlots == workers[i] && j.psSlots == ps[i], policy);
                QVERIFY2(j.firstRunSlot >= j.arrivalSlot, policy);
                QVERIFY2(j.waitingSlots(r.slotCount) + j.slotsRun <= std::ceil(j.jct() - 1e-9), policy);
            }
        }
    }

    void lowerBoundUsesBestConfigWithinCapacity()
    {
        // Budget 8 CPU slots: p + w <= 4, speed = w -> best (1 PS, 3 workers) = 30 epochs/slot.
        // JCTs 50/30 and 25/30 -> mean 1.25.
        const double lb = lowerBoundAvgJct({1, {8, 8}}, linearProfiles(), twoJobs(50, 25), tenSecondSlots());
        QVERIFY(qFuzzyCompare(lb, 1.25));
        const BestConfig c = bestConfig(*linearProfiles()[0].speed, linearProfiles()[0], 16, 16, {8, 8});
        QCOMPARE(c.ps, 1);
        QCOMPARE(c.workers, 3);
    }

    void unfinishedJobsRewardSumsToMinusTotalJct()
    {
        SimulationOptions o = tenSecondSlots();
        o.unfinishedJobsReward = true;
        Simulator sim({1, {8, 8}}, linearProfiles(), twoJobs(50, 25), o);
        auto drf = makeScheduler("drf");
        const RunResult r = runSimulation(sim, *drf);
        // -2, -2, -(1 + 0.5), -1: the sum is minus the total JCT (4 + 2.5).
        QCOMPARE(r.rewards.size(), size_t(4));
        QCOMPARE(r.rewards[2], -1.5);
        double sum = 0;
        for (double x : r.rewards)
            sum += x;
        QCOMPARE(sum, -6.5);
    }

    void resizeCostDelaysTraining()
    {
        // One job of 16 epochs gets 2 bundles (w=2 -> 2 epochs/s). Slot 0 adds 4 tasks at
        // 1 s each: 6 s of training = 12 epochs. Slot 1 changes nothing: the 4 left take 2 s
        // -> finishes at 1.2.
        SimulationOptions o = tenSecondSlots();
        o.resizeCostSeconds = 1.0;
        Trace t;
        t.name = "one";
        t.jobs = {{1, 0, "lin", 16, {}}};
        Simulator sim({1, {8, 8}}, linearProfiles(), t, o);
        auto drf = makeScheduler("drf");
        const RunResult r = runSimulation(sim, *drf);
        QCOMPARE(r.completed, 1);
        QVERIFY(qFuzzyCompare(r.jcts[0], 1.2));
    }

    void lateArrivalAndIdleSlots()
    {
        // A job arriving at slot 3 waits for nothing: JCT counts from its arrival.
        Trace t;
        t.name = "late";
        t.jobs = {{7, 3, "lin", 5, {}}};
        Simulator sim({1, {8, 8}}, linearProfiles(), t, tenSecondSlots());
        auto drf = makeScheduler("drf");
        const RunResult r = runSimulation(sim, *drf);
        // Two bundles: 20 epochs/slot, 5 epochs -> a quarter of slot 3.
        QCOMPARE(r.jcts[0], 0.25);
        QCOMPARE(r.makespan, 3.25);
        QCOMPARE(r.slotCount, 4);
    }

    void snapshotAgreesWithJobs()
    {
        Simulator sim({1, {8, 8}}, linearProfiles(), twoJobs(50, 25), tenSecondSlots());
        auto drf = makeScheduler("drf");
        sim.step(*drf);
        const SlotSnapshot s = sim.snapshot();
        QCOMPARE(s.slot, 0);
        QCOMPARE(s.running, 2);
        QCOMPARE(s.arrivals.size(), size_t(2));
        QCOMPARE(s.nodeUsage.size(), size_t(1));
        QCOMPARE(s.nodeUsage[0][0], 8);
        QCOMPARE(s.utilisation[0], 1.0);
        QCOMPARE(s.jobs[0].tasks.size(), size_t(2));
        QCOMPARE(s.jobs[0].tasks[0].node, 0);
        QCOMPARE(s.jobs[0].epochsThisSlot, 10.0);
        QVERIFY(qFuzzyCompare(s.reward, 0.6));
    }

    void maxSlotsCensorsUnfinishedJobs()
    {
        SimulationOptions o = tenSecondSlots();
        o.maxSlots = 2;
        Simulator sim({1, {8, 8}}, linearProfiles(), twoJobs(50, 25), o);
        auto drf = makeScheduler("drf");
        const RunResult r = runSimulation(sim, *drf);
        QCOMPARE(r.completed, 0);
        QCOMPARE(r.jcts[0], -1.0);
        QCOMPARE(r.avgJct, 2.0); // both censored at 2 slots
    }

    void truncatedRunLeavesOutJobsNotArrived()
    {
        // Job 3 arrives at slot 10, after the stop: it does not drag the average down.
        SimulationOptions o = tenSecondSlots();
        o.maxSlots = 2;
        Trace t = twoJobs(50, 25);
        t.jobs.push_back({3, 10, "lin", 5, {}});
        Simulator sim({1, {8, 8}}, linearProfiles(), t, o);
        auto drf = makeScheduler("drf");
        const RunResult r = runSimulation(sim, *drf);
        QVERIFY(r.truncated);
        QCOMPARE(r.stopReason, std::string("max-slots"));
        QCOMPARE(r.unfinished, 2);
        QCOMPARE(r.notArrived, 1);
        QCOMPARE(r.avgJct, 2.0);
        // Bounds (best: 1 PS + 3 workers = 30 epochs a slot) 50/30 and 25/30, censored at 2.
        QVERIFY(qFuzzyCompare(r.lowerBoundAvgJct, (50.0 / 30 + 25.0 / 30) / 2));
        QVERIFY(r.avgJct >= r.lowerBoundAvgJct);
        QCOMPARE(r.jcts[2], -1.0);
    }

    void noSlotLimitRunsToCompletion()
    {
        SimulationOptions o = tenSecondSlots();
        o.maxSlots = 0;
        Trace t = twoJobs(50, 25);
        t.jobs.push_back({3, 1500, "lin", 5, {}});
        Simulator sim({1, {8, 8}}, linearProfiles(), t, o);
        auto drf = makeScheduler("drf");
        const RunResult r = runSimulation(sim, *drf);
        QVERIFY(!r.truncated);
        QVERIFY(r.stopReason.empty());
        QCOMPARE(r.completed, 3);
        QCOMPARE(r.slotCount, 1501);
        QVERIFY(r.jcts[2] > 0 && r.jcts[2] < 1); // alone, done within its arrival slot
    }

    void stalledRunStopsAndSaysSo()
    {
        SimulationOptions o = tenSecondSlots();
        o.maxSlots = 0;
        o.stallSlots = 5;
        Trace t = twoJobs(50, 25);
        t.jobs[1].arrivalSlot = 3;
        Simulator sim({1, {8, 8}}, linearProfiles(), t, o);
        Idle idle;
        const RunResult r = runSimulation(sim, idle);
        QVERIFY(r.truncated);
        QCOMPARE(r.stopReason, std::string("stalled"));
        QCOMPARE(r.slotCount, 8); // the last arrival in slot 3 starts the count: slots 3..7 idle
        QCOMPARE(r.unfinished, 2);
    }

    void observedPolicyReplaysHistory()
    {
        // Submitted at t=0, started 25 s later (slot 2 of 10 s), 1 PS + 2 workers = 20 epochs a
        // slot, 30 epochs: JCT = 2 + 1.5 slots, whatever else could run.
        SimulationOptions o = tenSecondSlots();
        o.maxSlots = 0;
        Trace t = twoJobs(30, 10);
        t.timeOrigin = 0;
        JobSource &a = t.jobs[0].source;
        a.submitTime = 0;
        a.queueSeconds = 25;
        a.workers = 2;
        a.ps = 1;
        JobSource &b = t.jobs[1].source; // no queueing delay known: starts on arrival
        b.workers = 1;
        b.ps = 1;
        Simulator sim({4, {8, 8}}, linearProfiles(), t, o);
        auto observed = makeScheduler("observed");
        const RunResult r = runSimulation(sim, *observed);
        QCOMPARE(r.jcts[0], 3.5);
        QCOMPARE(r.jcts[1], 1.0);
        // A trace without an observed history is refused, naming the job.
        Simulator plain({4, {8, 8}}, linearProfiles(), twoJobs(30, 10), o);
        try {
            runSimulation(plain, *observed);
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("job 1 has no observed allocation")), e.what());
        }
    }

    // observed places a job whole or not at all: a job larger than the cluster takes nothing
    // (it used to take every free slot as a partial allocation and stall the others) and is
    // reported; a job that does not fit now waits until it does.
    void observedPlacesWholeJobsOrNone()
    {
        SimulationOptions o = tenSecondSlots();
        o.maxSlots = 0;
        o.stallSlots = 5;
        Trace t;
        t.name = "whole";
        // 2 nodes of 8 CPU slots, every task 2: room for 8 tasks.
        t.jobs = {{1, 0, "lin", 30, {}}, {2, 0, "lin", 100, {}}, {3, 0, "lin", 40, {}}};
        auto observe = [](JobSpec &j, int ps, int workers) {
            j.source.ps = ps;
            j.source.workers = workers;
        };
        observe(t.jobs[0], 2, 8); // 10 tasks: never fits
        observe(t.jobs[1], 1, 1); // 10 epochs a slot: slots 0..9
        observe(t.jobs[2], 3, 4); // 7 tasks: only once job 2 is gone, then 40 epochs a slot
        Simulator sim({2, {8, 8}}, linearProfiles(), t, o);
        auto observed = makeScheduler("observed");
        const RunResult r = runSimulation(sim, *observed);
        QCOMPARE(r.neverFit, std::vector<int>{1});
        QCOMPARE(r.jcts[0], -1.0);
        QCOMPARE(r.jcts[1], 10.0);
        QCOMPARE(r.jcts[2], 11.0); // waited 10 slots whole, then one slot at 4 workers
        QCOMPARE(r.completed, 2);
        QVERIFY(r.truncated);
        QCOMPARE(r.unfinished, 1);
        // Another policy reports nothing of the kind.
        Simulator again({2, {8, 8}}, linearProfiles(), t, o);
        auto drf = makeScheduler("drf");
        QVERIFY(runSimulation(again, *drf).neverFit.empty());
    }

    void deterministicWithNoise()
    {
        SimulationOptions o = tenSecondSlots();
        o.speedNoise = 0.3;
        o.seed = 42;
        auto run = [&] {
            Simulator sim({1, {8, 8}}, linearProfiles(), twoJobs(500, 250), o);
            auto drf = makeScheduler("drf");
            return runSimulation(sim, *drf);
        };
        const RunResult a = run(), b = run();
        QCOMPARE(a.jcts, b.jcts);
        QCOMPARE(a.rewards, b.rewards);
        o.seed = 43;
        const RunResult c = run();
        QVERIFY(a.jcts != c.jcts);
    }

    void rejectsAbsurdOptions_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<double>("slotSeconds");
        QTest::addColumn<int>("caps");
        QTest::newRow("zero nodes") << 0 << 10.0 << 16;
        QTest::newRow("negative nodes") << -5 << 10.0 << 16;
        QTest::newRow("zero slot") << 1 << 0.0 << 16;
        QTest::newRow("zero caps") << 1 << 10.0 << 0;
        QTest::newRow("huge caps") << 1 << 10.0 << 1'000'000;
    }
    void rejectsAbsurdOptions()
    {
        QFETCH(int, nodes);
        QFETCH(double, slotSeconds);
        QFETCH(int, caps);
        SimulationOptions o;
        o.slotSeconds = slotSeconds;
        o.maxWorkers = o.maxPs = caps;
        QVERIFY_THROWS_EXCEPTION(dl2::Error, Simulator({nodes, {8, 8}}, linearProfiles(), twoJobs(5, 5), o));
    }
};

QTEST_GUILESS_MAIN(TestSimulator)
#include "tst_simulator.moc"
