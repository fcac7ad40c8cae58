#include "kubernetesapplier.h"

#include "error.h"
#include "fileio.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslSocket>
#include <QTimer>
#include <QUrl>
#include <cctype>
#include <cstdio>

namespace dl2 {

namespace {

const char *kLastDecision = "dl2.io/last-decision";
// Every write asks the API server to refuse fields its schema does not know instead of
// silently dropping them (Kubernetes >= 1.25; older servers ignore the parameter).
const std::string kStrict = "?fieldValidation=Strict";
const char *kLastSlot = "dl2.io/last-decision-slot";

QJsonObject parseObject(const QByteArray &body)
{
    return QJsonDocument::fromJson(body).object();
}

QByteArray compact(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}
QByteArray compact(const QJsonArray &a)
{
    return QJsonDocument(a).toJson(QJsonDocument::Compact);
}

std::string serverMessage(const QByteArray &body)
{
    const QString m = parseObject(body).value(QStringLiteral("message")).toString();
    return m.isEmpty() ? body.left(200).toStdString() : m.toStdString();
}

} // namespace

std::map<int, KubernetesJobRef> parseJobMap(const std::string &json, const std::string &origin)
{
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json), &err);
    if (!doc.isObject() || !doc.object().value(QStringLiteral("jobs")).isObject())
        throw Error(origin +
                    ": expected {\"jobs\": {\"<job id>\": {\"kind\", \"namespace\", \"name\"}}} (" +
                    err.errorString().toStdString() + ")");
    std::map<int, KubernetesJobRef> out;
    const QJsonObject jobs = doc.object().value(QStringLiteral("jobs")).toObject();
    for (auto it = jobs.begin(); it != jobs.end(); ++it) {
        bool ok = false;
        const int id = it.key().toInt(&ok);
        if (!ok)
            throw Error(origin + ": job key '" + it.key().toStdString() + "' is not a job id");
        const QJsonObject o = it.value().toObject();
        KubernetesJobRef ref;
        const QString kind = o.value(QStringLiteral("kind")).toString();
        if (kind == QLatin1String("PyTorchJob"))
            ref.kind = KubernetesJobRef::Kind::PyTorchJob;
        else if (kind == QLatin1String("VolcanoJob") || kind == QLatin1String("Job"))
            ref.kind = KubernetesJobRef::Kind::VolcanoJob;
        else if (kind == QLatin1String("TFJob"))
            ref.kind = KubernetesJobRef::Kind::TFJob;
        else
            throw Error(origin + ": job " + std::to_string(id) + ": kind '" + kind.toStdString() +
                        "' (known: PyTorchJob, VolcanoJob, TFJob)");
        ref.ns =
            o.value(QStringLiteral("namespace")).toString(QStringLiteral("default")).toStdString();
        ref.name = o.value(QStringLiteral("name")).toString().toStdString();
        if (ref.name.empty())
            throw Error(origin + ": job " + std::to_string(id) + " has no name");
        ref.psTask =
            o.value(QStringLiteral("ps_task")).toString(QStringLiteral("ps")).toStdString();
        ref.workerTask =
            o.value(QStringLiteral("worker_task")).toString(QStringLiteral("worker")).toStdString();
        out[id] = ref;
    }
    return out;
}

KubernetesApplier::KubernetesApplier(KubernetesOptions options,
                                     std::map<int, KubernetesJobRef> jobs)
    : m_options(std::move(options)), m_jobs(std::move(jobs)),
      m_network(std::make_unique<QNetworkAccessManager>())
{
    while (!m_options.apiServer.empty() && m_options.apiServer.back() == '/')
        m_options.apiServer.pop_back();
    if (m_options.apiServer.empty())
        throw Error("no Kubernetes API server (--api URL)");
    m_print = [](const std::string &text) {
        std::fputs(text.c_str(), stdout);
        std::fflush(stdout);
    };
}

KubernetesApplier::~KubernetesApplier() = default;

