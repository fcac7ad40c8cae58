// File > Import public trace…: the dialog's preview is `dl2 trace-import`'s report (same counts
// on the fixtures of every format and with options), errors name file and line with nothing
// written, cancel drops the result, and the imported trace opens in the console on its own
// cluster with the source's fields in the jobs table.
#include "consolefixture.h"
#include "importtracedialog.h"
#include "jobtablemodel.h"
#include "jobtablepanel.h"
#include "sessionstatusbar.h"
#include "viewrefresher.h"
#include "simulator.h"
#include "trace.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QThreadPool>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

using namespace dl2console;

namespace {

QString sourceDir()
{
    return qEnvironmentVariable("DL2_SOURCE_DIR");
}

QString fixture(const QString &name)
{
    return sourceDir() + QStringLiteral("/tests/data/traces/") + name;
}

// What the CLI says on a dry run: kept, filtered per reason, malformed, records, cluster.
struct CliReport
{
    int records = -1;
    int kept = -1;
    int malformed = -1;
    QMap<QString, int> filtered;
    QString cluster; // "N nodes x G GPUs, C CPUs" or empty when not implied
    QString error;   // stderr of a failed run
    int exitCode = -1;
};

int plainNumber(QString text)
{
    return text.remove(QLatin1Char(',')).toInt();
}

CliReport runCli(const QStringList &args)
{
    CliReport r;
    QProcess p;
    p.start(qEnvironmentVariable("DL2_CLI"), QStringList{QStringLiteral("trace-import"), QStringLiteral("--dry-run")} + args);
    if (!p.waitForFinished(120000))
        return r;
    r.exitCode = p.exitCode();
    r.error = QString::fromUtf8(p.readAllStandardError());
    const QStringList lines = QString::fromUtf8(p.readAllStandardOutput()).split(QLatin1Char('\n'));
    for (const QString &line : lines) {
        if (line.startsWith(QLatin1String("read "))) {
            const auto m = QRegularExpression(QStringLiteral(", ([\\d,]+) job records")).match(line);
            if (m.hasMatch())
                r.records = plainNumber(m.captured(1));
        } else if (line.startsWith(QLatin1String("kept "))) {
            r.kept = plainNumber(line.mid(4).trimmed().section(QLatin1Char(' '), 0, 0));
        } else if (line.startsWith(QLatin1String("malformed "))) {
            r.malformed = plainNumber(line.mid(9).trimmed().section(QLatin1Char(' '), 0, 0));
        } else if (line.startsWith(QLatin1String("filtered "))) {
            const int colon = line.indexOf(QLatin1String(": "));
            if (colon < 0)
                continue;
            for (const QString &part : line.mid(colon + 2).split(QStringLiteral(", "))) {
                const int space = part.lastIndexOf(QLatin1Char(' '));
                r.filtered[part.left(space)] = plainNumber(part.mid(space + 1));
            }
        } else if (line.startsWith(QLatin1String("cluster ")) && !line.contains(QLatin1String("not implied"))) {
            r.cluster = line.mid(8).trimmed().section(QLatin1String(" ("), 0, 0);
        }
    }
    return r;
}

// The dialog's report tree: key -> count (column 1), and the cluster row's text.
struct DialogReport
{
    int records = -1;
    int kept = -1;
    int malformed = -1;
    QMap<QString, int> filtered;
    QString cluster;
};

DialogReport readDialog(ImportTraceDialog &dialog)
{
    DialogReport r;
    auto *tree = dialog.findChild<QTreeWidget *>(QStringLiteral("counts"));
    if (!tree)
        return r;
    QList<QTreeWidgetItem *> items;
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        items << tree->topLevelItem(i);
        for (int c = 0; c < tree->topLevelItem(i)->childCount(); ++c)
            items << tree->topLevelItem(i)->child(c);
    }
    for (QTreeWidgetItem *item : items) {
        const QString key = item->data(0, Qt::UserRole).toString();
        const int count = plainNumber(item->text(1));
        if (key == QLatin1String("records"))
            r.records = count;
        else if (key == QLatin1String("kept"))
            r.kept = count;
        else if (key == QLatin1String("malformed"))
            r.malformed = count;
        else if (key.startsWith(QLatin1String("filtered:")))
            r.filtered[key.mid(9)] = count;
        else if (key == QLatin1String("cluster") && !item->text(0).contains(QLatin1String("not implied")))
            r.cluster = item->text(0).mid(item->text(0).indexOf(QLatin1String(": ")) + 2).section(QLatin1String(" ("), 0, 0);
    }
    return r;
}

