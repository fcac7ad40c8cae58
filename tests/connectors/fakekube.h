#pragma once
// The tests' fake Kubernetes API server (QTcpServer on 127.0.0.1, HTTP/1.1, in its own thread
// because the connector blocks its callers): three nodes, training pods, a PyTorchJob, a
// Volcano Job and a TFJob; writes validated against the published CRD schemas (kubeschema.h).
// Shared by the connector tests and the console's live-history test.
#include "clusterconnector.h"
#include "fakehttp.h"
#include "kubeschema.h"

#include <QDir>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMutex>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>

namespace dl2::test {

inline QJsonObject json(const char *text)
{
    return QJsonDocument::fromJson(QByteArray(text)).object();
}

// The fake API server. Its state is guarded by m_lock (the server thread serves, the test
// thread sets up and inspects).
class FakeKube : public QObject
{
public:
    FakeKube()
    {
        moveToThread(&m_thread);
        m_thread.start();
        QMetaObject::invokeMethod(
            this,
            [this] {
                m_server = new QTcpServer(this);
                m_server->listen(QHostAddress::LocalHost, 0);
                m_port = m_server->serverPort();
                connect(m_server, &QTcpServer::newConnection, this, [this] {
                    while (QTcpSocket *s = m_server->nextPendingConnection()) {
                        connect(s, &QTcpSocket::readyRead, this, [this, s] { serve(s); });
                        connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
                    }
                });
            },
            Qt::BlockingQueuedConnection);
        reset();
    }
    ~FakeKube() override
    {
        QMetaObject::invokeMethod(
            this, [this] { delete m_server; }, Qt::BlockingQueuedConnection);
        m_thread.quit();
        m_thread.wait();
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }

