// The Side by side tab of the real main window: both cluster views and the jobs table follow
// the pair through step/seek keys, the table shows both allocations and their difference as
// the snapshots have them, a job selected in one view is selected in every view, and the
// keys of the replay on display are never ambiguous with the main toolbar's.

#include "clusteroccupancyview.h"
#include "consolefixture.h"
#include "instructortools.h"
#include "lockstepreplay.h"
#include "pairjobtablemodel.h"
#include "pairmetricsplot.h"
#include "scheduler.h"
#include "sessiontoolbar.h"
#include "sidebysidepage.h"
#include "viewrefresher.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace dl2console;

class TestSideBySidePage : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void followsThePairWithKeys();
    void tableShowsBothAllocationsAndTheDifference();
    void selectionIsShared();
    void plotHasBothPolicies();
    void playbackKeysBelongToTheTabOnDisplay();

private:
    SideBySidePage *page() const { return m_window->instructorTools()->sideBySidePage(); }
    void flush() { page()->refresher()->flush(); }
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestSideBySidePage::initTestCase()
{
    dl2::registerBaselines();
}

void TestSideBySidePage::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    m_settings = std::make_unique<Settings>(m_dir->filePath(QStringLiteral("s.ini")));
    test::openConsole(m_window, m_settings.get(), QSize(1400, 900));
    if (QTest::currentTestFailed())
        return;
    page()->setPolicyPair(QStringLiteral("drf"), QStringLiteral("srtf"));
    m_window->instructorTools()->sideBySideAction()->trigger();
    QCOMPARE(m_window->instructorTools()->sideBySideShown(), true);
    QVERIFY(page()->replay()->waitForSlot(0));
    flush();
}

void TestSideBySidePage::cleanup()
{
    m_window.reset();
    m_settings.reset();
}

void TestSideBySidePage::followsThePairWithKeys()
{
    LockstepReplay *r = page()->replay();
    QCOMPARE(r->session(0)->setup().scenario, u"dl2-small"_qs); // the main toolbar's trace
    QTest::keyClick(page(), Qt::Key_Period);
    QTest::keyClick(page(), Qt::Key_Period);
    QTest::keyClick(page(), Qt::Key_Period);
    QVERIFY(r->waitForSlot(3));
    QCOMPARE(r->currentSlot(), 3);
    flush();
    for (int side = 0; side < 2; ++side) {
        QCOMPARE(r->session(side)->currentSlot(), 3);
        // The view draws the shown snapshot: every cell owner is a job running there.
        const ClusterOccupancyView *v = page()->occupancy(side);
        const auto &s = r->shownSnapshot(side);
        int used = 0;
        for (int node = 0; node < v->nodeCount(); ++node)
            for (int i = 0; i < v->slotsPerResource(); ++i)
                used += v->cellOwner(node, dl2::Resource::Cpu, i).jobId >= 0;
        int expected = 0;
        for (const auto &u : s.nodeUsage)
            expected += u[0];
        QCOMPARE(used, expected);
    }
    QTest::keyClick(page(), Qt::Key_Comma);
    QVERIFY(r->waitForSlot(2));
    QCOMPARE(r->currentSlot(), 2);
    page()->lastAction()->trigger();
    // Both runs to the end of the trace: over 30 s under the sanitizers with tst_distributed's
    // processes beside it on 2 cores. A hang guard, not a speed check.
    QTRY_VERIFY_WITH_TIMEOUT(r->isIdle() && r->runComplete() &&
                                 r->currentSlot() == r->lastKnownSlot(),
                             120000);
}

void TestSideBySidePage::tableShowsBothAllocationsAndTheDifference()
{
    LockstepReplay *r = page()->replay();
    r->seek(20);
    QVERIFY(r->waitForSlot(20));
    flush();
    PairJobTableModel *model = page()->jobModel();
    QAbstractItemModelTester tester(model);
    const auto &left = r->shownSnapshot(0), &right = r->shownSnapshot(1);
    QCOMPARE(model->rowCount(), static_cast<int>(left.jobs.size()));
    int differing = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
        const auto &a = left.jobs[row], &b = right.jobs[row];
        QCOMPARE(model->jobAt(row), a.id);
        const auto held = [](const dl2::JobState &j, int slot) {
            return j.status != dl2::JobStatus::Finished || j.finishTime >= slot;
        };
        const int aw = held(a, 20) ? a.workers : 0, ap = held(a, 20) ? a.ps : 0;
        const int bw = held(b, 20) ? b.workers : 0, bp = held(b, 20) ? b.ps : 0;
        QCOMPARE(model->allocation(0, row).workers, aw);
        QCOMPARE(model->allocation(1, row).ps, bp);
        const QString diff =
            model->index(row, PairJobTableModel::DifferenceColumn).data().toString();
        if (a.status == dl2::JobStatus::Running && b.status == dl2::JobStatus::Running) {
            QCOMPARE(model->index(row, PairJobTableModel::LeftAllocationColumn).data().toString(),
                     QStringLiteral("%1 w · %2 ps").arg(aw).arg(ap));
            if (bw != aw)
                QVERIFY2(diff.contains(QStringLiteral("%1%2 w").arg(bw > aw ? u"+"_qs : QString())
                                           .arg(bw - aw)),
                         qPrintable(diff));
            else if (bp == ap)
                QCOMPARE(diff, u"same"_qs);
        }
        differing += model->differs(row);
    }
    QVERIFY2(differing > 0, "drf and srtf allocate differently by slot 20");
    // The "differ" filter lists exactly those rows.
    page()->jobProxy()->setFilter(PairJobFilterProxyModel::Filter::Differing);
    QCOMPARE(page()->jobProxy()->rowCount(), differing);
    QCOMPARE(model->headerData(PairJobTableModel::LeftAllocationColumn, Qt::Horizontal).toString(),
             u"drf"_qs);
}

