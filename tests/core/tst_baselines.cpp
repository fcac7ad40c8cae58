// Baseline schedulers on tiny hand-computed scenarios (docs/model.md sections 3-4, issue 6).
// Every scenario runs with slotSeconds = 1 and stepsPerEpoch = 1, so a speed model value IS
// the number of epochs a job makes per slot. Expected numbers are computed by hand below.

#include "sched/baselines.h"
#include "scheduler.h"
#include "simulator.h"

#include <QTest>

#include <cmath>
#include <functional>
#include <map>
#include <random>

using namespace dl2;

namespace {

class TableSpeed : public SpeedModel
{
public:
    explicit TableSpeed(std::function<double(int, int)> f) : m_f(std::move(f)) {}
    double speed(int ps, int workers) const override
    {
        return ps <= 0 || workers <= 0 ? 0.0 : m_f(ps, workers);
    }
    std::string kind() const override { return "test"; }

private:
    std::function<double(int, int)> m_f;
};

double minPw(int p, int w) { return std::min(p, w); }

ModelProfile profile(const std::string &name, Demand worker, Demand ps,
                     std::function<double(int, int)> f,
                     std::function<double(int, int)> estimate = {})
{
    ModelProfile m;
    m.name = name;
    m.workerDemand = worker;
    m.psDemand = ps;
    m.stepsPerEpoch = 1.0;
    m.speed = std::make_shared<TableSpeed>(std::move(f));
    if (estimate)
        m.estimate = std::make_shared<TableSpeed>(std::move(estimate));
    return m;
}

SimulationOptions options(int maxWorkers, int maxPs, int maxSlots = 1000)
{
    SimulationOptions o;
    o.slotSeconds = 1.0;
    o.maxWorkers = maxWorkers;
    o.maxPs = maxPs;
    o.maxSlots = maxSlots;
    return o;
}

struct Scenario
{
    int nodes = 1;
    std::vector<ModelProfile> profiles;
    std::vector<JobSpec> jobs;
    SimulationOptions options;
};

RunResult run(const std::string &policy, const Scenario &s)
{
    Simulator sim(ClusterSpec{s.nodes, {8, 8}}, ProfileSet(s.profiles), Trace{"t", s.jobs},
                  s.options);
    auto scheduler = makeScheduler(policy);
    return runSimulation(sim, *scheduler);
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-9; }

void checkResult(const RunResult &r, double avgJct, double makespan, int completed,
                 const QList<double> &rewards)
{
    QVERIFY2(near(r.avgJct, avgJct), qPrintable(QString::number(r.avgJct, 'g', 17)));
    QVERIFY2(near(r.makespan, makespan), qPrintable(QString::number(r.makespan, 'g', 17)));
    QCOMPARE(r.completed, completed);
    QCOMPARE(static_cast<qsizetype>(r.rewards.size()), rewards.size());
    for (qsizetype i = 0; i < rewards.size(); ++i)
        QVERIFY2(near(r.rewards[static_cast<size_t>(i)], rewards[i]),
                 qPrintable(QStringLiteral("slot %1: %2").arg(i).arg(r.rewards[static_cast<size_t>(i)])));
}

const char *const kAllPolicies[] = {"drf",          "fifo",    "srtf",          "srtf-time",
                                    "tetris",       "tetris-fixed", "optimus", "optimus-paper",
                                    "best-config",  "best-config-est"};

void addColumns()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<double>("avgJct");
    QTest::addColumn<double>("makespan");
    QTest::addColumn<int>("completed");
    QTest::addColumn<QList<double>>("rewards");
}

} // namespace

class TestBaselines : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { registerBaselines(); }
    void registry();
    void basic_data();
    void basic();
    void stopAtFirstFailure_data();
    void stopAtFirstFailure();
    void srtfFractionVersusTime_data();
    void srtfFractionVersusTime();
    void tetrisSign_data();
    void tetrisSign();
    void optimusNormalisation_data();
    void optimusNormalisation();
    void estimatedSpeed_data();
    void estimatedSpeed();
    void bestConfigMatchesLowerBound();
    void bestConfigContended();
    void capsAndDeterminism_data();
    void capsAndDeterminism();
};

