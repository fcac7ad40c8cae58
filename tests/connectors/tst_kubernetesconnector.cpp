// KubernetesConnector against a local fake API server (QTcpServer on 127.0.0.1, HTTP/1.1, in
// its own thread because the connector blocks its callers): snapshot from fake nodes, pods
// and jobs; events from successive reads; apply with 409-then-success, 404, 401, a webhook
// refusal, a repeated decision id, TFJob, --dry-run; kubeconfig and in-cluster credentials.
// Every write is validated against the published CRD schemas (kubeschema.h).
#include "error.h"
#include "fakekube.h"
#include "kubernetesconnector.h"
#include "kubeschema.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutex>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <limits>
#include <set>

using namespace dl2;

using namespace dl2::test;


class TestKubernetesConnector : public QObject
{
    Q_OBJECT
private:
    FakeKube m_api;
    std::unique_ptr<KubernetesConnector>
    connector(bool dryRun = false, const std::string &token = "good",
              std::function<void(const std::string &)> printer = {})
    {
        KubernetesConnectorOptions o;
        o.credentials.server = m_api.url();
        o.credentials.token = token;
        o.credentials.origin = "test credentials";
        o.ns = "ml";
        o.dryRun = dryRun;
        o.pollMs = 0;
        o.timeoutMs = 5000;
        o.printer = std::move(printer);
        return std::make_unique<KubernetesConnector>(o);
    }
    static std::string write(const QTemporaryDir &dir, const char *name, const std::string &text)
    {
        const std::string path = dir.filePath(QString::fromLatin1(name)).toStdString();
        QFile f(QString::fromStdString(path));
        f.open(QIODevice::WriteOnly);
        f.write(text.data(), static_cast<qint64>(text.size()));
        return path;
    }

private Q_SLOTS:
    void init() { m_api.reset(); }
    // Every write the connector made was valid for the published schemas (strict).
    void cleanup()
    {
        const QStringList problems = m_api.schemaProblems();
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

    void snapshotFromNodesPodsAndJobs()
    {
        auto k = connector();
        const ClusterView v = k->snapshot();
        QCOMPARE(v.nodes, 3);
        QCOMPARE(v.nodeCapacity, (Demand{16, 8})); // 16 cores x 1, 2 GPUs x 4; node-c cordoned
        QVERIFY(!v.done);
        QCOMPARE(v.totalJobs, 3);
        Allocation target;
        const JobState *resnet = findJob(v, 1, &target);
        QVERIFY(resnet);
        QCOMPARE(resnet->status, JobStatus::Running); // workers only: a PyTorchJob has no PS
        QCOMPARE(resnet->workers, 2);
        QCOMPARE(resnet->ps, 0);
        QCOMPARE(resnet->tasks.size(), size_t(2));
        QCOMPARE(resnet->usage, (Demand{4, 8}));
        QCOMPARE(resnet->totalEpochs, 40.0);
        QCOMPARE(resnet->doneEpochs, 10.0);
        QCOMPARE(resnet->arrivalSlot, 1704067200 / 1200);
        QCOMPARE(target.workers, 2);
        const JobState *vgg = findJob(v, 2, &target);
        QVERIFY(vgg);
        QCOMPARE(vgg->ps, 1);
        QCOMPARE(vgg->workers, 1); // the second worker is Pending
        QCOMPARE(vgg->status, JobStatus::Running);
        QCOMPARE(target.ps, 1);
        QCOMPARE(target.workers, 2);
        // Placement: nodes sorted by name (node-a = 0).
        QCOMPARE(vgg->tasks.front().node, 0);
        QCOMPARE(vgg->tasks.front().role, TaskRole::Ps);
        const JobState *lm = findJob(v, 4);
        QVERIFY(lm);
        QCOMPARE(lm->ps, 1);
        QCOMPARE(lm->workers, 1);
        const KubernetesClusterState s = k->clusterState();
        QCOMPARE(s.nodes[0].name, std::string("node-a"));
        QCOMPARE(s.nodes[0].usage, (Demand{7, 8})); // 2 + 1.5 + 1.5 + 2 cores, 2 GPUs
        QCOMPARE(s.nodes[2].capacity, (Demand{7, 0}));
        QVERIFY(!s.nodes[2].schedulable);
        QCOMPARE(s.unmanaged.size(), size_t(1));
        QVERIFY2(s.unmanaged[0].find("adhoc-3: no dl2.io/model") != std::string::npos,
                 s.unmanaged[0].c_str());
    }

    void missingCrdIsSkipped()
    {
        m_api.locked([&] { return m_api.tfInstalled = false; });
        auto k = connector();
        const ClusterView v = k->snapshot();
        QCOMPARE(v.totalJobs, 2);
        QVERIFY(!findJob(v, 4));
    }

    void eventsFromSuccessiveReads()
    {
        auto k = connector();
        auto events = k->events(0);
        QCOMPARE(events.size(), size_t(3));
        for (const auto &e : events)
            QCOMPARE(e.kind, ClusterEvent::Kind::Arrival);
        const std::int64_t last = events.back().seq;
        m_api.locked([&] {
            QJsonObject &vgg = m_api.volcano[QByteArrayLiteral("vgg-2")].object;
            vgg.insert(QStringLiteral("status"), json(R"({"state": {"phase": "Completed",
                "lastTransitionTime": "2024-01-02T00:00:00Z"}})"));
            QJsonObject &resnet = m_api.pytorch[QByteArrayLiteral("resnet-1")].object;
            QJsonObject md = resnet[QStringLiteral("metadata")].toObject();
            QJsonObject ann = md[QStringLiteral("annotations")].toObject();
            ann.insert(QStringLiteral("dl2.io/done-epochs"), QStringLiteral("12.5"));
            md.insert(QStringLiteral("annotations"), ann);
            resnet.insert(QStringLiteral("metadata"), md);
            return 0;
        });
        k->refresh();
        events = k->events(last);
        QCOMPARE(events.size(), size_t(2));
        QCOMPARE(events[0].kind, ClusterEvent::Kind::Progress);
        QCOMPARE(events[0].job, 1);
        QCOMPARE(events[0].doneEpochs, 12.5);
        QCOMPARE(events[1].kind, ClusterEvent::Kind::Completion);
        QCOMPARE(events[1].job, 2);
        QCOMPARE(events[1].slot, 1704153600 / 1200);
        QCOMPARE(k->snapshot().finished, 1);
        // The reward as observed: resnet-1 10 -> 12.5 of 40 epochs, vgg-2 (no epoch
        // annotations: 1 epoch) finished with nothing reported before.
        const std::vector<SlotRecord> h = k->history(0, std::numeric_limits<int>::max());
        QVERIFY(!h.empty());
        QCOMPARE(h.back().reward, 2.5 / 40 + 1.0);
        QCOMPARE(h.back().cumulativeReward, 2.5 / 40 + 1.0);
        k->refresh();
        QVERIFY(k->events(events.back().seq).empty()); // nothing new
        QCOMPARE(k->history(0, std::numeric_limits<int>::max()).back().cumulativeReward,
                 2.5 / 40 + 1.0); // no progress, no reward
    }

