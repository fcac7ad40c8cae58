// A short seeded SL run on dl2-small: the loss falls and the policy agrees with its teacher
// well above chance; the checkpoint and curves are written and load back.
#include "checkpoint.h"
#include "learner.h"
#include "sltrainer.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace dl2;

class TestSlTrainer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { setTorchThreads(1); }
    void lossFallsAndAgrees()
    {
        QTemporaryDir dir;
        SlOptions o;
        o.scenario = "dl2-small";
        o.teacher = "fifo";
        o.kind = PolicyKind::Dl2Plus;
        o.steps = 120;
        o.seed = 3;
        o.validateEvery = 40;
        o.validationSeeds = {100};
        o.output = dir.path().toStdString() + "/sl.dl2ckpt";
        const TrainResult r = SlTrainer(o).run();
        QCOMPARE(r.curve.size(), size_t(3));
        qInfo("SL: loss %.3f -> %.3f (validation %.3f -> %.3f), agreement %.3f (chance %.3f), val JCT %.2f (teacher %.2f)",
              r.curve.front().trainLoss, r.curve.back().trainLoss, r.curve.front().validationLoss,
              r.curve.back().validationLoss, r.agreement, r.chanceAgreement, r.bestValidationAvgJct,
              r.teacherValidationAvgJct);
        QVERIFY(r.curve.back().validationLoss < r.curve.front().validationLoss);
        QVERIFY(r.curve.back().trainLoss < r.curve.front().trainLoss);
        QVERIFY(r.agreement > 0.35);
        QVERIFY(r.agreement > 4 * r.chanceAgreement);
        const Checkpoint c = readCheckpoint(o.output, PolicyKind::Dl2Plus);
        QCOMPARE(c.info.trainer, std::string("sl"));
        QCOMPARE(c.info.teacher, std::string("fifo"));
        QVERIFY(QFile::exists(QString::fromStdString(o.output + ".curves.csv")));
        QVERIFY(QFile::exists(QString::fromStdString(o.output + ".curves.json")));
    }
};

QTEST_GUILESS_MAIN(TestSlTrainer)
#include "tst_sltrainer.moc"
