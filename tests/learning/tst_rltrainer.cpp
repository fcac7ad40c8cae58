// Short RL runs (both kinds, with ablations and two environments): losses stay finite, the
// run does not crash, and the kept checkpoint loads.
#include "checkpoint.h"
#include "learner.h"
#include "rltrainer.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace dl2;

class TestRlTrainer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { setTorchThreads(1); }
    void shortRun_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("ablation");
        QTest::addColumn<int>("envs");
        QTest::addColumn<QString>("replay");
        QTest::newRow("dl2-prioritised") << QStringLiteral("dl2") << QString() << 1 << QStringLiteral("prioritised");
        QTest::newRow("dl2-plus-2envs") << QStringLiteral("dl2-plus") << QString() << 2 << QStringLiteral("uniform");
        QTest::newRow("no-value") << QStringLiteral("dl2") << QStringLiteral("no-value") << 1 << QStringLiteral("uniform");
        QTest::newRow("per-action") << QStringLiteral("dl2-plus") << QStringLiteral("per-action-reward") << 1 << QStringLiteral("uniform");
        QTest::newRow("no-replay-no-exploration") << QStringLiteral("dl2") << QStringLiteral("no-replay,no-exploration") << 1 << QStringLiteral("uniform");
    }
    void shortRun()
    {
        QFETCH(QString, kind);
        QFETCH(QString, ablation);
        QFETCH(int, envs);
        QFETCH(QString, replay);
        QTemporaryDir dir;
        RlOptions o;
        o.scenario = "dl2-small";
        o.kind = policyKindFromString(kind.toStdString());
        PolicySpec spec = defaultSpec(o.kind, 20, 8);
        spec.hidden1 = spec.hidden2 = 32;
        o.spec = spec;
        o.envs = envs;
        o.steps = 40;
        o.criticWarmup = 10;
        o.validateEvery = 20;
        o.validationSeeds = {100};
        o.replay = replayModeFromString(replay.toStdString());
        for (const QString &a : ablation.split(QLatin1Char(','), Qt::SkipEmptyParts))
            o.ablations.push_back(a.toStdString());
        o.output = dir.path().toStdString() + "/rl.dl2ckpt";
        const TrainResult r = RlTrainer(o).run();
        QVERIFY(r.curve.size() >= 3);
        for (const auto &p : r.curve) {
            QVERIFY(std::isfinite(p.trainLoss));
            QVERIFY(std::isfinite(p.valueLoss));
            QVERIFY(std::isfinite(p.entropy));
        }
        QVERIFY(r.bestValidationAvgJct > 0);
        const Checkpoint c = readCheckpoint(o.output, o.kind);
        QCOMPARE(c.info.trainer, std::string("rl"));
        QVERIFY(c.hasOptimizer);
    }

    void cancelKeepsCheckpoint()
    {
        QTemporaryDir dir;
        RlOptions o;
        o.scenario = "dl2-small";
        o.kind = PolicyKind::Dl2Plus;
        o.steps = 1000000;
        o.validationSeeds = {100};
        o.output = dir.path().toStdString() + "/rl.dl2ckpt";
        std::atomic<bool> cancel{false};
        const TrainResult r = RlTrainer(o).run([&](long long step, long long, const CurvePoint &) {
            if (step >= 20)
                cancel = true;
        }, &cancel);
        QVERIFY(r.cancelled);
        QVERIFY(readCheckpoint(o.output).parameters);
    }

    void unknownAblationIsAnError()
    {
        QVERIFY_THROWS_EXCEPTION(std::exception, checkAblations({"no-brain"}));
    }
};

QTEST_GUILESS_MAIN(TestRlTrainer)
#include "tst_rltrainer.moc"