    void applyRetriesConflictAndIsIdempotent()
    {
        auto k = connector();
        k->snapshot();
        m_api.locked([&] { return m_api.conflictsToInject = 1; });
        const auto d = decision("run/9/1", 9, 1, {0, 2, {}}, {0, 4, {}});
        auto acks = k->apply({d});
        QCOMPARE(acks.size(), size_t(1));
        QVERIFY2(acks[0].status == Acknowledgment::Status::Applied, acks[0].message.c_str());
        int puts = 0;
        m_api.locked([&] {
            for (const auto &r : m_api.requests)
                puts += r.method == "PUT";
            return 0;
        });
        QCOMPARE(puts, 2); // 409, then success
        QCOMPARE(annotationSlot(m_api.locked(
                     [&] { return m_api.pytorch[QByteArrayLiteral("resnet-1")].object; })),
                 9);
        QCOMPARE(k->snapshot().targets.size(), size_t(3));
        Allocation target;
        findJob(k->snapshot(), 1, &target);
        QCOMPARE(target.workers, 4);
        // The same id again: no request at all.
        const int writes = m_api.mutating();
        acks = k->apply({d});
        QCOMPARE(acks[0].status, Acknowledgment::Status::Duplicate);
        QCOMPARE(m_api.mutating(), writes);
        auto record = k->appliedRecord();
        QCOMPARE(record.size(), size_t(1));
        QCOMPARE(record[0].applyCount, 1);
        QCOMPARE(record[0].duplicateReceipts, 1);
        bool appliedEvent = false;
        for (const auto &e : k->events(0))
            appliedEvent |= e.kind == ClusterEvent::Kind::Applied && e.decisionId == "run/9/1";
        QVERIFY(appliedEvent);
        // A restarted agent: the annotation on the job answers.
        k = connector();
        acks = k->apply({d});
        QCOMPARE(acks[0].status, Acknowledgment::Status::Duplicate);
        QCOMPARE(m_api.mutating(), writes);
        record = k->appliedRecord();
        QCOMPARE(record[0].applyCount, 0);
    }

