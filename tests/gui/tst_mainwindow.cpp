// The main window offscreen: play, step, seek and select through the UI, then check that the
// views show exactly what the core's own Simulator has at that slot.

#include "clusteroccupancyview.h"
#include "comparisonpage.h"
#include "consolesession.h"
#include "decisioninspector.h"
#include "decisionstatemodel.h"
#include "jobspeedplot.h"
#include "jobtablemodel.h"
#include "jobtablepanel.h"
#include "modelprofile.h"
#include "consolefixture.h"
#include "mainwindow.h"
#include "scenario.h"
#include "scheduler.h"
#include "sessionstatusbar.h"
#include "sessiontoolbar.h"
#include "settings.h"
#include "simulator.h"
#include "timelinescrubber.h"
#include "trainingpage.h"
#include "viewrefresher.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QScrollBar>
#include <QSpinBox>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <map>

using namespace dl2console;

class TestMainWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void playStepSeek();
    void viewsAgreeWithCore_data();
    void viewsAgreeWithCore();
    void selectingAJobHighlightsIt();
    void decisionInspectorPlaceholder();
    void heatMapWhenZoomedOut();
    void badTraceKeepsConsoleUsable();
    void speedModelAndClusterSize();
    void layoutIsSavedAndReset();
    void layoutAndChoicesPersist();
    void pagesTakeTheWholeWindow();

private:
    void flush();
    dl2::SlotSnapshot coreSnapshot(int slot) const;

    QTemporaryDir m_dir;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestMainWindow::initTestCase()
{
    dl2::registerBaselines();
    m_settings = std::make_unique<Settings>(m_dir.filePath(QStringLiteral("s.ini")));
    dl2console::test::openConsole(m_window, m_settings.get(), QSize(1400, 900));
    if (QTest::currentTestFailed())
        return;
}

void TestMainWindow::cleanupTestCase()
{
    m_window.reset();
}

void TestMainWindow::flush()
{
    m_window->refresher()->flush();
    QCoreApplication::processEvents();
}

dl2::SlotSnapshot TestMainWindow::coreSnapshot(int slot) const
{
    const auto &scenario = dl2::scenarioByName("dl2-small");
    auto profiles = dl2::ProfileSet::reference();
    dl2::Simulator sim(scenario.cluster, profiles, scenario.trace(profiles, 1),
                       scenario.simulation);
    auto policy = dl2::makeScheduler("drf");
    policy->reset();
    while (sim.slot() <= slot && !sim.done())
        sim.step(*policy);
    return sim.snapshot();
}

void TestMainWindow::playStepSeek()
{
    ConsoleSession *session = m_window->session();
    SessionToolBar *tb = m_window->toolBar();
    session->setSpeed(30);
    QTest::mouseClick(tb->widgetForAction(tb->playAction()), Qt::LeftButton);
    QVERIFY(session->isPlaying());
    QTRY_VERIFY_WITH_TIMEOUT(session->currentSlot() >= 4, 10000);
    QTest::mouseClick(tb->widgetForAction(tb->playAction()), Qt::LeftButton);
    QVERIFY(!session->isPlaying());
    QTRY_VERIFY(session->isIdle());
    const int at = session->currentSlot();

    QTest::keyClick(m_window.get(), Qt::Key_Period); // step forward
    QTRY_COMPARE(session->currentSlot(), at + 1);
    QTest::mouseClick(tb->widgetForAction(tb->stepBackAction()), Qt::LeftButton);
    QTRY_COMPARE(session->currentSlot(), at);

    // Seek by clicking the scrubber.
    QTRY_VERIFY_WITH_TIMEOUT(session->runComplete(), 120000); // a hang guard (sanitizers, load)
    flush();
    TimelineScrubber *scrubber = m_window->scrubber();
    const int target = std::min(12, session->lastKnownSlot());
    QTest::mouseClick(scrubber, Qt::LeftButton, {},
                      QPoint(qRound(scrubber->xOfSlot(target)), scrubber->height() / 2));
    QTRY_COMPARE(session->currentSlot(), target);
    flush();
    QCOMPARE(scrubber->currentSlot(), target);
    QCOMPARE(m_window->sessionStatusBar()->slotText(), QStringLiteral("slot %1").arg(target));
}

void TestMainWindow::viewsAgreeWithCore_data()
{
    QTest::addColumn<int>("slot");
    QTest::newRow("0") << 0;
    QTest::newRow("9") << 9;
    QTest::newRow("31") << 31;
    QTest::newRow("back to 2") << 2;
}

