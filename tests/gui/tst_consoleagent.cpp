// The console against a real dl2-agent on 127.0.0.1 (DL2_AGENT): the status bar shows the
// connector state ("rejected token" with a wrong token, "connected" with the right one, then
// "reconnecting in N s" once the agent is gone) and the agent's address, and the GUI thread
// never blocks on the agent. Attached to an agent another operator already ran for slots, the
// console reads the slots it missed (plots, timeline marks, the decisions applied), names the
// agent's cluster in the toolbar, and scrubs back through its live history read-only while
// the live gate goes on. Every wait is bounded.

#include "auditlog.h"
#include "consolefixture.h"
#include "consolesession.h"
#include "decisionqueuemodel.h"
#include "decisionqueuepanel.h"
#include "grpcconnector.h"
#include "liveoperations.h"
#include "mainwindow.h"
#include "operatingloop.h"
#include "rewardplot.h"
#include "scheduler.h"
#include "sessionstatusbar.h"
#include "sessiontoolbar.h"
#include "settings.h"
#include "timelinescrubber.h"
#include "utilisationplot.h"
#include "viewrefresher.h"

#include <QAction>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <set>

using namespace dl2console;

class TestConsoleAgent : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void attachMidRunAndScrubBackWhileLive();
    void rejectedToken();
    void connectedThenAgentGone();

private:
    void startConsole(const QString &token);
    // Starts a dl2-agent (sim, dl2-small) on a free port of 127.0.0.1; returns its address.
    QString startAgent(QProcess &process);
    QString statusText() const { return m_window->sessionStatusBar()->connectorText(); }

    QTemporaryDir m_dir;
    std::unique_ptr<QProcess> m_agent;
    QString m_address;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestConsoleAgent::initTestCase()
{
    const QString agent = qEnvironmentVariable("DL2_AGENT");
    if (agent.isEmpty())
        QSKIP("DL2_AGENT not set (run through ctest)");
    dl2::registerBaselines();
    QFile token(m_dir.filePath(QStringLiteral("token")));
    QVERIFY(token.open(QIODevice::WriteOnly));
    token.write("right-token\n");
    token.close();
    m_agent = std::make_unique<QProcess>();
    m_address = startAgent(*m_agent);
    if (m_address.isEmpty())
        return;

    m_settings = std::make_unique<Settings>(m_dir.filePath(QStringLiteral("s.ini")));
    dl2console::test::openConsole(m_window, m_settings.get(), QSize(1400, 900));
    if (QTest::currentTestFailed())
        return;
}

