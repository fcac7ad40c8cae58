// The training page: renders a run's curves (validation JCT, entropy, losses, action mix),
// draws a second run (its control) beside it, shows a malformed file's error, computes
// reference lines, and starts and cancels a real tiny `dl2 train rl` in the background through
// its buttons, with its shuffled-advantage control beside it when asked.

#include "plot.h"
#include "policyfiles.h"
#include "scheduler.h"
#include "settings.h"
#include "stubprogram.h"
#include "trainingcurvesmodel.h"
#include "trainingpage.h"
#include "typeprobedialog.h"
#include "typeprobemodel.h"

#include <algorithm>

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSet>
#include <QSignalSpy>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTest>

using namespace dl2console;

class TestTrainingPage : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void rendersRlCurves();
    void rendersSlCurves();
    void malformedFileShowsError();
    void comparesWithAnotherRun();
    void recipeWithoutAReadableCheckpoint();
    void recipeOfTheShippedWindow60Policy();
    void referenceLines();
    void formBecomesTheCommand();
    void tiedStartOnlyForTheWarmUp();
    void countsAndStepScalesOfTheTiedRecipe();
    void optimizerAndLearningRateForTheActorCritic();
    void probesWhatACheckpointLearntOfTypes();
    void probeErrorsNameTheFile();
    void startAndCancelRealTraining();
    void warmupThenRl();
    void controlRunsBeside();
    void realRunWithItsControl();
};

namespace {

void writeFile(const QString &path, const QByteArray &text)
{
    QSaveFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
    QVERIFY(f.commit());
}

// An RL run as the trainer writes it, plus the action-mix columns.
QByteArray rlCurves(int validations)
{
    QByteArray out = "step,seconds,train_loss,validation_loss,agreement,value_loss,entropy,"
                     "reward,validation_avg_jct,worker_share,ps_share,bundle_share,stop_share,"
                     "workers_per_job,explored_fraction\n";
    for (int step = 0; step <= validations * 20; step += 10) {
        const bool validate = step % 20 == 0;
        const double t = step / 100.0;
        out += QByteArray::number(step) + ',' + QByteArray::number(step * 0.3) + ',' +
               (step == 0 ? QByteArray("0,-1,-1,0,0,0,")
                          : QByteArray::number(0.1 - 0.01 * t) + ",-1,-1," +
                                QByteArray::number(5.0 / (1 + t)) + ',' +
                                QByteArray::number(2.0 - 0.3 * t) + ",0.4,") +
               (validate ? QByteArray::number(30.0 - 2 * t) : QByteArray("-1")) + ',' +
               QByteArray::number(0.1 + 0.05 * t) + ',' + QByteArray::number(0.8 - 0.1 * t) +
               ',' + QByteArray::number(0.05 + 0.03 * t) + ',' + QByteArray::number(0.05 + 0.02 * t) +
               ',' + QByteArray::number(1.1 + 0.4 * t) + ',' +
               (step == 0 ? QByteArray("-1") : QByteArray::number(0.3 - 0.02 * t)) + '\n';
    }
    return out;
}

// The page runs the trainer built next to the CLI (DL2_CLI) and writes into `dir`.
void useRealTrainer(TrainingPage &page, const QString &cli, const QTemporaryDir &dir)
{
    page.run()->setSearchDirectories({QFileInfo(cli).absolutePath()});
    page.setOutputDirectory(dir.path());
}

// The page runs a stand-in dl2-train in `dir` that appends its arguments, a line a run, to
// dir/args.txt.
void useRecordingTrainer(TrainingPage &page, const QTemporaryDir &dir)
{
    dl2console::test::writeScript(dir.filePath(QStringLiteral("dl2-train")),
                                  "echo \"$@\" >> \"$(dirname \"$0\")/args.txt\"\n");
    page.run()->setSearchDirectories({dir.path()});
    page.setOutputDirectory(dir.path());
}

// Starts SL, then RL from the form with the stand-in trainer and returns the two stages'
// argument lines (fewer if they did not both run).
QStringList bothStagesArguments(TrainingPage &page, const QTemporaryDir &dir)
{
    if (!page.startTraining() ||
        !QTest::qWaitFor([&page] { return page.stage() == 2 && !page.run()->isRunning(); }, 20000))
        return {};
    QFile args(dir.filePath(QStringLiteral("args.txt")));
    if (!args.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(args.readAll()).trimmed().split(QLatin1Char('\n'));
}

// A tiny run of the real trainer: 4 updates, validated every 2 on seed 100.
TrainingRequest tinyRequest(const QString &algorithm, const QString &output)
{
    TrainingRequest r;
    r.algorithm = algorithm;
    r.steps = 4;
    r.validateEvery = 2;
    r.validationSeeds = QStringLiteral("100");
    r.output = output;
    return r;
}

int distinctColours(const QImage &image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

} // namespace

void TestTrainingPage::initTestCase()
{
    dl2::registerBaselines();
}

void TestTrainingPage::rendersRlCurves()
{
    QTemporaryDir dir;
    Settings settings(dir.filePath(QStringLiteral("s.ini")));
    const QString path = dir.filePath(QStringLiteral("rl.dl2ckpt.curves.csv"));
    writeFile(path, rlCurves(6));
    TrainingPage page(&settings);
    page.resize(1400, 850);
    page.show();
    QVERIFY(page.openCurves(path));
    page.refresh();
    // Validation JCT: one point per validation, plus the "best" marker.
    QCOMPARE(page.jctPlot()->graph(0)->dataCount(), 7);
    QCOMPARE(page.jctPlot()->graphCount(), 2);
    QCOMPARE(page.jctPlot()->graph(1)->data()->at(0)->key, 120.0); // best = last here
    // Entropy and value loss from the update rows (not step 0, which had no update).
    QCOMPARE(page.entropyPlot()->graph(0)->dataCount(), 12);
    QCOMPARE(page.lossPlot()->graph(0)->dataCount(), 12);
    // Action mix: four stacked shares, the share exploration decided (in %, from the update
    // rows only: step 0 has -1 = not measured) and workers per job; the top of the stack is
    // 100 %.
    QCOMPARE(page.actionPlot()->graphCount(), 6);
    const auto *top = page.actionPlot()->graph(3)->data().data();
    for (auto it = top->constBegin(); it != top->constEnd(); ++it)
        QVERIFY(qAbs(it->value - 100.0) < 1e-6);
    const QCPGraph *explored = page.actionPlot()->graph(4);
    QCOMPARE(explored->name(), QStringLiteral("explored"));
    QCOMPARE(explored->dataCount(), 12);
    QCOMPARE(explored->data()->at(0)->key, 10.0);
    QVERIFY(qAbs(explored->data()->at(0)->value - 100.0 * (0.3 - 0.02 * 0.1)) < 1e-6);
    QVERIFY(page.actionPlot()->yAxis2->visible());

    const QImage image = page.grab().toImage();
    QVERIFY(distinctColours(image) > 150);
    const QString shot = qEnvironmentVariable("DL2_TRAINING_PAGE_PNG");
    if (!shot.isEmpty())
        QVERIFY(page.exportImage(shot));

    // Following: a longer file is picked up without reopening it.
    writeFile(path, rlCurves(9));
    QTRY_COMPARE_WITH_TIMEOUT(page.model()->lastStep(), 180.0, 5000);
    page.refresh();
    QCOMPARE(page.jctPlot()->graph(0)->dataCount(), 10);
}

void TestTrainingPage::rendersSlCurves()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("sl.curves.csv"));
    writeFile(path, "step,seconds,train_loss,validation_loss,agreement,value_loss,entropy,reward,"
                    "validation_avg_jct\n"
                    "50,3,1.9,1.95,0.41,0,0,0,31.5\n"
                    "100,6,1.2,1.3,0.55,0,0,0,27.25\n"
                    "150,9,0.9,1.1,0.61,0,0,0,26.5\n");
    TrainingPage page(nullptr);
    page.resize(1200, 800);
    page.show();
    QVERIFY(page.openCurves(path));
    page.refresh();
    QCOMPARE(page.jctPlot()->graph(0)->dataCount(), 3);
    QCOMPARE(page.entropyPlot()->graphCount(), 0); // SL measures no entropy: a message instead
    QCOMPARE(page.lossPlot()->graphCount(), 2);    // training and validation cross-entropy
    QCOMPARE(page.lossPlot()->yAxis->label(), QStringLiteral("cross-entropy"));
    QCOMPARE(page.actionPlot()->graphCount(), 0);

