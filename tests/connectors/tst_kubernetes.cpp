// KubernetesApplier against a local fake API server (QTcpServer, HTTP/1.1, 127.0.0.1) with
// the API server's semantics: 401 wrong token, 404 unknown object, 409 stale resourceVersion,
// 422 invalid change. Checks the exact requests, idempotency by decision id, and --dry-run.
#include "error.h"
#include "kubernetesapplier.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTcpServer>
#include <QTcpSocket>
#include "fakehttp.h"

#include <QTest>

using namespace dl2;

namespace {

using dl2::test::Request;
using dl2::test::decision;
using dl2::test::takeRequest;

class FakeApiServer : public QObject
{
public:
    FakeApiServer()
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *s = m_server.nextPendingConnection()) {
                connect(s, &QTcpSocket::readyRead, this, [this, s] { serve(s); });
                connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
            }
        });
        reset();
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()); }
    void reset()
    {
        m_rv = 100;
        m_pytorch.clear();
        m_volcano.clear();
        m_pytorch[QByteArrayLiteral("resnet-1")] = QJsonDocument::fromJson(R"({
            "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
            "metadata": {"name": "resnet-1", "namespace": "ml", "resourceVersion": "100"},
            "spec": {"elasticPolicy": {"minReplicas": 1, "maxReplicas": 8},
                     "pytorchReplicaSpecs": {"Master": {"replicas": 1}, "Worker": {"replicas": 2}}}})")
                                                       .object();
        m_volcano[QByteArrayLiteral("vgg-2")] = QJsonDocument::fromJson(R"({
            "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": "vgg-2", "namespace": "ml", "resourceVersion": "100",
                         "annotations": {"team": "vision"}},
            "spec": {"minAvailable": 6, "tasks": [{"name": "ps", "replicas": 2}, {"name": "worker", "replicas": 4}]}})")
                                                    .object();
        requests.clear();
    }
    int conflictsToInject = 0;
    std::vector<Request> requests;
    int mutating() const
    {
        int n = 0;
        for (const auto &r : requests)
            n += r.method != "GET";
        return n;
    }
    QJsonObject pytorch(const char *name) const { return m_pytorch.value(QByteArray(name)); }
    QJsonObject volcano(const char *name) const { return m_volcano.value(QByteArray(name)); }

