#include "mainwindow.h"

#include "appicon.h"
#include "auditlogpanel.h"
#include "clusteroccupancyview.h"
#include "comparisonpage.h"
#include "consolesession.h"
#include "decisioninspector.h"
#include "decisionqueuepanel.h"
#include "importtracedialog.h"
#include "instructortools.h"
#include "liveoperations.h"
#include "policyfiles.h"
#include "jobspeedplot.h"
#include "jobtablemodel.h"
#include "jobtablepanel.h"
#include "onlinelearningplot.h"
#include "rewardplot.h"
#include "scenario.h"
#include "scheduler.h"
#include "sessionstatusbar.h"
#include "sessiontoolbar.h"
#include "settings.h"
#include "timelinescrubber.h"
#include "trainingpage.h"
#include "utilisationplot.h"
#include "viewrefresher.h"

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHash>
#include <QMenuBar>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>

namespace dl2console {

MainWindow::MainWindow(Settings *settings, bool restoreLayout, QWidget *parent)
    : QMainWindow(parent), m_settings(settings), m_restoreLayout(restoreLayout),
      m_session(new ConsoleSession(this)), m_refresher(new ViewRefresher(this)),
      m_jobModel(new JobTableModel(this)), m_toolBar(new SessionToolBar(this)),
      m_scrubber(new TimelineScrubber(this)), m_status(new SessionStatusBar(this)),
      m_tabs(new QTabWidget(this)), m_occupancy(new ClusterOccupancyView(this)),
      m_comparison(new ComparisonPage(settings, this)),
      m_training(new TrainingPage(settings, this))
{
    setWindowTitle(QString()); // the application display name is added by Qt
    setWindowIcon(appIcon());
    setDockNestingEnabled(true);

    // Toolbar choices come from the core's registries.
    QStringList scenarios, scenarioTips, policies, policyTips;
    for (const auto &s : dl2::builtinScenarios()) {
        scenarios << QString::fromStdString(s.name);
        scenarioTips << QString::fromStdString(s.description);
    }
    for (const auto &p : dl2::registeredSchedulers()) {
        policies << QString::fromStdString(p.name);
        policyTips << QString::fromStdString(p.description);
    }
    m_toolBar->setScenarios(scenarios, scenarioTips);
    QHash<QString, int> nodes;
    for (const auto &s : dl2::builtinScenarios())
        nodes.insert(QString::fromStdString(s.name), s.cluster.nodes);
    m_toolBar->setScenarioNodes(nodes);
    m_toolBar->setPolicies(policies, policyTips);
    addToolBar(Qt::TopToolBarArea, m_toolBar);
    addToolBarBreak();
    auto *timeline = m_timelineBar = new QToolBar(tr("Timeline"), this);
    timeline->setObjectName(QStringLiteral("timelineToolBar"));
    timeline->addWidget(m_scrubber);
    addToolBar(Qt::TopToolBarArea, timeline);

    m_occupancy->setObjectName(QStringLiteral("clusterView"));
    m_comparison->setObjectName(QStringLiteral("comparisonPage"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_occupancy, tr("&Cluster"));
    m_tabs->addTab(m_comparison, tr("Co&mparison"));
    m_training->setObjectName(QStringLiteral("trainingPage"));
    m_tabs->addTab(m_training, tr("&Training"));
    setCentralWidget(m_tabs);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::onTabChanged);
    setStatusBar(m_status);
    m_status->setHint(tr("Space: play/pause · , . step · Ctrl+O: open trace · click a job to "
                         "follow it · Ctrl+wheel zooms the cluster"));
    m_liveDefaults.auditFile = defaultAuditFile();

    QStringList checked = settings->comparisonPolicies();
    if (checked.isEmpty()) // the reference's best heuristics, the strongest simple rule, DL2
        for (const char *p : {"drf", "optimus", "best-config", "dl2", "dl2-plus"})
            if (policies.contains(QLatin1String(p)))
                checked << QLatin1String(p);
    m_comparison->setPolicies(policies, checked);
    m_comparison->setScenarios(scenarios);
    m_training->setScenarios(scenarios);

    buildDocks();
    buildMenus();
    connectSession();
    m_instructor = new InstructorTools(this, m_tabs, settings);

    m_defaultState = QMainWindow::saveState();
    if (m_restoreLayout) {
        if (!restoreGeometry(settings->windowGeometry()))
            resize(1500, 950);
        if (!QMainWindow::restoreState(settings->windowState()))
            QTimer::singleShot(0, this, &MainWindow::applyDefaultDockSizes);
    } else {
        resize(1500, 950);
        QTimer::singleShot(0, this, &MainWindow::applyDefaultDockSizes);
    }
    m_session->setSpeed(settings->speed());
    m_toolBar->setSpeed(m_session->speed());
}

MainWindow::~MainWindow() = default;

QString MainWindow::defaultPolicy()
{
    return dl2::isScheduler("dl2") ? QStringLiteral("dl2") : QStringLiteral("drf");
}

QDockWidget *MainWindow::addDock(QWidget *content, const QString &title, const QString &objectName,
                                 Qt::DockWidgetArea area)
{
    auto *dock = new QDockWidget(title, this);
    dock->setObjectName(objectName);
    dock->setWidget(content);
    addDockWidget(area, dock);
    m_docks << dock;
    return dock;
}

void MainWindow::buildDocks()
{
    m_jobPanel = new JobTablePanel(m_jobModel, this);
    m_utilisation = new UtilisationPlot(this);
    m_reward = new RewardPlot(this);
    m_jobSpeed = new JobSpeedPlot(this);
    m_decisions = new DecisionInspector(this);
    m_queue = new DecisionQueuePanel(this);
    m_audit = new AuditLogPanel(this);
    m_learningPlot = new OnlineLearningPlot(this);

    QDockWidget *jobs =
        addDock(m_jobPanel, tr("Jobs"), QStringLiteral("jobsDock"), Qt::RightDockWidgetArea);
    QDockWidget *queue = addDock(m_queue, tr("Decision queue"), QStringLiteral("decisionQueueDock"),
                                 Qt::RightDockWidgetArea);
    QDockWidget *decisions = addDock(m_decisions, tr("Decisions"), QStringLiteral("decisionsDock"),
                                     Qt::RightDockWidgetArea);
    QDockWidget *audit = addDock(m_audit, tr("Audit log"), QStringLiteral("auditLogDock"),
                                 Qt::RightDockWidgetArea);
    tabifyDockWidget(jobs, queue);
    tabifyDockWidget(queue, decisions);
    tabifyDockWidget(decisions, audit);
    jobs->raise();
    QDockWidget *util = addDock(m_utilisation, tr("Utilisation"), QStringLiteral("utilisationDock"),
                                Qt::BottomDockWidgetArea);
    QDockWidget *reward =
        addDock(m_reward, tr("Reward"), QStringLiteral("rewardDock"), Qt::BottomDockWidgetArea);
    QDockWidget *speed = addDock(m_jobSpeed, tr("Job speed & allocation"),
                                 QStringLiteral("jobSpeedDock"), Qt::BottomDockWidgetArea);
    QDockWidget *learning = addDock(m_learningPlot, tr("Online learning"),
                                    QStringLiteral("onlineLearningDock"), Qt::BottomDockWidgetArea);
    splitDockWidget(util, reward, Qt::Horizontal);
    splitDockWidget(reward, learning, Qt::Horizontal);
    splitDockWidget(learning, speed, Qt::Horizontal);
    learning->hide(); // shown when learning starts (View menu otherwise)

    // Batched, visibility-aware refresh of every view.
    m_refresher->add(m_occupancy, [this] { m_occupancy->setSnapshot(m_session->snapshot()); });
    m_refresher->add(m_jobPanel, [this] { m_jobModel->setSnapshot(m_session->snapshot()); });
    m_refresher->add(m_utilisation, [this] {
        m_utilisation->setTimeline(m_session->timeline(), m_session->currentSlot(),
                                   m_session->lastKnownSlot());
    });
    m_refresher->add(m_reward, [this] {
        m_reward->setTimeline(m_session->timeline(), m_session->currentSlot(),
                              m_session->lastKnownSlot());
    });
    m_refresher->add(m_jobSpeed, [this] {
        std::vector<int> ids, types;
        for (const auto &j : m_session->snapshot().jobs) {
            ids.push_back(j.id);
            types.push_back(j.type);
        }
        m_jobSpeed->setJobs(ids, types);
        m_jobSpeed->setTimeline(m_session->timeline(), m_session->currentSlot(),
                                m_session->lastKnownSlot());
    });
    m_refresher->add(m_decisions, [this] {
        m_decisions->setDecisions(m_session->decisions(), m_session->setup().policy);
    });
    m_refresher->add(m_scrubber, [this] {
        m_scrubber->setTimeline(m_session->timeline(), m_session->runComplete());
        m_scrubber->setCurrentSlot(m_session->currentSlot());
        m_scrubber->setLiveSlot(m_session->isLive() ? m_session->liveSlot() : -2);
    });
    m_refresher->add(m_status, [this] {
        m_status->setSnapshot(m_session->snapshot(), m_session->runInfo().slotSeconds);
    });
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_toolBar->openTraceAction());
    QAction *importTrace =
        file->addAction(tr("&Import public trace…"), this, [this] { openImportDialog(); });
    importTrace->setObjectName(QStringLiteral("importTrace"));
    importTrace->setToolTip(tr("Import a Philly, Alibaba PAI or Helios trace as published"));
    QAction *loadPolicy = file->addAction(tr("Load &policy…"), this, &MainWindow::openPolicyFile);
    loadPolicy->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_O);
    loadPolicy->setObjectName(QStringLiteral("loadPolicy"));
    loadPolicy->setToolTip(tr("Run a dl2 or dl2-plus policy file (.dl2ckpt) — Ctrl+Shift+O"));
    const QList<ShippedPolicyEntry> shipped = shippedPolicyEntries();
    if (!shipped.isEmpty()) {
        QMenu *menu = file->addMenu(tr("S&hipped policies"));
        menu->setToolTipsVisible(true);
        for (const ShippedPolicyEntry &e : shipped) {
            QAction *a = menu->addAction(tr("%1 (%2)").arg(e.name, e.kind), this, [this, e] {
                reload([&e](SessionSetup &s) {
                    s.policy = e.kind;
                    s.checkpoint = e.name;
                });
            });
            a->setToolTip(e.description);
            a->setObjectName(QStringLiteral("shippedPolicy:") + e.name);
        }
    }
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *sim = menuBar()->addMenu(tr("&Simulation"));
    for (QAction *a :
         {m_toolBar->playAction(), m_toolBar->stepBackAction(), m_toolBar->stepForwardAction(),
          m_toolBar->firstAction(), m_toolBar->lastAction(), m_toolBar->slowerAction(),
          m_toolBar->fasterAction(), m_toolBar->backToLiveAction()})
        sim->addAction(a);
    sim->addSeparator();
    QMenu *speedModel = sim->addMenu(tr("Speed &model"));
    auto *speedGroup = new QActionGroup(this);
    m_measuredSpeeds = speedModel->addAction(tr("&Measured speeds (exact RBF, the published setting)"));
    m_fittedSpeeds = speedModel->addAction(tr("&Fitted Optimus model"));
    for (QAction *a : {m_measuredSpeeds, m_fittedSpeeds}) {
        a->setCheckable(true);
        speedGroup->addAction(a);
    }
    m_measuredSpeeds->setChecked(true);
    m_measuredSpeeds->setObjectName(QStringLiteral("speedModelMeasured"));
    m_fittedSpeeds->setObjectName(QStringLiteral("speedModelFitted"));
    connect(m_measuredSpeeds, &QAction::triggered, this,
            [this] { reload([](SessionSetup &s) { s.speedModel = QStringLiteral("rbf"); }); });
    connect(m_fittedSpeeds, &QAction::triggered, this,
            [this] { reload([](SessionSetup &s) { s.speedModel = QStringLiteral("optimus"); }); });
    speedModel->addSeparator();
    speedModel->addAction(tr("Load speed &table…"), this, &MainWindow::openSpeedTable);
    speedModel->addAction(tr("&Built-in speed table"), this,
                          [this] { reload([](SessionSetup &s) { s.speedTable.clear(); }); });

    QMenu *ops = menuBar()->addMenu(tr("&Operations"));
    for (QAction *a : {m_queue->approveAction(), m_queue->rejectAction(),
                       m_queue->overrideAction(), m_queue->approveAllAction()})
        ops->addAction(a);
    ops->addSeparator();
    ops->addAction(m_queue->undoAction());
    ops->addAction(m_queue->redoAction());
    ops->addSeparator();
    ops->addAction(m_queue->commitAction());
    ops->addSeparator();
    m_learn = ops->addAction(tr("&Learn online"));
    m_learn->setObjectName(QStringLiteral("learn"));
    m_learn->setCheckable(true);
    m_learn->setIconText(tr("Learn"));
    m_learn->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_L);
    m_learn->setToolTip(tr("Fine-tune the learned policy (dl2, dl2-plus) while operating, as dl2 "
                           "operate --learn: a dl2-train learner updates it between slots, every "
                           "version is audited, and a rollback restores the last good version "
                           "when the rolling reward falls more than 10 % below the frozen "
                           "policy's — Ctrl+Shift+L"));
    m_learn->setVisible(false); // live mode only
    m_toolBar->addSeparator();
    m_toolBar->addAction(m_learn);
    connect(m_learn, &QAction::toggled, this, [this](bool on) {
        LiveOperations *live = m_session->live();
        if (!live)
            return;
        live->setLearning(on);
        auto *d = findChild<QDockWidget *>(QStringLiteral("onlineLearningDock"));
        if (on && d && !d->isVisible()) {
            d->show();
            applyDefaultDockSizes();
        }
        updateLearning();
    });

    QMenu *view = menuBar()->addMenu(tr("&View"));
    QAction *cluster = view->addAction(tr("Cluster"), this, [this] { m_tabs->setCurrentIndex(0); });
    cluster->setShortcut(Qt::CTRL | Qt::Key_1);
    QAction *compare = view->addAction(tr("Comparison"), this, &MainWindow::showComparison);
    compare->setShortcut(Qt::CTRL | Qt::Key_2);
    QAction *training = view->addAction(tr("Training"), this, &MainWindow::showTraining);
    training->setShortcut(Qt::CTRL | Qt::Key_3);
    view->addSeparator();
    view->addAction(tr("Zoom in"), QKeySequence::ZoomIn, m_occupancy,
                    &ClusterOccupancyView::zoomIn);
    view->addAction(tr("Zoom out"), QKeySequence::ZoomOut, m_occupancy,
                    &ClusterOccupancyView::zoomOut);
    view->addAction(tr("Fit cluster"), QKeySequence(Qt::CTRL | Qt::Key_0), m_occupancy,
                    &ClusterOccupancyView::zoomToFit);
    view->addSeparator();
    for (QDockWidget *d : std::as_const(m_docks))
        view->addAction(d->toggleViewAction());
    view->addSeparator();
    view->addAction(tr("Reset layout"), this, &MainWindow::resetLayout);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About DL2 Console"), this, [this] {
        QMessageBox::about(this, tr("About DL2 Console"),
                           tr("<b>DL2 Console %1</b><br>Replay and compare deep-learning cluster "
                              "schedulers (DL2, DRF, Optimus, …) on the DL2 simulation.")
                               .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::connectSession()
{
    auto *tb = m_toolBar;
    connect(tb, &SessionToolBar::setupRequested, this, &MainWindow::load);
    connect(tb, &SessionToolBar::openTraceRequested, this, &MainWindow::openTraceFile);
    connect(tb, &SessionToolBar::speedRequested, this, [this](double v) {
        m_session->setSpeed(v);
        m_settings->setSpeed(v);
    });
    connect(tb->playAction(), &QAction::triggered, m_session, &ConsoleSession::togglePlaying);
    connect(tb->stepForwardAction(), &QAction::triggered, m_session, &ConsoleSession::stepForward);
    connect(tb->stepBackAction(), &QAction::triggered, m_session, &ConsoleSession::stepBack);
    connect(tb->firstAction(), &QAction::triggered, m_session, [this] { m_session->seek(0); });
    connect(tb->lastAction(), &QAction::triggered, m_session,
            [this] { m_session->seek(m_session->lastKnownSlot()); });
    connect(m_session, &ConsoleSession::playingChanged, tb, &SessionToolBar::setPlaying);
    connect(m_scrubber, &TimelineScrubber::seekRequested, m_session, [this](int slot) {
        if (!m_session->isLive()) // live: looking back does not stop the cluster
            m_session->setPlaying(false);
        m_session->seek(slot);
    });
    connect(tb->backToLiveAction(), &QAction::triggered, m_session, &ConsoleSession::backToLive);
    connect(m_session, &ConsoleSession::liveViewChanged, this, &MainWindow::updateLiveView);
    connect(m_session, &ConsoleSession::snapshotChanged, this, [this] {
        if (m_session->isViewingHistory())
            updateLiveView();
    });

    connect(m_session, &ConsoleSession::snapshotChanged, m_refresher, &ViewRefresher::markDirty);
    connect(m_session, &ConsoleSession::timelineChanged, m_refresher, &ViewRefresher::markDirty);
    connect(m_session, &ConsoleSession::loaded, this, [this] {
        const auto &info = m_session->runInfo();
        m_jobModel->setProfiles(m_session->profiles(), info.slotSeconds);
        m_jobModel->setSources(info.sources);
        if (!info.clusterSource.isEmpty() && m_session->setup().nodes == 0)
            m_toolBar->setTraceNodes(m_session->setup().traceFile, info.nodes);
        m_occupancy->setProfiles(m_session->profiles());
        m_jobSpeed->setProfiles(m_session->profiles(), info.slotSeconds);
        QStringList types;
        for (int t = 0; t < m_session->profiles().size(); ++t)
            types << QString::fromStdString(m_session->profiles()[t].name);
        m_decisions->setTypeNames(types);
        setWindowTitle(tr("%1 · %2").arg(info.traceName, info.policy));
        // The cluster size is shown when it is not the scenario's: set by the user or the trace's.
        m_status->setRun(info.speedModel,
                         m_session->setup().nodes > 0 || !info.clusterSource.isEmpty() ? info.nodes : 0,
                         info.checkpoint);
        m_lastGood = m_session->setup();
        m_haveLastGood = true;
        updateLiveView();
    });
    connect(m_session, &ConsoleSession::loadStarted, this, [this] {
        onSelection({}); // model resets clear the table selection without a signal
        m_refresher->markDirty();
    });
    connect(m_session, &ConsoleSession::errorOccurred, this, &MainWindow::onError);
    connect(m_comparison, &ComparisonPage::errorOccurred, this, &MainWindow::onError);
    connect(m_training, &TrainingPage::errorOccurred, this, &MainWindow::onError);
    connect(m_jobPanel, &JobTablePanel::selectionChanged, this, &MainWindow::onSelection);
    connect(m_session, &ConsoleSession::liveChanged, this, &MainWindow::onLiveChanged);
    connect(m_queue, &DecisionQueuePanel::gateSettingsChanged, this, &MainWindow::onGateSettings);
    connect(m_occupancy, &ClusterOccupancyView::jobClicked, m_jobPanel, &JobTablePanel::selectJob);
}

void MainWindow::load(const SessionSetup &requested)
{
    SessionSetup setup = requested;
    if (setup.policy.isEmpty() || !dl2::isScheduler(setup.policy.toStdString())) {
        setup.policy = defaultPolicy();
        setup.checkpoint.clear();
    }
    m_toolBar->setSetup(setup);
    m_settings->setScenario(setup.scenario);
    m_settings->setSeed(setup.seed);
    m_settings->setTraceFile(setup.traceFile);
    m_settings->setPolicy(setup.policy);
    m_settings->setCheckpoint(setup.checkpoint);
    m_settings->setSpeedModel(setup.speedModel);
    m_settings->setSpeedTable(setup.speedTable);
    m_settings->setNodes(setup.nodes);
    if (m_measuredSpeeds)
        (setup.speedModel == QLatin1String("optimus") ? m_fittedSpeeds : m_measuredSpeeds)->setChecked(true);
    m_comparison->setRunSettings(setup);
    m_jobModel->clear();
    if (m_session->isLive()) { // stay in live operations, with the new scenario/policy
        startLive();
        return;
    }
    m_session->load(setup);
}

void MainWindow::reload(const std::function<void(SessionSetup &)> &change)
{
    SessionSetup setup = m_toolBar->setup();
    change(setup);
    load(setup);
}

void MainWindow::openPolicyFile()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Load policy"), m_settings->lastDirectory(),
        tr("DL2 policies (*.dl2ckpt);;All files (*)"));
    if (path.isEmpty())
        return;
    m_settings->setLastDirectory(QFileInfo(path).absolutePath());
    try {
        const PolicyFile policy = inspectPolicyFile(path);
        reload([&policy](SessionSetup &s) {
            s.policy = policy.kind;
            s.checkpoint = policy.checkpoint;
        });
    } catch (const std::exception &e) {
        onError(QString::fromStdString(e.what()));
    }
}

