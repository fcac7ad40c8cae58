#pragma once
// Applies ResizeDecisions to Kubernetes training jobs through the API server (docs/model.md section 8):
//  - PyTorchJob (kubeflow.org/v1): workers only, through the scale subresource
//    (GET .../pytorchjobs/NAME/scale, PUT it back with the resourceVersion; 409 -> re-read and
//    retry), within spec.elasticPolicy min/maxReplicas; a PS change is reported, not applied.
//  - Volcano Job (batch.volcano.sh/v1alpha1): JSON patch of spec.tasks[i].replicas for the PS
//    and worker tasks (and the task's minAvailable, and the job's, when it would exceed the new
//    replicas), guarded by a "test" of metadata.resourceVersion (409 -> re-read and retry).
//  - TFJob (kubeflow.org/v1): merge patch of spec.tfReplicaSpecs.{PS,Worker}.replicas carrying
//    metadata.resourceVersion (409 -> re-read and retry). TFJob has no live resize: the
//    acknowledgment says that the PS/worker pods restart to pick the new counts up.
// Idempotent by decision id: the object's annotations dl2.io/last-decision and
// dl2.io/last-decision-slot record what was applied; an id already applied, or older than the
// last applied slot, is acknowledged as Duplicate. 404 / 422 -> Invalid with the server's
// message (404 as "job gone"); 401/403 -> dl2::Error (credentials). Every write carries
// ?fieldValidation=Strict: a field the server's schema does not know is refused, not dropped.
// The request bodies are checked against the published CRD schemas in the tests
// (tests/connectors/fixtures/kubernetes-schemas.json). --dry-run performs the reads
// and prints the exact mutating requests instead of sending them. Not a full ClusterConnector:
// KubernetesConnector (kubernetesconnector.h) builds snapshots and events on top of it. Not
// thread-safe; the object and its calls belong to one thread.

#include "clusterconnector.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

class QNetworkAccessManager;
class QUrl;

namespace dl2 {

struct KubernetesJobRef
{
    enum class Kind
    {
        PyTorchJob,
        VolcanoJob,
        TFJob
    };
    Kind kind = Kind::PyTorchJob;
    std::string ns = "default";
    std::string name;
    std::string psTask = "ps"; // Volcano task names
    std::string workerTask = "worker";
};

// {"jobs": {"3": {"kind": "PyTorchJob", "namespace": "ml", "name": "resnet-3"},
//           "7": {"kind": "VolcanoJob", "namespace": "ml", "name": "vgg-7",
//                 "ps_task": "ps", "worker_task": "worker"}}}
std::map<int, KubernetesJobRef> parseJobMap(const std::string &json, const std::string &origin);

struct KubernetesOptions
{
    std::string apiServer; // https://host:6443 or http://127.0.0.1:PORT
    std::string token;     // bearer token
    std::string tokenFile; // re-read before every request when set (rotating tokens)
    bool dryRun = false;
    int timeoutMs = 10'000;
    int conflictRetries = 3;
    std::string caFile;        // PEM; empty = system roots
    std::string caPem;         // PEM text (kubeconfig certificate-authority-data); wins over caFile
    std::string clientCertPem; // client certificate authentication (both or neither)
    std::string clientKeyPem;
    bool insecureSkipTlsVerify = false;
};

class KubernetesApplier
{
public:
    KubernetesApplier(KubernetesOptions options, std::map<int, KubernetesJobRef> jobs);
    ~KubernetesApplier();

    std::vector<Acknowledgment> apply(const std::vector<ResizeDecision> &decisions);
    // Where --dry-run prints ("PATCH URL\nheaders\n\nbody\n"); default stdout.
    void setRequestPrinter(std::function<void(const std::string &)> printer)
    {
        m_print = std::move(printer);
    }
    int requestsSent() const { return m_sent; }
    void setJobs(std::map<int, KubernetesJobRef> jobs) { m_jobs = std::move(jobs); }

    struct Reply
    {
        int status = 0;
        QByteArray body;
        QString error;
    };
    // A read with the same transport, credentials and error rules (unreachable, 401/403 ->
    // dl2::Error); path starts with "/".
    Reply get(const std::string &path) { return send("GET", path); }

    // Replaces HTTP with a function (fuzzing, tests): it receives method, path (with its
    // query), content type and body, and answers; the error rules above still apply.
    using Transport = std::function<Reply(const QByteArray &method, const std::string &path,
                                          const QByteArray &contentType, const QByteArray &body)>;
    void setTransport(Transport transport) { m_transport = std::move(transport); }

private:
    Reply send(const QByteArray &method, const std::string &path,
               const QByteArray &contentType = {}, const QByteArray &body = {},
               bool mutating = false);
    Reply sendHttp(const QByteArray &method, const QUrl &url, const QByteArray &contentType,
                   const QByteArray &body);
    Acknowledgment applyPyTorch(const ResizeDecision &d, const KubernetesJobRef &ref);
    Acknowledgment applyVolcano(const ResizeDecision &d, const KubernetesJobRef &ref);
    Acknowledgment applyTfJob(const ResizeDecision &d, const KubernetesJobRef &ref);
    std::optional<Acknowledgment> alreadyApplied(const ResizeDecision &d,
                                                 const QJsonObject &object) const;
    // GETs the job object into `job`; returns the acknowledgment instead when it cannot be
    // read or the decision (or a newer one) was already applied to it.
    std::optional<Acknowledgment> readJob(const ResizeDecision &d, const std::string &path,
                                          const std::string &what, QJsonObject &job);
    Acknowledgment failure(const ResizeDecision &d, const Reply &reply,
                           const std::string &what) const;

    KubernetesOptions m_options;
    std::map<int, KubernetesJobRef> m_jobs;
    std::unique_ptr<QNetworkAccessManager> m_network;
    std::function<void(const std::string &)> m_print;
    Transport m_transport;
    int m_sent = 0;
};

} // namespace dl2