private:
    void serve(QTcpSocket *s)
    {
        QByteArray &buf = m_buffers[s];
        buf += s->readAll();
        while (const auto next = takeRequest(buf)) {
            const Request &r = *next;
            const QByteArray &auth = r.authorization;
            requests.push_back(r);
            if (auth != "Bearer good")
                reply(s, 401, status(401, QStringLiteral("Unauthorized")));
            else
                route(s, r);
        }
    }
    static QJsonObject status(int code, const QString &message) { return dl2::test::apiStatus(code, message); }
    void reply(QTcpSocket *s, int code, const QJsonObject &body)
    {
        s->write(dl2::test::httpResponse(code, body));
    }
    QString bump(QJsonObject &object)
    {
        QJsonObject md = object.value(QStringLiteral("metadata")).toObject();
        md.insert(QStringLiteral("resourceVersion"), QString::number(++m_rv));
        object.insert(QStringLiteral("metadata"), md);
        return QString::number(m_rv);
    }
    static QString rvOf(const QJsonObject &o)
    {
        return o.value(QStringLiteral("metadata"))
            .toObject()
            .value(QStringLiteral("resourceVersion"))
            .toString();
    }
    bool injectConflict(QTcpSocket *s, QJsonObject &object)
    {
        if (conflictsToInject <= 0)
            return false;
        --conflictsToInject;
        bump(object); // someone else wrote in between
        reply(s, 409,
              status(409, QStringLiteral("the object has been modified; please apply your changes "
                                         "to the latest version")));
        return true;
    }
    void route(QTcpSocket *s, const Request &r)
    {
        static const QByteArray pt = "/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/";
        static const QByteArray vc = "/apis/batch.volcano.sh/v1alpha1/namespaces/ml/jobs/";
        if (r.path.startsWith(pt)) {
            QByteArray name = r.path.mid(pt.size());
            const bool scale = name.endsWith("/scale");
            if (scale)
                name.chop(6);
            if (!m_pytorch.contains(name))
                return reply(s, 404,
                             status(404, QStringLiteral("pytorchjobs.kubeflow.org \"%1\" not found")
                                             .arg(QString::fromLatin1(name))));
            QJsonObject &job = m_pytorch[name];
            QJsonObject spec = job.value(QStringLiteral("spec")).toObject();
            QJsonObject specs = spec.value(QStringLiteral("pytorchReplicaSpecs")).toObject();
            QJsonObject worker = specs.value(QStringLiteral("Worker")).toObject();
            if (r.method == "GET" && !scale)
                return reply(s, 200, job);
            if (r.method == "GET" && scale)
                return reply(s, 200,
                             {{QStringLiteral("kind"), QStringLiteral("Scale")},
                              {QStringLiteral("metadata"),
                               QJsonObject{{QStringLiteral("name"), QString::fromLatin1(name)},
                                           {QStringLiteral("resourceVersion"), rvOf(job)}}},
                              {QStringLiteral("spec"),
                               QJsonObject{{QStringLiteral("replicas"),
                                            worker.value(QStringLiteral("replicas"))}}}});
            if (r.method == "PUT" && scale) {
                if (injectConflict(s, job))
                    return;
                const QJsonObject body = QJsonDocument::fromJson(r.body).object();
                if (body.value(QStringLiteral("metadata"))
                        .toObject()
                        .value(QStringLiteral("resourceVersion"))
                        .toString() != rvOf(job))
                    return reply(s, 409,
                                 status(409, QStringLiteral("the object has been modified")));
                const int replicas = body.value(QStringLiteral("spec"))
                                         .toObject()
                                         .value(QStringLiteral("replicas"))
                                         .toInt(-1);
                const QJsonObject elastic = spec.value(QStringLiteral("elasticPolicy")).toObject();
                if (replicas < elastic.value(QStringLiteral("minReplicas")).toInt() ||
                    replicas > elastic.value(QStringLiteral("maxReplicas")).toInt())
                    return reply(
                        s, 422,
                        status(422, QStringLiteral(
                                        "spec.replicas: Invalid value: outside elasticPolicy")));
                worker.insert(QStringLiteral("replicas"), replicas);
                specs.insert(QStringLiteral("Worker"), worker);
                spec.insert(QStringLiteral("pytorchReplicaSpecs"), specs);
                job.insert(QStringLiteral("spec"), spec);
                bump(job);
                return reply(s, 200, body);
            }
            if (r.method == "PATCH" && !scale && r.contentType == "application/merge-patch+json") {
                const QJsonObject patch = QJsonDocument::fromJson(r.body).object();
                QJsonObject md = job.value(QStringLiteral("metadata")).toObject();
                QJsonObject ann = md.value(QStringLiteral("annotations")).toObject();
                const QJsonObject add = patch.value(QStringLiteral("metadata"))
                                            .toObject()
                                            .value(QStringLiteral("annotations"))
                                            .toObject();
                for (auto it = add.begin(); it != add.end(); ++it)
                    ann.insert(it.key(), it.value());
                md.insert(QStringLiteral("annotations"), ann);
                job.insert(QStringLiteral("metadata"), md);
                bump(job);
                return reply(s, 200, job);
            }
            return reply(s, 422, status(422, QStringLiteral("unsupported request")));
        }
        if (r.path.startsWith(vc)) {
            const QByteArray name = r.path.mid(vc.size());
            if (!m_volcano.contains(name))
                return reply(s, 404,
                             status(404, QStringLiteral("jobs.batch.volcano.sh \"%1\" not found")
                                             .arg(QString::fromLatin1(name))));
            QJsonObject &job = m_volcano[name];
            if (r.method == "GET")
                return reply(s, 200, job);
            if (r.method != "PATCH" || r.contentType != "application/json-patch+json")
                return reply(s, 422, status(422, QStringLiteral("unsupported request")));
            if (injectConflict(s, job))
                return;
            QJsonObject next = job;
            for (const auto &v : QJsonDocument::fromJson(r.body).array()) {
                const QJsonObject op = v.toObject();
                const QString path = op.value(QStringLiteral("path")).toString();
                const QString kind = op.value(QStringLiteral("op")).toString();
                if (kind == QLatin1String("test") &&
                    path == QLatin1String("/metadata/resourceVersion")) {
                    if (op.value(QStringLiteral("value")).toString() != rvOf(job))
                        return reply(s, 409,
                                     status(409, QStringLiteral("the object has been modified")));
                } else if (kind == QLatin1String("replace") &&
                           path.startsWith(QLatin1String("/spec/tasks/")) &&
                           path.endsWith(QLatin1String("/replicas"))) {
                    const int i = path.section(QLatin1Char('/'), 3, 3).toInt();
                    const int value = op.value(QStringLiteral("value")).toInt(-1);
                    if (value < 0 || value > 100)
                        return reply(
                            s, 422,
                            status(422, QStringLiteral("spec.tasks[%1].replicas: Invalid value: %2")
                                            .arg(i)
                                            .arg(value)));
                    QJsonObject spec = next.value(QStringLiteral("spec")).toObject();
                    QJsonArray tasks = spec.value(QStringLiteral("tasks")).toArray();
                    QJsonObject t = tasks.at(i).toObject();
                    t.insert(QStringLiteral("replicas"), value);
                    tasks.replace(i, t);
                    spec.insert(QStringLiteral("tasks"), tasks);
                    next.insert(QStringLiteral("spec"), spec);
                } else if (kind == QLatin1String("replace") &&
                           path == QLatin1String("/spec/minAvailable")) {
                    QJsonObject spec = next.value(QStringLiteral("spec")).toObject();
                    spec.insert(QStringLiteral("minAvailable"), op.value(QStringLiteral("value")));
                    next.insert(QStringLiteral("spec"), spec);
                } else if (kind == QLatin1String("add") &&
                           path == QLatin1String("/metadata/annotations")) {
                    QJsonObject md = next.value(QStringLiteral("metadata")).toObject();
                    md.insert(QStringLiteral("annotations"), op.value(QStringLiteral("value")));
                    next.insert(QStringLiteral("metadata"), md);
                } else {
                    return reply(s, 422,
                                 status(422, QStringLiteral("%1: field is immutable").arg(path)));
                }
            }
            job = next;
            bump(job);
            return reply(s, 200, job);
        }
        reply(s, 404, status(404, QStringLiteral("not found")));
    }

    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QHash<QByteArray, QJsonObject> m_pytorch, m_volcano;
    int m_rv = 100;
};