void MainWindow::openSpeedTable()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Load measured speeds"), m_settings->lastDirectory(),
        tr("Speed tables (*.csv *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    m_settings->setLastDirectory(QFileInfo(path).absolutePath());
    reload([&path](SessionSetup &s) {
        s.speedTable = path;
        s.speedModel = QStringLiteral("rbf");
    });
}

QString MainWindow::defaultAuditFile()
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    return QDir(dir).filePath(QStringLiteral("audit.sqlite"));
}

void MainWindow::setLiveDefaults(const LiveSetup &setup)
{
    m_liveDefaults = setup;
    if (m_liveDefaults.auditFile.isEmpty())
        m_liveDefaults.auditFile = defaultAuditFile();
    m_queue->setGateSettings({setup.mode, setup.rulesFile, setup.reviewDeadlineMs,
                              setup.atDeadline});
    m_audit->setAuditFile(m_liveDefaults.auditFile);
}

void MainWindow::startLive()
{
    LiveSetup live = m_liveDefaults;
    const SessionSetup &current = m_toolBar->setup();
    live.scenario = current.scenario;
    live.seed = current.seed;
    live.policy = current.policy.isEmpty() ? defaultPolicy() : current.policy;
    live.checkpoint = current.checkpoint;
    const GateSettings gate = m_queue->gateSettings();
    live.mode = gate.mode;
    live.rulesFile = gate.rulesFile;
    live.reviewDeadlineMs = gate.reviewDeadlineMs;
    live.atDeadline = gate.atDeadline;
    m_liveDefaults.mode = gate.mode;
    QDir().mkpath(QFileInfo(live.auditFile).absolutePath());
    m_jobModel->clear();
    m_session->startLive(live);
}