    void goneInvalidAndTfJob()
    {
        auto k = connector();
        k->snapshot();
        m_api.locked([&] { return m_api.pytorch.remove(QByteArrayLiteral("resnet-1")); });
        const auto acks = k->apply({decision("run/9/1", 9, 1, {0, 2, {}}, {0, 3, {}}),
                                    decision("run/9/2", 9, 2, {1, 1, {}}, {1, 200, {}}),
                                    decision("run/9/4", 9, 4, {1, 1, {}}, {2, 3, {}}),
                                    decision("run/9/77", 9, 77, {1, 1, {}}, {2, 3, {}})});
        QCOMPARE(acks[0].status, Acknowledgment::Status::Invalid);
        QVERIFY2(acks[0].message.rfind("job gone", 0) == 0, acks[0].message.c_str());
        QCOMPARE(acks[1].status,
                 Acknowledgment::Status::Invalid); // refused, with the API's message
        QVERIFY2(acks[1].message.find("spec.tasks[1].replicas: Invalid value: 200") !=
                     std::string::npos,
                 acks[1].message.c_str());
        QVERIFY2(acks[2].status == Acknowledgment::Status::Applied, acks[2].message.c_str());
        QVERIFY2(acks[2].message.find("no live resize") != std::string::npos,
                 acks[2].message.c_str());
        const QJsonObject lm =
            m_api.locked([&] { return m_api.tf[QByteArrayLiteral("lm-4")].object; });
        const QJsonObject specs =
            lm[QStringLiteral("spec")].toObject()[QStringLiteral("tfReplicaSpecs")].toObject();
        QCOMPARE(specs[QStringLiteral("PS")].toObject()[QStringLiteral("replicas")].toInt(), 2);
        QCOMPARE(specs[QStringLiteral("Worker")].toObject()[QStringLiteral("replicas")].toInt(), 3);
        QCOMPARE(acks[3].status, Acknowledgment::Status::Invalid);
        QVERIFY2(acks[3].message.rfind("job gone", 0) == 0, acks[3].message.c_str());
        QCOMPARE(k->appliedRecord().size(), size_t(1));
    }

    void wrongTokenIsAClearError()
    {
        auto k = connector(false, "bad");
        try {
            k->snapshot();
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(QByteArray(e.what()).contains("401 Unauthorized"), e.what());
            QVERIFY2(QByteArray(e.what()).contains("test credentials"), e.what());
        }
        try {
            k->apply({decision("run/9/1", 9, 1, {0, 2, {}}, {0, 3, {}})});
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(QByteArray(e.what()).contains("401"), e.what());
        }
        QVERIFY(k->appliedRecord().empty());
    }