std::map<int, KubernetesJobRef> jobMap()
{
    return parseJobMap(R"({"jobs": {
        "1": {"kind": "PyTorchJob", "namespace": "ml", "name": "resnet-1"},
        "2": {"kind": "VolcanoJob", "namespace": "ml", "name": "vgg-2"},
        "3": {"kind": "PyTorchJob", "namespace": "ml", "name": "gone-3"}}})",
                       "inline");
}

int workerReplicas(const QJsonObject &pytorch)
{
    return pytorch[QStringLiteral("spec")]
        .toObject()[QStringLiteral("pytorchReplicaSpecs")]
        .toObject()[QStringLiteral("Worker")]
        .toObject()[QStringLiteral("replicas")]
        .toInt();
}

int taskReplicas(const QJsonObject &volcano, int i)
{
    return volcano[QStringLiteral("spec")]
        .toObject()[QStringLiteral("tasks")]
        .toArray()
        .at(i)
        .toObject()[QStringLiteral("replicas")]
        .toInt();
}

} // namespace

class TestKubernetes : public QObject
{
    Q_OBJECT
private:
    FakeApiServer m_api;
    KubernetesApplier applier(bool dryRun = false, const std::string &token = "good")
    {
        KubernetesOptions o;
        o.apiServer = m_api.url().toStdString();
        o.token = token;
        o.dryRun = dryRun;
        o.timeoutMs = 5000;
        return KubernetesApplier(o, jobMap());
    }
    static bool is(const Acknowledgment &a, Acknowledgment::Status s) { return a.status == s; }

private Q_SLOTS:
    void init() { m_api.reset(); }

