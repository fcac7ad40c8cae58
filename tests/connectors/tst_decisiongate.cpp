// DecisionGate: modes, rules, deadline defaults, override validation, undo via QUndoStack.
#include "decisiongate.h"
#include "error.h"
#include "gateundo.h"
#include "simulatedconnector.h"
#include "targetplacement.h"

#include <QTest>
#include <QUndoStack>
#include <random>

using namespace dl2;

namespace {

// Four nodes of 8 CPU + 8 GPU slots; three resnet-50 jobs (worker [2,4], PS [2,0]).
ClusterView fixture()
{
    ClusterView v;
    v.scenario = "inline";
    v.nextSlot = 5;
    v.nodes = 4;
    v.nodeCapacity = {8, 8};
    v.maxWorkers = 4;
    v.maxPs = 4;
    for (int id : {1, 2, 3}) {
        JobState j;
        j.id = id;
        j.type = 0;
        j.status = JobStatus::Running;
        j.ps = 2;
        j.workers = 2;
        v.jobs.push_back(j);
        v.targets.push_back({2, 2, {}});
    }
    return v;
}

std::vector<Allocation> sizes(std::initializer_list<std::pair<int, int>> list)
{
    std::vector<Allocation> out;
    for (auto [ps, w] : list)
        out.push_back({ps, w, {}});
    return out;
}

int approvedCount(const DecisionGate &g)
{
    int n = 0;
    for (const auto &e : g.entries())
        n += e.verdict == GateEntry::Verdict::Approved;
    return n;
}

} // namespace

