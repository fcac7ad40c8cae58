// The training curves model (parsing, tolerance, following a growing file, errors naming file
// and line) and the background training run (locating the trainer, progress, failure, and a
// real tiny `dl2 train rl` that finishes).

#include "stubprogram.h"
#include "trainingcurvesmodel.h"
#include "trainingrun.h"
#include "validationbaselines.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace dl2console;
using dl2console::test::writeScript;

class TestTrainingCurves : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parsesTrainerFile();
    void toleratesExtraAndMissingColumns();
    void followsGrowingFile();
    void partialLastLineWhileFollowing();
    void malformed_data();
    void malformed();
    void findsTrainCommand();
    void reportsProgressAndFailure();
    void realTrainingFinishes();
    void seedLists_data();
    void seedLists();
};

namespace {

// As the trainers write: a complete new file renamed over the old one.
void writeFile(const QString &path, const QByteArray &text)
{
    QSaveFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
    QVERIFY(f.commit());
}

const QByteArray kHeader =
    "step,seconds,train_loss,validation_loss,agreement,value_loss,entropy,reward,"
    "validation_avg_jct\n";

// RL rows: a validation at `step` every `every` rows, update statistics in between.
QByteArray rlRows(int from, int to)
{
    QByteArray out;
    for (int step = from; step <= to; step += 20) {
        const bool validate = step % 40 == 0;
        const double jct = 20.0 - step / 40.0;
        out += QByteArray::number(step) + ',' + QByteArray::number(step * 0.5) + ',' +
               (step == 0 ? "0,-1,-1,0,0,0," : "0.12,-1,-1,3.5,1.7,0.4,") +
               (validate ? QByteArray::number(jct) : QByteArray("-1")) + '\n';
    }
    return out;
}

QString cliDirectory()
{
    const QString cli = qEnvironmentVariable("DL2_CLI");
    return cli.isEmpty() ? QString() : QFileInfo(cli).absolutePath();
}

} // namespace

void TestTrainingCurves::parsesTrainerFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("run.dl2ckpt.curves.csv"));
    writeFile(path, kHeader + rlRows(0, 120));
    TrainingCurvesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY2(model.setFile(path), qPrintable(model.errorString()));
    QCOMPARE(model.rowCount(), 7);
    QCOMPARE(model.columnCount(), 9);
    QCOMPARE(model.columns().front(), QStringLiteral("step"));
    QCOMPARE(model.lastStep(), 120.0);

    // Validation JCT only where measured (-1 elsewhere).
    const auto jct = model.series(QStringLiteral("validation_avg_jct"));
    QCOMPARE(jct.steps, (QVector<double>{0, 40, 80, 120}));
    QCOMPARE(jct.values, (QVector<double>{20, 19, 18, 17}));
    // Step 0 is RL's validation of its start: no update, so no entropy or value loss there.
    const auto entropy = model.series(QStringLiteral("entropy"));
    QCOMPARE(entropy.steps.front(), 20.0);
    QCOMPARE(entropy.values.size(), 6);
    QVERIFY(model.hasData(QStringLiteral("value_loss")));
    QVERIFY(!model.hasData(QStringLiteral("agreement")));
    QVERIFY(!model.hasColumn(QStringLiteral("worker_share")));
    QVERIFY(model.series(QStringLiteral("worker_share")).isEmpty());
    // Display: empty cell where not measured; the value role says NaN.
    const int jctColumn = model.columnIndex(QStringLiteral("validation_avg_jct"));
    QVERIFY(!model.index(1, jctColumn).data().isValid());
    QVERIFY(std::isnan(model.index(1, jctColumn).data(TrainingCurvesModel::ValueRole).toDouble()));
    QCOMPARE(model.index(2, jctColumn).data().toDouble(), 19.0);
    QVERIFY(model.references().isEmpty());
}

