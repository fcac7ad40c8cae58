// JobTableModel, JobFilterProxyModel and ComparisonSummaryModel: model contracts
// (QAbstractItemModelTester) and row values against the simulator's own snapshot.

#include "comparisonsummarymodel.h"
#include "jobfilterproxymodel.h"
#include "jobpalette.h"
#include "jobtablemodel.h"
#include "jobtablepanel.h"
#include "scenario.h"
#include "scheduler.h"
#include "sessionstatusbar.h"
#include "sessiontypes.h"
#include "simulator.h"

#include <algorithm>

#include <QAbstractItemModelTester>
#include <QFont>
#include <QTableView>
#include <QTest>

using namespace dl2console;

namespace {
dl2::SlotSnapshot snapshotAt(const std::string &scenarioName, int slot)
{
    const auto &scenario = dl2::scenarioByName(scenarioName);
    auto profiles = dl2::ProfileSet::reference();
    dl2::Simulator sim(scenario.cluster, profiles, scenario.trace(profiles, 1),
                       scenario.simulation);
    auto policy = dl2::makeScheduler("drf");
    policy->reset();
    while (sim.slot() <= slot && !sim.done())
        sim.step(*policy);
    return sim.snapshot();
}
} // namespace

class TestJobTableModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rowsMatchSnapshot_data();
    void rowsMatchSnapshot();
    void proxyFiltersAndSorts();
    void columnsFitEveryJobOfTheTrace();
    void paletteIsDeterministic();
    void comparisonSummary();
};

void TestJobTableModel::rowsMatchSnapshot_data()
{
    QTest::addColumn<int>("slot");
    QTest::newRow("slot 0") << 0;
    QTest::newRow("slot 7") << 7;
    QTest::newRow("slot 40") << 40;
}

void TestJobTableModel::rowsMatchSnapshot()
{
    QFETCH(int, slot);
    JobTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto early = snapshotAt("dl2-small", 0);
    model.setSnapshot(early); // reset, then an update of the same jobs (dataChanged path)
    const auto snap = snapshotAt("dl2-small", slot);
    model.setSnapshot(snap);
    QCOMPARE(model.rowCount(), static_cast<int>(snap.jobs.size()));
    QCOMPARE(model.columnCount(), int(JobTableModel::ColumnCount));
    const auto profiles = dl2::ProfileSet::reference();
    for (int row = 0; row < model.rowCount(); ++row) {
        const dl2::JobState &job = snap.jobs[row];
        auto cell = [&](int column, int role = Qt::DisplayRole) {
            return model.data(model.index(row, column), role);
        };
        QCOMPARE(cell(JobTableModel::IdColumn).toInt(), job.id);
        QCOMPARE(cell(JobTableModel::ModelColumn).toString(),
                 QString::fromStdString(profiles[job.type].name));
        QCOMPARE(cell(JobTableModel::ArrivalColumn).toInt(), job.arrivalSlot);
        QCOMPARE(cell(0, JobTableModel::StatusRole).toInt(), static_cast<int>(job.status));
        QCOMPARE(cell(JobTableModel::StateColumn).toString(),
                 JobTableModel::statusText(job.status));
        QVERIFY(qFuzzyCompare(cell(0, JobTableModel::ProgressRole).toDouble() + 1,
                              job.doneEpochs / job.totalEpochs + 1));
        if (job.status == dl2::JobStatus::Running) {
            QCOMPARE(cell(JobTableModel::WorkersColumn).toInt(), job.workers);
            QCOMPARE(cell(JobTableModel::PsColumn).toInt(), job.ps);
            QVERIFY(cell(JobTableModel::SpeedColumn).isValid());
        }
        if (job.status == dl2::JobStatus::Finished)
            QCOMPARE(cell(JobTableModel::JctColumn).toString(), QString::number(job.jct(), 'f', 2));
        else
            QVERIFY(!cell(JobTableModel::JctColumn).isValid());
        QVERIFY(!cell(JobTableModel::StateColumn, Qt::ToolTipRole).isValid());
    }

    // A job a windowed policy (dl2) left out of its window this slot says so in its state,
    // and its tooltip says what that means.
    dl2::SlotSnapshot outside = snap;
    const int row = int(outside.jobs.size()) - 1;
    outside.jobs[size_t(row)].outsideViewThisSlot = true;
    model.setSnapshot(outside);
    const QModelIndex state = model.index(row, JobTableModel::StateColumn);
    QCOMPARE(state.data().toString(), JobTableModel::statusText(outside.jobs[size_t(row)].status) +
                                          QStringLiteral(", outside window"));
    QVERIFY(state.data(Qt::ToolTipRole).toString().contains(QStringLiteral("window")));
    // The whole row is in italics and has the tooltip, so it shows whatever is scrolled.
    const QModelIndex id = model.index(row, JobTableModel::IdColumn);
    QVERIFY(id.data(Qt::FontRole).value<QFont>().italic());
    QVERIFY(id.data(Qt::ToolTipRole).toString().contains(QStringLiteral("window")));
    QVERIFY(id.data(JobTableModel::OutsideWindowRole).toBool());
    QVERIFY(!model.index(0, JobTableModel::IdColumn).data(Qt::FontRole).isValid());
    QVERIFY(
        !model.index(0, JobTableModel::IdColumn).data(JobTableModel::OutsideWindowRole).toBool());
    QCOMPARE(state.data(JobTableModel::StatusRole).toInt(),
             static_cast<int>(outside.jobs[size_t(row)].status));
    // The status bar counts them; without any it says nothing of a window.
    SessionStatusBar bar;
    bar.setSnapshot(snap, 1200);
    QVERIFY2(!bar.jobsText().contains(QStringLiteral("window")), qPrintable(bar.jobsText()));
    outside.jobs.front().outsideViewThisSlot = true;
    bar.setSnapshot(outside, 1200);
    QVERIFY2(bar.jobsText().endsWith(QStringLiteral(" done · 2 outside window")),
             qPrintable(bar.jobsText()));
}