void TestMainWindow::viewsAgreeWithCore()
{
    QFETCH(int, slot);
    QVERIFY(m_window->session()->waitForSlot(slot));
    flush();
    const dl2::SlotSnapshot core = coreSnapshot(slot);
    QCOMPARE(m_window->session()->snapshot().slot, core.slot);

    // Job table rows equal the core's jobs.
    JobTableModel *model = m_window->jobModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model->rowCount(), static_cast<int>(core.jobs.size()));
    for (int row = 0; row < model->rowCount(); ++row) {
        const auto &job = core.jobs[row];
        QCOMPARE(model->index(row, JobTableModel::IdColumn).data().toInt(), job.id);
        QCOMPARE(model->index(row, 0).data(JobTableModel::StatusRole).toInt(), int(job.status));
        if (job.status == dl2::JobStatus::Running) {
            QCOMPARE(model->index(row, JobTableModel::WorkersColumn).data().toInt(), job.workers);
            QCOMPARE(model->index(row, JobTableModel::PsColumn).data().toInt(), job.ps);
        }
    }

    // Occupancy cells: per node and job, as many CPU/GPU cells as the job's tasks there demand.
    ClusterOccupancyView *view = m_window->occupancyView();
    QCOMPARE(view->nodeCount(), static_cast<int>(core.nodeUsage.size()));
    const auto profiles = dl2::ProfileSet::reference();
    std::map<std::tuple<int, int, int>, int> expected; // (node, resource, job) -> cells
    for (const auto &job : core.jobs) {
        if (job.status == dl2::JobStatus::Finished && job.finishTime < slot)
            continue; // stale allocation of an earlier slot
        for (const auto &t : job.tasks) {
            const auto &d = t.role == dl2::TaskRole::Worker ? profiles[job.type].workerDemand
                                                            : profiles[job.type].psDemand;
            for (int r = 0; r < 2; ++r)
                expected[{t.node, r, job.id}] += d[r];
        }
    }
    std::map<std::tuple<int, int, int>, int> shown;
    for (int node = 0; node < view->nodeCount(); ++node)
        for (int r = 0; r < 2; ++r) {
            int used = 0;
            for (int k = 0; k < view->slotsPerResource(); ++k) {
                const auto owner = view->cellOwner(node, static_cast<dl2::Resource>(r), k);
                if (owner.jobId >= 0) {
                    ++shown[{node, r, owner.jobId}];
                    ++used;
                }
            }
            QCOMPARE(used, core.nodeUsage[node][r]);
        }
    for (auto it = expected.begin(); it != expected.end();)
        it = it->second == 0 ? expected.erase(it) : std::next(it);
    QCOMPARE(shown, expected);
}

void TestMainWindow::selectingAJobHighlightsIt()
{
    QVERIFY(m_window->session()->waitForSlot(5));
    flush();
    ClusterOccupancyView *view = m_window->occupancyView();
    // Find a cell owned by a job and click it.
    int node = -1, jobId = -1, cell = -1;
    for (int n = 0; n < view->nodeCount() && jobId < 0; ++n)
        for (int k = 0; k < view->slotsPerResource() && jobId < 0; ++k)
            if (int id = view->cellOwner(n, dl2::Resource::Cpu, k).jobId; id >= 0) {
                node = n;
                jobId = id;
                cell = k;
            }
    QVERIFY(jobId >= 0);
    view->setZoomLevel(9); // big cells: a precise click
    view->setFocus();
    QCoreApplication::processEvents();
    // Scroll the node into view, then click its CPU cell.
    QPoint centre = view->nodeCenter(node);
    view->verticalScrollBar()->setValue(view->verticalScrollBar()->value() + centre.y() - 40);
    view->horizontalScrollBar()->setValue(view->horizontalScrollBar()->value() + centre.x() - 200);
    int r = -1, k = -1;
    QPoint at;
    for (int x = 0; x < view->viewport()->width() && at.isNull(); ++x)
        for (int y = 0; y < view->viewport()->height() && at.isNull(); y += 2)
            if (view->nodeAt({x, y}, &r, &k) == node && r == 0 && k == cell)
                at = QPoint(x, y);
    QVERIFY(!at.isNull());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(m_window->jobPanel()->selectedJobs(), QList<int>{jobId});
    QCOMPARE(view->selectedJob(), jobId);
    QCOMPARE(m_window->jobSpeedPlot()->selectedJobs(), QList<int>{jobId});
    view->zoomToFit();
    // Selection survives playback.
    m_window->session()->stepForward();
    QTRY_COMPARE(m_window->session()->currentSlot(), 6);
    flush();
    QCOMPARE(m_window->jobPanel()->selectedJobs(), QList<int>{jobId});
}