    void dryRunPrintsAndSendsNoWrite()
    {
        std::string printed;
        std::mutex lock;
        auto k = connector(true, "good", [&](const std::string &t) {
            std::lock_guard g(lock);
            printed += t;
        });
        const auto acks = k->apply({decision("run/9/1", 9, 1, {0, 2, {}}, {0, 4, {}}),
                                    decision("run/9/4", 9, 4, {1, 1, {}}, {2, 3, {}})});
        QVERIFY2(acks[0].status == Acknowledgment::Status::Applied, acks[0].message.c_str());
        QVERIFY(acks[0].message.find("dry run") != std::string::npos);
        QCOMPARE(m_api.mutating(), 0);
        QVERIFY(m_api.locked([&] { return m_api.requests.size(); }) > 0); // reads happened
        std::lock_guard g(lock);
        QVERIFY2(printed.find("PUT " + m_api.url() +
                              "/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/resnet-1/"
                              "scale?fieldValidation=Strict\n") != std::string::npos,
                 printed.c_str());
        QVERIFY(printed.find(R"("spec":{"replicas":4})") != std::string::npos);
        QVERIFY(printed.find(
                    "PATCH " + m_api.url() +
                    "/apis/kubeflow.org/v1/namespaces/ml/tfjobs/lm-4?fieldValidation=Strict\n") !=
                std::string::npos);
        QVERIFY(printed.find("Authorization: Bearer <redacted>") != std::string::npos);
        QVERIFY(printed.find("good") == std::string::npos);
    }

    void advanceSlotFollowsTheClock()
    {
        KubernetesConnectorOptions o;
        o.credentials.server = m_api.url();
        o.credentials.token = "good";
        o.slotSeconds = 1.0;
        o.pollMs = 0;
        KubernetesConnector k(o);
        const int slot = k.nextSlot();
        QVERIFY(!k.advanceSlot(slot - 1)); // already over
        QVERIFY(k.advanceSlot(slot));
        QVERIFY(k.nextSlot() > slot);
    }

    // The slots the connector observed, kept for GetHistory: wall-clock slot numbers, the jobs
    // and utilisation as read, the arrivals and completions seen, the decisions applied, and
    // never more than historySlots of them.
    void historyKeepsObservedSlotsBounded()
    {
        KubernetesConnectorOptions o;
        o.credentials.server = m_api.url();
        o.credentials.token = "good";
        o.ns = "ml";
        o.slotSeconds = 1.0;
        o.pollMs = 0;
        o.historySlots = 100;
        constexpr int kAll = std::numeric_limits<int>::max();
        KubernetesConnector k(o);
        QVERIFY(k.history(0, kAll).empty()); // nothing read yet
        const int first = k.nextSlot();
        k.refresh();
        std::vector<SlotRecord> h = k.history(0, kAll);
        QVERIFY(!h.empty());
        const SlotRecord r0 = h.front();
        QVERIFY(r0.slot >= first && r0.slot <= first + 1); // the wall clock, not 0
        QCOMPARE(r0.jobs.size(), size_t(3));
        QCOMPARE(std::set<int>(r0.arrivals.begin(), r0.arrivals.end()), (std::set<int>{1, 2, 4}));
        QVERIFY(r0.utilisation[1] > 0.0); // GPUs of the training pods over schedulable nodes
        QVERIFY(r0.utilisation[1] <= 1.0);

        // Later slots: a completion and an applied decision, in the slots they were seen in.
        QVERIFY(k.advanceSlot(k.nextSlot())); // waits for the slot to end, then reads
        m_api.locked([&] {
            m_api.volcano[QByteArrayLiteral("vgg-2")].object.insert(
                QStringLiteral("status"), json(R"({"state": {"phase": "Completed",
                    "lastTransitionTime": "2024-01-02T00:00:00Z"}})"));
            return 0;
        });
        k.refresh();
        const auto acks = k.apply({decision("run/h/1", k.nextSlot(), 1, {0, 2, {}}, {0, 3, {}})});
        QCOMPARE(acks[0].status, Acknowledgment::Status::Applied);
        h = k.history(0, kAll);
        QVERIFY(h.size() >= 2);
        QCOMPARE(h.front().slot, r0.slot);
        std::vector<int> completions, arrivals;
        std::vector<std::string> applied;
        for (size_t i = 1; i < h.size(); ++i) {
            QVERIFY(h[i].slot > h[i - 1].slot); // oldest first
            completions.insert(completions.end(), h[i].completions.begin(), h[i].completions.end());
            arrivals.insert(arrivals.end(), h[i].arrivals.begin(), h[i].arrivals.end());
            for (const auto &d : h[i].applied)
                applied.push_back(d.id);
        }
        QVERIFY(arrivals.empty()); // no new job
        QCOMPARE(completions, std::vector<int>{2});
        QCOMPARE(applied, std::vector<std::string>{"run/h/1"});
        QCOMPARE(h.back().jobs.size(), size_t(3)); // vgg finished, still read
        QCOMPARE(h.back().cumulativeReward, 1.0); // vgg's completion (1 epoch, none reported)
        // A snapshot in a later slot carries it (the slot that saw it is over by then).
        QVERIFY(k.advanceSlot(k.nextSlot()));
        QCOMPARE(k.snapshot().cumulativeReward, 1.0);
        // The range and the count asked for.
        QCOMPARE(k.history(h.back().slot, h.back().slot).size(), size_t(1));
        QCOMPARE(k.history(0, kAll, 1).front().slot, r0.slot);
        QVERIFY(k.history(0, r0.slot - 1).empty());