QString TestConsoleAgent::startAgent(QProcess &process)
{
    process.start(qEnvironmentVariable("DL2_AGENT"),
                  {QStringLiteral("--backend"), QStringLiteral("sim"), QStringLiteral("--scenario"),
                   QStringLiteral("dl2-small"), QStringLiteral("--listen"),
                   QStringLiteral("127.0.0.1:0"), QStringLiteral("--token-file"),
                   m_dir.filePath(QStringLiteral("token"))});
    if (!process.waitForStarted(10'000)) {
        QTest::qFail("dl2-agent did not start", __FILE__, __LINE__);
        return {};
    }
    static const QRegularExpression listening(
        QStringLiteral("listening on 127\\.0\\.0\\.1:(\\d+)"));
    QByteArray out;
    for (int i = 0; i < 100 && !listening.match(QString::fromUtf8(out)).hasMatch(); ++i) {
        process.waitForReadyRead(100);
        out += process.readAllStandardOutput();
    }
    const auto m = listening.match(QString::fromUtf8(out));
    if (!m.hasMatch()) {
        QTest::qFail(out.constData(), __FILE__, __LINE__);
        return {};
    }
    return QStringLiteral("127.0.0.1:%1").arg(m.captured(1));
}

void TestConsoleAgent::cleanupTestCase()
{
    m_window.reset();
    if (m_agent && m_agent->state() != QProcess::NotRunning) {
        m_agent->terminate();
        if (!m_agent->waitForFinished(5'000)) {
            m_agent->kill();
            m_agent->waitForFinished(5'000);
        }
    }
}

void TestConsoleAgent::startConsole(const QString &token)
{
    LiveSetup live;
    live.mode = dl2::GateMode::Review;
    live.agentAddress = m_address;
    live.token = token;
    live.callDeadlineMs = 2000;
    live.auditFile = m_dir.filePath(QStringLiteral("audit-%1.sqlite").arg(token));
    m_window->setLiveDefaults(live);
    m_window->startLive();
}

// Another operator (an in-process dl2 operate loop) runs 6 slots; then the console attaches.
void TestConsoleAgent::attachMidRunAndScrubBackWhileLive()
{
    QProcess agentProcess;
    const QString address = startAgent(agentProcess);
    QVERIFY(!address.isEmpty());
    auto stopAgent = qScopeGuard([&] {
        agentProcess.kill();
        agentProcess.waitForFinished(5'000);
    });
    std::set<std::string> appliedBefore[6]; // per slot, by the other operator
    {
        dl2::GrpcConnectorOptions o;
        o.address = address.toStdString();
        o.token = "right-token";
        dl2::GrpcConnector agent(o);
        dl2::AuditLog audit(m_dir.filePath(QStringLiteral("other-operator.sqlite")).toStdString());
        dl2::PolicyPlanner planner("drf");
        dl2::DecisionGate gate({});
        dl2::OperatingLoop loop(agent, planner, gate, audit);
        const dl2::OperateSummary s = loop.run(6);
        QCOMPARE(s.endSlot, 6);
        QVERIFY(s.applied > 0);
        for (const auto &r : audit.decisions())
            if (r.state == "acknowledged")
                appliedBefore[r.decision.slot].insert(r.decision.id);
    }

    LiveSetup live;
    live.mode = dl2::GateMode::Review;
    live.agentAddress = address;
    live.token = QStringLiteral("right-token");
    live.callDeadlineMs = 3000;
    live.auditFile = m_dir.filePath(QStringLiteral("audit-attach.sqlite"));
    m_window->setLiveDefaults(live);
    ConsoleSession *session = m_window->session();
    QSignalSpy restarts(session, &ConsoleSession::liveChanged);
    m_window->startLive();
    QTRY_VERIFY_WITH_TIMEOUT(session->live() && session->live()->isStarted(), 15000);
    // The six slots it missed, then the state it attached to (slot 5).
    QTRY_COMPARE_WITH_TIMEOUT(int(session->timeline().size()), 6, 15000);
    QCOMPARE(session->liveSlot(), 5);
    QCOMPARE(session->currentSlot(), 5);
    QVERIFY(!session->isViewingHistory());
    double cumulative = 0.0;
    int arrivals = 0;
    for (int s = 0; s < 6; ++s) {
        const SlotSummary &summary = session->timeline()[size_t(s)];
        QCOMPARE(summary.slot, s);
        cumulative += summary.reward;
        QVERIFY(qAbs(summary.cumulativeReward - cumulative) < 1e-9);
        arrivals += int(summary.arrivals.size());
        // The decisions the other operator had applied, slot by slot.
        std::set<std::string> shown;
        const GateBatch b = session->historyBatch(s);
        QVERIFY(b.history);
        for (size_t k = 0; k < b.entries.size(); ++k) {
            shown.insert(b.entries[k].decision.id);
            QCOMPARE(b.acks[k], QStringLiteral("applied"));
        }
        QCOMPARE(shown, appliedBefore[s]);
    }
    QVERIFY(cumulative > 0.0);
    QVERIFY(session->timeline()[0].utilisation[1] > 0.0);
    QVERIFY(arrivals > 0);
    QVERIFY(!session->timeline()[0].arrivals.empty());

    // The views: plots filled for every slot, timeline marks, the agent's cluster in the
    // toolbar instead of the replay's trace and seed.
    m_window->refresher()->flush();
    QCOMPARE(int(m_window->rewardPlot()->rewardPoints().size()), 6);
    double plotted = 0.0;
    for (const QPointF &p : m_window->rewardPlot()->rewardPoints())
        plotted += p.y();
    QVERIFY(qAbs(plotted - cumulative) < 1e-9);
    auto *util = m_window->findChild<UtilisationPlot *>();
    QVERIFY(util);
    QCOMPARE(util->pointCount(0), 6);
    QCOMPARE(util->pointCount(1), 6);
    QCOMPARE(m_window->scrubber()->slotCount(), 6);
    QCOMPARE(m_window->scrubber()->arrivalsAt(0), int(session->timeline()[0].arrivals.size()));
    QCOMPARE(m_window->scrubber()->liveSlot(), 5);
    SessionToolBar *tb = m_window->toolBar();
    QVERIFY(tb->isLiveCluster());
    QVERIFY2(
        tb->liveClusterText().contains(QStringLiteral("simulated cluster (dl2-small, seed 1)")) &&
            tb->liveClusterText().contains(QStringLiteral("sim agent ") + address),
        qPrintable(tb->liveClusterText()));
    // The replay-only controls' toolbar actions are hidden (whether the toolbar lays the widget
    // out or puts it in its overflow menu depends on the window's width and the fonts).
    auto shownInToolBar = [tb](QWidget *w) {
        for (QAction *a : tb->actions())
            if (tb->widgetForAction(a) == w)
                return a->isVisible();
        return false;
    };
    QVERIFY(!shownInToolBar(tb->scenarioBox()));
    QVERIFY(!shownInToolBar(tb->seedBox()));
    QVERIFY(!shownInToolBar(tb->nodesBox()));
    // An agent's cluster has no speed model of ours: the status bar names none.
    QVERIFY2(!m_window->sessionStatusBar()->runText().contains(QStringLiteral("speeds")),
             qPrintable(m_window->sessionStatusBar()->runText()));
    QVERIFY(!tb->openTraceAction()->isEnabled());
    QVERIFY(!tb->backToLiveAction()->isEnabled()); // already live

    // The live gate opens slot 6 for review; meanwhile the operator scrubs back to slot 2.
    LiveOperations *ops = session->live();
    ops->runSlot();
    QTRY_VERIFY_WITH_TIMEOUT(ops->batch().open, 15000);
    // Whatever hiding the replay controls set off was queued before the worker's answer: it
    // restarted nothing, and this live run is the one that answered.
    QCOMPARE(restarts.count(), 1);
    QCOMPARE(session->live(), ops);
    QCOMPARE(ops->batch().slot, 6);
    Q_EMIT m_window->scrubber()->seekRequested(2);
    QVERIFY(session->isViewingHistory());
    QCOMPARE(session->currentSlot(), 2);
    QCOMPARE(session->snapshot().slot, 2);
    QVERIFY(tb->backToLiveAction()->isEnabled());
    DecisionQueuePanel *queue = m_window->decisionQueue();
    QVERIFY(queue->isShowingHistory());
    QCOMPARE(queue->model()->rowCount(), int(appliedBefore[2].size()));
    QVERIFY2(queue->headlineText().contains(QStringLiteral("Slot 2 · history")) &&
                 queue->headlineText().contains(QStringLiteral("slot 6 waits for review")),
             qPrintable(queue->headlineText()));
    QVERIFY(!queue->approveAction()->isEnabled()); // read-only
    QVERIFY(!queue->commitAction()->isEnabled());

    // Live operation goes on: the batch of slot 6 is approved and committed; the timeline grows
    // while the view stays on slot 2.
    ops->approveAll();
    QTRY_COMPARE_WITH_TIMEOUT(ops->batch().pending(), 0, 5000);
    ops->commit();
    QTRY_COMPARE_WITH_TIMEOUT(int(session->timeline().size()), 7, 15000);
    QCOMPARE(session->liveSlot(), 6);
    QCOMPARE(session->currentSlot(), 2);
    QVERIFY(session->isViewingHistory());
    m_window->refresher()->flush();
    QCOMPARE(m_window->scrubber()->slotCount(), 7);
    QCOMPARE(m_window->scrubber()->currentSlot(), 2);

    // Step back and forth through the history, then back to live.
    m_window->toolBar()->stepBackAction()->trigger();
    QCOMPARE(session->currentSlot(), 1);
    m_window->toolBar()->stepForwardAction()->trigger();
    QCOMPARE(session->currentSlot(), 2);
    tb->backToLiveAction()->trigger();
    QVERIFY(!session->isViewingHistory());
    QCOMPARE(session->currentSlot(), 6);
    QVERIFY(!queue->isShowingHistory());
    QVERIFY(!tb->backToLiveAction()->isEnabled());

    // Slot 6 went through this console's gate: kept with the operator's verdicts and acks.
    ops->runSlot();
    QTRY_VERIFY_WITH_TIMEOUT(ops->batch().open || session->liveSlot() == 7, 15000);
    if (ops->batch().open) {
        ops->approveAll();
        QTRY_COMPARE_WITH_TIMEOUT(ops->batch().pending(), 0, 5000);
        ops->commit();
    }
    QTRY_COMPARE_WITH_TIMEOUT(session->liveSlot(), 7, 15000);
    session->seek(6);
    QVERIFY(session->isViewingHistory());
    const GateBatch six = session->historyBatch(6);
    QVERIFY(!six.entries.empty());
    for (size_t k = 0; k < six.entries.size(); ++k) {
        QCOMPARE(six.entries[k].reason, std::string("operator"));
        QCOMPARE(six.acks[k], QStringLiteral("applied"));
    }
    QCOMPARE(queue->model()->rowCount(), int(six.entries.size()));
    session->backToLive();
}

void TestConsoleAgent::rejectedToken()
{
    startConsole(QStringLiteral("wrong-token"));
    QTRY_VERIFY_WITH_TIMEOUT(statusText().contains(QStringLiteral("rejected token")), 15000);
    QVERIFY2(statusText().contains(m_address), qPrintable(statusText()));
    QVERIFY(!m_window->session()->live()->isStarted());
}

void TestConsoleAgent::connectedThenAgentGone()
{
    startConsole(QStringLiteral("right-token"));
    QTRY_VERIFY_WITH_TIMEOUT(statusText().contains(QStringLiteral("connected")), 15000);
    QVERIFY2(statusText().contains(m_address), qPrintable(statusText()));
    LiveOperations *live = m_window->session()->live();
    QTRY_VERIFY_WITH_TIMEOUT(live->isStarted(), 15000);
    // One gated slot through the agent: the batch opens for review.
    live->runSlot();
    QTRY_VERIFY_WITH_TIMEOUT(live->batch().open || m_window->session()->currentSlot() >= 0,
                             15000);

    // The agent goes away: the console keeps painting and shows the reconnect countdown.
    m_agent->kill();
    QVERIFY(m_agent->waitForFinished(5'000));
    if (live->batch().open) {
        live->approveAll();
        QTRY_COMPARE_WITH_TIMEOUT(live->batch().pending(), 0, 5000);
        live->commit(); // the send fails: committed in the audit log, re-sent on reconnect
    } else {
        live->runSlot();
    }
    QElapsedTimer clock;
    clock.start();
    int longestGapMs = 0;
    qint64 last = clock.elapsed();
    while (!statusText().contains(QStringLiteral("reconnecting in")) && clock.elapsed() < 15000) {
        QTest::qWait(10);
        longestGapMs = std::max<int>(longestGapMs, int(clock.elapsed() - last));
        last = clock.elapsed();
    }
    QVERIFY2(statusText().contains(QStringLiteral("reconnecting in")), qPrintable(statusText()));
    QVERIFY2(longestGapMs < 500, qPrintable(QString::number(longestGapMs))); // never froze
}

QTEST_MAIN(TestConsoleAgent)
#include "tst_consoleagent.moc"