    // RL without a critic (episode credits, ES): a loss but no value loss and no agreement.
    // It is not a supervised cross-entropy.
    writeFile(path, "step,seconds,train_loss,validation_loss,agreement,value_loss,entropy,reward,"
                    "validation_avg_jct\n"
                    "0,1,0,-1,-1,0,0,0,44.5\n"
                    "25,200,0.02,-1,-1,0,0.03,-0.5,44.3\n"
                    "50,400,-0.01,-1,-1,0,0.029,-0.5,43.9\n");
    QVERIFY(page.openCurves(path));
    page.refresh();
    QCOMPARE(page.lossPlot()->graphCount(), 1);
    QVERIFY2(!page.lossPlot()->yAxis->label().contains(QStringLiteral("cross-entropy")),
             qPrintable(page.lossPlot()->yAxis->label()));
    QCOMPARE(page.entropyPlot()->graphCount(), 1);

    // One validation so far (a short SL run): the axis spans a readable range around it.
    writeFile(path, "step,seconds,train_loss,validation_loss,agreement,value_loss,entropy,reward,"
                    "validation_avg_jct\n"
                    "250,26,4.1,4.13,0.98,0,0,0,23.356\n");
    QVERIFY(page.openCurves(path));
    page.refresh();
    const QCPRange y = page.jctPlot()->yAxis->range();
    QVERIFY2(y.contains(23.356) && y.size() > 1.0 && y.size() < 5.0,
             qPrintable(QStringLiteral("%1 .. %2").arg(y.lower).arg(y.upper)));
}

void TestTrainingPage::malformedFileShowsError()
{
    QTemporaryDir dir;
    const QString good = dir.filePath(QStringLiteral("good.curves.csv"));
    const QString bad = dir.filePath(QStringLiteral("bad.curves.csv"));
    writeFile(good, rlCurves(3));
    writeFile(bad, "step,validation_avg_jct\n0,30\n20,twenty\n");
    TrainingPage page(nullptr);
    QSignalSpy errors(&page, &TrainingPage::errorOccurred);
    QVERIFY(page.openCurves(good));
    QVERIFY(!page.openCurves(bad));
    QCOMPARE(errors.count(), 1);
    const QString message = errors.first().first().toString();
    QVERIFY2(message.contains(bad + QStringLiteral(":3:")), qPrintable(message));
    QVERIFY(page.statusText().contains(bad + QStringLiteral(":3:")));
    // The good file stays on screen.
    QCOMPARE(page.model()->file(), good);
    QCOMPARE(page.model()->lastStep(), 60.0);
}

void TestTrainingPage::comparesWithAnotherRun()
{
    QTemporaryDir dir;
    const QString run = dir.filePath(QStringLiteral("rl.dl2ckpt.curves.csv"));
    const QString control = dir.filePath(QStringLiteral("rl-control.dl2ckpt.curves.csv"));
    const QString bad = dir.filePath(QStringLiteral("bad.curves.csv"));
    writeFile(run, rlCurves(6)); // 30 -> 27.6 over updates 0-120
    // The control: flat at 30.5, one validation more.
    QByteArray flat = "step,validation_avg_jct,entropy\n";
    for (int step = 0; step <= 140; step += 20)
        flat += QByteArray::number(step) + ",30.5,1.0\n";
    writeFile(control, flat);
    writeFile(bad, "step,validation_avg_jct\n0,30\n20,twenty\n");
    TrainingPage page(nullptr);
    page.resize(1400, 850);
    page.show();
    auto *label = page.findChild<QLabel *>(QStringLiteral("trainingCompareLabel"));
    auto *clear = page.findChild<QPushButton *>(QStringLiteral("trainingCompareClear"));
    QVERIFY(label && clear);
    QVERIFY(label->isHidden());
    QVERIFY(!clear->isEnabled());
    QVERIFY(page.openCurves(run));
    QVERIFY(page.openComparison(control));
    page.refresh();
    QVERIFY(!label->isHidden());
    QVERIFY(clear->isEnabled());
    // The compared run is drawn first (under the run's line), dashed, named by its file.
    QCOMPARE(page.jctPlot()->graphCount(), 3);
    const QCPGraph *other = page.jctPlot()->graph(0);
    QCOMPARE(other->name(), QStringLiteral("rl-control"));
    QCOMPARE(other->pen().style(), Qt::DashLine);
    QCOMPARE(other->dataCount(), 8);
    QCOMPARE(other->data()->at(7)->key, 140.0);
    QCOMPARE(page.jctPlot()->graph(1)->dataCount(), 7); // the run's own line
    QVERIFY(page.jctPlot()->xAxis->range().upper >= 140.0); // room for the longer of the two
    auto *summaryLabel = page.findChild<QLabel *>(QStringLiteral("trainingSummary"));
    QVERIFY(summaryLabel);
    const QString summary = summaryLabel->text();
    QVERIFY2(summary.contains(QStringLiteral("<br>Compared, rl-control: start <b>30.50</b>")),
             qPrintable(summary));
    // The run's best 27.60 against the control's 30.50: 9.5 % below.
    QVERIFY2(summary.contains(QStringLiteral("this run's best vs its best: ") + QChar(0x2212) +
                              QStringLiteral("9.5 %")),
             qPrintable(summary));

    // A malformed second file: its error, and the previous comparison stays.
    QSignalSpy errors(&page, &TrainingPage::errorOccurred);
    QVERIFY(!page.openComparison(bad));
    QCOMPARE(errors.count(), 1);
    QVERIFY(page.comparisonError().contains(bad + QStringLiteral(":3:")));
    QVERIFY(page.statusText().contains(bad + QStringLiteral(":3:")));
    QCOMPARE(page.comparison()->file(), control);
    // Followed like the run: a longer control is picked up without reopening it.
    flat += "160,30.4,1.0\n";
    writeFile(control, flat);
    QTRY_COMPARE_WITH_TIMEOUT(page.comparison()->lastStep(), 160.0, 5000);
    page.refresh();
    QCOMPARE(page.jctPlot()->graph(0)->dataCount(), 9);

    QTest::mouseClick(clear, Qt::LeftButton);
    page.refresh();
    QCOMPARE(page.jctPlot()->graphCount(), 2);
    QVERIFY(label->isHidden());
    QVERIFY(!clear->isEnabled());
    QVERIFY(page.comparisonError().isEmpty());
}

void TestTrainingPage::recipeWithoutAReadableCheckpoint()
{
    // How the run was trained comes from the checkpoint next to the curves; without one, or
    // with a corrupt one, the page says so (the real checkpoint: startAndCancelRealTraining).
    QTemporaryDir dir;
    const QString checkpoint = dir.filePath(QStringLiteral("run.dl2ckpt"));
    writeFile(checkpoint + QStringLiteral(".curves.csv"), rlCurves(3));
    TrainingPage page(nullptr);
    auto *recipe = page.findChild<QLabel *>(QStringLiteral("trainingRecipe"));
    QVERIFY(recipe);
    QVERIFY(recipe->isHidden()); // no curves yet
    QVERIFY(page.openCurves(checkpoint + QStringLiteral(".curves.csv")));
    QVERIFY(!recipe->isHidden());
    QVERIFY2(recipe->text().contains(QStringLiteral("No checkpoint run.dl2ckpt")),
             qPrintable(recipe->text()));
    // A file appears that is not a checkpoint: the next refresh reads it and shows why not.
    writeFile(checkpoint, "DL2CKPT\0 but nothing a checkpoint holds");
    page.refresh();
    QVERIFY2(recipe->text().contains(QStringLiteral("cannot be read")) &&
                 recipe->text().contains(checkpoint),
             qPrintable(recipe->text()));
    // A curves file named otherwise has no checkpoint to look for.
    const QString other = dir.filePath(QStringLiteral("exported.csv"));
    writeFile(other, rlCurves(3));
    QVERIFY(page.openCurves(other));
    QVERIFY2(recipe->text().contains(QStringLiteral("unknown")), qPrintable(recipe->text()));
}