void MainWindow::onGateSettings(const GateSettings &settings)
{
    if (LiveOperations *live = m_session->live()) {
        live->setGateSettings(settings); // from the next batch
        updateConnector();
        return;
    }
    if (settings.mode != dl2::GateMode::Automatic)
        startLive();
}

void MainWindow::onLiveChanged()
{
    LiveOperations *live = m_session->live();
    m_queue->setLive(live);
    if (live) {
        m_audit->setAuditFile(live->setup().auditFile);
        connect(live, &LiveOperations::connectorChanged, this, &MainWindow::updateConnector);
        connect(live, &LiveOperations::batchChanged, m_audit, &AuditLogPanel::scheduleRefresh);
        connect(live, &LiveOperations::slotCompleted, m_audit, &AuditLogPanel::scheduleRefresh);
        connect(live, &LiveOperations::learningChanged, this, &MainWindow::updateLearning);
        connect(live, &LiveOperations::learningChanged, m_audit, &AuditLogPanel::scheduleRefresh);
        connect(live, &LiveOperations::learningFailed, this, [this](const QString &message) {
            const QSignalBlocker block(m_learn);
            m_learn->setChecked(false);
            onError(tr("Online learning: %1").arg(message));
        });
        connect(live, &LiveOperations::batchChanged, this, [this] {
            if (m_session->live() && m_session->live()->batch().open)
                if (auto *d = findChild<QDockWidget *>(QStringLiteral("decisionQueueDock")))
                    d->raise();
        });
        m_status->setHint(tr("Review: A approve · R reject · E edit · Shift+A approve all · "
                             "Ctrl+Z undo · Ctrl+Return commit · Space plays gated slots"));
    } else {
        m_status->setHint(tr("Space: play/pause · , . step · Ctrl+O: open trace · click a job to "
                             "follow it · Ctrl+wheel zooms the cluster"));
    }
    {
        const QSignalBlocker block(m_learn);
        m_learn->setChecked(live && live->isLearningWanted());
        m_learn->setVisible(live != nullptr);
    }
    if (live && live->isLearningWanted())
        if (auto *d = findChild<QDockWidget *>(QStringLiteral("onlineLearningDock"));
            d && !d->isVisible()) {
            d->show();
            applyDefaultDockSizes();
        }
    updateConnector();
    updateLiveView();
    updateLearning();
}