void TestTrainingCurves::toleratesExtraAndMissingColumns()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("c.csv"));
    // Columns in another order, an unknown one, the action mix, baselines, no entropy, CRLF,
    // blank lines and empty cells.
    writeFile(path, "validation_avg_jct,step,worker_share,ps_share,bundle_share,stop_share,"
                    "workers_per_job,future_thing,baseline_drf,optimus_avg_jct\r\n"
                    "30.5,0,0.06,0.93,0.01,0,1.04,7,40.1,25.2\r\n"
                    "\r\n"
                    ",10,0.3,0.5,0.1,0.1,2.2,,40.1,25.2\r\n"
                    "26,20,0.35,0.45,0.1,0.1,2.4,nan,-1,25.2\r\n");
    TrainingCurvesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY2(model.setFile(path), qPrintable(model.errorString()));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.series(QStringLiteral("validation_avg_jct")).steps, (QVector<double>{0, 20}));
    QCOMPARE(model.series(QStringLiteral("workers_per_job")).values,
             (QVector<double>{1.04, 2.2, 2.4}));
    QCOMPARE(model.series(QStringLiteral("future_thing")).values, (QVector<double>{7}));
    QVERIFY(!model.hasColumn(QStringLiteral("entropy")));
    QVERIFY(!model.hasData(QStringLiteral("entropy")));
    const auto refs = model.references();
    QCOMPARE(refs.size(), 2);
    QCOMPARE(refs[0].name, QStringLiteral("drf"));
    QCOMPARE(refs[0].value, 40.1); // the last measured value (-1 = not measured)
    QCOMPARE(refs[1].name, QStringLiteral("optimus"));
    QCOMPARE(refs[1].value, 25.2);
}

void TestTrainingCurves::followsGrowingFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("run.dl2ckpt.curves.csv"));
    TrainingCurvesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setFollowing(true, 20);
    // The run has not written anything yet: not an error, the model waits.
    QVERIFY(model.setFile(path));
    QVERIFY(model.errorString().isEmpty());
    QCOMPARE(model.rowCount(), 0);

    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    writeFile(path, kHeader + rlRows(0, 40));
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 3, 5000);
    const int resetsAfterFirst = reset.count(); // the first read sets the columns

    // The trainer rewrites the whole file with more points: rows are appended, not reset.
    writeFile(path, kHeader + rlRows(0, 120));
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 7, 5000);
    QCOMPARE(reset.count(), resetsAfterFirst);
    QVERIFY(inserted.count() >= 1);
    QCOMPARE(model.series(QStringLiteral("validation_avg_jct")).values.back(), 17.0);

    // A different history (a new run in the same file) resets the model.
    writeFile(path, kHeader + "0,0,0,-1,-1,0,0,0,33\n");
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 1, 5000);
    QVERIFY(reset.count() > resetsAfterFirst);
    QCOMPARE(model.series(QStringLiteral("validation_avg_jct")).values, (QVector<double>{33}));

    // A malformed rewrite keeps what was shown and reports once.
    QSignalSpy errors(&model, &TrainingCurvesModel::errorOccurred);
    writeFile(path, kHeader + "0,0,0,-1,-1,0,0,0,33\n20,oops,0,0,0,0,0,0,-1\n");
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, 5000);
    QVERIFY(errors.first().first().toString().contains(QStringLiteral(":3:")));
    QCOMPARE(model.rowCount(), 1);
    QTest::qWait(100);
    QCOMPARE(errors.count(), 1);

    model.setFollowing(false);
    writeFile(path, kHeader + rlRows(0, 200));
    QTest::qWait(150);
    QCOMPARE(model.rowCount(), 1); // not following any more
}

void TestTrainingCurves::partialLastLineWhileFollowing()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("c.csv"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(kHeader + "0,0,0,-1,-1,0,0,0,30\n20,1,0.1,-1,");
    f.flush();
    TrainingCurvesModel model;
    model.setFollowing(true, 20);
    QVERIFY2(model.setFile(path), qPrintable(model.errorString())); // an append in progress
    QCOMPARE(model.rowCount(), 1);
    f.write("-1,2,1.5,0.2,28\n");
    f.flush();
    QTRY_COMPARE_WITH_TIMEOUT(model.rowCount(), 2, 5000);
    QCOMPARE(model.series(QStringLiteral("validation_avg_jct")).values.back(), 28.0);
    f.close();

    // Not following: the same cut-off line is an error.
    TrainingCurvesModel still;
    writeFile(path, kHeader + "0,0,0,-1,-1,0,0,0,30\n20,1,0.1,-1,");
    QVERIFY(!still.setFile(path));
    QVERIFY(still.errorString().contains(QStringLiteral(":3:")));
}

