// dl2 train sl --from-audit: the audit log keeps what a decision's state needs (schema 3), the
// recorded states rebuild exactly what the policy planned on, and the operators' overrides
// move the policy's proposal in the same states toward the operators' allocation.
#include "auditlog.h"
#include "checkpoint.h"
#include "decisiongate.h"
#include "error.h"
#include "fromaudit.h"
#include "learner.h"
#include "operatingloop.h"
#include "policyplanner.h"
#include "registerpolicies.h"
#include "simulatedconnector.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>
#include <map>

using namespace dl2;

namespace {

// Operates dl2-small for `slotCount` slots with the shipped dl2-plus; with `overridePs` > 0 the
// operator overrides every decision of the first `overrideSlots` slots to that many PSs
// (workers as proposed, at most 2). Returns the number of overrides.
int operate(const std::string &auditPath, int slotCount, int overridePs, int overrideSlots)
{
    SimulatedConnector cluster("dl2-small", 1);
    PolicyPlanner planner("dl2-plus");
    planner.setVersion("v0");
    DecisionGate gate({});
    AuditLog audit(auditPath);
    OperatingLoop loop(cluster, planner, gate, audit);
    int overrides = 0;
    loop.setOnOpen([&](DecisionGate &g) {
        if (overridePs <= 0 || g.slot() >= overrideSlots)
            return;
        const std::vector<GateEntry> entries = g.entries();
        for (const GateEntry &e : entries) {
            try {
                g.override(e.decision.id, overridePs, std::min(2, std::max(1, e.decision.to.workers)));
                ++overrides;
            } catch (const Error &) {
                // does not fit next to the others: the operator leaves it
            }
        }
    });
    loop.run(slotCount);
    return overrides;
}

} // namespace

class TestFromAudit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        registerBaselines();
        registerLearnedPolicies();
        setTorchThreads(1);
    }

    // The state recorded with each slot rebuilds what the policy planned on: the same policy
    // proposes exactly what the log says it proposed, for every decision.
    void recordedStatesRebuildTheProposals()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("a.db")).toStdString();
        operate(path, 8, 0, 0);
        AuditLog audit(path);
        const auto states = audit.slotStates(ProfileSet::reference());
        QCOMPARE(states.size(), size_t(8));
        std::map<std::string, Allocation> proposed;
        for (const auto &e : audit.events())
            if (e.kind == "proposed")
                proposed[e.decisionId] = allocationFromJson(
                    QJsonDocument::fromJson(QByteArray::fromStdString(e.after)).object());
        QVERIFY(proposed.size() >= 8);
        PolicyPlanner planner("dl2-plus");
        int checked = 0;
        for (const auto &st : states) {
            QCOMPARE(st.policy, std::string("dl2-plus"));
            QCOMPARE(st.policyVersion, std::string("v0"));
            if (st.slot < 7)
                QVERIFY(st.reward.has_value()); // reported with the next snapshot
            const std::vector<Allocation> again = planner.plan(st.view);
            for (size_t i = 0; i < st.view.jobs.size(); ++i) {
                const auto p = proposed.find(
                    ResizeDecision::makeId(st.runId, st.slot, st.view.jobs[i].id));
                if (p == proposed.end())
                    continue;
                QVERIFY(again[i].sameSize(p->second));
                ++checked;
            }
        }
        QCOMPARE(checked, int(proposed.size()));
        for (const auto &r : audit.decisions())
            QCOMPARE(r.policyVersion, std::string("v0"));
    }

    // Operators who always cap new jobs at 4 PSs: after --from-audit the policy proposes far
    // fewer PSs in the very states they overrode, and the report counts the decisions by kind.
    void overridesMoveTheProposal()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("o.db")).toStdString();
        const int overrides = operate(path, 12, 4, 12);
        QVERIFY(overrides >= 20);
        AuditSlOptions o;
        o.audit = path;
        o.output = dir.filePath(QStringLiteral("fa.dl2ckpt")).toStdString();
        o.steps = 300;
        const AuditSlReport r = trainFromAudit(o);
        QCOMPARE(r.slotsWithState, 12);
        QCOMPARE(r.slotsUsed, 12);
        QCOMPARE(r.overridden, overrides);
        QCOMPARE(r.rejected, 0);
        QVERIFY(r.approved >= 0);
        QVERIFY(r.samples > 1000);
        QCOMPARE(r.overrideMatchBefore, 0.0); // the policy never proposed 4 PSs on its own
        QVERIFY2(r.overrideDistanceBefore > 8.0, qPrintable(QString::number(r.overrideDistanceBefore)));
        // The proposal moved toward the operators' allocation by at least a quarter.
        QVERIFY2(r.overrideDistanceAfter < 0.75 * r.overrideDistanceBefore,
                 qPrintable(QString::fromStdString(r.toText())));
        qInfo("%s", r.toText().c_str());
        QVERIFY(r.lossAfter < r.lossBefore);
        const Checkpoint c = readCheckpoint(o.output);
        QCOMPARE(c.spec.kind, PolicyKind::Dl2Plus);
        QCOMPARE(c.info.trainer, std::string("sl"));
    }

    void refusesALogWithoutStates()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("empty.db")).toStdString();
        { AuditLog log(path); }
        AuditSlOptions o;
        o.audit = path;
        try {
            trainFromAudit(o);
            QFAIL("a log without slot states was accepted");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("holds no slot states") != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestFromAudit)
#include "tst_fromaudit.moc"