void TestBaselines::registry()
{
    for (const char *name : kAllPolicies) {
        QVERIFY2(isScheduler(name), name);
        QCOMPARE(makeScheduler(name)->name(), std::string(name));
    }
}

// S1: one node (8 CPU), caps 2 workers / 2 PSs, worker [2,0], PS [2,0] (a node holds 2
// bundles = 4 tasks), speed min(p, w). A (id 1, 4 epochs) and B (id 2, 1 epoch) at slot 0.
Scenario basicScenario()
{
    Scenario s;
    s.profiles = {profile("m", {2, 0}, {2, 0}, minPw)};
    s.jobs = {{1, 0, "m", 4.0, {}}, {2, 0, "m", 1.0, {}}};
    s.options = options(2, 2);
    return s;
}

void TestBaselines::basic_data()
{
    addColumns();
    // drf: A bundle (share 0.5), B bundle, A again fails -> both (1,1) at speed 1: B done at
    //   1.0, A 1/4. Slot 1: A 2 bundles (speed 2) -> 3 done; slot 2: 1 left at 2 -> 2.5.
    //   JCT (2.5 + 1) / 2 = 1.75; rewards 1/4 + 1, 2/4, 1/4.
    QTest::newRow("drf") << "drf" << 1.75 << 2.5 << 2 << QList<double>{1.25, 0.5, 0.25};
    // fifo: A takes both bundles (cap), B fails. A done at 2.0, B runs slot 2 at speed 2,
    //   needs 1/2 of it -> 2.5. JCT (2 + 2.5) / 2 = 2.25.
    QTest::newRow("fifo") << "fifo" << 2.25 << 2.5 << 2 << QList<double>{0.5, 0.5, 1.0};
    // srtf: fractions 1 = 1 at slot 0 (A by id), then A 0.5 < B 1: the same as fifo.
    QTest::newRow("srtf") << "srtf" << 2.25 << 2.5 << 2 << QList<double>{0.5, 0.5, 1.0};
    // srtf-time: time at (2,2): A 4/2 = 2, B 1/2 = 0.5 -> B first, done at 0.5; A slots 1-2.
    //   JCT (0.5 + 3) / 2 = 1.75.
    QTest::newRow("srtf-time") << "srtf-time" << 1.75 << 3.0 << 2
                               << QList<double>{1.0, 0.5, 0.5};
    // tetris: slot 0 works equal (4 = 4) -> A, twice (cap); node free (0,8) -> weight 0.
    //   Slot 1: work A 4 x 0.5 = 2 < B 4 -> the wrong sign picks B (done 1.5); A done 3.0.
    QTest::newRow("tetris") << "tetris" << 2.25 << 3.0 << 2 << QList<double>{0.5, 1.0, 0.5};
    // tetris-fixed: slot 1 picks A (less work): the same as fifo.
    QTest::newRow("tetris-fixed") << "tetris-fixed" << 2.25 << 2.5 << 2
                                  << QList<double>{0.5, 0.5, 1.0};
    // optimus: A worker, A PS, B worker, B PS (initial utility INT32_MAX, ties by arrival);
    //   every single extra task has gain 4/1 - 4/1 = 0 -> stop. A stays at (1,1), speed 1:
    //   B done 1.0, A done 4.0. JCT 2.5; rewards 1/4 + 1, then 1/4 x 3.
    QTest::newRow("optimus") << "optimus" << 2.5 << 4.0 << 2
                             << QList<double>{1.25, 0.25, 0.25, 0.25};
    // optimus-paper (no estimate: the true speed): bundles for A and B, gains 0 -> the same.
    QTest::newRow("optimus-paper") << "optimus-paper" << 2.5 << 4.0 << 2
                                   << QList<double>{1.25, 0.25, 0.25, 0.25};
    // best-config: best (2,2) at 2 epochs; time A 2, B 0.5 -> B first (fills the node):
    //   the same as srtf-time. No estimate: best-config-est identical.
    QTest::newRow("best-config") << "best-config" << 1.75 << 3.0 << 2
                                 << QList<double>{1.0, 0.5, 0.5};
    QTest::newRow("best-config-est") << "best-config-est" << 1.75 << 3.0 << 2
                                     << QList<double>{1.0, 0.5, 0.5};
}

