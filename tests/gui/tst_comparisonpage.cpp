// The comparison page runs runExperiment in the background and shows/export its results.

#include "comparisonbymodelmodel.h"
#include "comparisonpage.h"
#include "comparisonsummarymodel.h"
#include "scenario.h"
#include "scheduler.h"
#include "settings.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace dl2console;

class TestComparisonPage : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void runsAndExports();
    void cancelKeepsPage();
    void traceFiles();
};

void TestComparisonPage::runsAndExports()
{
    dl2::registerBaselines();
    QTemporaryDir dir;
    Settings settings(dir.filePath(QStringLiteral("s.ini")));
    ComparisonPage page(&settings);
    QAbstractItemModelTester tester(page.summaryModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester byModelTester(page.byModelModel(),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
    QStringList all;
    for (const auto &s : dl2::registeredSchedulers())
        all << QString::fromStdString(s.name);
    QStringList pick{QStringLiteral("drf")};
    if (all.contains(QStringLiteral("fifo")))
        pick << QStringLiteral("fifo");
    page.setPolicies(all, pick);
    page.setScenarios({QStringLiteral("dl2-small")});
    page.setSeedCount(2);
    page.resize(1200, 700);
    page.show();
    QSignalSpy finished(&page, &ComparisonPage::finished);
    page.run();
    QVERIFY(page.isRunning() || finished.count() == 1);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QCOMPARE(finished.first().first().toBool(), true);
    QCOMPARE(page.summaryModel()->rowCount(), pick.size());
    QCOMPARE(static_cast<int>(page.result().runs.size()), pick.size() * 2);
    QCOMPARE(settings.comparisonPolicies(), pick);

    // By job type: a row per type plus "All", a column per policy; every type's mean JCT at or
    // above its lower bound, and the "All" row equal to each policy's average JCT (the seeds
    // of a scenario have as many jobs each).
    const ComparisonByModelModel *byModel = page.byModelModel();
    QVERIFY(page.byModelError().isEmpty());
    const int types = int(byModel->breakdown().size());
    QVERIFY(types >= 2);
    QCOMPARE(byModel->rowCount(), types + 1);
    QCOMPARE(byModel->columnCount(), ComparisonByModelModel::FirstPolicyColumn + int(pick.size()));
    QCOMPARE(byModel->headerData(ComparisonByModelModel::FirstPolicyColumn, Qt::Horizontal).toString(), pick.first());
    for (int p = 0; p < pick.size(); ++p) {
        QVERIFY(qFuzzyCompare(byModel->pooledAverage(p), page.summaryModel()->summary()[size_t(p)].meanAvgJct));
        const int column = ComparisonByModelModel::FirstPolicyColumn + p;
        for (int row = 0; row <= types; ++row)
            QVERIFY(byModel->index(row, column).data().toDouble() >=
                    byModel->index(row, ComparisonByModelModel::LowerBoundColumn).data().toDouble() - 0.005);
        QCOMPARE(byModel->index(types, column).data().toDouble(),
                 QString::number(page.summaryModel()->summary()[size_t(p)].meanAvgJct, 'f', 2).toDouble());
    }
    QCOMPARE(byModel->index(types, ComparisonByModelModel::ModelColumn).data().toString(), QStringLiteral("All"));
    auto *tabs = page.findChild<QTabWidget *>(QStringLiteral("comparison-tables"));
    QVERIFY(tabs && tabs->isTabEnabled(1));
    QCOMPARE(tabs->widget(1), page.findChild<QTableView *>(QStringLiteral("comparison-by-model")));

    const QString csv = dir.filePath(QStringLiteral("c.csv"));
    QVERIFY(page.exportCsv(csv));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray exported = f.readAll();
    QVERIFY(exported.startsWith("policy,runs,mean_avg_jct"));
    const QByteArray allRow = "\nall," + QByteArray::number(byModel->index(types, 1).data().toInt()) + ',';
    QVERIFY2(exported.contains("\nmodel,jobs,lower_bound,drf mean_jct,drf part_of_avg_jct") &&
                 exported.contains(allRow),
             exported.constData());
    const QString png = dir.filePath(QStringLiteral("c.png"));
    QVERIFY(page.exportImage(png));
    QVERIFY(!QImage(png).isNull());
    const QString pdf = dir.filePath(QStringLiteral("c.pdf"));
    QVERIFY(page.exportImage(pdf));
    QVERIFY(QFileInfo(pdf).size() > 1000);
}

void TestComparisonPage::cancelKeepsPage()
{
    QTemporaryDir dir;
    Settings settings(dir.filePath(QStringLiteral("s.ini")));
    ComparisonPage page(&settings);
    page.setPolicies({QStringLiteral("drf")}, {QStringLiteral("drf")});
    page.setScenarios({QStringLiteral("dl2-reference")});
    page.setSeedCount(20);
    QSignalSpy finished(&page, &ComparisonPage::finished);
    page.run();
    page.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QVERIFY(!page.isRunning());
}

void TestComparisonPage::traceFiles()
{
    QTemporaryDir dir;
    const auto profiles = dl2::ProfileSet::reference();
    const auto &scenario = dl2::scenarioByName("dl2-small");
    QStringList files;
    for (int seed : {5, 6}) {
        const QString f = dir.filePath(QStringLiteral("t%1.csv").arg(seed));
        scenario.trace(profiles, static_cast<std::uint64_t>(seed)).save(f.toStdString());
        files << f;
    }
    Settings settings(dir.filePath(QStringLiteral("s.ini")));
    ComparisonPage page(&settings);
    page.setPolicies({QStringLiteral("drf")}, {QStringLiteral("drf")});
    page.setScenarios({QStringLiteral("dl2-small")});
    page.setTraceFiles(files);
    QSignalSpy finished(&page, &ComparisonPage::finished);
    page.run();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QCOMPARE(finished.first().first().toBool(), true);
    QCOMPARE(page.result().runs.size(), size_t(2));
    QVERIFY(page.byModelError().isEmpty());
    QVERIFY(page.byModelModel()->rowCount() > 0);
    // A job arriving after the run's last slot (1,000) leaves it truncated: the breakdown by
    // job type is withheld and its tab says why, while the rest of the comparison stands.
    const QString late = dir.filePath(QStringLiteral("late.csv"));
    {
        QFile f(late);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("job_id,arrival_slot,model,epochs\n1,0,dssm,10\n2,1200,wlm,10\n");
    }
    page.setTraceFiles({late});
    page.run();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, 120000);
    QCOMPARE(finished.last().first().toBool(), true);
    QVERIFY2(page.byModelError().contains(QStringLiteral("needs runs in which every job finished (drf on late")),
             qPrintable(page.byModelError()));
    QCOMPARE(page.byModelModel()->rowCount(), 0);
    auto *tabs = page.findChild<QTabWidget *>(QStringLiteral("comparison-tables"));
    QVERIFY(!tabs->isTabEnabled(1));
    QCOMPARE(tabs->tabToolTip(1), page.byModelError());
    // A broken file is reported, not crashed on.
    page.setTraceFiles({dir.filePath(QStringLiteral("missing.csv"))});
    QSignalSpy errors(&page, &ComparisonPage::errorOccurred);
    page.run();
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, 30000);
}

QTEST_MAIN(TestComparisonPage)
#include "tst_comparisonpage.moc"
