// Short RL runs (both kinds, with ablations and two environments): losses stay finite, the
// run does not crash, and the kept checkpoint loads. ES fine-tuning repairs a sabotaged policy.
#include "checkpoint.h"
#include "curves.h"
#include "learner.h"
#include "registerpolicies.h"
#include "rltrainer.h"
#include "scenario.h"

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

    // ES fine-tuning must find its way back when the stop output of a good policy is
    // sabotaged (it then stops too early and leaves jobs without tasks): validation improves,
    // the stop bias comes down, the kept checkpoint is the one measured, and the run does not
    // depend on the number of threads.
    void esRepairsASabotagedStopBias()
    {
        QTemporaryDir dir;
        const Checkpoint shipped = readCheckpoint(shippedPolicyPath(PolicyKind::Dl2Plus, "dl2-reference"));
        ParameterSet sabotaged = *shipped.parameters;
        sabotaged["policy.stop2.bias"].data[0] += 8.0f;
        const std::string init = dir.path().toStdString() + "/sabotaged.dl2ckpt";
        writeCheckpoint(init, shipped.spec, shipped.info, sabotaged);

        auto run = [&](int threads, const std::string &name) {
            RlOptions o;
            o.algorithm = "es";
            o.scenario = "dl2-small";
            o.init = init;
            o.kind = PolicyKind::Dl2Plus;
            o.esScope = "bias";
            o.esPairs = 3;
            o.esTraces = 2;
            o.esSigma = 1.0;
            o.learningRate = 0.5;
            o.steps = 12;
            o.validateEvery = 4;
            o.validationSeeds = {100, 101};
            o.threads = threads;
            o.output = dir.path().toStdString() + "/" + name;
            return RlTrainer(o).run();
        };
        const TrainResult r = run(2, "es2.dl2ckpt");
        const double start = r.curve.front().validationAvgJct;
        const double clean = evaluatePolicy(scenarioByName("dl2-small"), shipped.spec, shipped.parameters, {100, 101}, 1);
        qInfo("intact %.3f, sabotaged %.3f -> best %.3f at step %lld", clean, start, r.bestValidationAvgJct, r.bestStep);
        QVERIFY2(start > 1.03 * clean, "the sabotage must hurt for this test to mean anything");
        // ES closes at least half of the gap the sabotage opened.
        QVERIFY2(r.bestValidationAvgJct < start - 0.5 * (start - clean),
                 qPrintable(QStringLiteral("%1 -> %2 (intact %3)").arg(start).arg(r.bestValidationAvgJct).arg(clean)));
        QVERIFY(r.bestStep > 0);
        const Checkpoint kept = readCheckpoint(r.checkpoint);
        QCOMPARE(kept.info.trainer, std::string("rl-es"));
        QCOMPARE(kept.info.esPairs, 3);
        QCOMPARE(kept.info.esTraces, 2);
        QCOMPARE(kept.info.esSigma, 1.0);
        QCOMPARE(kept.info.esScope, std::string("bias"));
        QVERIFY(kept.parameters->at("policy.stop2.bias").data[0] < sabotaged.at("policy.stop2.bias").data[0]);
        const double again = evaluatePolicy(scenarioByName("dl2-small"), kept.spec, kept.parameters, {100, 101}, 1);
        QCOMPARE(again, r.bestValidationAvgJct);

        const TrainResult one = run(1, "es1.dl2ckpt");
        QCOMPARE(one.curve.size(), r.curve.size());
        for (size_t i = 0; i < r.curve.size(); ++i)
            QCOMPARE(one.curve[i].validationAvgJct, r.curve[i].validationAvgJct);
    }

    void esNeedsAnInitialPolicyAndAKnownScope()
    {
        RlOptions o;
        o.algorithm = "es";
        o.scenario = "dl2-small";
        QVERIFY_THROWS_EXCEPTION(std::exception, RlTrainer(o).run());
        o.init = shippedPolicyPath(PolicyKind::Dl2Plus, "dl2-reference");
        o.kind = PolicyKind::Dl2Plus;
        o.esScope = "everything";
        QVERIFY_THROWS_EXCEPTION(std::exception, RlTrainer(o).run());
        o.esScope = "head";
        o.algorithm = "genetic";
        QVERIFY_THROWS_EXCEPTION(std::exception, RlTrainer(o).run());
    }

    void unknownAblationIsAnError()
    {
        QVERIFY_THROWS_EXCEPTION(std::exception, checkAblations({"no-brain"}));
    }
};

QTEST_GUILESS_MAIN(TestRlTrainer)
#include "tst_rltrainer.moc"
