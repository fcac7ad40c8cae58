// The console against a real dl2-agent on 127.0.0.1 (DL2_AGENT): the status bar shows the
// connector state ("rejected token" with a wrong token, "connected" with the right one, then
// "reconnecting in N s" once the agent is gone) and the agent's address, and the GUI thread
// never blocks on the agent. Every wait is bounded.

#include "consolesession.h"
#include "decisionqueuepanel.h"
#include "liveoperations.h"
#include "consolefixture.h"
#include "mainwindow.h"
#include "scheduler.h"
#include "sessionstatusbar.h"
#include "settings.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace dl2console;

class TestConsoleAgent : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void rejectedToken();
    void connectedThenAgentGone();

private:
    void startConsole(const QString &token);
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
    m_agent->start(agent, {QStringLiteral("--backend"), QStringLiteral("sim"),
                           QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                           QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                           QStringLiteral("--token-file"), token.fileName()});
    QVERIFY2(m_agent->waitForStarted(10'000), "dl2-agent did not start");
    static const QRegularExpression listening(
        QStringLiteral("listening on 127\\.0\\.0\\.1:(\\d+)"));
    QByteArray out;
    for (int i = 0; i < 100 && !listening.match(QString::fromUtf8(out)).hasMatch(); ++i) {
        m_agent->waitForReadyRead(100);
        out += m_agent->readAllStandardOutput();
    }
    const auto m = listening.match(QString::fromUtf8(out));
    QVERIFY2(m.hasMatch(), out.constData());
    m_address = QStringLiteral("127.0.0.1:%1").arg(m.captured(1));

    m_settings = std::make_unique<Settings>(m_dir.filePath(QStringLiteral("s.ini")));
    dl2console::test::openConsole(m_window, m_settings.get(), QSize(1400, 900));
    if (QTest::currentTestFailed())
        return;
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