KubernetesApplier::Reply KubernetesApplier::send(const QByteArray &method, const std::string &path,
                                                 const QByteArray &contentType,
                                                 const QByteArray &body, bool mutating)
{
    const QUrl url(QString::fromStdString(m_options.apiServer + path));
    if (mutating && m_options.dryRun) {
        QByteArray text = method + ' ' + url.toEncoded() +
                          "\nAuthorization: Bearer <redacted>\nAccept: application/json\n";
        if (!contentType.isEmpty())
            text += "Content-Type: " + contentType + '\n';
        text += '\n' + body + "\n\n";
        m_print(text.toStdString());
        return {200, {}, {}};
    }
    Reply r = m_transport ? m_transport(method, path, contentType, body)
                          : sendHttp(method, url, contentType, body);
    if (mutating)
        ++m_sent;
    if (r.status == 0)
        throw Error("Kubernetes API at " + m_options.apiServer +
                    " unreachable: " + r.error.toStdString());
    if (r.status == 401 || r.status == 403)
        throw Error("Kubernetes API rejected the credentials (" + std::to_string(r.status) +
                    (r.status == 401 ? " Unauthorized" : " Forbidden") +
                    "): " + serverMessage(r.body));
    return r;
}

KubernetesApplier::Reply KubernetesApplier::sendHttp(const QByteArray &method, const QUrl &url,
                                                     const QByteArray &contentType,
                                                     const QByteArray &body)
{
    QNetworkRequest request(url);
    std::string token = m_options.token;
    if (!m_options.tokenFile.empty()) {
        token = readFile(m_options.tokenFile);
        while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
            token.pop_back();
    }
    if (!token.empty())
        request.setRawHeader("Authorization", "Bearer " + QByteArray::fromStdString(token));
    request.setRawHeader("Accept", "application/json");
    if (!contentType.isEmpty())
        request.setHeader(QNetworkRequest::ContentTypeHeader, contentType);
    if (url.scheme() == QLatin1String("https")) {
        QSslConfiguration ssl = QSslConfiguration::defaultConfiguration();
        if (!m_options.caPem.empty())
            ssl.setCaCertificates(
                QSslCertificate::fromData(QByteArray::fromStdString(m_options.caPem)));
        else if (!m_options.caFile.empty())
            ssl.setCaCertificates(
                QSslCertificate::fromPath(QString::fromStdString(m_options.caFile)));
        if (!m_options.clientCertPem.empty()) {
            const QByteArray key = QByteArray::fromStdString(m_options.clientKeyPem);
            QSslKey privateKey(key, QSsl::Rsa);
            if (privateKey.isNull())
                privateKey = QSslKey(key, QSsl::Ec);
            if (privateKey.isNull())
                throw Error("the client key is not an RSA or EC private key in PEM");
            ssl.setLocalCertificate(
                QSslCertificate(QByteArray::fromStdString(m_options.clientCertPem)));
            ssl.setPrivateKey(privateKey);
        }
        if (m_options.insecureSkipTlsVerify)
            ssl.setPeerVerifyMode(QSslSocket::VerifyNone);
        request.setSslConfiguration(ssl);
    }
    request.setTransferTimeout(m_options.timeoutMs);
    QNetworkReply *reply = method == "GET"   ? m_network->get(request)
                           : method == "PUT" ? m_network->put(request, body)
                                             : m_network->sendCustomRequest(request, method, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(m_options.timeoutMs + 1000, &loop, &QEventLoop::quit); // bound
    loop.exec();
    Reply r;
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = reply->isFinished() ? reply->readAll() : QByteArray();
    r.error = reply->isFinished() ? reply->errorString() : QStringLiteral("timed out");
    reply->abort();
    reply->deleteLater();
    return r;
}

Acknowledgment KubernetesApplier::failure(const ResizeDecision &d, const Reply &reply,
                                          const std::string &what) const
{
    if (reply.status >= 500)
        throw Error(what + ": server error " + std::to_string(reply.status) + ": " +
                    serverMessage(reply.body));
    Acknowledgment a;
    a.decisionId = d.id;
    a.status = Acknowledgment::Status::Invalid;
    a.message = (reply.status == 404 ? "job gone: " : "") + what + " (" +
                std::to_string(reply.status) + "): " + serverMessage(reply.body);
    return a;
}

std::optional<Acknowledgment> KubernetesApplier::readJob(const ResizeDecision &d,
                                                         const std::string &path,
                                                         const std::string &what, QJsonObject &job)
{
    const Reply r = send("GET", path);
    if (r.status != 200)
        return failure(d, r, what);
    job = parseObject(r.body);
    return alreadyApplied(d, job);
}

std::optional<Acknowledgment> KubernetesApplier::alreadyApplied(const ResizeDecision &d,
                                                                const QJsonObject &object) const
{
    const QJsonObject annotations = object.value(QStringLiteral("metadata"))
                                        .toObject()
                                        .value(QStringLiteral("annotations"))
                                        .toObject();
    const QString last = annotations.value(QString::fromLatin1(kLastDecision)).toString();
    bool ok = false;
    const int lastSlot = annotations.value(QString::fromLatin1(kLastSlot)).toString().toInt(&ok);
    if (last.isEmpty() || !ok)
        return std::nullopt;
    if (last.toStdString() == d.id || lastSlot > d.slot)
        return Acknowledgment{d.id, Acknowledgment::Status::Duplicate,
                              last.toStdString() == d.id
                                  ? "already applied"
                                  : "a newer decision (" + last.toStdString() + ") was applied",
                              lastSlot};
    return std::nullopt;
}

Acknowledgment KubernetesApplier::applyPyTorch(const ResizeDecision &d, const KubernetesJobRef &ref)
{
    const std::string base =
        "/apis/kubeflow.org/v1/namespaces/" + ref.ns + "/pytorchjobs/" + ref.name;
    const std::string what = "PyTorchJob " + ref.ns + "/" + ref.name;
    QJsonObject job;
    if (auto done = readJob(d, base, what, job))
        return *done;
    const QJsonObject elastic = job.value(QStringLiteral("spec"))
                                    .toObject()
                                    .value(QStringLiteral("elasticPolicy"))
                                    .toObject();
    const int minReplicas = elastic.value(QStringLiteral("minReplicas")).toInt(0);
    const int maxReplicas = elastic.value(QStringLiteral("maxReplicas")).toInt(1 << 30);
    if (d.to.workers < minReplicas || d.to.workers > maxReplicas)
        return {d.id, Acknowledgment::Status::Invalid,
                what + ": " + std::to_string(d.to.workers) + " workers outside elasticPolicy " +
                    std::to_string(minReplicas) + ".." + std::to_string(maxReplicas),
                -1};
    bool scaled = false;
    for (int attempt = 0; attempt <= m_options.conflictRetries && !scaled; ++attempt) {
        Reply r = send("GET", base + "/scale");
        if (r.status != 200)
            return failure(d, r, what + " scale");
        const QJsonObject current = parseObject(r.body);
        QJsonObject metadata;
        metadata.insert(QStringLiteral("name"), QString::fromStdString(ref.name));
        metadata.insert(QStringLiteral("namespace"), QString::fromStdString(ref.ns));
        metadata.insert(QStringLiteral("resourceVersion"),
                        current.value(QStringLiteral("metadata"))
                            .toObject()
                            .value(QStringLiteral("resourceVersion")));
        QJsonObject scale{
            {QStringLiteral("apiVersion"), QStringLiteral("autoscaling/v1")},
            {QStringLiteral("kind"), QStringLiteral("Scale")},
            {QStringLiteral("metadata"), metadata},
            {QStringLiteral("spec"), QJsonObject{{QStringLiteral("replicas"), d.to.workers}}}};
        r = send("PUT", base + "/scale" + kStrict, "application/json", compact(scale), true);
        if (r.status == 200 || r.status == 201)
            scaled = true;
        else if (r.status != 409)
            return failure(d, r, what + " scale");
    }
    if (!scaled)
        throw Error(what + ": still conflicting after " +
                    std::to_string(m_options.conflictRetries) + " retries");
    const QJsonObject annotations{
        {QString::fromLatin1(kLastDecision), QString::fromStdString(d.id)},
        {QString::fromLatin1(kLastSlot), QString::number(d.slot)}};
    const Reply r =
        send("PATCH", base + kStrict, "application/merge-patch+json",
             compact(QJsonObject{{QStringLiteral("metadata"),
                                  QJsonObject{{QStringLiteral("annotations"), annotations}}}}),
             true);
    if (r.status != 200)
        throw Error(what + ": scaled, but recording the decision failed (" +
                    std::to_string(r.status) + "): " + serverMessage(r.body));
    Acknowledgment a{d.id, Acknowledgment::Status::Applied,
                     m_options.dryRun ? "dry run: not sent" : "", d.slot};
    if (d.to.ps != d.from.ps)
        a.message += std::string(a.message.empty() ? "" : "; ") +
                     "PyTorchJob has no parameter servers: PS change ignored";
    return a;
}

Acknowledgment KubernetesApplier::applyVolcano(const ResizeDecision &d, const KubernetesJobRef &ref)
{
    const std::string base =
        "/apis/batch.volcano.sh/v1alpha1/namespaces/" + ref.ns + "/jobs/" + ref.name;
    const std::string what = "Volcano job " + ref.ns + "/" + ref.name;
    for (int attempt = 0; attempt <= m_options.conflictRetries; ++attempt) {
        QJsonObject job;
        if (auto done = readJob(d, base, what, job))
            return *done;
        const QJsonObject spec = job.value(QStringLiteral("spec")).toObject();
        const QJsonArray tasks = spec.value(QStringLiteral("tasks")).toArray();
        int psIndex = -1, workerIndex = -1;
        for (int i = 0; i < tasks.size(); ++i) {
            const std::string name =
                tasks[i].toObject().value(QStringLiteral("name")).toString().toStdString();
            if (name == ref.psTask)
                psIndex = i;
            if (name == ref.workerTask)
                workerIndex = i;
        }
        if (workerIndex < 0 || (psIndex < 0 && d.to.ps > 0))
            return {d.id, Acknowledgment::Status::Invalid,
                    what + ": no task named '" + (workerIndex < 0 ? ref.workerTask : ref.psTask) +
                        "'",
                    -1};
        const QJsonObject metadata = job.value(QStringLiteral("metadata")).toObject();
        QJsonArray ops;
        ops.append(QJsonObject{
            {QStringLiteral("op"), QStringLiteral("test")},
            {QStringLiteral("path"), QStringLiteral("/metadata/resourceVersion")},
            {QStringLiteral("value"), metadata.value(QStringLiteral("resourceVersion"))}});
        auto replace = [&](const QString &path, int value) {
            ops.append(QJsonObject{{QStringLiteral("op"), QStringLiteral("replace")},
                                   {QStringLiteral("path"), path},
                                   {QStringLiteral("value"), value}});
        };
        // Volcano's admission webhook refuses a task whose minAvailable exceeds its replicas
        // (and its mutating webhook sets minAvailable = replicas when a job is created), so a
        // scale-down lowers the task's minAvailable with it.
        auto replicas = [&](int index, int value) {
            replace(QStringLiteral("/spec/tasks/%1/replicas").arg(index), value);
            const QJsonObject task = tasks[index].toObject();
            if (task.contains(QStringLiteral("minAvailable")) &&
                task.value(QStringLiteral("minAvailable")).toInt() > value)
                replace(QStringLiteral("/spec/tasks/%1/minAvailable").arg(index), value);
        };
        replicas(workerIndex, d.to.workers);
        int total = d.to.workers;
        if (psIndex >= 0) {
            replicas(psIndex, d.to.ps);
            total += d.to.ps;
        }
        if (spec.value(QStringLiteral("minAvailable")).toInt(0) > total)
            replace(QStringLiteral("/spec/minAvailable"), total);
        QJsonObject annotations = metadata.value(QStringLiteral("annotations")).toObject();
        annotations.insert(QString::fromLatin1(kLastDecision), QString::fromStdString(d.id));
        annotations.insert(QString::fromLatin1(kLastSlot), QString::number(d.slot));
        ops.append(QJsonObject{{QStringLiteral("op"), QStringLiteral("add")},
                               {QStringLiteral("path"), QStringLiteral("/metadata/annotations")},
                               {QStringLiteral("value"), annotations}});
        const Reply r =
            send("PATCH", base + kStrict, "application/json-patch+json", compact(ops), true);
        if (r.status == 200)
            return {d.id, Acknowledgment::Status::Applied,
                    m_options.dryRun ? "dry run: not sent" : "", d.slot};
        const bool testFailed = r.status == 422 && r.body.contains("test");
        if (r.status != 409 && !testFailed)
            return failure(d, r, what);
    }
    throw Error(what + ": still conflicting after " + std::to_string(m_options.conflictRetries) +
                " retries");
}

Acknowledgment KubernetesApplier::applyTfJob(const ResizeDecision &d, const KubernetesJobRef &ref)
{
    const std::string base = "/apis/kubeflow.org/v1/namespaces/" + ref.ns + "/tfjobs/" + ref.name;
    const std::string what = "TFJob " + ref.ns + "/" + ref.name;
    for (int attempt = 0; attempt <= m_options.conflictRetries; ++attempt) {
        QJsonObject job;
        if (auto done = readJob(d, base, what, job))
            return *done;
        const QJsonObject specs = job.value(QStringLiteral("spec"))
                                      .toObject()
                                      .value(QStringLiteral("tfReplicaSpecs"))
                                      .toObject();
        if (!specs.contains(QStringLiteral("Worker")) ||
            (d.to.ps > 0 && !specs.contains(QStringLiteral("PS"))))
            return {d.id, Acknowledgment::Status::Invalid,
                    what + ": no " + (specs.contains(QStringLiteral("Worker")) ? "PS" : "Worker") +
                        " replica spec",
                    -1};
        QJsonObject replicaSpecs{
            {QStringLiteral("Worker"), QJsonObject{{QStringLiteral("replicas"), d.to.workers}}}};
        if (specs.contains(QStringLiteral("PS")))
            replicaSpecs.insert(QStringLiteral("PS"),
                                QJsonObject{{QStringLiteral("replicas"), d.to.ps}});
        // A merge patch that names the resourceVersion is refused with 409 when it is stale.
        const QJsonObject patch{
            {QStringLiteral("metadata"),
             QJsonObject{
                 {QStringLiteral("resourceVersion"), job.value(QStringLiteral("metadata"))
                                                         .toObject()
                                                         .value(QStringLiteral("resourceVersion"))},
                 {QStringLiteral("annotations"),
                  QJsonObject{{QString::fromLatin1(kLastDecision), QString::fromStdString(d.id)},
                              {QString::fromLatin1(kLastSlot), QString::number(d.slot)}}}}},
            {QStringLiteral("spec"),
             QJsonObject{{QStringLiteral("tfReplicaSpecs"), replicaSpecs}}}};
        const Reply r =
            send("PATCH", base + kStrict, "application/merge-patch+json", compact(patch), true);
        if (r.status == 200) {
            Acknowledgment a{d.id, Acknowledgment::Status::Applied,
                             "TFJob has no live resize: replica counts patched, the PS/worker "
                             "pods restart to pick them up (progress since the last checkpoint "
                             "is lost)",
                             d.slot};
            if (m_options.dryRun)
                a.message = "dry run: not sent; " + a.message;
            return a;
        }
        if (r.status != 409)
            return failure(d, r, what);
    }
    throw Error(what + ": still conflicting after " + std::to_string(m_options.conflictRetries) +
                " retries");
}

std::vector<Acknowledgment> KubernetesApplier::apply(const std::vector<ResizeDecision> &decisions)
{
    std::vector<Acknowledgment> acks;
    for (const auto &d : decisions) {
        const auto it = m_jobs.find(d.job);
        if (it == m_jobs.end()) {
            acks.push_back({d.id, Acknowledgment::Status::Invalid,
                            "job " + std::to_string(d.job) + " is not in the job map", -1});
            continue;
        }
        if (d.to.ps < 0 || d.to.workers < 0) {
            acks.push_back({d.id, Acknowledgment::Status::Invalid, "negative replica count", -1});
            continue;
        }
        switch (it->second.kind) {
        case KubernetesJobRef::Kind::PyTorchJob:
            acks.push_back(applyPyTorch(d, it->second));
            break;
        case KubernetesJobRef::Kind::VolcanoJob:
            acks.push_back(applyVolcano(d, it->second));
            break;
        case KubernetesJobRef::Kind::TFJob:
            acks.push_back(applyTfJob(d, it->second));
            break;
        }
    }
    return acks;
}

} // namespace dl2