void MainWindow::updateLearning()
{
    LiveOperations *live = m_session->live();
    if (!live) {
        m_learningPlot->setCurve({}, {}, {});
        return;
    }
    m_learningPlot->setCurve(live->learningCurve(), live->learningMarks(), live->learning());
    updateConnector();
}

// Live operations: the toolbar names the operated cluster (a remote one replaces the trace and
// seed), and a slot of the live history puts its batch read-only in the decision queue.
void MainWindow::updateLiveView()
{
    LiveOperations *live = m_session->live();
    const RunInfo &info = m_session->runInfo();
    const bool remote = live && m_session->isLoaded() && !live->setup().agentAddress.isEmpty();
    m_toolBar->setLiveCluster(remote ? info.backend : QString(), info.cluster,
                              live ? live->setup().agentAddress : QString());
    m_toolBar->setLiveView(live != nullptr, m_session->isViewingHistory());
    if (m_session->isViewingHistory())
        m_queue->showHistory(m_session->historyBatch(m_session->currentSlot()));
    else
        m_queue->showLive();
    m_refresher->markDirty();
}

void MainWindow::updateConnector()
{
    LiveOperations *live = m_session->live();
    if (!live) {
        m_status->setConnector({}, {});
        return;
    }
    QString gate = QString::fromLatin1(dl2::toString(live->gateSettings().mode));
    if (live->learning().state != LearningStatus::State::Off || live->isLearningWanted())
        gate += QStringLiteral(" · ") + live->learning().stateText();
    m_status->setConnector(live->connector(), gate);
}