void TestTrainingPage::recipeOfTheShippedWindow60Policy()
{
    // How the shipped window-60 dl2 was trained, as the page shows it for its run: the inputs
    // it reads (per-type count features) and the SL settings that made it.
    const QString file = qEnvironmentVariable("DL2_SOURCE_DIR") +
                         QStringLiteral("/resources/policies/dl2-reference-window60.dl2ckpt");
    QVERIFY2(QFileInfo::exists(file), qPrintable(file));
    const QString recipe = describeTraining(file);
    for (const char *part :
         {"Supervised (SL), dl2 (window 60, per-type count features) on dl2-reference",
          "teacher best-config-window-25", "teacher order <b>random-jobs</b>",
          "tie window <b>all</b>", "labels <b>set</b>", "decode <b>greedy</b>"})
        QVERIFY2(recipe.contains(QLatin1String(part)), qPrintable(recipe));
    // A scalar-count dl2 says only its window.
    const QString plain = describeTraining(qEnvironmentVariable("DL2_SOURCE_DIR") +
                                           QStringLiteral("/resources/policies/dl2-reference.dl2ckpt"));
    QVERIFY2(plain.contains(QLatin1String("dl2 (window 40)")), qPrintable(plain));
}

void TestTrainingPage::referenceLines()
{
    TrainingPage page(nullptr);
    page.setScenarios({QStringLiteral("dl2-small")});
    QSignalSpy ready(&page, &TrainingPage::referencesReady);
    page.computeReferences(QStringLiteral("dl2-small"), QStringLiteral("100-101"));
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 120000);
    const auto refs = page.references();
    QCOMPARE(refs.size(), 3);
    QCOMPARE(refs[0].name, QStringLiteral("drf"));
    QCOMPARE(refs[1].name, QStringLiteral("optimus"));
    QCOMPARE(refs[2].name, QStringLiteral("lower_bound"));
    for (const auto &r : refs)
        QVERIFY(r.value > 0);
    QVERIFY(refs[2].value <= refs[0].value && refs[2].value <= refs[1].value);
    page.refresh();
    QCOMPARE(page.jctPlot()->itemCount() >= 6, true); // a line and a label per reference
    page.computeReferences(QString(), QString());
    QCOMPARE(page.references().size(), 0);
}