void TestBaselines::basic()
{
    QFETCH(QString, policy);
    QFETCH(double, avgJct);
    QFETCH(double, makespan);
    QFETCH(int, completed);
    QFETCH(QList<double>, rewards);
    checkResult(run(policy.toStdString(), basicScenario()), avgJct, makespan, completed, rewards);
}

// Q1: one node, caps 1/1. A (id 1, 10 epochs) is "wide": worker [6,0] + PS [4,0] never fit
// together on an 8-CPU node; B (id 2, 1 epoch) is small: [2,0] + [2,0]. Speed min(p, w).
// maxSlots 3. The reference heuristics try A first and end the slot at its failure, so B
// starves; policies that move on to the next job finish B at 1.0.
void TestBaselines::stopAtFirstFailure_data()
{
    addColumns();
    const QList<double> none{0.0, 0.0, 0.0};
    const QList<double> bDone{1.0, 0.0, 0.0};
    // Nothing finishes: both censored at 3 slots -> average 3, makespan 3.
    QTest::newRow("drf") << "drf" << 3.0 << 3.0 << 0 << none;
    QTest::newRow("fifo") << "fifo" << 3.0 << 3.0 << 0 << none;
    QTest::newRow("srtf") << "srtf" << 3.0 << 3.0 << 0 << none; // fractions tie: A by id
    // tetris: work A 10, B 4, weight 56/7 = 8: A 80 + 80 > B 32 + 32; A fails -> node left.
    QTest::newRow("tetris") << "tetris" << 3.0 << 3.0 << 0 << none;
    // tetris-fixed: A 80 - 80 = 0 = B 32 - 32: tie -> A (arrival, id), fails.
    QTest::newRow("tetris-fixed") << "tetris-fixed" << 3.0 << 3.0 << 0 << none;
    // optimus: A's worker [6,0] fits, its PS [4,0] does not -> the slot ends.
    QTest::newRow("optimus") << "optimus" << 3.0 << 3.0 << 0 << none;
    // The rest serve B: B done at 1.0, A censored at 3 -> (1 + 3) / 2 = 2.
    QTest::newRow("srtf-time") << "srtf-time" << 2.0 << 3.0 << 1 << bDone; // B: 1 < A: 10
    QTest::newRow("optimus-paper") << "optimus-paper" << 2.0 << 3.0 << 1 << bDone;
    QTest::newRow("best-config") << "best-config" << 2.0 << 3.0 << 1 << bDone;
    QTest::newRow("best-config-est") << "best-config-est" << 2.0 << 3.0 << 1 << bDone;
}

void TestBaselines::stopAtFirstFailure()
{
    QFETCH(QString, policy);
    QFETCH(double, avgJct);
    QFETCH(double, makespan);
    QFETCH(int, completed);
    QFETCH(QList<double>, rewards);
    Scenario s;
    s.profiles = {profile("wide", {6, 0}, {4, 0}, minPw), profile("small", {2, 0}, {2, 0}, minPw)};
    s.jobs = {{1, 0, "wide", 10.0, {}}, {2, 0, "small", 1.0, {}}};
    s.options = options(1, 1, 3);
    checkResult(run(policy.toStdString(), s), avgJct, makespan, completed, rewards);
}

// Q2: one node holds one bundle ([4,0] + [4,0]), caps 1/1, speed 1 epoch per slot.
// A (id 1, 3 epochs) arrives at 0 and runs alone: after slot 0 it has 2 left (fraction 2/3,
// time 2). B (id 2, 0.5 epochs) arrives at 1: fraction 1, time 0.5.
void TestBaselines::srtfFractionVersusTime_data()
{
    addColumns();
    // srtf (fraction 2/3 < 1): A slots 1-2, done 3.0 (JCT 3); B slot 3, done 3.5 (JCT 2.5).
    QTest::newRow("srtf") << "srtf" << 2.75 << 3.5 << 2
                          << QList<double>{1.0 / 3, 1.0 / 3, 1.0 / 3, 1.0};
    // srtf-time (0.5 < 2): B slot 1, done 1.5 (JCT 0.5); A slots 2-3, done 4.0 (JCT 4).
    QTest::newRow("srtf-time") << "srtf-time" << 2.25 << 4.0 << 2
                               << QList<double>{1.0 / 3, 1.0, 1.0 / 3, 1.0 / 3};
}