void MainWindow::onError(const QString &message)
{
    Q_EMIT errorShown(message);
    if (m_interactiveErrors)
        QMessageBox::warning(this, tr("DL2 Console"), message);
    // A bad trace file must not leave the console empty: go back to the last run that loaded.
    if (m_session->isLoaded())
        return;
    if (m_haveLastGood && !(m_lastGood == m_session->setup())) {
        load(m_lastGood);
    } else if (!m_haveLastGood && !(m_session->setup() == SessionSetup{})) {
        // Nothing loaded yet (e.g. a remembered trace file was deleted): open the default run.
        SessionSetup fallback;
        fallback.policy = defaultPolicy();
        if (!(fallback == m_session->setup()))
            load(fallback);
    }
}

void MainWindow::openTraceFile()
{
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open trace"), m_settings->lastDirectory(),
                                     tr("Traces (*.csv *.pb *.textproto *.txtpb);;All files (*)"));
    if (path.isEmpty()) {
        m_toolBar->setSetup(m_session->setup()); // undo the "Open trace file…" pick
        return;
    }
    m_settings->setLastDirectory(QFileInfo(path).absolutePath());
    SessionSetup setup = m_session->setup();
    setup.traceFile = path;
    load(setup);
}

ImportTraceDialog *MainWindow::openImportDialog()
{
    auto *dialog = new ImportTraceDialog(m_session->profiles(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ImportTraceDialog::imported, this, [this](const QString &path) {
        m_settings->setLastDirectory(QFileInfo(path).absolutePath());
        SessionSetup setup = m_session->setup();
        setup.traceFile = path;
        setup.nodes = 0; // the trace's own cluster (the toolbar's size changes it)
        load(setup);
    });
    dialog->open();
    return dialog;
}

void MainWindow::onSelection(const QList<int> &jobIds)
{
    m_occupancy->setSelectedJob(jobIds.isEmpty() ? -1 : jobIds.front());
    m_jobSpeed->setSelectedJobs(jobIds);
}

void MainWindow::showComparison()
{
    m_tabs->setCurrentWidget(m_comparison);
}

void MainWindow::showTraining()
{
    m_tabs->setCurrentWidget(m_training);
}

QStringList MainWindow::dockNames()
{
    return {QStringLiteral("jobs"), QStringLiteral("queue"), QStringLiteral("decisions"),
            QStringLiteral("audit")};
}

bool MainWindow::raiseDock(const QString &name)
{
    static const QHash<QString, QString> objectNames{
        {QStringLiteral("jobs"), QStringLiteral("jobsDock")},
        {QStringLiteral("queue"), QStringLiteral("decisionQueueDock")},
        {QStringLiteral("decisions"), QStringLiteral("decisionsDock")},
        {QStringLiteral("audit"), QStringLiteral("auditLogDock")}};
    auto *dock = findChild<QDockWidget *>(objectNames.value(name, name));
    if (!dock)
        return false;
    dock->show();
    dock->raise();
    return true;
}

void MainWindow::onTabChanged(int index)
{
    // The comparison and training pages get the whole window: the docks are about the
    // replayed run.
    const bool page = m_tabs->widget(index) != m_occupancy;
    if (page) {
        if (m_liveState.isEmpty()) // not when going from one page to another
            m_liveState = QMainWindow::saveState();
        for (QDockWidget *d : std::as_const(m_docks))
            d->hide();
        m_timelineBar->hide();
    } else if (!m_liveState.isEmpty()) {
        QMainWindow::restoreState(m_liveState);
        m_liveState.clear();
    }
}

void MainWindow::applyDefaultDockSizes()
{
    auto dock = [this](const char *name) { return findChild<QDockWidget *>(QLatin1String(name)); };
    const int w = width(), h = height();
    resizeDocks({dock("jobsDock")}, {w * 46 / 100}, Qt::Horizontal);
    resizeDocks({dock("utilisationDock")}, {h * 30 / 100}, Qt::Vertical);
    if (dock("onlineLearningDock")->isVisible())
        resizeDocks({dock("utilisationDock"), dock("rewardDock"), dock("onlineLearningDock"),
                     dock("jobSpeedDock")},
                    {w * 20 / 100, w * 28 / 100, w * 32 / 100, w * 20 / 100}, Qt::Horizontal);
    else
        resizeDocks({dock("utilisationDock"), dock("rewardDock"), dock("jobSpeedDock")},
                    {w / 3, w / 3, w / 3}, Qt::Horizontal);
}

void MainWindow::resetLayout()
{
    m_tabs->setCurrentWidget(m_occupancy);
    QMainWindow::restoreState(m_defaultState);
    for (QDockWidget *d : std::as_const(m_docks))
        d->setVisible(d->objectName() != QLatin1String("onlineLearningDock") ||
                      (m_session->live() && m_session->live()->isLearningWanted()));
    m_docks.front()->raise();
    applyDefaultDockSizes();
}

void MainWindow::saveState()
{
    if (!m_restoreLayout)
        return;
    m_tabs->setCurrentWidget(m_occupancy); // save the live layout, not the comparison's
    m_settings->setWindowGeometry(saveGeometry());
    m_settings->setWindowState(QMainWindow::saveState());
    m_settings->sync();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveState();
    m_session->setPlaying(false);
    event->accept();
}

} // namespace dl2console