// What the user picks in the form is what the trainer is started with (a stand-in trainer
// records its arguments): the RL choices reach an RL run and are greyed out for SL.
void TestTrainingPage::formBecomesTheCommand()
{
    QTemporaryDir dir;
    TrainingPage page(nullptr);
    page.setScenarios({QStringLiteral("dl2-small"), QStringLiteral("dl2-reference")});
    useRecordingTrainer(page, dir);
    page.show();
    auto *algorithm = page.findChild<QComboBox *>(QStringLiteral("trainingAlgorithm"));
    auto *exploration = page.findChild<QComboBox *>(QStringLiteral("trainingExploration"));
    auto *credit = page.findChild<QComboBox *>(QStringLiteral("trainingTaskCredit"));
    auto *start = page.findChild<QPushButton *>(QStringLiteral("trainingStart"));
    QVERIFY(algorithm && exploration && credit && start);
    const auto startAndReadArguments = [&]() -> QString {
        QFile::remove(dir.filePath(QStringLiteral("args.txt")));
        QTest::mouseClick(start, Qt::LeftButton);
        [&] { QTRY_VERIFY_WITH_TIMEOUT(!page.run()->isRunning(), 20000); }();
        QFile args(dir.filePath(QStringLiteral("args.txt")));
        return args.open(QIODevice::ReadOnly) ? QString::fromUtf8(args.readAll()).trimmed()
                                              : QString();
    };

    // The default is the paper's reward: no option, the trainer's default.
    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("rl")));
    QVERIFY(credit->isEnabled());
    QCOMPARE(credit->currentData().toString(), QStringLiteral("progress"));
    QString line = startAndReadArguments();
    QVERIFY2(line.startsWith(QStringLiteral("rl ")), qPrintable(line));
    QVERIFY2(!line.contains(QStringLiteral("--task-credit")), qPrintable(line));

    exploration->setCurrentIndex(exploration->findData(QStringLiteral("reference")));
    credit->setCurrentIndex(credit->findData(QStringLiteral("remaining")));
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral("--exploration reference --task-credit remaining")),
             qPrintable(line));
    QCOMPARE(page.run()->request().taskCredit, QStringLiteral("remaining"));
    credit->setCurrentIndex(credit->findData(QStringLiteral("time")));
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral("--task-credit time")), qPrintable(line));
    credit->setCurrentIndex(credit->findData(QStringLiteral("remaining")));

    // The kind credits beyond the paper come with the task marginal they need; not for
    // dl2-plus, and not in SL.
    auto *kind = page.findChild<QComboBox *>(QStringLiteral("trainingKindCredit"));
    auto *kindPolicy = page.findChild<QComboBox *>(QStringLiteral("trainingPolicy"));
    QVERIFY(kind && kindPolicy);
    QVERIFY(kind->isEnabled());
    QVERIFY2(!line.contains(QStringLiteral("--kind-credit")) && !line.contains(QStringLiteral("--task-marginal")),
             qPrintable(line));
    kind->setCurrentIndex(kind->findData(QStringLiteral("expected-balanced")));
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral("--task-marginal added --kind-credit expected-balanced")),
             qPrintable(line));
    kindPolicy->setCurrentIndex(kindPolicy->findText(QStringLiteral("dl2-plus")));
    QVERIFY(!kind->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(!line.contains(QStringLiteral("--kind-credit")), qPrintable(line));
    kindPolicy->setCurrentIndex(kindPolicy->findText(QStringLiteral("dl2")));
    kind->setCurrentIndex(kind->findData(QStringLiteral("sampled")));

    // The row credit likewise; with a kind credit too, the task marginal is passed once.
    auto *row = page.findChild<QComboBox *>(QStringLiteral("trainingRowCredit"));
    QVERIFY(row);
    QVERIFY(row->isEnabled());
    QVERIFY2(!line.contains(QStringLiteral("--row-credit")), qPrintable(line));
    row->setCurrentIndex(row->findData(QStringLiteral("expected-stop")));
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral("--task-marginal added --row-credit expected-stop")),
             qPrintable(line));
    QCOMPARE(page.run()->request().rowCredit, QStringLiteral("expected-stop"));
    auto *rowScale = page.findChild<QCheckBox *>(QStringLiteral("trainingRowScale"));
    QVERIFY(rowScale && rowScale->isEnabled());
    row->setCurrentIndex(row->findData(QStringLiteral("lookahead-stop")));
    rowScale->setChecked(true);
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral(
                 "--task-marginal added --row-credit lookahead-stop --row-scale decision")),
             qPrintable(line));
    QVERIFY(page.run()->request().rowScalePerDecision);
    // Stop only where no task gains: with a credit that credits stop.
    auto *stopBest = page.findChild<QCheckBox *>(QStringLiteral("trainingStopCredit"));
    QVERIFY(stopBest && stopBest->isEnabled());
    stopBest->setChecked(true);
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral(
                 "--row-credit lookahead-stop --row-scale decision --stop-credit best")),
             qPrintable(line));
    QVERIFY(page.run()->request().stopCreditBest);
    row->setCurrentIndex(row->findData(QStringLiteral("window-stop")));
    QVERIFY(stopBest->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral(
                 "--row-credit window-stop --row-scale decision --stop-credit best")),
             qPrintable(line));
    row->setCurrentIndex(row->findData(QStringLiteral("regret-stop")));
    QVERIFY(stopBest->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral(
                 "--row-credit regret-stop --row-scale decision --stop-credit best")),
             qPrintable(line));
    row->setCurrentIndex(row->findData(QStringLiteral("expected")));
    QVERIFY(!stopBest->isEnabled() && rowScale->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral("--row-credit expected --row-scale decision")) &&
                 !line.contains(QStringLiteral("--stop-credit")),
             qPrintable(line));
    // The paper's row credit has no gains to scale: greyed out, not passed.
    row->setCurrentIndex(row->findData(QStringLiteral("sampled")));
    QVERIFY(!rowScale->isEnabled() && !stopBest->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(!line.contains(QStringLiteral("--row-scale")) &&
                 !line.contains(QStringLiteral("--stop-credit")),
             qPrintable(line));
    rowScale->setChecked(false);
    stopBest->setChecked(false);
    row->setCurrentIndex(row->findData(QStringLiteral("expected-stop")));
    kind->setCurrentIndex(kind->findData(QStringLiteral("expected")));
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral(
                 "--task-marginal added --kind-credit expected --row-credit expected-stop")),
             qPrintable(line));
    QCOMPARE(line.count(QStringLiteral("--task-marginal")), 1);
    kindPolicy->setCurrentIndex(kindPolicy->findText(QStringLiteral("dl2-plus")));
    QVERIFY(!row->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(!line.contains(QStringLiteral("--row-credit")) && !line.contains(QStringLiteral("--task-marginal")),
             qPrintable(line));
    kindPolicy->setCurrentIndex(kindPolicy->findText(QStringLiteral("dl2")));

    // Every row's kind is credited by the row credit's gains: with one it is passed with it.
    const int everyRow = kind->findData(QStringLiteral("every-row"));
    const auto *kindItems = qobject_cast<QStandardItemModel *>(kind->model());
    QVERIFY(everyRow >= 0 && kindItems);
    QVERIFY(kindItems->item(everyRow)->isEnabled());
    kind->setCurrentIndex(everyRow - 1);
    QTest::keyClick(kind, Qt::Key_Down);
    QCOMPARE(kind->currentData().toString(), QStringLiteral("every-row"));
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral(
                 "--task-marginal added --kind-credit every-row --row-credit expected-stop")),
             qPrintable(line));
    // Without a row credit the trainer refuses it: the choice falls back to the paper's and
    // cannot be picked again until a row credit is.
    row->setCurrentIndex(row->findData(QStringLiteral("sampled")));
    QCOMPARE(kind->currentData().toString(), QStringLiteral("sampled"));
    QVERIFY(!kindItems->item(everyRow)->isEnabled());
    kind->setCurrentIndex(everyRow - 1);
    QTest::keyClick(kind, Qt::Key_Down);
    QTest::keyClick(kind, Qt::Key_End);
    QCOMPARE(kind->currentData().toString(), QStringLiteral("expected-balanced"));
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral("--kind-credit expected-balanced")) &&
                 !line.contains(QStringLiteral("every-row")) &&
                 !line.contains(QStringLiteral("--row-credit")),
             qPrintable(line));
    row->setCurrentIndex(row->findData(QStringLiteral("expected")));
    QVERIFY(kindItems->item(everyRow)->isEnabled());
    kind->setCurrentIndex(kind->findData(QStringLiteral("sampled")));
    row->setCurrentIndex(row->findData(QStringLiteral("sampled")));

    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("sl")));
    QVERIFY(!credit->isEnabled());
    QVERIFY(!exploration->isEnabled());
    QVERIFY(!kind->isEnabled());
    QVERIFY(!row->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(line.startsWith(QStringLiteral("sl ")), qPrintable(line));
    QVERIFY2(!line.contains(QStringLiteral("--task-credit")) &&
                 !line.contains(QStringLiteral("--exploration")),
             qPrintable(line));

    // dl2's window: the scenario's by default (no option), a chosen J for a fresh dl2 network
    // and its window teacher; not for dl2-plus or a checkpoint, which bring their own.
    auto *window = page.findChild<QSpinBox *>(QStringLiteral("trainingWindow"));
    auto *teacher = page.findChild<QComboBox *>(QStringLiteral("trainingTeacher"));
    auto *scenario = page.findChild<QComboBox *>(QStringLiteral("trainingScenario"));
    auto *policy = page.findChild<QComboBox *>(QStringLiteral("trainingPolicy"));
    auto *init = page.findChild<QLineEdit *>(QStringLiteral("trainingInit"));
    QVERIFY(window && teacher && scenario && policy && init);
    QVERIFY2(!line.contains(QStringLiteral("--window")), qPrintable(line));
    QVERIFY(window->isEnabled());
    QCOMPARE(window->text(), QStringLiteral("scenario's (20)")); // dl2-small
    scenario->setCurrentIndex(scenario->findText(QStringLiteral("dl2-reference")));
    QCOMPARE(window->text(), QStringLiteral("scenario's (40)"));
    window->setValue(60);
    teacher->setCurrentIndex(teacher->findText(QStringLiteral("best-config-window-25")));
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral("--policy dl2 --window 60 --teacher best-config-window-25")),
             qPrintable(line));
    QCOMPARE(page.run()->request().window, 60);
    // The labels (the paper's by default: no option) and the tied window, as shipped.
    auto *labels = page.findChild<QComboBox *>(QStringLiteral("trainingLabels"));
    auto *tie = page.findChild<QCheckBox *>(QStringLiteral("trainingTieWindow"));
    QVERIFY(labels && tie);
    QVERIFY2(!line.contains(QStringLiteral("--labels")) && !line.contains(QStringLiteral("--tie-window")),
             qPrintable(line));
    QVERIFY(labels->isEnabled() && tie->isEnabled());
    // The tied start: only for a tied fresh dl2 network; its default (layer) passes nothing.
    auto *tieInit = page.findChild<QComboBox *>(QStringLiteral("trainingTieInit"));
    QVERIFY(tieInit);
    QVERIFY(!tieInit->isEnabled()); // not tied
    labels->setCurrentIndex(labels->findData(QStringLiteral("set")));
    tie->setChecked(true);
    QVERIFY(tieInit->isEnabled());
    QCOMPARE(tieInit->currentData().toString(), QStringLiteral("layer"));
    line = startAndReadArguments();
    QVERIFY2(line.contains(
                 QStringLiteral("--teacher best-config-window-25 --labels set --tie-window all")) &&
                 !line.contains(QStringLiteral("--tie-init")),
             qPrintable(line));
    tieInit->setCurrentIndex(tieInit->findData(QStringLiteral("job")));
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral("--tie-window all --tie-init job")), qPrintable(line));
    tie->setChecked(false);
    QVERIFY(!tieInit->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(!line.contains(QStringLiteral("--tie-init")), qPrintable(line));
    tie->setChecked(true);

    policy->setCurrentIndex(policy->findText(QStringLiteral("dl2-plus")));
    QVERIFY(!window->isEnabled());
    QVERIFY(!tie->isEnabled()); // dl2-plus shares its job network already
    QVERIFY(!tieInit->isEnabled());
    // The window teachers are for dl2 only: the choice falls back, the items are disabled.
    QCOMPARE(teacher->currentText(), QStringLiteral("optimus"));
    const auto *items = qobject_cast<QStandardItemModel *>(teacher->model());
    QVERIFY(items);
    QVERIFY(!items->item(teacher->findText(QStringLiteral("best-config-window-25")))->isEnabled());
    QVERIFY(items->item(teacher->findText(QStringLiteral("best-config")))->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral("--policy dl2-plus")) &&
                 !line.contains(QStringLiteral("--window")) &&
                 !line.contains(QStringLiteral("--tie-window")) &&
                 !line.contains(QStringLiteral("--tie-init")),
             qPrintable(line));

    policy->setCurrentIndex(policy->findText(QStringLiteral("dl2")));
    QVERIFY(window->isEnabled());
    QVERIFY(items->item(teacher->findText(QStringLiteral("best-config-window-25")))->isEnabled());
    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("rl")));
    QVERIFY(!labels->isEnabled() && !tie->isEnabled()); // RL has no labels to tie for
    QVERIFY(!tieInit->isEnabled());
    init->setText(dir.filePath(QStringLiteral("warm.dl2ckpt")));
    QVERIFY(!window->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral("--init")) &&
                 !line.contains(QStringLiteral("--window")) &&
                 !line.contains(QStringLiteral("--tie-init")),
             qPrintable(line));
    // SL from a checkpoint: its weights are already set, no tied start.
    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("sl")));
    QVERIFY(!tie->isEnabled() && !tieInit->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(line.startsWith(QStringLiteral("sl ")) && line.contains(QStringLiteral("--init")) &&
                 !line.contains(QStringLiteral("--tie-init")),
             qPrintable(line));
}