void TestMainWindow::decisionInspectorPlaceholder()
{
    flush();
    QVERIFY(m_window->decisionInspector()->showsPlaceholder());
    // A policy with a decision record (what the adapter produces for DL2) is listed.
    DecisionLog log;
    log.available = true;
    log.slot = 4;
    log.policy = QStringLiteral("dl2");
    log.columns = {{QStringLiteral("age"), {}, 0, 1}, {QStringLiteral("workers"), {}, 1, 1}};
    dl2::DecisionRecord bundle; // two window rows (job 3, one empty position): 7 actions
    bundle.jobDim = 2;
    bundle.jobIds = {3, -1};
    bundle.features = {5.0f, 1.0f, 0.0f, 0.0f};
    bundle.probabilities = {0.3f, 0.1f, 0.42f, 0.0f, 0.0f, 0.0f, 0.18f};
    bundle.action = 2;
    bundle.jobId = 3;
    bundle.value = 1.5;
    dl2::DecisionRecord stop = bundle;
    stop.inference = 1;
    stop.stop = true;
    stop.probabilities = {0.05f, 0.05f, 0.0f, 0.0f, 0.0f, 0.0f, 0.9f};
    stop.action = 6;
    stop.jobId = -1;
    log.steps = {bundle, stop};
    DecisionInspector inspector;
    inspector.setDecisions(log, QStringLiteral("dl2"));
    QVERIFY(!inspector.showsPlaceholder());
    QCOMPARE(inspector.stepCount(), 2);
    QCOMPARE(inspector.currentStep(), 0);
    QCOMPARE(inspector.stateModel()->rowCount(), 1); // the empty position is left out
    QCOMPARE(inspector.stateModel()->chosenRow(), 0);
    inspector.nextStep();
    QCOMPARE(inspector.currentStep(), 1);
    QCOMPARE(inspector.stateModel()->chosenRow(), -1); // stop
    QVERIFY(inspector.stateModel()
                ->index(0, DecisionStateModel::BundleColumn)
                .data(DecisionStateModel::MaskedRole)
                .toBool());
    inspector.setDecisions({}, QStringLiteral("drf"));
    QVERIFY(inspector.showsPlaceholder());
}

void TestMainWindow::heatMapWhenZoomedOut()
{
    ClusterOccupancyView *view = m_window->occupancyView();
    view->setZoomLevel(0);
    QVERIFY(view->heatMapMode());
    QCoreApplication::processEvents();
    // Every node is reachable by position and maps back to itself.
    for (int node : {0, 1, view->nodeCount() / 2, view->nodeCount() - 1}) {
        const QPoint c = view->nodeCenter(node);
        if (view->viewport()->rect().contains(c))
            QCOMPARE(view->nodeAt(c), node);
    }
    view->setZoomLevel(11);
    QVERIFY(!view->heatMapMode());
    view->zoomToFit();
    QVERIFY(!view->heatMapMode()); // 96 nodes fit at slot detail
}

void TestMainWindow::badTraceKeepsConsoleUsable()
{
    QSignalSpy errors(m_window.get(), &MainWindow::errorShown);
    SessionSetup bad = m_window->session()->setup();
    bad.traceFile = m_dir.filePath(QStringLiteral("does-not-exist.csv"));
    m_window->load(bad);
    QTRY_COMPARE(errors.count(), 1);
    // Falls back to the last run that loaded.
    QTRY_VERIFY(m_window->session()->isLoaded());
    QVERIFY(m_window->session()->setup().traceFile.isEmpty());
    QVERIFY(m_window->session()->waitForSlot(3));
}

void TestMainWindow::pagesTakeTheWholeWindow()
{
    // Ctrl+3 shows the training page without the run's docks; going from one page to the
    // other and back to the cluster brings the docks back as they were.
    auto *tabs = qobject_cast<QTabWidget *>(m_window->centralWidget());
    auto *jobs = m_window->findChild<QDockWidget *>(QStringLiteral("jobsDock"));
    QVERIFY(tabs && jobs);
    tabs->setCurrentIndex(0);
    QVERIFY(jobs->isVisible());
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    QTest::keyClick(m_window.get(), Qt::Key_3, Qt::ControlModifier);
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(m_window->trainingPage()));
    QVERIFY(!jobs->isVisible());
    QTest::keyClick(m_window.get(), Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(m_window->comparisonPage()));
    QVERIFY(!jobs->isVisible());
    QTest::keyClick(m_window.get(), Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(tabs->currentIndex(), 0);
    QVERIFY(jobs->isVisible());
}