void TestSideBySidePage::selectionIsShared()
{
    LockstepReplay *r = page()->replay();
    r->seek(10);
    QVERIFY(r->waitForSlot(10));
    flush();
    // Click a job in the right cluster view.
    ClusterOccupancyView *right = page()->occupancy(1);
    right->setZoomLevel(6); // slot cells, large enough to click
    QCoreApplication::processEvents();
    int jobId = -1;
    QPoint at;
    for (int node = 0; node < right->nodeCount() && jobId < 0; ++node) {
        const auto owner = right->cellOwner(node, dl2::Resource::Gpu, 0);
        if (owner.jobId < 0)
            continue;
        const QPoint centre = right->nodeCenter(node);
        int resource = -1, slot = -1;
        // Walk along the node row to the first GPU cell.
        for (int dx = -200; dx <= 200 && jobId < 0; ++dx) {
            const QPoint p(centre.x() + dx, centre.y());
            if (right->nodeAt(p, &resource, &slot) == node &&
                resource == static_cast<int>(dl2::Resource::Gpu) && slot == 0) {
                jobId = owner.jobId;
                at = p;
            }
        }
    }
    QVERIFY2(jobId >= 0, "a GPU cell to click");
    QTest::mouseClick(right->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(page()->selectedJob(), jobId);
    QCOMPARE(page()->occupancy(0)->selectedJob(), jobId);
    QCOMPARE(right->selectedJob(), jobId);
    const auto rows = page()->jobView()->selectionModel()->selectedRows();
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.front().data(PairJobTableModel::JobIdRole).toInt(), jobId);

    // And from the table: both cluster views follow.
    const int other = r->shownSnapshot(0).jobs.front().id == jobId
                          ? r->shownSnapshot(0).jobs[1].id
                          : r->shownSnapshot(0).jobs.front().id;
    page()->jobProxy()->setFilter(PairJobFilterProxyModel::Filter::All);
    const QModelIndex index = page()->jobProxy()->mapFromSource(
        page()->jobModel()->index(page()->jobModel()->rowOfJob(other), 0));
    page()->jobView()->selectionModel()->select(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QCOMPARE(page()->occupancy(0)->selectedJob(), other);
    QCOMPARE(page()->occupancy(1)->selectedJob(), other);
    // Stepping keeps the selection (rows are stable across slots).
    r->stepForward();
    QVERIFY(r->waitForSlot(11));
    flush();
    QCOMPARE(page()->occupancy(1)->selectedJob(), other);
    QCOMPARE(page()->jobView()->selectionModel()->selectedRows().size(), 1);
}

void TestSideBySidePage::plotHasBothPolicies()
{
    LockstepReplay *r = page()->replay();
    r->seek(15);
    QVERIFY(r->waitForSlot(15));
    flush();
    PairMetricsPlot *p = page()->metricsPlot();
    QVERIFY(p->graphName(0).contains(u"drf"_qs));
    QVERIFY(p->graphName(1).contains(u"srtf"_qs));
    QVERIFY(p->graphName(3).contains(u"srtf"_qs));
    for (int side = 0; side < 2; ++side) {
        const auto &timeline = r->session(side)->timeline();
        // Utilisation up to the slot on display, no further.
        const auto util = p->points(side), jct = p->points(2 + side);
        QCOMPARE(util.size(), 16);
        QCOMPARE(jct.size(), 16);
        QCOMPARE(util[15].y(),
                 100.0 * timeline[15].utilisation[static_cast<int>(dl2::Resource::Gpu)]);
        // Cumulative JCT: the running sum of job time.
        QCOMPARE(jct[15].y(), PairMetricsPlot::cumulativeJct(timeline, 15));
    }
    QVERIFY(p->policyColor(0) != p->policyColor(1));
}

void TestSideBySidePage::playbackKeysBelongToTheTabOnDisplay()
{
    SessionToolBar *tb = m_window->toolBar();
    QVERIFY(!tb->playAction()->isEnabled());
    QVERIFY(page()->playAction()->isEnabled());
    const int mainSlot = m_window->session()->currentSlot();
    page()->replay()->setSpeed(50);
    QTest::keyClick(m_window.get(), Qt::Key_Space);
    QVERIFY(page()->replay()->isPlaying());
    QVERIFY(!m_window->session()->isPlaying());
    QTest::keyClick(m_window.get(), Qt::Key_Space);
    QVERIFY(!page()->replay()->isPlaying());
    QCOMPARE(m_window->session()->currentSlot(), mainSlot);
    // Back on the Cluster tab, the keys drive the main replay again.
    QAction *cluster = nullptr;
    for (QAction *a : m_window->findChildren<QAction *>())
        if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_1))
            cluster = a;
    QVERIFY(cluster);
    cluster->trigger();
    QVERIFY(tb->playAction()->isEnabled());
    QVERIFY(!page()->playAction()->isEnabled());
    QTest::keyClick(m_window.get(), Qt::Key_Period);
    QVERIFY(m_window->session()->waitForSlot(mainSlot + 1));
}

QTEST_MAIN(TestSideBySidePage)
#include "tst_sidebysidepage.moc"