// SL, then RL: the tied start goes to the SL warm-up only (the actor-critic has no such
// option); both stages keep the window tied. A stand-in trainer appends its arguments.
void TestTrainingPage::tiedStartOnlyForTheWarmUp()
{
    QTemporaryDir dir;
    TrainingPage page(nullptr);
    page.setScenarios({QStringLiteral("dl2-small")});
    useRecordingTrainer(page, dir);
    page.show();
    auto *algorithm = page.findChild<QComboBox *>(QStringLiteral("trainingAlgorithm"));
    auto *tie = page.findChild<QCheckBox *>(QStringLiteral("trainingTieWindow"));
    auto *tieInit = page.findChild<QComboBox *>(QStringLiteral("trainingTieInit"));
    auto *init = page.findChild<QLineEdit *>(QStringLiteral("trainingInit"));
    QVERIFY(algorithm && tie && tieInit && init);
    QCOMPARE(algorithm->currentData().toString(), QStringLiteral("sl+rl"));
    // A checkpoint in Start from is for a single stage: the warm-up is always fresh.
    init->setText(dir.filePath(QStringLiteral("warm.dl2ckpt")));
    tie->setChecked(true);
    QVERIFY(tieInit->isEnabled());
    tieInit->setCurrentIndex(tieInit->findData(QStringLiteral("job")));
    const QStringList lines = bothStagesArguments(page, dir);
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines[0].startsWith(QStringLiteral("sl ")) &&
                 lines[0].contains(QStringLiteral("--tie-window all --tie-init job")),
             qPrintable(lines[0]));
    QVERIFY2(lines[1].startsWith(QStringLiteral("rl ")) &&
                 lines[1].contains(QStringLiteral("--tie-window")) &&
                 !lines[1].contains(QStringLiteral("--tie-init")),
             qPrintable(lines[1]));
}

// The policy's optimizer, learning rate and its anneal go to the actor-critic (with SL first,
// to its RL stage only: the SL trainer has no --optimizer and its own default rate); a rate
// the trainer would refuse is refused on the page, and nothing starts.
void TestTrainingPage::optimizerAndLearningRateForTheActorCritic()
{
    QTemporaryDir dir;
    TrainingPage page(nullptr);
    page.setScenarios({QStringLiteral("dl2-small")});
    useRecordingTrainer(page, dir);
    page.show();
    auto *algorithm = page.findChild<QComboBox *>(QStringLiteral("trainingAlgorithm"));
    auto *optimizer = page.findChild<QComboBox *>(QStringLiteral("trainingOptimizer"));
    auto *rate = page.findChild<QLineEdit *>(QStringLiteral("trainingLearningRate"));
    auto *status = page.findChild<QLabel *>(QStringLiteral("trainingStatus"));
    auto *anneal = page.findChild<QCheckBox *>(QStringLiteral("trainingLrAnneal"));
    QVERIFY(algorithm && optimizer && rate && status && anneal);
    QCOMPARE(algorithm->currentData().toString(), QStringLiteral("sl+rl"));
    QVERIFY(optimizer->isEnabled() && rate->isEnabled());
    // The defaults pass nothing.
    QStringList lines = bothStagesArguments(page, dir);
    QCOMPARE(lines.size(), 2);
    QVERIFY2(!lines.join(QLatin1Char('\n')).contains(QStringLiteral("--optimizer")) &&
                 !lines.join(QLatin1Char('\n')).contains(QStringLiteral("--lr")),
             qPrintable(lines.join(QLatin1Char('\n'))));
    QFile::remove(dir.filePath(QStringLiteral("args.txt")));
    optimizer->setCurrentIndex(optimizer->findData(QStringLiteral("sgd")));
    rate->setText(QStringLiteral("1e-3"));
    anneal->setChecked(true);
    lines = bothStagesArguments(page, dir);
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines[0].startsWith(QStringLiteral("sl ")) &&
                 !lines[0].contains(QStringLiteral("--optimizer")) &&
                 !lines[0].contains(QStringLiteral("--lr")),
             qPrintable(lines[0]));
    QVERIFY2(lines[1].startsWith(QStringLiteral("rl ")) &&
                 lines[1].contains(QStringLiteral("--optimizer sgd --lr 0.001 --lr-anneal linear")),
             qPrintable(lines[1]));
    QCOMPARE(page.run()->request().optimizer, QStringLiteral("sgd"));
    QCOMPARE(page.run()->request().learningRate, 1e-3);
    QVERIFY(page.run()->request().lrAnnealLinear);
    // A rate out of range is named, and no run starts.
    QFile::remove(dir.filePath(QStringLiteral("args.txt")));
    rate->setText(QStringLiteral("0"));
    QVERIFY(!page.startTraining());
    QVERIFY2(
        status->text().contains(QStringLiteral("Learning rate: expected a number in (0, 1]")) &&
            status->text().contains(QStringLiteral("got '0'")),
        qPrintable(status->text()));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("args.txt"))));
    // SL alone has neither.
    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("sl")));
    QVERIFY(!optimizer->isEnabled() && !rate->isEnabled() && !anneal->isEnabled());
}