// Simulation > Speed model switches the run between the measured table and the fitted model
// (remembered, in the status bar); the toolbar's cluster size replaces the scenario's.
void TestMainWindow::speedModelAndClusterSize()
{
    auto *fitted = m_window->findChild<QAction *>(QStringLiteral("speedModelFitted"));
    auto *measured = m_window->findChild<QAction *>(QStringLiteral("speedModelMeasured"));
    QVERIFY(fitted && measured);
    QVERIFY(measured->isChecked());
    QVERIFY2(m_window->sessionStatusBar()->runText().contains(QStringLiteral("measured")),
             qPrintable(m_window->sessionStatusBar()->runText()));

    // A job's speed in the views is the speed model's at its allocation.
    auto speedsAt = [this](int slot, const dl2::ProfileSet &profiles) {
        QVERIFY(m_window->session()->waitForSlot(slot));
        flush();
        int checked = 0;
        for (const auto &job : m_window->session()->snapshot().jobs)
            if (job.status == dl2::JobStatus::Running && job.workers > 0 && job.ps > 0) {
                QCOMPARE(job.speed, profiles[job.type].speed->speed(job.ps, job.workers));
                ++checked;
            }
        QVERIFY(checked > 0);
    };
    speedsAt(3, dl2::ProfileSet::reference(dl2::SpeedModelChoice::Measured));
    fitted->trigger();
    QTRY_VERIFY(m_window->session()->isLoaded());
    QCOMPARE(m_window->session()->setup().speedModel, u"optimus"_qs);
    QCOMPARE(m_settings->speedModel(), u"optimus"_qs);
    speedsAt(3, dl2::ProfileSet::reference(dl2::SpeedModelChoice::Fitted));
    QVERIFY2(m_window->sessionStatusBar()->runText().contains(QStringLiteral("fitted")),
             qPrintable(m_window->sessionStatusBar()->runText()));
    auto *runOn = m_window->comparisonPage()->findChild<QLabel *>(QStringLiteral("comparisonRunOn"));
    QVERIFY(runOn);
    QVERIFY2(runOn->text().contains(QStringLiteral("fitted")), qPrintable(runOn->text()));

    // Cluster size: 12 nodes instead of dl2-small's 96.
    QSpinBox *nodes = m_window->toolBar()->nodesBox();
    QCOMPARE(nodes->value(), dl2::scenarioByName("dl2-small").cluster.nodes);
    nodes->setFocus();
    nodes->selectAll();
    QTest::keyClicks(nodes, QStringLiteral("12"));
    QTest::keyClick(nodes, Qt::Key_Return);
    QTRY_COMPARE(m_window->session()->setup().nodes, 12);
    QVERIFY(m_window->session()->waitForSlot(1));
    QCOMPARE(m_window->session()->runInfo().nodes, 12);
    QCOMPARE(m_settings->nodes(), 12);
    flush();
    QCOMPARE(m_window->occupancyView()->nodeCount(), 12);
    QVERIFY2(m_window->sessionStatusBar()->runText().contains(QStringLiteral("12 nodes")),
             qPrintable(m_window->sessionStatusBar()->runText()));

    measured->trigger(); // back, keeping the cluster size
    QTRY_COMPARE(m_window->session()->setup().speedModel, u"rbf"_qs);
    QCOMPARE(m_window->session()->setup().nodes, 12);
    SessionSetup reset = m_window->session()->setup();
    reset.nodes = 0;
    m_window->load(reset);
    QVERIFY(m_window->session()->waitForSlot(0));
    QCOMPARE(nodes->value(), dl2::scenarioByName("dl2-small").cluster.nodes);
}

void TestMainWindow::layoutIsSavedAndReset()
{
    auto *speed = m_window->findChild<QDockWidget *>(QStringLiteral("jobSpeedDock"));
    QVERIFY(speed);
    speed->hide();
    QVERIFY(!speed->isVisible());
    m_window->resetLayout();
    QVERIFY(speed->isVisible());
    for (const char *name : {"jobsDock", "decisionsDock", "utilisationDock", "rewardDock"})
        QVERIFY(m_window->findChild<QDockWidget *>(QLatin1String(name)));
}

void TestMainWindow::layoutAndChoicesPersist()
{
    QTemporaryDir dir;
    Settings settings(dir.filePath(QStringLiteral("persist.ini")));
    {
        MainWindow w(&settings, true);
        w.setInteractiveErrors(false);
        w.show();
        SessionSetup setup;
        setup.scenario = QStringLiteral("dl2-small");
        setup.seed = 4;
        setup.policy = QStringLiteral("fifo");
        w.load(setup);
        QVERIFY(w.session()->waitForSlot(0));
        w.findChild<QDockWidget *>(QStringLiteral("rewardDock"))->hide();
        w.close();
    }
    QCOMPARE(settings.scenario(), u"dl2-small"_qs);
    QCOMPARE(settings.seed(), quint64(4));
    QCOMPARE(settings.policy(), u"fifo"_qs);
    MainWindow again(&settings, true);
    again.show();
    QVERIFY(!again.findChild<QDockWidget *>(QStringLiteral("rewardDock"))->isVisible());
    QVERIFY(again.findChild<QDockWidget *>(QStringLiteral("jobsDock"))->isVisible());
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