void TestBaselines::srtfFractionVersusTime()
{
    QFETCH(QString, policy);
    QFETCH(double, avgJct);
    QFETCH(double, makespan);
    QFETCH(int, completed);
    QFETCH(QList<double>, rewards);
    Scenario s;
    s.profiles = {profile("m", {4, 0}, {4, 0}, minPw)};
    s.jobs = {{1, 0, "m", 3.0, {}}, {2, 1, "m", 0.5, {}}};
    s.options = options(1, 1);
    checkResult(run(policy.toStdString(), s), avgJct, makespan, completed, rewards);
}

// Q3: as Q2 but A has 4 epochs (after slot 0: fraction 3/4) and B 1 epoch, arriving at 1.
// Slot 1: work A 8 x 0.75 = 6, B 8 x 1 = 8, weight 64/7 > 0.
void TestBaselines::tetrisSign_data()
{
    addColumns();
    // tetris (+): B (more work) gets the node: done 2.0 (JCT 1); A slots 2-4, 5.0 (JCT 5).
    QTest::newRow("tetris") << "tetris" << 3.0 << 5.0 << 2
                            << QList<double>{0.25, 1.0, 0.25, 0.25, 0.25};
    // tetris-fixed (-): A: slots 1-3, done 4.0 (JCT 4); B slot 4, done 5.0 (JCT 4).
    QTest::newRow("tetris-fixed") << "tetris-fixed" << 4.0 << 5.0 << 2
                                  << QList<double>{0.25, 0.25, 0.25, 0.25, 1.0};
}

void TestBaselines::tetrisSign()
{
    QFETCH(QString, policy);
    QFETCH(double, avgJct);
    QFETCH(double, makespan);
    QFETCH(int, completed);
    QFETCH(QList<double>, rewards);
    Scenario s;
    s.profiles = {profile("m", {4, 0}, {4, 0}, minPw)};
    s.jobs = {{1, 0, "m", 4.0, {}}, {2, 1, "m", 1.0, {}}};
    s.options = options(1, 1);
    checkResult(run(policy.toStdString(), s), avgJct, makespan, completed, rewards);
}

// Q4: one node (8 CPU), caps 2/2, worker [4,0] (share 1/2), PS [1,0] (share 1/8).
// Speed (1,1) 1, (1,2) 2, (2,1) 1.5, (2,2) 3. One job, 6 epochs.
// After (1,1): worker gain 6/1 - 6/2 = 3, PS gain 6/1 - 6/1.5 = 2.
void TestBaselines::optimusNormalisation_data()
{
    addColumns();
    // optimus: raw gains -> worker (3 > 2); 5 + 4 > 8 does not fit -> the slot ends. Stays
    //   at (1,1), speed 1: done 6.0.
    QTest::newRow("optimus") << "optimus" << 6.0 << 6.0 << 1
                             << QList<double>(6, 1.0 / 6);
    // optimus-paper: 2 / (1/8) = 16 > 3 / (1/2) = 6 -> PS (6 CPU); PS at cap, worker does not
    //   fit -> (2,1) at 1.5: done 4.0.
    QTest::newRow("optimus-paper") << "optimus-paper" << 4.0 << 4.0 << 1
                                   << QList<double>(4, 0.25);
}

