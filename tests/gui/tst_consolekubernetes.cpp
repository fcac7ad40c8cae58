// The console's live history on the Kubernetes backend, whose slots are numbered by wall-clock
// time (unix seconds / slot length, ~1.8 billion with 1-s slots): the agent's gRPC server over
// a KubernetesConnector, in process, against the tests' fake Kubernetes API server. The
// console attaching mid-run gets the slots the agent observed before (GetHistory), keeps every
// live slot after (counted 0, 1, 2… with the backend's number kept for display), and scrubs
// back through them read-only while live operation goes on.
#include "agentserver.h"
#include "consolesession.h"
#include "fakekube.h"
#include "kubernetesconnector.h"
#include "liveoperations.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <limits>
#include <memory>

using namespace dl2console;

class TestConsoleKubernetes : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void attachMidRunAndKeepEveryLiveSlot()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        dl2::test::FakeKube api;
        dl2::KubernetesConnectorOptions k;
        k.credentials.server = api.url();
        k.credentials.token = "good";
        k.credentials.origin = "test credentials";
        k.ns = "ml";
        k.slotSeconds = 1.0;
        k.pollMs = 0;
        k.timeoutMs = 5000;
        dl2::KubernetesConnector kube(k);
        // The agent observes three slots before any console attaches; the console reads the
        // ones that are over (slot < the next slot) from its history.
        kube.refresh();
        QVERIFY(kube.advanceSlot(kube.nextSlot()));
        QVERIFY(kube.advanceSlot(kube.nextSlot()));
        std::vector<dl2::SlotRecord> before = kube.history(0, std::numeric_limits<int>::max());
        QVERIFY(before.size() >= 3);
        before.pop_back(); // the slot still running
        QVERIFY(before.front().slot > 1'000'000'000); // wall-clock numbering

        dl2::AgentServerOptions options;
        options.token = "right-token";
        dl2::AgentServer server(kube, options);
        server.start();

        auto session = std::make_unique<ConsoleSession>();
        LiveSetup live;
        live.mode = dl2::GateMode::Automatic;
        live.policy = QStringLiteral("drf");
        live.agentAddress = QStringLiteral("127.0.0.1:%1").arg(server.port());
        live.token = QStringLiteral("right-token");
        live.callDeadlineMs = 5000;
        live.auditFile = dir.filePath(QStringLiteral("audit.sqlite"));
        session->startLive(live);
        QTRY_VERIFY_WITH_TIMEOUT(session->live() && session->live()->isStarted(), 15000);
        QTRY_VERIFY_WITH_TIMEOUT(session->timeline().size() >= before.size(), 15000);

        // Every observed slot, in order, by position; nothing in between (no placeholders).
        const auto &timeline = session->timeline();
        QVERIFY2(timeline.size() <= before.size() + 3, qPrintable(QString::number(timeline.size())));
        for (size_t i = 0; i < before.size(); ++i) {
            QCOMPARE(timeline[i].slot, int(i));
            QCOMPARE(session->liveSlotLabel(int(i)), before[i].slot);
            QVERIFY(session->liveRecord(int(i)));
            QVERIFY(session->liveRecord(int(i))->fromHistory);
        }
        QCOMPARE(int(timeline[0].arrivals.size()), 3); // the fake cluster's three jobs
        QVERIFY(timeline[0].utilisation[1] > 0.0);
        QCOMPARE(session->liveSlot(), int(timeline.size()) - 1);
        QCOMPARE(session->currentSlot(), session->liveSlot());
        QCOMPARE(session->snapshot().slot, session->liveSlotLabel(session->liveSlot()));

        // Live slots: each one kept after the others, whatever its number.
        for (int step = 0; step < 2; ++step) {
            const int head = session->liveSlot();
            const int label = session->liveSlotLabel(head);
            session->stepForward(); // runs the next slot (gate automatic)
            QTRY_VERIFY_WITH_TIMEOUT(session->liveSlot() > head, 20000);
            QVERIFY(session->liveSlotLabel(session->liveSlot()) > label);
            QCOMPARE(int(session->timeline().size()), session->liveSlot() + 1);
            QVERIFY(session->liveRecord(session->liveSlot()));
            QVERIFY(!session->liveRecord(session->liveSlot())->fromHistory);
        }
        for (int i = 1; i < int(session->timeline().size()); ++i)
            QVERIFY(session->liveSlotLabel(i) > session->liveSlotLabel(i - 1));

        // Scrubbing back: the first observed slot, read-only, with its wall-clock number.
        session->seek(0);
        QVERIFY(session->isViewingHistory());
        QCOMPARE(session->currentSlot(), 0);
        QCOMPARE(session->snapshot().slot, before.front().slot);
        QCOMPARE(int(session->snapshot().jobs.size()), 3);
        const dl2console::GateBatch batch = session->historyBatch(0);
        QVERIFY(batch.history);
        QCOMPARE(batch.slot, before.front().slot);
        session->backToLive();
        QVERIFY(!session->isViewingHistory());
        QCOMPARE(session->currentSlot(), session->liveSlot());

        session.reset(); // before the server goes
        kube.stop();
        server.shutdown();
        const QStringList problems = api.schemaProblems();
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestConsoleKubernetes)
#include "tst_consolekubernetes.moc"