    void reset()
    {
        QMutexLocker lock(&m_lock);
        m_rv = 100;
        conflictsToInject = 0;
        tfInstalled = true;
        requests.clear();
        nodes = QJsonArray{
            json(
                R"({"metadata": {"name": "node-b"}, "status": {"allocatable": {"cpu": "16", "nvidia.com/gpu": "2"},
                  "conditions": [{"type": "Ready", "status": "True"}]}})"),
            json(
                R"({"metadata": {"name": "node-a"}, "status": {"allocatable": {"cpu": "16", "nvidia.com/gpu": "2"},
                  "conditions": [{"type": "Ready", "status": "True"}]}})"),
            json(R"({"metadata": {"name": "node-c"}, "spec": {"unschedulable": true},
                  "status": {"allocatable": {"cpu": "7910m"}, "conditions": [{"type": "Ready", "status": "True"}]}})")};
        pods = QJsonArray{
            pod("resnet-1-worker-0", "training.kubeflow.org/job-name", "resnet-1", "worker",
                "node-a", "Running", "PyTorchJob"),
            pod("resnet-1-worker-1", "training.kubeflow.org/job-name", "resnet-1", "worker",
                "node-b", "Running", "PyTorchJob"),
            pod("vgg-2-ps-0", "volcano.sh/job-name", "vgg-2", "ps", "node-a", "Running", ""),
            pod("vgg-2-worker-0", "volcano.sh/job-name", "vgg-2", "worker", "node-b", "Running",
                ""),
            pod("vgg-2-worker-1", "volcano.sh/job-name", "vgg-2", "worker", "", "Pending", ""),
            pod("lm-4-ps-0", "training.kubeflow.org/job-name", "lm-4", "ps", "node-a", "Running",
                "TFJob"),
            pod("lm-4-worker-0", "training.kubeflow.org/job-name", "lm-4", "worker", "node-a",
                "Running", "TFJob")};
        pytorch.clear();
        tf.clear();
        volcano.clear();
        pytorch[QByteArrayLiteral("resnet-1")] = resource("PyTorchJob", R"({
            "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
            "metadata": {"name": "resnet-1", "namespace": "ml", "resourceVersion": "100",
                         "creationTimestamp": "2024-01-01T00:00:00Z",
                         "annotations": {"dl2.io/model": "resnet-50", "dl2.io/job-id": "1",
                                         "dl2.io/total-epochs": "40", "dl2.io/done-epochs": "10"}},
            "spec": {"elasticPolicy": {"minReplicas": 1, "maxReplicas": 8},
                     "pytorchReplicaSpecs": {"Worker": {"replicas": 2}}},
            "status": {"conditions": [{"type": "Running", "status": "True"}]}})");
        pytorch[QByteArrayLiteral("adhoc-3")] = resource("PyTorchJob", R"({
            "kind": "PyTorchJob", "metadata": {"name": "adhoc-3", "namespace": "ml", "resourceVersion": "100"},
            "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 1}}}})");
        tf[QByteArrayLiteral("lm-4")] = resource("TFJob", R"({
            "kind": "TFJob", "metadata": {"name": "lm-4", "namespace": "ml", "resourceVersion": "100",
                "creationTimestamp": "2024-01-01T01:00:00Z", "annotations": {"dl2.io/job-id": "4"},
                "labels": {"dl2.io/model": "wlm"}},
            "spec": {"tfReplicaSpecs": {"PS": {"replicas": 1}, "Worker": {"replicas": 1}}}})");
        volcano[QByteArrayLiteral("vgg-2")] = resource("VolcanoJob", R"({
            "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": "vgg-2", "namespace": "ml", "resourceVersion": "100",
                         "creationTimestamp": "2024-01-01T00:30:00Z",
                         "annotations": {"team": "vision", "dl2.io/model": "vgg-16", "dl2.io/job-id": "2"}},
            "spec": {"minAvailable": 3, "tasks": [{"name": "ps", "replicas": 1, "minAvailable": 1},
                                                  {"name": "worker", "replicas": 2, "minAvailable": 2}]},
            "status": {"state": {"phase": "Running"}}})");
    }
    template <typename F> auto locked(F f)
    {
        QMutexLocker lock(&m_lock);
        return f();
    }
    int mutating()
    {
        QMutexLocker lock(&m_lock);
        int n = 0;
        for (const auto &r : requests)
            n += r.method != "GET";
        return n;
    }

    // Guarded by m_lock.
    int conflictsToInject = 0;
    bool tfInstalled = true;
    std::vector<Request> requests;
    QJsonArray nodes, pods;
    QHash<QByteArray, FakeResource> pytorch, tf, volcano;
    // What the schemas refused or pruned, and what a stored object itself violates.
    QStringList schemaProblems()
    {
        QMutexLocker lock(&m_lock);
        QStringList out;
        for (const auto *objects : {&pytorch, &tf, &volcano})
            for (const auto &r : *objects) {
                out << r.schemaRejections << r.pruned;
                for (const auto &v : r.selfCheck())
                    out << v.message;
            }
        return out;
    }