void TestBaselines::optimusNormalisation()
{
    QFETCH(QString, policy);
    QFETCH(double, avgJct);
    QFETCH(double, makespan);
    QFETCH(int, completed);
    QFETCH(QList<double>, rewards);
    const std::map<std::pair<int, int>, double> table{
        {{1, 1}, 1.0}, {{1, 2}, 2.0}, {{2, 1}, 1.5}, {{2, 2}, 3.0}};
    auto f = [table](int p, int w) {
        const auto it = table.find({p, w});
        return it != table.end() ? it->second : minPw(p, w);
    };
    Scenario s;
    s.profiles = {profile("m", {4, 0}, {1, 0}, f)};
    s.jobs = {{1, 0, "m", 6.0, {}}};
    s.options = options(2, 2);
    checkResult(run(policy.toStdString(), s), avgJct, makespan, completed, rewards);
}

// Q5: true speed min(p, w) (best (2,2) = 2), but the fitted estimate 1 / (p w) says (1,1).
// One job, 2 epochs, one node, caps 2/2, [2,0] + [2,0].
void TestBaselines::estimatedSpeed_data()
{
    addColumns();
    QTest::newRow("best-config") << "best-config" << 1.0 << 1.0 << 1 << QList<double>{1.0};
    // Chooses (1,1) on the estimate, runs at the true 1 epoch per slot.
    QTest::newRow("best-config-est") << "best-config-est" << 2.0 << 2.0 << 1
                                     << QList<double>{0.5, 0.5};
    // Bundle, then estimated gains 2/1 - 2/0.5 = -2 < 0: stays at (1,1).
    QTest::newRow("optimus-paper") << "optimus-paper" << 2.0 << 2.0 << 1
                                   << QList<double>{0.5, 0.5};
}

void TestBaselines::estimatedSpeed()
{
    QFETCH(QString, policy);
    QFETCH(double, avgJct);
    QFETCH(double, makespan);
    QFETCH(int, completed);
    QFETCH(QList<double>, rewards);
    Scenario s;
    s.profiles = {profile("m", {2, 0}, {2, 0}, minPw, [](int p, int w) { return 1.0 / (p * w); })};
    s.jobs = {{1, 0, "m", 2.0, {}}};
    s.options = options(2, 2);
    checkResult(run(policy.toStdString(), s), avgJct, makespan, completed, rewards);
}

// Three nodes (24 CPU), tasks of 2 CPU, best (2,2) = 8 CPU per job: three jobs always fit.
// Jobs 2, 3, 5 epochs at slots 0, 0, 1 at 2 epochs/slot: JCT 1, 1.5, 2.5 -> 5/3.
void TestBaselines::bestConfigMatchesLowerBound()
{
    Scenario s;
    s.nodes = 3;
    s.profiles = {profile("m", {2, 0}, {2, 0}, minPw)};
    s.jobs = {{1, 0, "m", 2.0, {}}, {2, 0, "m", 3.0, {}}, {3, 1, "m", 5.0, {}}};
    s.options = options(2, 2);
    const RunResult r = run("best-config", s);
    const double bound = lowerBoundAvgJct(ClusterSpec{3, {8, 8}}, ProfileSet(s.profiles),
                                          Trace{"t", s.jobs}, s.options);
    QVERIFY(near(bound, 5.0 / 3));
    QVERIFY(near(r.lowerBoundAvgJct, bound));
    QVERIFY(near(r.avgJct, bound));
    QVERIFY(near(r.makespan, 3.5));
}