    void pytorchScalesWorkersOnceById()
    {
        auto k = applier();
        const auto d = decision("run/3/1", 3, 1, {1, 2, {}}, {1, 4, {}});
        auto acks = k.apply({d});
        QVERIFY2(is(acks[0], Acknowledgment::Status::Applied), acks[0].message.c_str());
        QCOMPARE(workerReplicas(m_api.pytorch("resnet-1")), 4);
        const QJsonObject ann = m_api.pytorch("resnet-1")[QStringLiteral("metadata")]
                                    .toObject()[QStringLiteral("annotations")]
                                    .toObject();
        QCOMPARE(ann[QStringLiteral("dl2.io/last-decision")].toString(), QStringLiteral("run/3/1"));
        // The exact scale request.
        const auto put = std::find_if(m_api.requests.begin(), m_api.requests.end(),
                                      [](const Request &r) { return r.method == "PUT"; });
        QVERIFY(put != m_api.requests.end());
        QCOMPARE(put->path,
                 QByteArray("/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/resnet-1/scale"));
        const QJsonObject body = QJsonDocument::fromJson(put->body).object();
        QCOMPARE(body[QStringLiteral("kind")].toString(), QStringLiteral("Scale"));
        QCOMPARE(body[QStringLiteral("spec")].toObject()[QStringLiteral("replicas")].toInt(), 4);
        QCOMPARE(body[QStringLiteral("metadata")]
                     .toObject()[QStringLiteral("resourceVersion")]
                     .toString(),
                 QStringLiteral("100"));
        // Re-sent: acknowledged as a duplicate, nothing written.
        const int writes = m_api.mutating();
        acks = k.apply({d, decision("run/2/1", 2, 1, {1, 2, {}}, {1, 1, {}})});
        QVERIFY(is(acks[0], Acknowledgment::Status::Duplicate));
        QVERIFY(is(acks[1], Acknowledgment::Status::Duplicate)); // older than the last applied slot
        QCOMPARE(m_api.mutating(), writes);
        QCOMPARE(workerReplicas(m_api.pytorch("resnet-1")), 4);
    }

    void pytorchConflictIsRetried()
    {
        auto k = applier();
        m_api.conflictsToInject = 2;
        const auto acks = k.apply({decision("run/1/1", 1, 1, {1, 2, {}}, {1, 3, {}})});
        QVERIFY2(is(acks[0], Acknowledgment::Status::Applied), acks[0].message.c_str());
        QCOMPARE(workerReplicas(m_api.pytorch("resnet-1")), 3);
        int puts = 0;
        for (const auto &r : m_api.requests)
            puts += r.method == "PUT";
        QCOMPARE(puts, 3);
    }

    void pytorchLimits()
    {
        auto k = applier();
        auto acks = k.apply({decision("run/1/1", 1, 1, {1, 2, {}}, {1, 9, {}}),
                             decision("run/1/3", 1, 3, {1, 2, {}}, {1, 3, {}}),
                             decision("run/1/7", 1, 7, {1, 2, {}}, {1, 3, {}})});
        QVERIFY(is(acks[0], Acknowledgment::Status::Invalid));
        QVERIFY2(acks[0].message.find("elasticPolicy 1..8") != std::string::npos,
                 acks[0].message.c_str());
        QVERIFY(is(acks[1], Acknowledgment::Status::Invalid)); // 404
        QVERIFY2(acks[1].message.find("not found") != std::string::npos, acks[1].message.c_str());
        QVERIFY(is(acks[2], Acknowledgment::Status::Invalid)); // not mapped
        QCOMPARE(m_api.mutating(), 0);
        acks = k.apply({decision("run/2/1", 2, 1, {1, 2, {}}, {3, 2, {}})});
        QVERIFY(is(acks[0], Acknowledgment::Status::Applied));
        QVERIFY(acks[0].message.find("PS change ignored") != std::string::npos);
    }