// The recipe of the best actor-critic from a DRF warm-up, from the form: per-type counts for
// the fresh warm-up, step scales for its tied actor-critic only (the trainer refuses them
// untied, and the count scale without per-type counts).
void TestTrainingPage::countsAndStepScalesOfTheTiedRecipe()
{
    QTemporaryDir dir;
    TrainingPage page(nullptr);
    page.setScenarios({QStringLiteral("dl2-small")});
    useRecordingTrainer(page, dir);
    page.show();
    auto *algorithm = page.findChild<QComboBox *>(QStringLiteral("trainingAlgorithm"));
    auto *tie = page.findChild<QCheckBox *>(QStringLiteral("trainingTieWindow"));
    auto *counts = page.findChild<QComboBox *>(QStringLiteral("trainingCounts"));
    auto *typeStep = page.findChild<QDoubleSpinBox *>(QStringLiteral("trainingTypeStepScale"));
    auto *countStep = page.findChild<QDoubleSpinBox *>(QStringLiteral("trainingCountStepScale"));
    QVERIFY(algorithm && tie && counts && typeStep && countStep);
    QCOMPARE(algorithm->currentData().toString(), QStringLiteral("sl+rl"));
    QVERIFY(counts->isEnabled());
    QVERIFY(!typeStep->isEnabled() && !countStep->isEnabled()); // not tied
    tie->setChecked(true);
    QVERIFY(typeStep->isEnabled());
    QVERIFY(!countStep->isEnabled()); // the paper's two counts: no per-type bits to scale
    counts->setCurrentIndex(counts->findData(QStringLiteral("per-type")));
    QVERIFY(countStep->isEnabled());
    typeStep->setValue(10);
    countStep->setValue(2.5);
    const QStringList lines = bothStagesArguments(page, dir);
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines[0].startsWith(QStringLiteral("sl ")) &&
                 lines[0].contains(QStringLiteral("--count-features per-type --normalise")) &&
                 !lines[0].contains(QStringLiteral("step-scale")),
             qPrintable(lines[0]));
    QVERIFY2(lines[1].startsWith(QStringLiteral("rl ")) &&
                 lines[1].contains(
                     QStringLiteral("--tie-window --type-step-scale 10 --count-step-scale 2.5")) &&
                 !lines[1].contains(QStringLiteral("--count-features")), // the warm-up brings them
             qPrintable(lines[1]));
    QCOMPARE(page.run()->request().countStepScale, 2.5);

    // Back to the paper's counts: the count scale is greyed out and not passed.
    counts->setCurrentIndex(counts->findData(QStringLiteral("scalar")));
    QVERIFY(!countStep->isEnabled());
    // One stage of RL from a fresh network is not tied: neither scale. It still takes its
    // counts' form; a checkpoint brings its own.
    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("rl")));
    QVERIFY(!tie->isEnabled());
    QVERIFY(!typeStep->isEnabled() && !countStep->isEnabled());
    QVERIFY(counts->isEnabled());
    auto *init = page.findChild<QLineEdit *>(QStringLiteral("trainingInit"));
    auto *status = page.findChild<QLabel *>(QStringLiteral("trainingStatus"));
    QVERIFY(init && status);
    init->setText(dir.filePath(QStringLiteral("warm.dl2ckpt")));
    QVERIFY(!counts->isEnabled());
    // A file that cannot be read: not tied, and the page says why.
    QTRY_VERIFY_WITH_TIMEOUT(status->text().contains(QStringLiteral("warm.dl2ckpt")), 10000);
    QVERIFY2(status->text().startsWith(QStringLiteral("Start checkpoint: ")), qPrintable(status->text()));
    QVERIFY(!tie->isEnabled() && !typeStep->isEnabled());

    // RL from a checkpoint trained tied, with per-type counts: kept tied, both scales, and
    // the checkpoint's kind whatever the greyed-out policy box says.
    const QString policies = qEnvironmentVariable("DL2_SOURCE_DIR") + QStringLiteral("/resources/policies/");
    tie->setChecked(false);
    page.findChild<QComboBox *>(QStringLiteral("trainingPolicy"))->setCurrentText(QStringLiteral("dl2-plus"));
    init->setText(policies + QStringLiteral("dl2-reference-actor-critic.dl2ckpt"));
    QTRY_VERIFY_WITH_TIMEOUT(tie->isEnabled(), 20000);
    QVERIFY(tie->isChecked()); // kept tied unless the user unticks it
    QVERIFY2(status->text().isEmpty(), qPrintable(status->text())); // the last file's error goes
    QVERIFY(typeStep->isEnabled() && countStep->isEnabled());
    typeStep->setValue(10);
    countStep->setValue(30);
    QVERIFY(page.startTraining());
    QTRY_VERIFY_WITH_TIMEOUT(!page.run()->isRunning(), 20000);
    QFile args(dir.filePath(QStringLiteral("args.txt")));
    QVERIFY(args.open(QIODevice::ReadOnly));
    const QString line = QString::fromUtf8(args.readAll()).trimmed().split(QLatin1Char('\n')).last();
    QVERIFY2(line.startsWith(QStringLiteral("rl ")) &&
                 line.contains(QStringLiteral("--tie-window --type-step-scale 10 --count-step-scale 30")),
             qPrintable(line));
    // Unticked: the actor-critic unties it, and the scales go.
    tie->setChecked(false);
    QVERIFY(!typeStep->isEnabled() && !countStep->isEnabled());

    // A checkpoint trained untied (the paper's flat network, scalar counts): nothing to keep.
    init->setText(policies + QStringLiteral("dl2-reference.dl2ckpt"));
    QTRY_VERIFY_WITH_TIMEOUT(!tie->isEnabled(), 20000);
    QTest::qWait(2000); // the inspection done, it stays so
    QVERIFY(!tie->isEnabled() && !typeStep->isEnabled() && !countStep->isEnabled());
}

// The shipped window-60 student tells job types apart (core/learning/README.md): rows of every
// type given inception-bn's type get a far larger q(worker | row) than given vgg-16's, which
// best-config gives one worker. "Probe types…" probes the checkpoint of the curves shown.
void TestTrainingPage::probesWhatACheckpointLearntOfTypes()
{
    const QString shipped = qEnvironmentVariable("DL2_SOURCE_DIR") +
                            QStringLiteral("/resources/policies/dl2-reference-window60.dl2ckpt");
    QVERIFY2(QFileInfo::exists(shipped), qPrintable(shipped));

    TypeProbeModel model;
    QAbstractItemModelTester tester(&model);
    QSignalSpy probed(&model, &TypeProbeModel::probed);
    model.probe(shipped);
    QVERIFY(probed.wait(60000));
    const TypeProbeResult &r = model.result();
    QCOMPARE(r.types.size(), 8);
    QCOMPARE(model.rowCount(), 8);
    QCOMPARE(model.columnCount(), 8);
    QCOMPARE(r.states, 40); // as dl2 policy probe prints it
    const int vgg = int(r.types.indexOf(QStringLiteral("vgg-16")));
    const int inception = int(r.types.indexOf(QStringLiteral("inception-bn")));
    QVERIFY(vgg >= 0 && inception >= 0);
    int typesSeen = 0;
    for (int own = 0; own < model.rowCount(); ++own) {
        if (model.index(own, 0).data(TypeProbeModel::RowsRole).toInt() == 0) {
            QVERIFY(!model.index(own, vgg).data(TypeProbeModel::ValueRole).isValid());
            continue;
        }
        ++typesSeen;
        const double asVgg = model.index(own, vgg).data(TypeProbeModel::ValueRole).toDouble();
        const double asInception =
            model.index(own, inception).data(TypeProbeModel::ValueRole).toDouble();
        QVERIFY2(asInception > asVgg + 0.2,
                 qPrintable(
                     QStringLiteral("%1: %2 vs %3").arg(r.types[own]).arg(asInception).arg(asVgg)));
    }
    QCOMPARE(typesSeen, 8); // every type has rows at one worker and one PS in these states
    QVERIFY(r.spread(TypeProbeModel::OneWorkerOnePs) > 0.3);
    QVERIFY(r.tied);
    // Rows at two workers or more: fewer types seen, the same columns.
    model.setBand(TypeProbeModel::MoreWorkers);
    QCOMPARE(model.columnCount(), 8);
    QVERIFY(model.index(vgg, 0).data(TypeProbeModel::RowsRole).toInt() == 0);
    QVERIFY(!model.index(vgg, 0).data().isValid());
    // Rows at one worker and nine PSs or more: vgg-16's (its best is one worker and 14 PSs)
    // get almost no worker, cnn-text's (grown to both caps) nearly all.
    model.setBand(TypeProbeModel::OneWorkerManyPs);
    const int cnnText = int(r.types.indexOf(QStringLiteral("cnn-text-classification")));
    QVERIFY(model.index(vgg, 0).data(TypeProbeModel::RowsRole).toInt() > 0);
    QVERIFY(model.index(cnnText, 0).data(TypeProbeModel::RowsRole).toInt() > 0);
    QVERIFY(model.index(vgg, vgg).data(TypeProbeModel::ValueRole).toDouble() < 0.1);
    QVERIFY(model.index(cnnText, cnnText).data(TypeProbeModel::ValueRole).toDouble() > 0.9);

    // Through the page: the checkpoint next to the curves file is the one probed.
    QTemporaryDir dir;
    const QString checkpoint = dir.filePath(QStringLiteral("run.dl2ckpt"));
    QVERIFY(QFile::copy(shipped, checkpoint));
    writeFile(checkpoint + QStringLiteral(".curves.csv"), rlCurves(3));
    TrainingPage page(nullptr);
    page.show();
    QVERIFY(page.openCurves(checkpoint + QStringLiteral(".curves.csv")));
    QCOMPARE(page.probeCandidate(), checkpoint);
    auto *button = page.findChild<QPushButton *>(QStringLiteral("trainingProbeTypes"));
    QVERIFY(button);
    QTest::mouseClick(button, Qt::LeftButton);
    TypeProbeDialog *dialog = page.typeProbeDialog();
    QVERIFY(dialog && dialog->isVisible());
    QTRY_COMPARE_WITH_TIMEOUT(dialog->model()->rowCount(), 8, 60000);
    QVERIFY2(
        dialog->message().contains(QStringLiteral(
            "run.dl2ckpt: 40 decision states of dl2-reference seed 100, drawn from slots 10-29")),
        qPrintable(dialog->message()));
    QVERIFY2(dialog->statistics().contains(QStringLiteral("Tied across the window")),
             qPrintable(dialog->statistics()));
    QVERIFY(dialog->findChild<QTableView *>(QStringLiteral("typeProbeTable"))->isVisible());
    // Every band's tab is shown whole, with its rows, without scrolling the tab bar.
    auto *bands = dialog->findChild<QTabBar *>(QStringLiteral("typeProbeBands"));
    QVERIFY(bands);
    QCOMPARE(bands->count(), TypeProbeResult::kBands);
    QVERIFY2(bands->tabRect(bands->count() - 1).right() < bands->width(),
             qPrintable(QStringLiteral("%1 > %2")
                            .arg(bands->tabRect(bands->count() - 1).right())
                            .arg(bands->width())));
    QVERIFY2(bands->tabText(2).startsWith(QStringLiteral("1 worker, 9+ PSs (")),
             qPrintable(bands->tabText(2)));
    // The CSV has every band's rows of the types seen, q given each type.
    const QString csv = dir.filePath(QStringLiteral("types.csv"));
    QCOMPARE(dialog->exportCsv(csv), QString());
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QVERIFY2(lines[0].startsWith("band,type,rows,q_as_resnet-50,q_as_vgg-16,"),
             lines[0].constData());
    int rows = 0;
    for (int band = 0; band < TypeProbeResult::kBands; ++band)
        for (const int n : r.rows[band])
            rows += n > 0;
    QCOMPARE(int(lines.size()), 1 + rows);
    QVERIFY(lines[1].startsWith("one_worker_one_ps,resnet-50,"));
    QCOMPARE(int(lines[1].split(',').size()), 3 + 8);
    // A file that cannot be written: the error names it, and nothing is left behind.
    const QString blocked = dir.filePath(QStringLiteral("no-such-dir/types.csv"));
    QVERIFY2(dialog->exportCsv(blocked).contains(blocked), qPrintable(dialog->exportCsv(blocked)));
    QVERIFY(!QFile::exists(blocked));
}

