// The actor-critic repairs a deliberately poor warm-up where the same run with its advantages
// shuffled does not, with each credit that scores decisions by what they did: real training
// runs, a minute or more each (label "slow": the Release stage runs them, the sanitizer stage
// does not; the same code paths run there in tst_rltrainer's short runs).
#include "curves.h"
#include "learner.h"
#include "rltestutil.h"
#include "rltrainer.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace dl2;
using namespace dl2::test;

namespace {
constexpr int kRepairSteps = 300;
constexpr int kEpisodeRepairRounds = 80;
constexpr int kVineRepairSteps = 300;
}

class TestRlRepair : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { setTorchThreads(1); }

    // A poor warm-up: a network whose PS outputs are biased up, so that jobs get PSs instead
    // of workers. The actor-critic must bring the validation JCT of the deployed, sampled
    // policy well down; the same run with its advantages shuffled across each batch must
    // not. Split credit (a PS that adds nothing to its job's progress gets less than a
    // worker that does) in a few hundred slots; episode-job credit (rollouts of one trace,
    // each task credited with its job's completion against the rollouts' mean) in a few
    // dozen rounds of rollouts; vine credit (8 branches of each slot of a trunk rollout,
    // scored by the JCT still to come against their mean) in a few hundred slots.
    // The two episode credits train without the entropy bonus, which alone moves a policy
    // this biased towards a repair (controls included).
    void actorCriticRepairsAPoorWarmUp_data()
    {
        QTest::addColumn<QString>("credit");
        QTest::addColumn<int>("steps");
        QTest::addColumn<int>("envs");
        QTest::addColumn<double>("learningRate");
        QTest::newRow("split") << QStringLiteral("split") << kRepairSteps << 1 << 1e-4;
        QTest::newRow("episode-job") << QStringLiteral("episode-job") << kEpisodeRepairRounds << 8 << 1e-3;
        QTest::newRow("vine") << QStringLiteral("vine") << kVineRepairSteps << 8 << 3e-4;
    }
    void actorCriticRepairsAPoorWarmUp()
    {
        QFETCH(QString, credit);
        QFETCH(int, steps);
        QFETCH(int, envs);
        QFETCH(double, learningRate);
        QTemporaryDir dir;
        const std::string init = writePoorWarmUp(dir, smallDl2());

        auto run = [&](bool control) {
            RlOptions o;
            o.scenario = "dl2-small";
            o.init = init;
            o.credit = credit.toStdString();
            o.envs = envs;
            o.episodeKeep = 0.1;
            o.learningRate = learningRate;
            // The episode credits without the entropy bonus: at their learning rates it pulls
            // the PS bias down by itself, so their controls improved too (vine at 1e-3 with
            // it: 31.4 against a control of 32.9; without it vine at 1e-3 learns nothing,
            // at 1e-4 too slowly, 34.3 in 300 slots).
            if (credit != QStringLiteral("split"))
                o.entropyWeight = 0.0;
            o.steps = steps;
            o.criticWarmup = 20;
            o.validateEvery = steps / 6;
            o.validationSeeds = {100, 101, 102, 103};
            o.control = control;
            o.output = dir.path().toStdString() + (control ? "/control.dl2ckpt" : "/real.dl2ckpt");
            return RlTrainer(o).run();
        };
        const TrainResult real = run(false);
        const TrainResult control = run(true);
        const double start = real.curve.front().validationAvgJct;
        qInfo("poor warm-up %.2f: actor-critic best %.2f, control best %.2f", start,
              real.bestValidationAvgJct, control.bestValidationAvgJct);
        QCOMPARE(control.curve.front().validationAvgJct, start);
        QVERIFY2(real.bestValidationAvgJct < 0.9 * start,
                 qPrintable(QStringLiteral("%1 -> %2").arg(start).arg(real.bestValidationAvgJct)));
        QVERIFY2(real.bestValidationAvgJct < control.bestValidationAvgJct - 0.5 * (start - real.bestValidationAvgJct),
                 qPrintable(QStringLiteral("real %1, control %2").arg(real.bestValidationAvgJct).arg(control.bestValidationAvgJct)));
        const Checkpoint kept = readCheckpoint(real.checkpoint);
        QCOMPARE(kept.spec.decode, Decode::Sample);
        QCOMPARE(kept.info.credit, credit.toStdString());
        QVERIFY(kept.hasOptimizer);
        // Split credit: the repair is the one the counterfactual points at, fewer PS decisions
        // than at the start. (Episode credit is free to repair it otherwise.)
        if (credit != QStringLiteral("split"))
            return;
        const auto firstMix = std::find_if(real.curve.begin(), real.curve.end(),
                                           [](const CurvePoint &p) { return p.psShare >= 0; });
        QVERIFY(firstMix != real.curve.end());
        QVERIFY2(real.curve.back().psShare < firstMix->psShare,
                 qPrintable(QStringLiteral("PS share %1 -> %2").arg(firstMix->psShare).arg(real.curve.back().psShare)));
    }
};

QTEST_GUILESS_MAIN(TestRlRepair)
#include "tst_rlrepair.moc"
