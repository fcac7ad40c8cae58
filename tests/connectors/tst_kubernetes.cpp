// KubernetesApplier against a local fake API server (QTcpServer, HTTP/1.1, 127.0.0.1) with
// the API server's semantics: 401 wrong token, 404 unknown object, 409 stale resourceVersion,
// 422 for a body or result that breaks the published OpenAPI v3 schema of the object
// (PyTorchJob, TFJob, Volcano Job, autoscaling/v1 Scale; kubeschema.h), 400 for unknown fields
// under fieldValidation=Strict and for Volcano's admission webhook. Checks the exact requests,
// that every body the applier sends is valid, idempotency by decision id, and --dry-run.
#include "error.h"
#include "fakehttp.h"
#include "kubernetesapplier.h"
#include "kubeschema.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace dl2;

namespace {

using dl2::test::decision;
using dl2::test::FakeResource;
using dl2::test::Request;
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
        m_tf.clear();
        m_pytorch[QByteArrayLiteral("resnet-1")] =
            dl2::test::fakeJob(QStringLiteral("PyTorchJob"), QJsonDocument::fromJson(R"({
            "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
            "metadata": {"name": "resnet-1", "namespace": "ml", "resourceVersion": "100"},
            "spec": {"elasticPolicy": {"minReplicas": 1, "maxReplicas": 8, "rdzvBackend": "c10d"},
                     "pytorchReplicaSpecs": {"Worker": {"replicas": 2, "restartPolicy": "OnFailure"}}}})")
                                                                 .object());
        // As Volcano's mutating webhook leaves a job: every task has minAvailable = replicas.
        m_volcano[QByteArrayLiteral("vgg-2")] =
            dl2::test::fakeJob(QStringLiteral("VolcanoJob"), QJsonDocument::fromJson(R"({
            "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": "vgg-2", "namespace": "ml", "resourceVersion": "100",
                         "annotations": {"team": "vision"}},
            "spec": {"minAvailable": 6, "queue": "default", "schedulerName": "volcano", "maxRetry": 3,
                     "tasks": [{"name": "ps", "replicas": 2, "minAvailable": 2},
                               {"name": "worker", "replicas": 4, "minAvailable": 4}]}})")
                                                                 .object());
        m_tf[QByteArrayLiteral("lm-4")] =
            dl2::test::fakeJob(QStringLiteral("TFJob"), QJsonDocument::fromJson(R"({
            "apiVersion": "kubeflow.org/v1", "kind": "TFJob",
            "metadata": {"name": "lm-4", "namespace": "ml", "resourceVersion": "100"},
            "spec": {"runPolicy": {"cleanPodPolicy": "None"},
                     "tfReplicaSpecs": {"PS": {"replicas": 1}, "Worker": {"replicas": 2}}}})")
                                                            .object());
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
    QJsonObject pytorch(const char *name) const { return m_pytorch.value(QByteArray(name)).object; }
    QJsonObject volcano(const char *name) const { return m_volcano.value(QByteArray(name)).object; }
    QJsonObject tf(const char *name) const { return m_tf.value(QByteArray(name)).object; }
    // Everything the schemas refused, and every field a write dropped (must stay empty: the
    // applier's bodies are valid) and what a stored fixture object itself violates.
    QStringList schemaProblems() const
    {
        QStringList out;
        for (const auto *objects : {&m_pytorch, &m_volcano, &m_tf})
            for (const auto &r : *objects) {
                out << r.schemaRejections << r.pruned;
                for (const auto &v : r.selfCheck())
                    out << v.message;
            }
        return out;
    }

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
    void reply(QTcpSocket *s, const dl2::test::ApiReply &r) { reply(s, r.status, r.body); }
    bool injectConflict(QTcpSocket *s, FakeResource &object)
    {
        if (conflictsToInject <= 0)
            return false;
        --conflictsToInject;
        // Someone else wrote in between.
        QJsonObject md = object.object[QStringLiteral("metadata")].toObject();
        md.insert(QStringLiteral("resourceVersion"), QString::number(++m_rv));
        object.object.insert(QStringLiteral("metadata"), md);
        reply(s, 409,
              status(409, QStringLiteral("the object has been modified; please apply your changes "
                                         "to the latest version")));
        return true;
    }
    void route(QTcpSocket *s, const Request &r)
    {
        static const QByteArray pt = "/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/";
        static const QByteArray tfp = "/apis/kubeflow.org/v1/namespaces/ml/tfjobs/";
        static const QByteArray vc = "/apis/batch.volcano.sh/v1alpha1/namespaces/ml/jobs/";
        const QByteArray path = dl2::test::pathWithoutQuery(r.path);
        const bool strict = dl2::test::hasQueryParameter(r.path, "fieldValidation=Strict");
        auto notFound = [&](const char *resource, const QByteArray &name) {
            reply(s, 404,
                  status(404, QStringLiteral("%1 \"%2\" not found")
                                  .arg(QLatin1String(resource), QString::fromLatin1(name))));
        };
        if (path.startsWith(pt)) {
            QByteArray name = path.mid(pt.size());
            const bool scale = name.endsWith("/scale");
            if (scale)
                name.chop(6);
            if (!m_pytorch.contains(name))
                return notFound("pytorchjobs.kubeflow.org", name);
            FakeResource &job = m_pytorch[name];
            if (r.method == "GET")
                return scale ? reply(s, job.getScale()) : reply(s, 200, job.object);
            if (r.method == "PUT" && scale)
                return injectConflict(s, job) ? void()
                                              : reply(s, job.putScale(r.body, strict, &m_rv));
            if (r.method == "PATCH" && !scale && r.contentType == "application/merge-patch+json")
                return reply(s, job.mergePatch(r.body, strict, &m_rv));
            return reply(s, 415, status(415, QStringLiteral("unsupported request")));
        }
        if (path.startsWith(tfp)) {
            const QByteArray name = path.mid(tfp.size());
            if (!m_tf.contains(name))
                return notFound("tfjobs.kubeflow.org", name);
            FakeResource &job = m_tf[name];
            if (r.method == "GET")
                return reply(s, 200, job.object);
            if (r.method == "PATCH" && r.contentType == "application/merge-patch+json")
                return injectConflict(s, job) ? void()
                                              : reply(s, job.mergePatch(r.body, strict, &m_rv));
            return reply(s, 415, status(415, QStringLiteral("unsupported request")));
        }
        if (path.startsWith(vc)) {
            const QByteArray name = path.mid(vc.size());
            if (!m_volcano.contains(name))
                return notFound("jobs.batch.volcano.sh", name);
            FakeResource &job = m_volcano[name];
            if (r.method == "GET")
                return reply(s, 200, job.object);
            if (r.method == "PATCH" && r.contentType == "application/json-patch+json")
                return injectConflict(s, job) ? void()
                                              : reply(s, job.jsonPatch(r.body, strict, &m_rv));
            return reply(s, 415, status(415, QStringLiteral("unsupported request")));
        }
        reply(s, 404, status(404, QStringLiteral("not found")));
    }

    QTcpServer m_server;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QHash<QByteArray, FakeResource> m_pytorch, m_volcano, m_tf;
    int m_rv = 100;
};

