// The comparison page runs runExperiment in the background and shows/export its results.

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

    const QString csv = dir.filePath(QStringLiteral("c.csv"));
    QVERIFY(page.exportCsv(csv));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.readAll().startsWith("policy,runs,mean_avg_jct"));
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
    // A broken file is reported, not crashed on.
    page.setTraceFiles({dir.filePath(QStringLiteral("missing.csv"))});
    QSignalSpy errors(&page, &ComparisonPage::errorOccurred);
    page.run();
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, 30000);
}

QTEST_MAIN(TestComparisonPage)
#include "tst_comparisonpage.moc"