private:
    static FakeResource resource(const char *definition, const char *text)
    {
        return dl2::test::fakeJob(QString::fromLatin1(definition), json(text));
    }
    static QJsonObject pod(const char *name, const char *jobLabel, const char *job,
                           const char *role, const char *node, const char *phase, const char *owner)
    {
        QJsonObject labels{{QString::fromLatin1(jobLabel), QString::fromLatin1(job)}};
        if (QByteArray(jobLabel).startsWith("volcano"))
            labels.insert(QStringLiteral("volcano.sh/task-spec"), QString::fromLatin1(role));
        else
            labels.insert(QStringLiteral("training.kubeflow.org/replica-type"),
                          QString::fromLatin1(role));
        QJsonObject md{{QStringLiteral("name"), QString::fromLatin1(name)},
                       {QStringLiteral("namespace"), QStringLiteral("ml")},
                       {QStringLiteral("labels"), labels}};
        if (*owner)
            md.insert(
                QStringLiteral("ownerReferences"),
                QJsonArray{QJsonObject{{QStringLiteral("kind"), QString::fromLatin1(owner)}}});
        const bool isPs = QByteArray(role) == "ps";
        const QJsonObject resources{
            {QStringLiteral("requests"),
             QJsonObject{
                 {QStringLiteral("cpu"), isPs ? QStringLiteral("1500m") : QStringLiteral("2")}}},
            {QStringLiteral("limits"),
             isPs ? QJsonObject{}
                  : QJsonObject{{QStringLiteral("nvidia.com/gpu"), QStringLiteral("1")}}}};
        QJsonObject spec{{QStringLiteral("containers"),
                          QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("main")},
                                                 {QStringLiteral("resources"), resources}}}}};
        if (*node)
            spec.insert(QStringLiteral("nodeName"), QString::fromLatin1(node));
        return {{QStringLiteral("metadata"), md},
                {QStringLiteral("spec"), spec},
                {QStringLiteral("status"),
                 QJsonObject{{QStringLiteral("phase"), QString::fromLatin1(phase)}}}};
    }

    void serve(QTcpSocket *s)
    {
        QByteArray &buf = m_buffers[s];
        buf += s->readAll();
        while (const auto next = takeRequest(buf)) {
            const Request &r = *next;
            const QByteArray &auth = r.authorization;
            QMutexLocker lock(&m_lock);
            requests.push_back(r);
            if (auth != "Bearer good")
                reply(s, 401, status(401, QStringLiteral("Unauthorized")));
            else
                route(s, r);
        }
    }
    static QJsonObject status(int code, const QString &message) { return dl2::test::apiStatus(code, message); }
    static void reply(QTcpSocket *s, int code, const QJsonObject &body)
    {
        s->write(dl2::test::httpResponse(code, body));
    }
    static QJsonObject items(const QJsonArray &a)
    {
        return {{QStringLiteral("kind"), QStringLiteral("List")}, {QStringLiteral("items"), a}};
    }
    static QJsonArray values(const QHash<QByteArray, FakeResource> &h)
    {
        QJsonArray a;
        for (const auto &v : h)
            a.append(v.object);
        return a;
    }
    void bump(QJsonObject &o)
    {
        QJsonObject md = o[QStringLiteral("metadata")].toObject();
        md.insert(QStringLiteral("resourceVersion"), QString::number(++m_rv));
        o.insert(QStringLiteral("metadata"), md);
    }
    bool conflict(QTcpSocket *s, QJsonObject &o)
    {
        if (conflictsToInject <= 0)
            return false;
        --conflictsToInject;
        bump(o);
        reply(s, 409, status(409, QStringLiteral("the object has been modified")));
        return true;
    }
    void route(QTcpSocket *s, const Request &r)
    {
        const QByteArray path =
            r.path.left(r.path.indexOf('?') < 0 ? r.path.size() : r.path.indexOf('?'));
        if (r.method == "GET" && path == "/api/v1/nodes")
            return reply(s, 200, items(nodes));
        if (r.method == "GET" && (path == "/api/v1/pods" || path == "/api/v1/namespaces/ml/pods")) {
            const QString key =
                QString::fromLatin1(r.path.mid(r.path.indexOf("labelSelector=") + 14));
            QJsonArray out;
            for (const auto &p : pods)
                if (p[QStringLiteral("metadata")]
                        .toObject()[QStringLiteral("labels")]
                        .toObject()
                        .contains(key))
                    out.append(p);
            return reply(s, 200, items(out));
        }
        for (const char *prefix :
             {"/apis/kubeflow.org/v1", "/apis/kubeflow.org/v1/namespaces/ml"}) {
            if (r.method == "GET" && path == QByteArray(prefix) + "/pytorchjobs")
                return reply(s, 200, items(values(pytorch)));
            if (r.method == "GET" && path == QByteArray(prefix) + "/tfjobs")
                return tfInstalled
                           ? reply(s, 200, items(values(tf)))
                           : reply(s, 404,
                                   status(404,
                                          QStringLiteral(
                                              "the server could not find the requested resource")));
        }
        for (const char *prefix : {"/apis/batch.volcano.sh/v1alpha1/jobs",
                                   "/apis/batch.volcano.sh/v1alpha1/namespaces/ml/jobs"})
            if (r.method == "GET" && path == prefix)
                return reply(s, 200, items(values(volcano)));

        static const QByteArray pt = "/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/";
        static const QByteArray tfp = "/apis/kubeflow.org/v1/namespaces/ml/tfjobs/";
        static const QByteArray vc = "/apis/batch.volcano.sh/v1alpha1/namespaces/ml/jobs/";
        const bool strict = dl2::test::hasQueryParameter(r.path, "fieldValidation=Strict");
        auto notFound = [&](const QByteArray &name) {
            reply(s, 404,
                  status(404, QStringLiteral("\"%1\" not found").arg(QString::fromLatin1(name))));
        };
        auto answer = [&](const dl2::test::ApiReply &a) { reply(s, a.status, a.body); };
        if (path.startsWith(pt)) {
            QByteArray name = path.mid(pt.size());
            const bool scale = name.endsWith("/scale");
            if (scale)
                name.chop(6);
            if (!pytorch.contains(name))
                return notFound(name);
            FakeResource &job = pytorch[name];
            if (r.method == "GET")
                return scale ? answer(job.getScale()) : reply(s, 200, job.object);
            if (r.method == "PUT" && scale)
                return conflict(s, job.object) ? void()
                                               : answer(job.putScale(r.body, strict, &m_rv));
            if (r.method == "PATCH" && r.contentType == "application/merge-patch+json")
                return answer(job.mergePatch(r.body, strict, &m_rv));
            return reply(s, 415, status(415, QStringLiteral("unsupported request")));
        }
        if (path.startsWith(tfp)) {
            const QByteArray name = path.mid(tfp.size());
            if (!tf.contains(name))
                return notFound(name);
            FakeResource &job = tf[name];
            if (r.method == "GET")
                return reply(s, 200, job.object);
            if (r.method != "PATCH" || r.contentType != "application/merge-patch+json")
                return reply(s, 415, status(415, QStringLiteral("unsupported request")));
            return conflict(s, job.object) ? void() : answer(job.mergePatch(r.body, strict, &m_rv));
        }
        if (path.startsWith(vc)) {
            const QByteArray name = path.mid(vc.size());
            if (!volcano.contains(name))
                return notFound(name);
            FakeResource &job = volcano[name];
            if (r.method == "GET")
                return reply(s, 200, job.object);
            if (r.method != "PATCH" || r.contentType != "application/json-patch+json")
                return reply(s, 415, status(415, QStringLiteral("unsupported request")));
            return conflict(s, job.object) ? void() : answer(job.jsonPatch(r.body, strict, &m_rv));
        }
        reply(s, 404, status(404, QStringLiteral("not found")));
    }

    QThread m_thread;
    QTcpServer *m_server = nullptr;
    quint16 m_port = 0;
    QMutex m_lock;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    int m_rv = 100;
};

inline const JobState *findJob(const ClusterView &v, int id, Allocation *target = nullptr)
{
    for (size_t i = 0; i < v.jobs.size(); ++i)
        if (v.jobs[i].id == id) {
            if (target)
                *target = v.targets[i];
            return &v.jobs[i];
        }
    return nullptr;
}

inline int annotationSlot(const QJsonObject &o)
{
    return o[QStringLiteral("metadata")]
        .toObject()[QStringLiteral("annotations")]
        .toObject()[QStringLiteral("dl2.io/last-decision-slot")]
        .toString()
        .toInt();
}

} // namespace dl2::test