std::map<int, KubernetesJobRef> jobMap()
{
    return parseJobMap(R"({"jobs": {
        "1": {"kind": "PyTorchJob", "namespace": "ml", "name": "resnet-1"},
        "2": {"kind": "VolcanoJob", "namespace": "ml", "name": "vgg-2"},
        "3": {"kind": "PyTorchJob", "namespace": "ml", "name": "gone-3"},
        "4": {"kind": "TFJob", "namespace": "ml", "name": "lm-4"}}})",
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
    // Every body the applier sent was valid for the published schemas, nothing was pruned.
    void cleanup()
    {
        const QStringList problems = m_api.schemaProblems();
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

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
        QCOMPARE(put->path, QByteArray("/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/resnet-1/"
                                       "scale?fieldValidation=Strict"));
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
        // The tasks' own minAvailable follow their replicas down (the webhook refuses more).
        for (int i : {0, 1})
            QCOMPARE(job[QStringLiteral("spec")]
                         .toObject()[QStringLiteral("tasks")]
                         .toArray()
                         .at(i)
                         .toObject()[QStringLiteral("minAvailable")]
                         .toInt(),
                     taskReplicas(job, i));
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
        // Refused by an admission webhook: Invalid, with the server's message.
        acks = k.apply({decision("run/5/2", 5, 2, {1, 3, {}}, {1, 200, {}})});
        QVERIFY(is(acks[0], Acknowledgment::Status::Invalid));
        QVERIFY2(acks[0].message.find("(400): admission webhook \"validatejob.volcano.sh\" denied "
                                      "the request: spec.tasks[1].replicas: Invalid value: 200") !=
                     std::string::npos,
                 acks[0].message.c_str());
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
                              "/apis/kubeflow.org/v1/namespaces/ml/pytorchjobs/resnet-1/"
                              "scale?fieldValidation=Strict\n") != std::string::npos,
                 printed.c_str());
        QVERIFY(
            printed.find(
                R"({"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"resnet-1","namespace":"ml","resourceVersion":"100"},"spec":{"replicas":4}})") !=
            std::string::npos);
        QVERIFY(printed.find("PATCH " + url +
                             "/apis/batch.volcano.sh/v1alpha1/namespaces/ml/jobs/"
                             "vgg-2?fieldValidation=Strict\n") != std::string::npos);
        QVERIFY(printed.find("Content-Type: application/json-patch+json") != std::string::npos);
        QVERIFY(printed.find("Authorization: Bearer <redacted>") != std::string::npos);
        QVERIFY(printed.find("good") == std::string::npos); // the token never printed
    }

    void tfJobPatchesReplicaCounts()
    {
        auto k = applier();
        m_api.conflictsToInject = 1;
        const auto acks = k.apply({decision("run/6/4", 6, 4, {1, 2, {}}, {3, 5, {}})});
        QVERIFY2(is(acks[0], Acknowledgment::Status::Applied), acks[0].message.c_str());
        const QJsonObject specs = m_api.tf("lm-4")[QStringLiteral("spec")]
                                      .toObject()[QStringLiteral("tfReplicaSpecs")]
                                      .toObject();
        QCOMPARE(specs[QStringLiteral("PS")].toObject()[QStringLiteral("replicas")].toInt(), 3);
        QCOMPARE(specs[QStringLiteral("Worker")].toObject()[QStringLiteral("replicas")].toInt(), 5);
        // The merge patch kept what it did not name (templates, restart policy).
        QVERIFY(specs[QStringLiteral("Worker")].toObject().contains(QStringLiteral("template")));
    }

    // Many decisions of every kind (scale-ups, scale-downs, to zero, PS changes on a
    // PyTorchJob): each request body the applier writes is checked by the fake API server
    // against the published schemas (Scale for the scale subresource, RFC 6902 for the JSON
    // patch, the CRD for the object every write produces) under fieldValidation=Strict;
    // cleanup() fails on any refusal or pruned field.
    void requestBodiesMatchPublishedSchemas()
    {
        auto k = applier();
        std::uint64_t state = 7;
        auto next = [&](int n) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return static_cast<int>((state >> 33) % static_cast<std::uint64_t>(n));
        };
        int applied = 0;
        for (int slot = 1; slot <= 40; ++slot) {
            std::vector<ResizeDecision> batch;
            for (int job : {1, 2, 4})
                batch.push_back(decision("run/" + std::to_string(slot) + "/" + std::to_string(job),
                                         slot, job, {1, 1, {}},
                                         {next(4), job == 1 ? 1 + next(8) : next(9), {}}));
            for (const auto &a : k.apply(batch)) {
                QVERIFY2(a.status == Acknowledgment::Status::Applied, a.message.c_str());
                ++applied;
            }
        }
        QCOMPARE(applied, 120);
        QMap<QByteArray, int> kinds;
        for (const auto &r : m_api.requests)
            if (r.method != "GET") {
                QVERIFY2(r.path.endsWith("?fieldValidation=Strict"), r.path.constData());
                ++kinds[r.method + ' ' + r.contentType];
            }
        QCOMPARE(kinds.value("PUT application/json"), 40);               // Scale
        QCOMPARE(kinds.value("PATCH application/merge-patch+json"), 80); // PyTorchJob + TFJob
        QCOMPARE(kinds.value("PATCH application/json-patch+json"), 40);  // Volcano
    }

    // The fake's checks refuse what the real API server refuses (so the test above is not
    // vacuous): wrong types, out-of-range integers, bounds, patterns, unknown fields under
    // strict validation, malformed patches, bad annotation keys, Volcano's update rules.
    void fakeApiServerRefusesInvalidBodies()
    {
        int rv = 200;
        auto pytorch = [] {
            return dl2::test::fakeJob(QStringLiteral("PyTorchJob"), QJsonDocument::fromJson(R"({
                "apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
                "metadata": {"name": "p", "resourceVersion": "5"},
                "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 2}}}})")
                                                                        .object());
        };
        auto volcano = [] {
            return dl2::test::fakeJob(QStringLiteral("VolcanoJob"), QJsonDocument::fromJson(R"({
                "apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                "metadata": {"name": "v", "resourceVersion": "5"},
                "spec": {"minAvailable": 2, "tasks": [{"name": "worker", "replicas": 2, "minAvailable": 2}]}})")
                                                                        .object());
        };
        struct Case
        {
            const char *what;
            std::function<dl2::test::ApiReply(int *)> write;
            int status;
            const char *message;
        };
        const std::vector<Case> cases{
            {"scale replicas as a string",
             [&](int *v) {
                 return pytorch().putScale(
                     R"({"apiVersion":"autoscaling/v1","kind":"Scale","spec":{"replicas":"4"}})",
                     true, v);
             },
             422, "spec.replicas in body must be of type integer: \"string\""},
            {"negative scale",
             [&](int *v) { return pytorch().putScale(R"({"spec":{"replicas":-1}})", true, v); },
             422, "spec.replicas: Invalid value: -1: must be greater than or equal to 0"},
            {"scale beyond int32",
             [&](int *v) {
                 return pytorch().putScale(R"({"spec":{"replicas":3000000000}})", true, v);
             },
             422, "must be of type int32"},
            {"scale with an unknown field",
             [&](int *v) {
                 return pytorch().putScale(R"({"spec":{"replicas":3,"replica":3}})", true, v);
             },
             400, "strict decoding error: unknown field \"spec.replica\""},
            {"stale scale",
             [&](int *v) {
                 return pytorch().putScale(
                     R"({"metadata":{"resourceVersion":"4"},"spec":{"replicas":3}})", true, v);
             },
             409, "the object has been modified"},
            {"merge patch: replicas as a string",
             [&](int *v) {
                 return pytorch().mergePatch(
                     R"({"spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":"3"}}}})", true, v);
             },
             422,
             "PyTorchJob.kubeflow.org \"p\" is invalid: spec.pytorchReplicaSpecs.Worker.replicas: "
             "Invalid value: \"3\""},
            {"merge patch: unknown field",
             [&](int *v) {
                 return pytorch().mergePatch(R"({"spec":{"workerReplicas":3}})", true, v);
             },
             400, "unknown field \"spec.workerReplicas\""},
            {"merge patch: annotation value not a string",
             [&](int *v) {
                 return pytorch().mergePatch(
                     R"({"metadata":{"annotations":{"dl2.io/last-decision-slot":4}}})", true, v);
             },
             422, "metadata.annotations.dl2.io/last-decision-slot in body must be of type string"},
            {"merge patch: bad annotation key",
             [&](int *v) {
                 return pytorch().mergePatch(
                     R"({"metadata":{"annotations":{"dl2.io/last decision":"x"}}})", true, v);
             },
             422, "name part must consist of alphanumeric characters"},
            {"merge patch: removing a required field",
             [&](int *v) {
                 return pytorch().mergePatch(R"({"spec":{"pytorchReplicaSpecs":null}})", true, v);
             },
             422, "spec.pytorchReplicaSpecs: Required value"},
            {"merge patch: renaming",
             [&](int *v) { return pytorch().mergePatch(R"({"metadata":{"name":"q"}})", true, v); },
             422, "metadata.name: Invalid value: \"q\": field is immutable"},
            {"JSON patch: negative replicas",
             [&](int *v) {
                 return volcano().jsonPatch(
                     R"([{"op":"replace","path":"/spec/tasks/0/replicas","value":-1}])", true, v);
             },
             422, "spec.tasks[0].replicas in body should be greater than or equal to 0"},
            {"JSON patch: bad task name",
             [&](int *v) {
                 return volcano().jsonPatch(
                     R"([{"op":"replace","path":"/spec/tasks/0/name","value":"Worker_1"}])", true,
                     v);
             },
             422, "spec.tasks[0].name in body should match"},
            {"JSON patch: no tasks",
             [&](int *v) {
                 return volcano().jsonPatch(R"([{"op":"replace","path":"/spec/tasks","value":[]}])",
                                            true, v);
             },
             422, "spec.tasks in body should have at least 1 items"},
            {"JSON patch: unknown operation",
             [&](int *v) {
                 return volcano().jsonPatch(
                     R"([{"op":"set","path":"/spec/minAvailable","value":1}])", true, v);
             },
             400, "Unsupported value: \"set\""},
            {"JSON patch: not an array",
             [&](int *v) { return volcano().jsonPatch(R"({"op":"add"})", true, v); }, 400,
             "must be an array"},
            {"JSON patch: missing path",
             [&](int *v) {
                 return volcano().jsonPatch(
                     R"([{"op":"replace","path":"/spec/tasks/3/replicas","value":1}])", true, v);
             },
             422, "doc is missing path: /spec/tasks/3/replicas"},
            {"JSON patch: failed test",
             [&](int *v) {
                 return volcano().jsonPatch(
                     R"([{"op":"test","path":"/metadata/resourceVersion","value":"4"}])", true, v);
             },
             422, "testing value /metadata/resourceVersion failed"},
            {"Volcano: replicas below the task's minAvailable",
             [&](int *v) {
                 return volcano().jsonPatch(
                     R"([{"op":"replace","path":"/spec/tasks/0/replicas","value":1}])", true, v);
             },
             400, "denied the request: 'minAvailable' must be <= 'replicas' in task: worker"},
            {"Volcano: minAvailable above the replicas",
             [&](int *v) {
                 return volcano().jsonPatch(
                     R"([{"op":"replace","path":"/spec/minAvailable","value":3}])", true, v);
             },
             400, "job 'minAvailable' must not be greater than total replicas"},
            {"Volcano: another spec field",
             [&](int *v) {
                 return volcano().jsonPatch(
                     R"([{"op":"add","path":"/spec/queue","value":"other"}])", true, v);
             },
             400, "job updates may not change fields other than"},
        };
        for (const auto &c : cases) {
            const auto r = c.write(&rv);
            const QString message = r.body[QStringLiteral("message")].toString();
            QVERIFY2(r.status == c.status, qPrintable(QStringLiteral("%1: %2 %3")
                                                          .arg(QLatin1String(c.what))
                                                          .arg(r.status)
                                                          .arg(message)));
            QVERIFY2(message.contains(QLatin1String(c.message)),
                     qPrintable(QLatin1String(c.what) + QStringLiteral(": ") + message));
        }
        // Without strict validation an unknown field is dropped, as the API server prunes it.
        FakeResource p = pytorch();
        const auto r = p.mergePatch(R"({"spec":{"workerReplicas":3}})", false, &rv);
        QCOMPARE(r.status, 200);
        QVERIFY(!p.object[QStringLiteral("spec")].toObject().contains(
            QStringLiteral("workerReplicas")));
        QCOMPARE(p.pruned, QStringList{QStringLiteral("unknown field \"spec.workerReplicas\"")});
        // A valid write passes and bumps the resourceVersion.
        FakeResource v = volcano();
        const auto ok =
            v.jsonPatch(R"([{"op":"test","path":"/metadata/resourceVersion","value":"5"},
            {"op":"replace","path":"/spec/tasks/0/minAvailable","value":1},
            {"op":"replace","path":"/spec/tasks/0/replicas","value":1},
            {"op":"replace","path":"/spec/minAvailable","value":1}])",
                        true, &rv);
        QVERIFY2(ok.status == 200, qPrintable(ok.body[QStringLiteral("message")].toString()));
        QCOMPARE(v.object[QStringLiteral("metadata")]
                     .toObject()[QStringLiteral("resourceVersion")]
                     .toString(),
                 QString::number(rv));
    }
};

QTEST_GUILESS_MAIN(TestKubernetes)
#include "tst_kubernetes.moc"