void TestJobTableModel::proxyFiltersAndSorts()
{
    JobTableModel model;
    JobFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester t1(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto snap = snapshotAt("dl2-small", 20);
    model.setSnapshot(snap);
    int running = 0, finished = 0, arrived = 0;
    for (const auto &j : snap.jobs) {
        running += j.status == dl2::JobStatus::Running;
        finished += j.status == dl2::JobStatus::Finished;
        arrived += j.status != dl2::JobStatus::Pending;
    }
    using F = JobFilterProxyModel::StateFilter;
    proxy.setStateFilter(F::Running);
    QCOMPARE(proxy.rowCount(), running);
    proxy.setStateFilter(F::Finished);
    QCOMPARE(proxy.rowCount(), finished);
    proxy.setStateFilter(F::Arrived);
    QCOMPARE(proxy.rowCount(), arrived);
    // Outside window: the running or queued jobs a windowed policy left out this slot.
    proxy.setStateFilter(F::OutsideWindow);
    QCOMPARE(proxy.rowCount(), 0);
    auto marked = snap;
    std::vector<int> outsideIds;
    for (auto &j : marked.jobs)
        if (j.status == dl2::JobStatus::Running && outsideIds.size() < 2) {
            j.outsideViewThisSlot = true;
            outsideIds.push_back(j.id);
        }
    QCOMPARE(int(outsideIds.size()), 2);
    model.setSnapshot(marked);
    QCOMPARE(proxy.rowCount(), 2);
    for (int r = 0; r < proxy.rowCount(); ++r)
        QVERIFY(std::find(outsideIds.begin(), outsideIds.end(),
                          proxy.index(r, 0).data(JobTableModel::JobIdRole).toInt()) !=
                outsideIds.end());
    model.setSnapshot(snap);
    proxy.setStateFilter(F::All);
    QCOMPARE(proxy.rowCount(), static_cast<int>(snap.jobs.size()));
    proxy.setText(QStringLiteral("resnet"));
    for (int r = 0; r < proxy.rowCount(); ++r)
        QVERIFY(
            proxy.index(r, JobTableModel::ModelColumn).data().toString().contains(u"resnet"_qs));
    proxy.setText({});
    proxy.sort(JobTableModel::ProgressColumn, Qt::DescendingOrder);
    for (int r = 1; r < proxy.rowCount(); ++r)
        QVERIFY(
            proxy.index(r - 1, JobTableModel::ProgressColumn)
                .data(JobTableModel::SortRole)
                .toDouble() >=
            proxy.index(r, JobTableModel::ProgressColumn).data(JobTableModel::SortRole).toDouble());
    // Playback updates keep the proxy consistent.
    model.setSnapshot(snapshotAt("dl2-small", 21));
    model.clear();
    QCOMPARE(proxy.rowCount(), 0);
}

// The columns are sized when a trace is loaded, at slot 0, when the "Active" filter lists a
// few early jobs: they must fit the jobs that come later too (dl2-reference's ids 100-200).
void TestJobTableModel::columnsFitEveryJobOfTheTrace()
{
    JobTableModel model;
    JobTablePanel panel(&model);
    panel.resize(900, 400);
    panel.show();
    model.setSnapshot(snapshotAt("dl2-reference", 0));
    QTableView *view = panel.view();
    const int listed = panel.proxy()->rowCount();
    QVERIFY2(listed > 0 && listed < model.rowCount(), qPrintable(QString::number(listed)));
    const int idWidth = view->columnWidth(JobTableModel::IdColumn);
    const int modelWidth = view->columnWidth(JobTableModel::ModelColumn);
    // Every job listed and measured: the columns need no more than they were given.
    panel.proxy()->setStateFilter(JobFilterProxyModel::StateFilter::All);
    view->resizeColumnsToContents();
    QVERIFY2(idWidth >= view->columnWidth(JobTableModel::IdColumn),
             qPrintable(QStringLiteral("%1 < %2").arg(idWidth).arg(
                 view->columnWidth(JobTableModel::IdColumn))));
    QVERIFY(modelWidth >= view->columnWidth(JobTableModel::ModelColumn));
    // Rows outside dl2's window are set in italics, which need more room than upright text
    // (the slant), and no row is marked at load: once "cnn-text-classification" read
    // "cnn-text-classificati…" in a marked row. Mark every job now: the columns stay as sized.
    dl2::SlotSnapshot marked = snapshotAt("dl2-reference", 25);
    for (dl2::JobState &job : marked.jobs)
        job.outsideViewThisSlot = true;
    model.setSnapshot(marked);
    view->setColumnWidth(JobTableModel::IdColumn, idWidth);
    view->setColumnWidth(JobTableModel::ModelColumn, modelWidth);
    const int grid = view->showGrid() ? 1 : 0;
    for (int row = 0; row < panel.proxy()->rowCount(); ++row) {
        for (const int column : {int(JobTableModel::IdColumn), int(JobTableModel::ModelColumn)}) {
            const QModelIndex index = panel.proxy()->index(row, column);
            QVERIFY(index.data(JobTableModel::OutsideWindowRole).toBool());
            const int needed = view->sizeHintForIndex(index).width() + grid;
            QVERIFY2(needed <= view->columnWidth(column),
                     qPrintable(QStringLiteral("%1: %2 > %3")
                                    .arg(index.data().toString())
                                    .arg(needed)
                                    .arg(view->columnWidth(column))));
        }
    }
}

void TestJobTableModel::paletteIsDeterministic()
{
    QCOMPARE(JobPalette::color(17), JobPalette::color(17));
    QVERIFY(JobPalette::color(1) != JobPalette::color(2));
    QVERIFY(JobPalette::color(5, true).valueF() >= JobPalette::color(5, false).valueF());
}

void TestJobTableModel::comparisonSummary()
{
    ComparisonSummaryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    dl2::PolicySummary a;
    a.policy = "drf";
    a.runs = 2;
    a.meanAvgJct = 10;
    a.ratioToDrf = 1;
    dl2::PolicySummary b = a;
    b.policy = "fifo";
    b.meanAvgJct = 12;
    b.ratioToDrf = 1.2;
    model.setSummary({a, b});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(1, ComparisonSummaryModel::RatioDrfColumn).data().toString(), u"1.200"_qs);
    QVERIFY(model.toCsv().startsWith(u"policy,runs,mean_avg_jct"_qs));
    QCOMPARE(model.toCsv().count(u'\n'), 3);
}

QTEST_MAIN(TestJobTableModel)
#include "tst_jobtablemodel.moc"