// A checkpoint the probe cannot read gives a message naming the file and the reason, and no
// table: dl2-plus (no one-hot type input to move) and a file that is not a checkpoint.
void TestTrainingPage::probeErrorsNameTheFile()
{
    QTemporaryDir dir;
    const QString plus = dir.filePath(QStringLiteral("plus.dl2ckpt"));
    QVERIFY(QFile::copy(qEnvironmentVariable("DL2_SOURCE_DIR") +
                            QStringLiteral("/resources/policies/dl2-plus-contended.dl2ckpt"),
                        plus));
    const QString corrupt = dir.filePath(QStringLiteral("corrupt.dl2ckpt"));
    writeFile(corrupt, "not a checkpoint\n");
    TrainingPage page(nullptr);
    page.probeTypes(plus);
    TypeProbeDialog *dialog = page.typeProbeDialog();
    QVERIFY(dialog);
    QTRY_VERIFY_WITH_TIMEOUT(dialog->message().startsWith(QStringLiteral("Cannot probe")), 60000);
    QVERIFY2(dialog->message().contains(QDir::toNativeSeparators(plus) +
                                        QStringLiteral(": only for the faithful dl2")),
             qPrintable(dialog->message()));
    QCOMPARE(dialog->model()->rowCount(), 0);
    QVERIFY(!dialog->findChild<QTableView *>(QStringLiteral("typeProbeTable"))->isVisible());
    QVERIFY(!dialog->findChild<QPushButton *>(QStringLiteral("typeProbeExport"))->isEnabled());

    page.probeTypes(corrupt);
    QTRY_VERIFY_WITH_TIMEOUT(dialog->message().contains(QStringLiteral("not a DL2 checkpoint")),
                             60000);
    QVERIFY2(dialog->message().contains(corrupt), qPrintable(dialog->message()));
    QCOMPARE(dialog->model()->rowCount(), 0);

    // A shipped policy is named as it was asked for, not by its resource path.
    page.probeTypes(QStringLiteral("dl2-plus-reference"));
    QTRY_VERIFY_WITH_TIMEOUT(dialog->message().contains(QStringLiteral("only for the faithful dl2")), 60000);
    QVERIFY2(dialog->message().startsWith(QStringLiteral("Cannot probe dl2-plus-reference: ")),
             qPrintable(dialog->message()));
}