void TestTrainingCurves::malformed_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("where");
    QTest::addColumn<QString>("what");
    QTest::newRow("field count") << QByteArray("step,a,b\n1,2,3\n2,3\n") << QStringLiteral(":3:")
                                 << QStringLiteral("2 fields");
    QTest::newRow("not a number") << QByteArray("step,jct\n1,2\n2,12x\n")
                                  << QStringLiteral(":3:") << QStringLiteral("'12x'");
    QTest::newRow("no step column") << QByteArray("a,b\n1,2\n") << QStringLiteral(":1:")
                                    << QStringLiteral("'step'");
    QTest::newRow("duplicate column") << QByteArray("step,a,a\n1,2,3\n") << QStringLiteral(":1:")
                                      << QStringLiteral("twice");
    QTest::newRow("missing step") << QByteArray("step,a\n\n,2\n") << QStringLiteral(":3:")
                                  << QStringLiteral("no step");
    QTest::newRow("empty file") << QByteArray() << QString() << QStringLiteral("empty");
    QTest::newRow("binary") << QByteArray("step\n\x01\x02\xff\n") << QStringLiteral(":2:")
                            << QStringLiteral("not a number");
}

void TestTrainingCurves::malformed()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, where);
    QFETCH(QString, what);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.curves.csv"));
    writeFile(path, text);
    TrainingCurvesModel model;
    QSignalSpy errors(&model, &TrainingCurvesModel::errorOccurred);
    QVERIFY(!model.setFile(path));
    const QString message = model.errorString();
    QVERIFY2(message.contains(path + where), qPrintable(message));
    QVERIFY2(message.contains(what), qPrintable(message));
    QCOMPARE(errors.count(), 1);
    QCOMPARE(errors.first().first().toString(), message);
    QCOMPARE(model.rowCount(), 0);

    TrainingCurvesModel missing;
    QVERIFY(!missing.setFile(dir.filePath(QStringLiteral("nope.csv"))));
    QVERIFY(missing.errorString().contains(QStringLiteral("nope.csv")));
}

void TestTrainingCurves::findsTrainCommand()
{
    QTemporaryDir a, b;
    TrainingRun run;
    run.setSearchDirectories({a.path(), b.path()});
    QVERIFY(run.trainCommand().isEmpty());
    TrainingRequest request;
    request.output = a.filePath(QStringLiteral("x.dl2ckpt"));
    QVERIFY(!run.start(request));
    QVERIFY2(run.errorString().contains(a.path()), qPrintable(run.errorString()));
    QCOMPARE(run.state(), TrainingRun::State::Idle);

    writeScript(b.filePath(QStringLiteral("dl2")), "exit 0\n");
    QCOMPARE(run.trainCommand(),
             (QStringList{QFileInfo(b.filePath(QStringLiteral("dl2"))).canonicalFilePath(),
                          QStringLiteral("train")}));
    // A separate dl2-train wins over dl2 train, in any searched directory.
    writeScript(b.filePath(QStringLiteral("dl2-train")), "exit 0\n");
    QCOMPARE(run.trainCommand(),
             QStringList{QFileInfo(b.filePath(QStringLiteral("dl2-train"))).canonicalFilePath()});
    // A file that is not executable does not count.
    QFile plain(a.filePath(QStringLiteral("dl2")));
    QVERIFY(plain.open(QIODevice::WriteOnly));
    plain.close();
    QCOMPARE(run.trainCommand().size(), 1);
}

void TestTrainingCurves::reportsProgressAndFailure()
{
    QTemporaryDir dir;
    // A stand-in trainer: prints the CLI's plain progress lines, then fails like it would.
    writeScript(dir.filePath(QStringLiteral("dl2-train")),
                "echo \"$@\" > \"$(dirname \"$0\")/args.txt\"\n"
                "echo 'train rl 5/10 (50%) 2.0 steps/s ETA 0m03s loss 0.1' >&2\n"
                "echo 'train rl 10/10 (100%) 2.0 steps/s ETA 0m00s loss 0.1' >&2\n"
                "echo 'dl2 train rl: --scenario: unknown scenario nope' >&2\n"
                "exit 2\n");
    TrainingRun run;
    run.setSearchDirectories({dir.path()});
    QSignalSpy progress(&run, &TrainingRun::progressChanged);
    QSignalSpy finished(&run, &TrainingRun::finished);
    TrainingRequest request;
    request.scenario = QStringLiteral("nope");
    request.steps = 10;
    request.exploration = QStringLiteral("reference");
    request.output = dir.filePath(QStringLiteral("out/x.dl2ckpt"));
    QVERIFY2(run.start(request), qPrintable(run.errorString()));
    QVERIFY(run.isRunning());
    QVERIFY(!run.start(request)); // one at a time
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
    QCOMPARE(run.state(), TrainingRun::State::Failed);
    QVERIFY2(run.errorString().contains(QStringLiteral("unknown scenario nope")),
             qPrintable(run.errorString()));
    QVERIFY(run.errorString().contains(QStringLiteral("exit code 2")));
    QCOMPARE(run.step(), 10);
    QCOMPARE(run.totalSteps(), 10);
    QVERIFY(progress.count() >= 2);
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("out"))).isDir()); // created for the output
    QFile args(dir.filePath(QStringLiteral("args.txt")));
    QVERIFY(args.open(QIODevice::ReadOnly));
    const QString line = QString::fromUtf8(args.readAll()).trimmed();
    QCOMPARE(line, request.arguments().join(QLatin1Char(' ')));
    QVERIFY(line.startsWith(QStringLiteral("rl --scenario nope --steps 10")));
    QVERIFY(line.contains(QStringLiteral(" --exploration reference ")));
}

