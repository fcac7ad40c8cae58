// DecisionGate: modes, rules, deadline defaults, override validation, undo via QUndoStack.
#include "decisiongate.h"
#include "error.h"
#include "gateundo.h"

#include <QTest>
#include <QUndoStack>

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
        DecisionGate gate(o);
        gate.open(fixture(), sizes({{1, 2}, {3, 3}, {2, 2}}), "run");
        QCOMPARE(gate.pending(), 2);
        QVERIFY_THROWS_EXCEPTION(Error, gate.commit());
        gate.reject("run/5/1");
        QCOMPARE(gate.resolveDeadline(), 0); // not yet
        QTest::qWait(100);
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