// Two nodes of 8 CPU, caps 2/2, speeds (1,1) 1, (1,2) 2.5, (2,1) 3, (2,2) 4 for both types.
// A (type a: worker [2,0], PS [1,0], 4 epochs, time 4/4 = 1) goes first and gets (2,2),
// placed W n0 (2), P n1 (1), W n1 (3), P n0 (3): 5 + 5 CPU left.
// B (type b: worker [4,0], PS [2,0], 8 epochs, time 2): (2,2) needs 12 > 10 CPU: no.
// (2,1) needs 8: W n0 (7), P n1 (5), P n1 (7) -> fits (the pair's second worker would not).
void TestBaselines::bestConfigContended()
{
    const std::map<std::pair<int, int>, double> table{
        {{1, 1}, 1.0}, {{1, 2}, 2.5}, {{2, 1}, 3.0}, {{2, 2}, 4.0}};
    auto f = [table](int p, int w) {
        const auto it = table.find({p, w});
        return it != table.end() ? it->second : 0.0;
    };
    Scenario s;
    s.nodes = 2;
    s.profiles = {profile("a", {2, 0}, {1, 0}, f), profile("b", {4, 0}, {2, 0}, f)};
    s.jobs = {{1, 0, "a", 4.0, {}}, {2, 0, "b", 8.0, {}}};
    s.options = options(2, 2);
    Simulator sim(ClusterSpec{s.nodes, {8, 8}}, ProfileSet(s.profiles), Trace{"t", s.jobs},
                  s.options);
    auto scheduler = makeScheduler("best-config");
    scheduler->reset();
    sim.step(*scheduler);
    const JobState &a = sim.jobs()[0];
    const JobState &b = sim.jobs()[1];
    QCOMPARE(a.ps, 2);
    QCOMPARE(a.workers, 2);
    QCOMPARE(b.ps, 2);
    QCOMPARE(b.workers, 1);
    // A: W n0, P n1, W n1, P n0; B: W n0, P n1, P n1.
    const std::vector<TaskPlacement> aTasks{{0, TaskRole::Worker}, {1, TaskRole::Ps},
                                            {1, TaskRole::Worker}, {0, TaskRole::Ps}};
    const std::vector<TaskPlacement> bTasks{{0, TaskRole::Worker}, {1, TaskRole::Ps},
                                            {1, TaskRole::Ps}};
    QVERIFY(a.tasks == aTasks);
    QVERIFY(b.tasks == bTasks);
    // A done at 1.0; B 3 in slot 0, then (2,2) = 4: 5 left -> 1 left after slot 1 ->
    // 1/4 of slot 2: 2.25. Average (1 + 2.25) / 2 = 1.625.
    while (!sim.done())
        sim.step(*scheduler);
    const RunResult r = sim.result();
    QVERIFY(near(r.avgJct, 1.625));
    QVERIFY(near(r.makespan, 2.25));
}

void TestBaselines::capsAndDeterminism_data()
{
    QTest::addColumn<QString>("policy");
    for (const char *name : kAllPolicies)
        QTest::newRow(name) << QString::fromLatin1(name);
}

// Random trace on 4 nodes, caps 3 workers / 2 PSs, three model shapes: no job ever holds
// more than the caps, and two runs give identical results.
void TestBaselines::capsAndDeterminism()
{
    QFETCH(QString, policy);
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> arrival(0, 5), model(0, 2);
    std::uniform_real_distribution<double> epochs(1.0, 30.0);
    Scenario s;
    s.nodes = 4;
    s.profiles = {
        profile("g", {2, 4}, {2, 0}, [](int p, int w) { return w * p / (1.0 + 0.2 * w * w); }),
        profile("c", {2, 0}, {2, 0}, [](int p, int w) { return std::sqrt(p * w); },
                [](int p, int w) { return 0.8 * std::sqrt(p * w) + 0.1 * p; }),
        profile("b", {3, 2}, {1, 0}, [](int p, int w) { return w / (1.0 + w / (2.0 * p)); })};
    const char *names[] = {"g", "c", "b"};
    for (int id = 1; id <= 12; ++id)
        s.jobs.push_back({id, arrival(rng), names[model(rng)], epochs(rng), {}});
    s.options = options(3, 2, 400);

    auto once = [&] {
        Simulator sim(ClusterSpec{s.nodes, {8, 8}}, ProfileSet(s.profiles), Trace{"t", s.jobs},
                      s.options);
        auto scheduler = makeScheduler(policy.toStdString());
        scheduler->reset();
        while (!sim.done()) {
            sim.step(*scheduler);
            for (const JobState &j : sim.jobs()) {
                if (j.workers > 3 || j.ps > 2)
                    return RunResult{};
            }
        }
        return sim.result();
    };
    const RunResult first = once();
    QCOMPARE(first.jobs, 12);
    QCOMPARE(first.completed, 12);
    const RunResult second = once();
    QCOMPARE(second.jcts, first.jcts);
    QCOMPARE(second.rewards, first.rewards);
}

QTEST_GUILESS_MAIN(TestBaselines)
#include "tst_baselines.moc"