    void volcanoPatchesReplicas()
    {
        auto k = applier();
        m_api.conflictsToInject = 1;
        auto acks = k.apply({decision("run/4/2", 4, 2, {2, 4, {}}, {1, 3, {}})});
        QVERIFY2(is(acks[0], Acknowledgment::Status::Applied), acks[0].message.c_str());
        const QJsonObject job = m_api.volcano("vgg-2");
        QCOMPARE(taskReplicas(job, 0), 1);
        QCOMPARE(taskReplicas(job, 1), 3);
        QCOMPARE(job[QStringLiteral("spec")].toObject()[QStringLiteral("minAvailable")].toInt(),
                 4); // lowered from 6 to the new total
        const QJsonObject ann =
            job[QStringLiteral("metadata")].toObject()[QStringLiteral("annotations")].toObject();
        QCOMPARE(ann[QStringLiteral("team")].toString(), QStringLiteral("vision")); // kept
        QCOMPARE(ann[QStringLiteral("dl2.io/last-decision-slot")].toString(), QStringLiteral("4"));
        const Request &patch = m_api.requests.back();
        QCOMPARE(patch.contentType, QByteArray("application/json-patch+json"));
        const QJsonArray ops = QJsonDocument::fromJson(patch.body).array();
        QCOMPARE(ops.at(0).toObject()[QStringLiteral("op")].toString(), QStringLiteral("test"));
        QCOMPARE(ops.at(1).toObject()[QStringLiteral("path")].toString(),
                 QStringLiteral("/spec/tasks/1/replicas"));
        acks = k.apply({decision("run/4/2", 4, 2, {2, 4, {}}, {1, 3, {}})});
        QVERIFY(is(acks[0], Acknowledgment::Status::Duplicate));
        // 422 from the server: refused, with its message.
        acks = k.apply({decision("run/5/2", 5, 2, {1, 3, {}}, {1, 200, {}})});
        QVERIFY(is(acks[0], Acknowledgment::Status::Invalid));
        QVERIFY2(acks[0].message.find("422") != std::string::npos, acks[0].message.c_str());
        QCOMPARE(taskReplicas(m_api.volcano("vgg-2"), 1), 3);
    }

    void wrongTokenIsAnError()
    {
        auto k = applier(false, "bad");
        try {
            k.apply({decision("run/1/1", 1, 1, {1, 2, {}}, {1, 3, {}})});
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(QByteArray(e.what()).contains("401 Unauthorized"), e.what());
        }
    }

    void dryRunPrintsExactRequests()
    {
        auto k = applier(true);
        std::string printed;
        k.setRequestPrinter([&](const std::string &t) { printed += t; });
        const auto acks = k.apply({decision("run/3/1", 3, 1, {1, 2, {}}, {1, 4, {}}),
                                   decision("run/3/2", 3, 2, {2, 4, {}}, {2, 5, {}})});
        QVERIFY(is(acks[0], Acknowledgment::Status::Applied));
        QCOMPARE(m_api.mutating(), 0);
        QCOMPARE(workerReplicas(m_api.pytorch("resnet-1")), 2);
        const std::string url = m_api.url().toStdString();
        QVERIFY2(printed.find("PUT " + url +
                              "/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/resnet-1/scale\n") !=
                     std::string::npos,
                 printed.c_str());
        QVERIFY(
            printed.find(
                R"({"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"resnet-1","namespace":"ml","resourceVersion":"100"},"spec":{"replicas":4}})") !=
            std::string::npos);
        QVERIFY(printed.find("PATCH " + url +
                             "/apis/batch.volcano.sh/v1alpha1/namespaces/ml/jobs/vgg-2\n") !=
                std::string::npos);
        QVERIFY(printed.find("Content-Type: application/json-patch+json") != std::string::npos);
        QVERIFY(printed.find("Authorization: Bearer <redacted>") != std::string::npos);
        QVERIFY(printed.find("good") == std::string::npos); // the token never printed
    }
};

QTEST_GUILESS_MAIN(TestKubernetes)
#include "tst_kubernetes.moc"