bool runPreview(ImportTraceDialog &dialog)
{
    QSignalSpy done(&dialog, &ImportTraceDialog::previewFinished);
    dialog.startPreview();
    if (done.isEmpty() && !done.wait(120000))
        return false;
    return done.first().first().toBool();
}

} // namespace

class TestImportTraceDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY2(!sourceDir().isEmpty(), "DL2_SOURCE_DIR not set");
        QVERIFY2(QFileInfo(qEnvironmentVariable("DL2_CLI")).isExecutable(), "DL2_CLI not set");
    }

    void previewEqualsCliReport_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("cliOptions");
        QTest::addColumn<QString>("setting"); // what to change in the dialog, "" for nothing
        const int philly = int(dl2::ImportFormat::Philly), pai = int(dl2::ImportFormat::Alibaba),
                  helios = int(dl2::ImportFormat::Helios);
        QTest::newRow("philly") << philly << QStringLiteral("philly/cluster_job_log") << QStringList{} << QString();
        QTest::newRow("philly last-attempt")
            << philly << QStringLiteral("philly/cluster_job_log")
            << QStringList{QStringLiteral("--philly-duration"), QStringLiteral("last-attempt")}
            << QStringLiteral("phillyDuration=1");
        QTest::newRow("alibaba") << pai << QStringLiteral("pai/pai_task_table.csv") << QStringList{} << QString();
        QTest::newRow("alibaba keep-cpu")
            << pai << QStringLiteral("pai/pai_task_table.csv")
            << QStringList{QStringLiteral("--keep-cpu-jobs")} << QStringLiteral("keepCpuJobs");
        QTest::newRow("helios") << helios << QStringLiteral("helios/cluster_log.csv") << QStringList{} << QString();
        QTest::newRow("helios max-jobs")
            << helios << QStringLiteral("helios/cluster_log.csv")
            << QStringList{QStringLiteral("--max-jobs"), QStringLiteral("2")} << QStringLiteral("maxJobs=2");
        QTest::newRow("helios window")
            << helios << QStringLiteral("helios/cluster_log.csv")
            << QStringList{QStringLiteral("--from"), QStringLiteral("2020-04-01 01:00:00"),
                           QStringLiteral("--to"), QStringLiteral("2020-04-01 01:50:00")}
            << QStringLiteral("window");
    }

    void previewEqualsCliReport()
    {
        QFETCH(int, format);
        QFETCH(QString, file);
        QFETCH(QStringList, cliOptions);
        QFETCH(QString, setting);
        static const char *const names[] = {"philly", "alibaba", "helios"};
        const CliReport cli = runCli(QStringList{QStringLiteral("--format"), QLatin1String(names[format]),
                                                 fixture(file)} + cliOptions);
        QCOMPARE(cli.exitCode, 0);
        QVERIFY(cli.kept > 0);

        const dl2::ProfileSet profiles = dl2::ProfileSet::reference();
        ImportTraceDialog dialog(profiles);
        dialog.setFormat(dl2::ImportFormat(format));
        dialog.setFile(fixture(file));
        if (setting == QLatin1String("phillyDuration=1"))
            dialog.findChild<QComboBox *>(QStringLiteral("phillyDuration"))->setCurrentIndex(1);
        else if (setting == QLatin1String("keepCpuJobs"))
            dialog.findChild<QCheckBox *>(QStringLiteral("keepCpuJobs"))->setChecked(true);
        else if (setting == QLatin1String("maxJobs=2"))
            dialog.findChild<QSpinBox *>(QStringLiteral("maxJobs"))->setValue(2);
        else if (setting == QLatin1String("window")) {
            dialog.findChild<QLineEdit *>(QStringLiteral("from"))->setText(QStringLiteral("2020-04-01 01:00:00"));
            dialog.findChild<QLineEdit *>(QStringLiteral("to"))->setText(QStringLiteral("2020-04-01 01:50:00"));
        }
        QVERIFY2(runPreview(dialog), qPrintable(dialog.errorText()));
        QVERIFY(dialog.preview());
        const DialogReport shown = readDialog(dialog);
        QCOMPARE(shown.records, cli.records);
        QCOMPARE(shown.kept, cli.kept);
        QCOMPARE(shown.malformed, cli.malformed);
        QCOMPARE(shown.filtered, cli.filtered);
        QCOMPARE(shown.cluster, cli.cluster);
        QCOMPARE(int(dialog.preview()->trace.jobs.size()), cli.kept);
    }

    void malformedFileNamesFileAndLine()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // The Helios fixture with a broken row in the middle (line 4: a row with too few fields).
        QFile in(fixture(QStringLiteral("helios/cluster_log.csv")));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QList<QByteArray> lines = in.readAll().split('\n');
        lines.insert(3, "deadbeef,ux,vc6YE,2,COMPLETED");
        const QString broken = dir.filePath(QStringLiteral("cluster_log.csv"));
        QFile out(broken);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(lines.join('\n'));
        out.close();

        const CliReport cli = runCli({QStringLiteral("--format"), QStringLiteral("helios"), broken});
        QVERIFY(cli.exitCode != 0);

        const QString folder = dir.filePath(QStringLiteral("imported"));
        ImportTraceDialog dialog(dl2::ProfileSet::reference());
        dialog.setImportFolder(folder);
        dialog.setFormat(dl2::ImportFormat::Helios);
        dialog.setFile(broken);
        QVERIFY(!runPreview(dialog));
        QVERIFY(!dialog.preview());
        const QString error = dialog.errorText();
        QVERIFY2(error.contains(broken + QStringLiteral(":4")), qPrintable(error));
        // The CLI's message, word for word.
        QVERIFY2(cli.error.contains(error), qPrintable(cli.error + QStringLiteral(" vs ") + error));
        QVERIFY(!dialog.findChild<QPushButton *>(QStringLiteral("importButton"))->isEnabled());
        dialog.importAndOpen(); // refused: nothing previewed
        QVERIFY(!QDir(folder).exists() || QDir(folder).isEmpty());

        // With skip-malformed: counted, the rest imported, as the CLI.
        dialog.findChild<QCheckBox *>(QStringLiteral("skipMalformed"))->setChecked(true);
        QVERIFY2(runPreview(dialog), qPrintable(dialog.errorText()));
        const CliReport skipped = runCli({QStringLiteral("--format"), QStringLiteral("helios"),
                                          QStringLiteral("--skip-malformed"), broken});
        QCOMPARE(readDialog(dialog).malformed, skipped.malformed);
        QCOMPARE(readDialog(dialog).malformed, 1);
        QCOMPARE(readDialog(dialog).kept, skipped.kept);
    }

    void wrongFormatIsAnError()
    {
        ImportTraceDialog dialog(dl2::ProfileSet::reference());
        dialog.setFormat(dl2::ImportFormat::Philly); // a Helios CSV read as Philly's JSON
        dialog.setFile(fixture(QStringLiteral("helios/cluster_log.csv")));
        QVERIFY(!runPreview(dialog));
        QVERIFY2(dialog.errorText().contains(QStringLiteral("cluster_log.csv")), qPrintable(dialog.errorText()));
        QVERIFY(!dialog.preview());

        dialog.setFile(QStringLiteral("/nonexistent/trace.csv"));
        QVERIFY(!runPreview(dialog));
        QVERIFY2(dialog.errorText().contains(QStringLiteral("/nonexistent/trace.csv")), qPrintable(dialog.errorText()));

        dialog.setFile(fixture(QStringLiteral("helios/cluster_log.csv")));
        dialog.setFormat(dl2::ImportFormat::Helios);
        dialog.findChild<QLineEdit *>(QStringLiteral("from"))->setText(QStringLiteral("yesterday"));
        QVERIFY(!runPreview(dialog));
        QVERIFY2(dialog.errorText().contains(QStringLiteral("yesterday")), qPrintable(dialog.errorText()));
    }

    void changedOptionsInvalidateThePreview()
    {
        ImportTraceDialog dialog(dl2::ProfileSet::reference());
        dialog.setFormat(dl2::ImportFormat::Helios);
        dialog.setFile(fixture(QStringLiteral("helios/cluster_log.csv")));
        QVERIFY(runPreview(dialog));
        auto *import = dialog.findChild<QPushButton *>(QStringLiteral("importButton"));
        QVERIFY(import->isEnabled());
        dialog.findChild<QSpinBox *>(QStringLiteral("seed"))->setValue(7);
        QVERIFY(!dialog.preview());
        QVERIFY(!import->isEnabled());
    }

    void cancelDropsTheResult()
    {
        ImportTraceDialog dialog(dl2::ProfileSet::reference());
        dialog.setFormat(dl2::ImportFormat::Philly);
        dialog.setFile(fixture(QStringLiteral("philly/cluster_job_log")));
        QSignalSpy done(&dialog, &ImportTraceDialog::previewFinished);
        dialog.startPreview();
        QVERIFY(dialog.isPreviewRunning());
        dialog.cancelPreview();
        QVERIFY(!dialog.isPreviewRunning());
        QCOMPARE(done.size(), 1);
        QCOMPARE(done.first().first().toBool(), false);
        // The import finishes on the pool; its result is not shown.
        QThreadPool::globalInstance()->waitForDone(60000);
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
        QVERIFY(!dialog.preview());
        QCOMPARE(done.size(), 1);
        QVERIFY(dialog.findChild<QTreeWidget *>(QStringLiteral("counts"))->topLevelItemCount() == 0);
    }

    void importOpensOnTheTraceCluster()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        Settings settings(dir.filePath(QStringLiteral("settings.ini")));
        std::unique_ptr<MainWindow> window;
        test::openConsole(window, &settings, QSize(1400, 900));
        if (QTest::currentTestFailed())
            return;
        // Generated scenario: no source columns.
        JobTableModel *model = window->jobModel();
        QTableView *view = window->jobPanel()->view();
        for (int c : {JobTableModel::SourceIdColumn, JobTableModel::UserColumn,
                      JobTableModel::VcColumn, JobTableModel::GpusColumn}) {
            QVERIFY(!model->hasColumnData(c));
            QVERIFY(view->isColumnHidden(c));
        }
        QVERIFY(!view->isColumnHidden(JobTableModel::ModelColumn));

        ImportTraceDialog *dialog = window->openImportDialog();
        QVERIFY(dialog);
        dialog->setFormat(dl2::ImportFormat::Helios);
        dialog->setFile(fixture(QStringLiteral("helios/cluster_log.csv")));
        const QString saved = dir.filePath(QStringLiteral("helios.pb"));
        dialog->setSavePath(saved);
        QVERIFY2(runPreview(*dialog), qPrintable(dialog->errorText()));
        const dl2::Trace expected = dialog->preview()->trace;
        QVERIFY(expected.cluster);
        QSignalSpy loaded(window->session(), &ConsoleSession::loaded);
        QSignalSpy imported(dialog, &ImportTraceDialog::imported);
        dialog->importAndOpen();
        QVERIFY(imported.wait(30000));
        QCOMPARE(imported.first().first().toString(), saved);
        QVERIFY(loaded.wait(30000));
        QVERIFY(window->session()->waitForSlot(0));

        // The saved file is the previewed trace.
        const dl2::Trace written = dl2::Trace::load(saved.toStdString());
        QCOMPARE(written.jobs.size(), expected.jobs.size());
        QVERIFY(written.cluster == expected.cluster);
        QCOMPARE(window->session()->setup().traceFile, saved);

        // The trace's cluster and slot length, not the scenario's.
        const RunInfo &info = window->session()->runInfo();
        QCOMPARE(info.nodes, expected.cluster->nodes);
        QCOMPARE(info.slotSeconds, *expected.slotSeconds);
        const dl2::SlotSnapshot &snap = window->session()->snapshot();
        QCOMPARE(int(snap.nodeUsage.size()), expected.cluster->nodes);
        const dl2::ClusterSpec spec = dl2::clusterSpecOf(*expected.cluster);
        QCOMPARE(snap.nodeCapacity, spec.capacity);
        QVERIFY(window->sessionStatusBar()->runText().contains(QString::number(expected.cluster->nodes) + QStringLiteral(" nodes")));

        // The source's fields in the jobs table, shown.
        window->refresher()->flush();
        for (int c : {JobTableModel::SourceIdColumn, JobTableModel::UserColumn,
                      JobTableModel::VcColumn, JobTableModel::GpusColumn}) {
            QVERIFY(model->hasColumnData(c));
            QVERIFY(!view->isColumnHidden(c));
        }
        QCOMPARE(model->rowCount(), int(expected.jobs.size()));
        for (int row = 0; row < model->rowCount(); ++row) {
            const int id = model->index(row, JobTableModel::IdColumn).data(JobTableModel::JobIdRole).toInt();
            const auto spec = std::find_if(expected.jobs.begin(), expected.jobs.end(),
                                           [id](const dl2::JobSpec &j) { return j.id == id; });
            QVERIFY(spec != expected.jobs.end());
            QCOMPARE(model->index(row, JobTableModel::SourceIdColumn).data().toString(),
                     QString::fromStdString(spec->source.id));
            QCOMPARE(model->index(row, JobTableModel::UserColumn).data().toString(),
                     QString::fromStdString(spec->source.user));
            QCOMPARE(model->index(row, JobTableModel::VcColumn).data().toString(),
                     QString::fromStdString(spec->source.vc));
            QCOMPARE(model->index(row, JobTableModel::GpusColumn).data(JobTableModel::SortRole).toDouble(),
                     spec->source.gpus.value_or(-1.0));
        }

        // A cluster size the user sets keeps the trace's nodes' shape.
        SessionSetup setup = window->session()->setup();
        setup.nodes = 3;
        QSignalSpy reloaded(window->session(), &ConsoleSession::loaded);
        window->load(setup);
        QVERIFY(reloaded.wait(30000));
        QVERIFY(window->session()->waitForSlot(0));
        QCOMPARE(window->session()->runInfo().nodes, 3);
        QCOMPARE(window->session()->snapshot().nodeCapacity, spec.capacity);

        // Back to a generated scenario: the source columns hide again.
        SessionSetup small;
        small.scenario = QStringLiteral("dl2-small");
        small.policy = QStringLiteral("drf");
        QSignalSpy back(window->session(), &ConsoleSession::loaded);
        window->load(small);
        QVERIFY(back.wait(30000));
        QVERIFY(window->session()->waitForSlot(0));
        window->refresher()->flush();
        QVERIFY(view->isColumnHidden(JobTableModel::SourceIdColumn));
        QVERIFY(view->isColumnHidden(JobTableModel::UserColumn));
    }

    void dialogScreenshot()
    {
        // For looking at the dialog (DL2_IMPORT_SCREENSHOTS=DIR); checks it renders either way.
        ImportTraceDialog dialog(dl2::ProfileSet::reference());
        dialog.setFormat(dl2::ImportFormat::Helios);
        dialog.setFile(fixture(QStringLiteral("helios/cluster_log.csv")));
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY(runPreview(dialog));
        const QImage image = dialog.grab().toImage();
        QVERIFY(!image.isNull());
        const QString folder = qEnvironmentVariable("DL2_IMPORT_SCREENSHOTS");
        if (!folder.isEmpty())
            QVERIFY(image.save(folder + QStringLiteral("/import-dialog.png")));
    }
};

QTEST_MAIN(TestImportTraceDialog)
#include "tst_importtracedialog.moc"