class TestDecisionGate : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void diffOnlyChangedJobs()
    {
        DecisionGate gate({});
        ClusterView v = fixture();
        v.jobs[2].status = JobStatus::Finished;
        const auto d = gate.diff(v, sizes({{2, 2}, {1, 2}, {4, 4}}), "run");
        QCOMPARE(d.size(), size_t(1)); // job 1 unchanged, job 3 finished
        QCOMPARE(d[0].id, std::string("run/5/2"));
        QCOMPARE(d[0].from.ps, 2);
        QCOMPARE(d[0].to.ps, 1);
        QVERIFY(d[0].speedBefore > 0);
        QVERIFY(d[0].isScaleDown());
    }

    void automaticApprovesEverything()
    {
        DecisionGate gate({});
        QCOMPARE(gate.open(fixture(), sizes({{1, 2}, {3, 3}, {2, 2}}), "run"), 2);
        QCOMPARE(gate.pending(), 0);
        QCOMPARE(gate.commit().size(), size_t(2));
        QVERIFY(!gate.isOpen());
    }

    void rules_data()
    {
        QTest::addColumn<QString>("rules");
        QTest::addColumn<QList<int>>("approvedJobs");
        // Proposals: job 1 scales down by 1, job 2 grows by 2, job 3 grows by 4.
        QTest::newRow("none") << QStringLiteral("{}") << QList<int>{};
        QTest::newRow("scale-down")
            << QStringLiteral(R"({"approve_scale_down": true})") << QList<int>{1};
        QTest::newRow("max 2 tasks")
            << QStringLiteral(R"({"max_task_change": 2})") << QList<int>{1, 2};
        QTest::newRow("named job") << QStringLiteral(R"({"jobs": [3]})") << QList<int>{3};
        QTest::newRow("all rules")
            << QStringLiteral(R"({"approve_scale_down": true, "max_task_change": 0, "jobs": [2]})")
            << QList<int>{1, 2};
    }
    void rules()
    {
        QFETCH(QString, rules);
        QFETCH(QList<int>, approvedJobs);
        DecisionGate::Options o;
        o.mode = GateMode::Rules;
        o.rules = GateRules::parse(rules.toStdString(), "inline");
        DecisionGate gate(o);
        gate.open(fixture(), sizes({{1, 2}, {3, 3}, {4, 4}}), "run");
        QList<int> got;
        for (const auto &e : gate.entries())
            if (e.verdict == GateEntry::Verdict::Approved)
                got.append(e.decision.job);
        QCOMPARE(got, approvedJobs);
        QCOMPARE(gate.pending(), 3 - int(approvedJobs.size()));
    }

    void rulesRejectUnknownKeys()
    {
        try {
            GateRules::parse(R"({"approve_everything": true})", "rules.json");
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY(QByteArray(e.what()).contains("rules.json: unknown rule 'approve_everything'"));
        }
        QVERIFY_THROWS_EXCEPTION(Error, GateRules::parse(R"({"max_task_change": -1})", "r"));
        QVERIFY_THROWS_EXCEPTION(Error, GateRules::parse("[1, 2]", "r"));
    }

    void reviewDeadlineDefaults_data()
    {
        QTest::addColumn<bool>("apply");
        QTest::newRow("keep current") << false;
        QTest::newRow("apply") << true;
    }
    void reviewDeadlineDefaults()
    {
        QFETCH(bool, apply);
        DecisionGate::Options o;
        o.mode = GateMode::Review;
        o.reviewDeadline = std::chrono::milliseconds(50);
        o.atDeadline = apply ? DeadlineDefault::Apply : DeadlineDefault::KeepCurrent;
        auto now = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
        o.clock = [&now] { return now; };
        DecisionGate gate(o);
        gate.open(fixture(), sizes({{1, 2}, {3, 3}, {2, 2}}), "run");
        QCOMPARE(gate.pending(), 2);
        QVERIFY_THROWS_EXCEPTION(Error, gate.commit());
        gate.reject("run/5/1");
        QCOMPARE(gate.resolveDeadline(), 0); // not yet
        now += std::chrono::milliseconds(49);
        QCOMPARE(gate.resolveDeadline(), 0); // 1 ms before the deadline
        now += std::chrono::milliseconds(1);
        QCOMPARE(gate.resolveDeadline(), 1);
        const auto approved = gate.commit();
        QCOMPARE(approved.size(), size_t(apply ? 1 : 0));
        QCOMPARE(gate.entries()[0].reason, std::string("operator"));
        QCOMPARE(gate.entries()[1].reason, std::string("deadline"));
    }

    void overrideIsValidated()
    {
        DecisionGate::Options o;
        o.mode = GateMode::Review;
        DecisionGate gate(o);
        gate.open(fixture(), sizes({{1, 2}, {3, 3}, {2, 2}}), "run");
        // Caps are 4 PSs / 4 workers.
        QVERIFY_THROWS_EXCEPTION(Error, gate.override("run/5/2", 5, 1));
        QVERIFY_THROWS_EXCEPTION(Error, gate.override("run/5/2", 1, -1));
        // 4 workers need 16 GPU slots; with the others at 2 workers each: 8 + 8 + 16 > ... fits
        // (32 GPU slots), but 4 + 4 workers for jobs 1 and 2 plus job 3's 2 do not (40 > 32).
        gate.override("run/5/2", 1, 4);
        try {
            gate.override("run/5/1", 1, 4);
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY(QByteArray(e.what()).contains("GPU slots"));
        }
        QVERIFY_THROWS_EXCEPTION(Error, gate.approve("run/5/99"));
        const auto &e = gate.entries()[1];
        QVERIFY(e.verdict == GateEntry::Verdict::Approved);
        QCOMPARE(e.decision.to.workers, 4);
        QVERIFY(e.decision.speedAfter > 0);
    }

    // Per-node fit: the cluster's totals would hold the override, the nodes cannot, under the
    // cluster's placement rule (least-loaded: a task goes to the least-loaded node or fails).
    void overrideMustFitOnTheNodes()
    {
        ClusterView v = fixture();
        v.nodes = 2; // 16 CPU + 16 GPU slots in all
        v.jobs.resize(2);
        v.targets.resize(2);
        // Job 1 runs 4 PSs pinned to node 0: its 8 CPU slots are full (load 8).
        v.jobs[0].ps = 4;
        v.jobs[0].workers = 0;
        v.targets[0] = {
            4, 0, {{0, TaskRole::Ps}, {0, TaskRole::Ps}, {0, TaskRole::Ps}, {0, TaskRole::Ps}}};
        v.jobs[1].ps = 1;
        v.jobs[1].workers = 1;
        v.targets[1] = {1, 1, {}};
        DecisionGate::Options o;
        o.mode = GateMode::Review;
        auto refusal = [](DecisionGate &gate, int ps, int workers) {
            try {
                gate.override("run/5/2", ps, workers);
            } catch (const Error &e) {
                return QByteArray(e.what());
            }
            return QByteArray();
        };
        {
            DecisionGate gate(o);
            QCOMPARE(gate.open(v, sizes({{4, 0}, {1, 2}}), "run"), 1);
            // Two workers go to node 1 (the least loaded while it has at most one).
            QCOMPARE(refusal(gate, 0, 2), QByteArray());
            // A third worker: 14 CPU and 12 GPU slots in all, within the totals, but node 1's
            // GPU slots are full and node 0's CPU slots are.
            QByteArray why = refusal(gate, 0, 3);
            QVERIFY2(why.contains("0 PS / 3 workers does not fit on the nodes") &&
                         why.contains("least-loaded placement") &&
                         why.contains("would get only 0 PS / 2 workers"),
                     why.constData());
            // 1 PS + 2 workers: the bundle goes to node 1 (load 0 -> 8); the second worker
            // then goes to node 0 (load 8, by id first among equals), which has no CPU left,
            // although node 1 would have had room: the reference rule fails there.
            why = refusal(gate, 1, 2);
            QVERIFY2(why.contains("would get only 1 PS / 1 workers"), why.constData());
            QCOMPARE(gate.entries()[0].decision.to.workers, 2); // refusals changed nothing
            QCOMPARE(gate.entries()[0].decision.to.ps, 0);
        }
        // The same override under first-fit placement (a task goes to the least-loaded node
        // it fits on): node 1 takes the second worker.
        v.placement = PlacementRule::FirstFit;
        DecisionGate gate(o);
        gate.open(v, sizes({{4, 0}, {1, 2}}), "run");
        QCOMPARE(refusal(gate, 1, 2), QByteArray());
        QVERIFY(refusal(gate, 0, 3).contains("first-fit placement"));
    }

    // An override that fits itself but takes the room of a job placed after it is refused
    // too, naming that job.
    void overrideMustNotPushOutAnotherJob()
    {
        ClusterView v = fixture();
        v.nodes = 2;
        v.jobs.resize(2);
        v.targets.resize(2);
        for (int k : {0, 1}) { // both at 1 PS + 1 worker; job 1 is placed first
            v.jobs[k].ps = 1;
            v.jobs[k].workers = 1;
            v.targets[k] = {1, 1, {}};
        }
        DecisionGate::Options o;
        o.mode = GateMode::Review;
        DecisionGate gate(o);
        QCOMPARE(gate.open(v, sizes({{2, 2}, {1, 1}}), "run"), 1);
        // Job 1 at 4 PSs + 1 worker: its bundle fills half of node 0 (load 8), its other three
        // PSs go to node 1 (load 6). Job 2's bundle then goes to node 1, the least loaded,
        // whose 2 free CPU slots cannot take it: job 2 would stop, although node 0 has room
        // (14 CPU and 8 GPU slots in all, within 16 + 16).
        try {
            gate.override("run/5/1", 4, 1);
            QFAIL("an override that pushes out job 2 was accepted");
        } catch (const Error &e) {
            QVERIFY2(
                QByteArray(e.what()).contains(
                    "leaves no room on the nodes for job 2: under the cluster's least-loaded "
                    "placement (a task goes to the least-loaded node, or fails when it does "
                    "not fit there) it would get 0 PS / 0 workers instead of 1 PS / 1 workers"),
                e.what());
        }
        gate.override("run/5/1", 2, 2); // fits, and so does job 2
        QCOMPARE(gate.entries()[0].decision.to.workers, 2);
    }

    // The gate's check and the cluster use one placement rule: on the simulated cluster, with
    // targets large enough that many do not fit, every job runs exactly what
    // placementShortfalls() predicted (its whole target, or the shortfall's allocation).
    void placementCheckMatchesTheSimulatedCluster()
    {
        SimulatedConnector sim("dl2-small", 3);
        std::mt19937 random(7);
        int predictedShort = 0, checked = 0;
        for (int slot = 0; slot < 12; ++slot) {
            ClusterView v = sim.snapshot();
            std::vector<ResizeDecision> decisions;
            for (const JobState &j : v.jobs) {
                if (j.status == JobStatus::Finished)
                    continue;
                ResizeDecision d;
                d.id = ResizeDecision::makeId("fit", slot, j.id);
                d.slot = slot;
                d.job = j.id;
                d.to = {int(random() % (v.maxPs + 1)), int(random() % (v.maxWorkers + 1)), {}};
                decisions.push_back(d);
            }
            for (const auto &a : sim.apply(decisions))
                QVERIFY(a.status == Acknowledgment::Status::Applied);
            v = sim.snapshot();
            std::map<int, Allocation> targets;
            for (size_t k = 0; k < v.jobs.size(); ++k)
                if (v.jobs[k].status != JobStatus::Finished)
                    targets[v.jobs[k].id] = v.targets[k];
            std::map<int, Allocation> expected = targets;
            for (const auto &s : placementShortfalls(v, targets, ProfileSet::reference())) {
                expected[s.job] = s.placed;
                ++predictedShort;
            }
            QVERIFY(sim.advanceSlot(slot));
            for (const JobState &j : sim.slotSnapshot().jobs) {
                const auto it = expected.find(j.id);
                if (it == expected.end())
                    continue;
                QCOMPARE(j.ps, it->second.ps);
                QCOMPARE(j.workers, it->second.workers);
                ++checked;
            }
        }
        QVERIFY(checked > 100);
        QVERIFY(predictedShort > 10); // the targets did not all fit: the check was exercised
    }

    void undoUntilCommit()
    {
        QUndoStack stack;
        DecisionGate::Options o;
        o.mode = GateMode::Review;
        DecisionGate gate(o);
        UndoStackSink sink(gate, &stack);
        gate.open(fixture(), sizes({{1, 2}, {3, 3}, {1, 1}}), "run");
        const auto initial = gate.entries();
        gate.approve("run/5/1");
        gate.override("run/5/2", 1, 3);
        gate.reject("run/5/3");
        QCOMPARE(stack.count(), 3);
        QCOMPARE(approvedCount(gate), 2);
        stack.undo();
        stack.undo();
        QCOMPARE(approvedCount(gate), 1);
        QCOMPARE(gate.entries()[1].decision.to.ps, 3); // proposal restored
        stack.undo();
        QCOMPARE(gate.entries(), initial);
        stack.redo();
        QCOMPARE(approvedCount(gate), 1);
        gate.approveAll(); // one command for the rest
        QCOMPARE(stack.count(), 2);
        QCOMPARE(approvedCount(gate), 3);
        stack.undo();
        QCOMPARE(gate.pending(), 2);
        gate.approveAll();
        QCOMPARE(gate.commit().size(), size_t(3));
        QCOMPARE(stack.count(), 0); // nothing undoable after the commit
    }

    void withoutStackCommandsExecuteDirectly()
    {
        DecisionGate::Options o;
        o.mode = GateMode::Review;
        DecisionGate gate(o);
        gate.open(fixture(), sizes({{1, 2}, {3, 3}, {2, 2}}), "run");
        gate.approveAll();
        QCOMPARE(gate.pending(), 0);
        QCOMPARE(gate.commit().size(), size_t(2));
        QVERIFY_THROWS_EXCEPTION(Error, gate.approve("run/5/1")); // batch closed
    }
};

QTEST_GUILESS_MAIN(TestDecisionGate)
#include "tst_decisiongate.moc"