        // Bounded: four observed slots, two kept (the newest).
        o.historySlots = 2;
        KubernetesConnector small(o);
        small.refresh();
        const int smallFirst = small.history(0, kAll).front().slot;
        for (int i = 0; i < 3; ++i)
            QVERIFY(small.advanceSlot(small.nextSlot()));
        h = small.history(0, kAll);
        QCOMPARE(h.size(), size_t(2));
        QVERIFY(h.front().slot >= smallFirst + 2);
        QVERIFY(h.back().slot > h.front().slot);

        o.historySlots = 0; // none kept
        KubernetesConnector none(o);
        none.refresh();
        QVERIFY(none.history(0, kAll).empty());
    }

    void pollFeedsWaitingWatchers()
    {
        KubernetesConnectorOptions o;
        o.credentials.server = m_api.url();
        o.credentials.token = "good";
        o.pollMs = 50;
        KubernetesConnector k(o);
        const auto events = k.waitForEvents(0, std::chrono::milliseconds(3000));
        QCOMPARE(events.size(), size_t(3)); // arrivals, without anyone asking for a snapshot
    }

    void kubeconfigTokenUser()
    {
        QTemporaryDir dir;
        write(dir, "ca.pem", "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n");
        const std::string path = write(dir, "config", R"(# a kubeconfig as kubectl writes it
apiVersion: v1
kind: Config
preferences: {}
clusters:
- cluster:
    certificate-authority: ca.pem   # relative to this file
    server: "https://10.0.0.1:6443"
  name: prod
- name: other
  cluster:
    server: https://other:6443
    insecure-skip-tls-verify: true
contexts:
- context:
    cluster: prod
    namespace: ml
    user: alice
  name: prod-alice
current-context: 'prod-alice'
users:
- name: alice
  user:
    token: s3cr3t
- name: bob
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args:
      - eks
      - get-token
)");
        const KubernetesCredentials c = loadKubeconfig(path);
        QCOMPARE(c.server, std::string("https://10.0.0.1:6443"));
        QCOMPARE(c.token, std::string("s3cr3t"));
        QCOMPARE(c.ns, std::string("ml"));
        QVERIFY(c.caPem.find("CA") != std::string::npos);
        QVERIFY(!c.insecureSkipTlsVerify);
        QVERIFY(c.origin.find("context prod-alice, user alice") != std::string::npos);
    }

    void kubeconfigClientCertUser()
    {
        QTemporaryDir dir;
        const QByteArray cert = "-----BEGIN CERTIFICATE-----\nCERT\n-----END CERTIFICATE-----\n";
        const std::string path = write(dir, "config",
                                       R"(apiVersion: v1
clusters:
  - name: kind
    cluster:
      server: https://127.0.0.1:40000
      insecure-skip-tls-verify: true
contexts:
  - name: kind
    context: {cluster: kind, user: admin}
  - name: kind2
    context:
      cluster: kind
      user: admin
current-context: kind2
users:
  - name: admin
    user:
      client-certificate-data: )" + cert.toBase64().toStdString() +
                                           R"(
      client-key: key.pem
)");
        write(dir, "key.pem", "-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n");
        const KubernetesCredentials c = loadKubeconfig(path);
        QCOMPARE(c.server, std::string("https://127.0.0.1:40000"));
        QVERIFY(c.insecureSkipTlsVerify);
        QCOMPARE(QByteArray::fromStdString(c.clientCertPem), cert);
        QVERIFY(c.clientKeyPem.find("KEY") != std::string::npos);
        QVERIFY(c.token.empty());
        QVERIFY(c.ns.empty());
    }

    void kubeconfigErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        const QString head =
            QStringLiteral("clusters:\n- name: c\n  cluster:\n    server: https://x:6443\n"
                           "contexts:\n- name: k\n  context:\n    cluster: c\n    user: u\n");
        QTest::newRow("no current-context") << head << QStringLiteral("current-context is missing");
        QTest::newRow("unknown context") << head + QStringLiteral("current-context: nope\n")
                                         << QStringLiteral("contexts: no entry named 'nope'");
        QTest::newRow("cert without key")
            << head + QStringLiteral("current-context: k\nusers:\n- name: u\n  user:\n"
                                     "    client-certificate-data: QUJD\n")
            << QStringLiteral("users[name=u].user.client-key-data (or client-key) is missing");
        QTest::newRow("bad base64")
            << head + QStringLiteral("current-context: k\nusers:\n- name: u\n  user:\n"
                                     "    token: t\n    client-certificate-data: '***'\n"
                                     "    client-key-data: QUJD\n")
            << QStringLiteral("users[name=u].user.client-certificate-data is not valid base64");
        QTest::newRow("exec plugin")
            << head + QStringLiteral("current-context: k\nusers:\n- name: u\n  user:\n"
                                     "    exec:\n      command: gke-gcloud-auth-plugin\n")
            << QStringLiteral("users[name=u].user.exec: credential plugins are not supported");
        QTest::newRow("no server")
            << QStringLiteral(
                   "clusters:\n- name: c\n  cluster:\n    insecure-skip-tls-verify: true\n"
                   "contexts:\n- name: k\n  context:\n    cluster: c\n"
                   "current-context: k\n")
            << QStringLiteral("clusters[name=c].cluster.server is missing");
        QTest::newRow("bad indentation")
            << QStringLiteral("clusters:\n- name: c\n    bad: indent\n")
            << QStringLiteral(":3: illegal map value (column 8)"); // yaml-cpp's words
    }
    void kubeconfigErrors()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const std::string path = write(dir, "broken-config", text.toStdString());
        try {
            loadKubeconfig(path);
            QFAIL("no error");
        } catch (const Error &e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.contains(QString::fromStdString(path)), e.what()); // names the file
            QVERIFY2(message.contains(expected), e.what());                     // and the key
        }
        try {
            loadKubeconfig(dir.filePath(QStringLiteral("missing")).toStdString());
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(QByteArray(e.what()).contains("missing"), e.what());
        }
    }

    void inClusterServiceAccount()
    {
        QTemporaryDir dir;
        write(dir, "token", "sa-token\n");
        write(dir, "ca.crt", "-----BEGIN CERTIFICATE-----\nSA\n-----END CERTIFICATE-----\n");
        write(dir, "namespace", "training\n");
        const std::string sa = dir.path().toStdString();
        const KubernetesCredentials c = loadInCluster(sa, "10.96.0.1", "443");
        QCOMPARE(c.server, std::string("https://10.96.0.1:443"));
        QCOMPARE(c.token, std::string("sa-token"));
        QCOMPARE(c.tokenFile, sa + "/token"); // re-read per request (rotation)
        QCOMPARE(c.ns, std::string("training"));
        QVERIFY(c.caPem.find("SA") != std::string::npos);
        QCOMPARE(loadInCluster(sa, "fd00::1", "6443").server,
                 std::string("https://[fd00::1]:6443"));
        QFile::remove(QString::fromStdString(sa + "/token"));
        try {
            loadInCluster(sa, "10.96.0.1", "443");
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(QByteArray(e.what()).contains(QByteArray::fromStdString(sa + "/token")),
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestKubernetesConnector)
#include "tst_kubernetesconnector.moc"
