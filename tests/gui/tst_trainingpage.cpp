// The training page: renders a run's curves (validation JCT, entropy, losses, action mix),
// shows a malformed file's error, computes reference lines, and starts and cancels a real
// tiny `dl2 train rl` in the background through its buttons.

#include "plot.h"
#include "scheduler.h"
#include "settings.h"
#include "stubprogram.h"
#include "trainingcurvesmodel.h"
#include "trainingpage.h"

#include <algorithm>

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
    void recipeWithoutAReadableCheckpoint();
    void referenceLines();
    void formBecomesTheCommand();
    void startAndCancelRealTraining();
    void warmupThenRl();
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
    dl2console::test::writeScript(dir.filePath(QStringLiteral("dl2-train")),
                                  "echo \"$@\" > \"$(dirname \"$0\")/args.txt\"\n");
    TrainingPage page(nullptr);
    page.setScenarios({QStringLiteral("dl2-small"), QStringLiteral("dl2-reference")});
    page.run()->setSearchDirectories({dir.path()});
    page.setOutputDirectory(dir.path());
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

    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("sl")));
    QVERIFY(!credit->isEnabled());
    QVERIFY(!exploration->isEnabled());
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

    policy->setCurrentIndex(policy->findText(QStringLiteral("dl2-plus")));
    QVERIFY(!window->isEnabled());
    // The window teachers are for dl2 only: the choice falls back, the items are disabled.
    QCOMPARE(teacher->currentText(), QStringLiteral("optimus"));
    const auto *items = qobject_cast<QStandardItemModel *>(teacher->model());
    QVERIFY(items);
    QVERIFY(!items->item(teacher->findText(QStringLiteral("best-config-window-25")))->isEnabled());
    QVERIFY(items->item(teacher->findText(QStringLiteral("best-config")))->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral("--policy dl2-plus")) &&
                 !line.contains(QStringLiteral("--window")),
             qPrintable(line));

    policy->setCurrentIndex(policy->findText(QStringLiteral("dl2")));
    QVERIFY(window->isEnabled());
    QVERIFY(items->item(teacher->findText(QStringLiteral("best-config-window-25")))->isEnabled());
    algorithm->setCurrentIndex(algorithm->findData(QStringLiteral("rl")));
    init->setText(dir.filePath(QStringLiteral("warm.dl2ckpt")));
    QVERIFY(!window->isEnabled());
    line = startAndReadArguments();
    QVERIFY2(line.contains(QStringLiteral("--init")) && !line.contains(QStringLiteral("--window")),
             qPrintable(line));
}

void TestTrainingPage::startAndCancelRealTraining()
{
    const QString cli = qEnvironmentVariable("DL2_CLI");
    if (cli.isEmpty())
        QSKIP("DL2_CLI not set (run through ctest)");
    QTemporaryDir dir;
    TrainingPage page(nullptr);
    page.setScenarios({QStringLiteral("dl2-small"), QStringLiteral("dl2-reference")});
    page.run()->setSearchDirectories({QFileInfo(cli).absolutePath()});
    page.setOutputDirectory(dir.path());
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
}

void TestTrainingPage::warmupThenRl()
{
    const QString cli = qEnvironmentVariable("DL2_CLI");
    if (cli.isEmpty())
        QSKIP("DL2_CLI not set (run through ctest)");
    // Two stages: SL, then RL from the SL run's checkpoint; the page follows each in turn.
    QTemporaryDir dir;
    TrainingPage page(nullptr);
    page.run()->setSearchDirectories({QFileInfo(cli).absolutePath()});
    page.setOutputDirectory(dir.path());
    TrainingRequest sl, rl;
    sl.algorithm = QStringLiteral("sl");
    sl.steps = 4;
    sl.validateEvery = 2;
    sl.validationSeeds = QStringLiteral("100");
    sl.output = dir.filePath(QStringLiteral("warmup.dl2ckpt"));
    rl = sl;
    rl.algorithm = QStringLiteral("rl");
    rl.output = dir.filePath(QStringLiteral("rl.dl2ckpt"));
    QVERIFY(page.startTraining(sl, rl));
    QCOMPARE(page.stage(), 1);
    QCOMPARE(page.model()->file(), sl.curvesFile());
    QTRY_COMPARE_WITH_TIMEOUT(page.stage(), 2, 180000);
    QCOMPARE(page.run()->request().init, sl.output);
    QCOMPARE(page.model()->file(), rl.curvesFile());
    QVERIFY(page.run()->commandLine().contains(QStringLiteral("--init ") + sl.output));
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

QTEST_MAIN(TestTrainingPage)
#include "tst_trainingpage.moc"