void TestTrainingPage::startAndCancelRealTraining()
{
    const QString cli = qEnvironmentVariable("DL2_CLI");
    if (cli.isEmpty())
        QSKIP("DL2_CLI not set (run through ctest)");
    QTemporaryDir dir;
    TrainingPage page(nullptr);
    page.setScenarios({QStringLiteral("dl2-small"), QStringLiteral("dl2-reference")});
    useRealTrainer(page, cli, dir);
    page.resize(1200, 800);
    page.show();
    auto *start = page.findChild<QPushButton *>(QStringLiteral("trainingStart"));
    auto *cancel = page.findChild<QPushButton *>(QStringLiteral("trainingCancel"));
    auto *progress = page.findChild<QProgressBar *>(QStringLiteral("trainingProgress"));
    QVERIFY(start && cancel && progress);
    QVERIFY(start->isEnabled());
    QVERIFY(!cancel->isEnabled());

    TrainingRequest request;
    request.scenario = QStringLiteral("dl2-small");
    request.steps = 100000; // far more than the test waits for
    request.validateEvery = 3;
    request.validationSeeds = QStringLiteral("100");
    request.exploration = QStringLiteral("reference"); // the authors' rules: they do replace decisions
    QVERIFY(page.startTraining(request));
    QVERIFY(!start->isEnabled());
    QVERIFY(cancel->isEnabled());
    QCOMPARE(progress->maximum(), 100000);
    const QString output = page.run()->request().output;
    QVERIFY(output.startsWith(dir.path()));
    // The page follows the run's curves: updates arrive while it runs.
    QTRY_VERIFY_WITH_TIMEOUT(page.model()->lastStep() >= 3, 180000);
    QVERIFY(page.run()->isRunning());
    QVERIFY(progress->value() >= 3);
    const QString shot = qEnvironmentVariable("DL2_TRAINING_PAGE_PNG");
    if (!shot.isEmpty())
        QVERIFY(page.grab().save(QString(shot).replace(QStringLiteral(".png"),
                                                       QStringLiteral("-running.png"))));

    QSignalSpy finished(page.run(), &TrainingRun::finished);
    QTest::mouseClick(cancel, Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QCOMPARE(page.run()->state(), TrainingRun::State::Cancelled);
    QVERIFY(start->isEnabled());
    QVERIFY(!cancel->isEnabled());
    QVERIFY(page.statusText().contains(QStringLiteral("Cancelled")));
    // Stopped like Ctrl-C (not killed): the trainer printed its result.
    QVERIFY2(page.run()->summary().contains(QStringLiteral("best validation avg JCT")),
             qPrintable(page.run()->summary()));
    // Stopped cleanly: the best checkpoint and the curves so far are on disk.
    QVERIFY(QFileInfo::exists(output));
    TrainingCurvesModel curves;
    QVERIFY(curves.setFile(output + QStringLiteral(".curves.csv")));
    QVERIFY(curves.lastStep() >= 3);
    const auto explored = curves.series(QStringLiteral("explored_fraction"));
    QVERIFY(!explored.isEmpty());
    QVERIFY(*std::max_element(explored.values.begin(), explored.values.end()) > 0.0);
    QVERIFY(curves.lastStep() < 100000);
    // The page says how the run was trained, read from the checkpoint it left.
    page.refresh();
    const QString recipe = page.findChild<QLabel *>(QStringLiteral("trainingRecipe"))->text();
    for (const char *part : {"Actor-critic (RL), dl2 (window 20) on dl2-small", "best validation avg JCT",
                             "exploration <b>reference</b>", "credit <b>split</b>",
                             "task credit <b>progress</b>", "control <b>no</b>"})
        QVERIFY2(recipe.contains(QLatin1String(part)), qPrintable(recipe));
    // The code's rules fire with their own probabilities, so no epsilon is listed for them.
    QVERIFY2(!recipe.contains(QStringLiteral("· epsilon <b>")), qPrintable(recipe));
}

void TestTrainingPage::warmupThenRl()
{
    const QString cli = qEnvironmentVariable("DL2_CLI");
    if (cli.isEmpty())
        QSKIP("DL2_CLI not set (run through ctest)");
    // Two stages: SL, then RL from the SL run's checkpoint; the page follows each in turn.
    QTemporaryDir dir;
    TrainingPage page(nullptr);
    useRealTrainer(page, cli, dir);
    // Tied window weights, as the page asks for them: SL ties them, the actor-critic keeps them
    // tied (it refuses a warm-up that is not, so the chain finishing shows both took).
    TrainingRequest sl = tinyRequest(QStringLiteral("sl"), dir.filePath(QStringLiteral("warmup.dl2ckpt")));
    TrainingRequest rl = tinyRequest(QStringLiteral("rl"), dir.filePath(QStringLiteral("rl.dl2ckpt")));
    sl.tieWindow = rl.tieWindow = true;
    QVERIFY(page.startTraining(sl, rl));
    QCOMPARE(page.stage(), 1);
    QCOMPARE(page.model()->file(), sl.curvesFile());
    QTRY_COMPARE_WITH_TIMEOUT(page.stage(), 2, 180000);
    QCOMPARE(page.run()->request().init, sl.output);
    QCOMPARE(page.model()->file(), rl.curvesFile());
    QVERIFY(page.run()->commandLine().contains(QStringLiteral("--init ") + sl.output));
    QVERIFY2(page.run()->commandLine().contains(QStringLiteral("--tie-window")), qPrintable(page.run()->commandLine()));
    QTRY_VERIFY_WITH_TIMEOUT(!page.run()->isRunning(), 180000);
    QVERIFY2(page.run()->state() == TrainingRun::State::Finished,
             qPrintable(page.run()->errorString()));
    QTRY_COMPARE_WITH_TIMEOUT(page.model()->lastStep(), 4.0, 5000);
    QVERIFY(QFileInfo::exists(rl.output));
    // The warm-up's curves stay on disk for a later look.
    TrainingCurvesModel warmup;
    QVERIFY(warmup.setFile(sl.curvesFile()));
    QCOMPARE(warmup.lastStep(), 4.0);
}

void TestTrainingPage::controlRunsBeside()
{
    // "Also run its control": an actor-critic start runs the same command twice, the second
    // with --control and its own checkpoint, and draws the second as the comparison; SL has
    // no control. A stand-in trainer appends its arguments.
    QTemporaryDir dir;
    TrainingPage page(nullptr);
    page.setScenarios({QStringLiteral("dl2-small")});
    useRecordingTrainer(page, dir);
    page.show();
    auto *algorithm = page.findChild<QComboBox *>(QStringLiteral("trainingAlgorithm"));
    auto *withControl = page.findChild<QCheckBox *>(QStringLiteral("trainingWithControl"));
    auto *start = page.findChild<QPushButton *>(QStringLiteral("trainingStart"));
    QVERIFY(algorithm && withControl && start);
    QVERIFY(!withControl->isChecked()); // off by default: one run, one core
    const auto startAndReadArguments = [&]() -> QStringList {
        QFile::remove(dir.filePath(QStringLiteral("args.txt")));
        QTest::mouseClick(start, Qt::LeftButton);
        [&] {
            QTRY_VERIFY_WITH_TIMEOUT(!page.run()->isRunning() && !page.controlRun()->isRunning(),
                                     20000);
        }();
        QFile args(dir.filePath(QStringLiteral("args.txt")));
        if (!args.open(QIODevice::ReadOnly))
            return {};
        QStringList lines = QString::fromUtf8(args.readAll()).trimmed().split(QLatin1Char('\n'));
        lines.sort(); // the two processes may write in either order
        return lines;
    };

    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("rl")));
    QVERIFY(withControl->isEnabled());
    QCOMPARE(startAndReadArguments().size(), 1);
    QCOMPARE(page.controlRun()->state(), TrainingRun::State::Idle);

    withControl->setChecked(true);
    const QStringList lines = startAndReadArguments();
    QCOMPARE(lines.size(), 2);
    const QString output = page.run()->request().output;
    QVERIFY(output.endsWith(QStringLiteral(".dl2ckpt")));
    const QString controlOutput =
        output.left(output.size() - 8) + QStringLiteral("-control.dl2ckpt");
    const QString real = lines.filter(QStringLiteral("-o ") + output).value(0);
    const QString control = lines.filter(QStringLiteral("-o ") + controlOutput).value(0);
    QVERIFY2(!real.isEmpty() && !control.isEmpty(), qPrintable(lines.join(QLatin1Char('|'))));
    QVERIFY2(!real.contains(QStringLiteral("--control")), qPrintable(real));
    QVERIFY2(control.contains(QStringLiteral("--control")), qPrintable(control));
    // The same run otherwise: the control's arguments are the real run's plus --control.
    QString expected = real;
    expected.replace(QStringLiteral(" -o ") + output,
                     QStringLiteral(" --control -o ") + controlOutput);
    QCOMPARE(control, expected);
    QCOMPARE(page.comparison()->file(), controlOutput + QStringLiteral(".curves.csv"));
    QVERIFY(page.findChild<QLabel *>(QStringLiteral("trainingCompareLabel"))->isVisible());

    // SL has no advantages to shuffle: the box is greyed out and one run starts.
    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("sl")));
    QVERIFY(!withControl->isEnabled());
    const QStringList sl = startAndReadArguments();
    QCOMPARE(sl.size(), 1);
    QVERIFY2(sl.front().startsWith(QStringLiteral("sl ")), qPrintable(sl.front()));
}

void TestTrainingPage::realRunWithItsControl()
{
    const QString cli = qEnvironmentVariable("DL2_CLI");
    if (cli.isEmpty())
        QSKIP("DL2_CLI not set (run through ctest)");
    // The real trainer, twice at once: both finish, the comparison is the control's curves,
    // and the control's checkpoint says it is one.
    QTemporaryDir dir;
    TrainingPage page(nullptr);
    useRealTrainer(page, cli, dir);
    page.setRunControl(true);
    QVERIFY(page.startTraining(tinyRequest(QStringLiteral("rl"), dir.filePath(QStringLiteral("rl.dl2ckpt")))));
    QVERIFY(page.controlRun()->isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(!page.run()->isRunning() && !page.controlRun()->isRunning(), 180000);
    QVERIFY2(page.run()->state() == TrainingRun::State::Finished, qPrintable(page.run()->errorString()));
    QVERIFY2(page.controlRun()->state() == TrainingRun::State::Finished,
             qPrintable(page.controlRun()->errorString()));
    const QString control = dir.filePath(QStringLiteral("rl-control.dl2ckpt"));
    QVERIFY(QFileInfo::exists(control));
    QCOMPARE(page.comparison()->file(), control + QStringLiteral(".curves.csv"));
    QTRY_COMPARE_WITH_TIMEOUT(page.comparison()->lastStep(), 4.0, 5000);
    QVERIFY(!page.comparison()->series(QStringLiteral("validation_avg_jct")).isEmpty());
    QVERIFY2(page.statusText().contains(QStringLiteral("Control finished")),
             qPrintable(page.statusText()));
    page.refresh();
    QCOMPARE(page.jctPlot()->graph(0)->name(), QStringLiteral("its control (advantages shuffled)"));
    // What the control's checkpoint says of itself, as the page shows it when opened as the run.
    QVERIFY(page.openCurves(control + QStringLiteral(".curves.csv")));
    page.refresh();
    const QString recipe = page.findChild<QLabel *>(QStringLiteral("trainingRecipe"))->text();
    QVERIFY2(recipe.contains(QStringLiteral("control <b>yes</b>")), qPrintable(recipe));
    // The paper's rules (the default) fire with probability epsilon: the page lists it.
    QVERIFY2(recipe.contains(QStringLiteral("exploration <b>paper</b>")) &&
                 recipe.contains(QStringLiteral("· epsilon <b>0.4</b>")),
             qPrintable(recipe));
}

QTEST_MAIN(TestTrainingPage)
#include "tst_trainingpage.moc"