void TestTrainingCurves::realTrainingFinishes()
{
    if (cliDirectory().isEmpty())
        QSKIP("DL2_CLI not set (run through ctest)");
    QTemporaryDir dir;
    TrainingRun run;
    run.setSearchDirectories({cliDirectory()});
    QVERIFY(!run.trainCommand().isEmpty());
    TrainingRequest request;
    request.scenario = QStringLiteral("dl2-small");
    request.steps = 8;
    request.validateEvery = 4;
    request.validationSeeds = QStringLiteral("100");
    request.output = dir.filePath(QStringLiteral("tiny.dl2ckpt"));
    TrainingCurvesModel model;
    model.setFollowing(true, 50);
    QVERIFY(model.setFile(request.curvesFile()));
    QSignalSpy finished(&run, &TrainingRun::finished);
    QVERIFY(run.start(request));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 240000);
    QVERIFY2(run.state() == TrainingRun::State::Finished, qPrintable(run.errorString()));
    QVERIFY2(run.summary().contains(QStringLiteral("best validation avg JCT")),
             qPrintable(run.summary()));
    QVERIFY(QFileInfo::exists(request.output));
    QTRY_VERIFY_WITH_TIMEOUT(model.lastStep() == 8.0, 5000);
    const auto jct = model.series(QStringLiteral("validation_avg_jct"));
    QCOMPARE(jct.steps, (QVector<double>{0, 4, 8}));
    for (double v : jct.values)
        QVERIFY(v > 0);
    QVERIFY(run.elapsedSeconds() > 0);
}

void TestTrainingCurves::seedLists_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<qulonglong>>("seeds");
    QTest::newRow("range") << QStringLiteral("100-103") << QList<qulonglong>{100, 101, 102, 103};
    QTest::newRow("list") << QStringLiteral("100, 102,7") << QList<qulonglong>{100, 102, 7};
    QTest::newRow("one") << QStringLiteral("7") << QList<qulonglong>{7};
    QTest::newRow("mixed") << QStringLiteral("1-2,9") << QList<qulonglong>{1, 2, 9};
    QTest::newRow("reversed") << QStringLiteral("5-3") << QList<qulonglong>{};
    QTest::newRow("word") << QStringLiteral("seeds") << QList<qulonglong>{};
    QTest::newRow("three parts") << QStringLiteral("1-2-3") << QList<qulonglong>{};
    QTest::newRow("empty") << QString() << QList<qulonglong>{};
}

void TestTrainingCurves::seedLists()
{
    QFETCH(QString, text);
    QFETCH(QList<qulonglong>, seeds);
    QList<qulonglong> got;
    for (auto s : ValidationBaselines::parseSeeds(text))
        got << s;
    QCOMPARE(got, seeds);
    if (seeds.isEmpty() && !text.isEmpty()) { // a malformed list is reported, not run
        ValidationBaselines baselines;
        QSignalSpy errors(&baselines, &ValidationBaselines::errorOccurred);
        QSignalSpy ready(&baselines, &ValidationBaselines::ready);
        baselines.compute(QStringLiteral("dl2-small"), text);
        QCOMPARE(errors.count(), 1);
        QVERIFY(errors.first().first().toString().contains(text));
        QCOMPARE(ready.count(), 1);
        QVERIFY(baselines.references().isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestTrainingCurves)
#include "tst_trainingcurves.moc"
