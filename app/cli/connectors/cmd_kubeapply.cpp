// dl2 kube-apply --api URL --token-file F --jobs MAP.json (--audit FILE | --decisions FILE)
//               [--dry-run] [--ca PEM] [--json]
// Applies approved resize decisions to Kubernetes (PyTorchJob scale subresource, Volcano
// spec.tasks[i].replicas). With --audit: the log's committed-but-unacknowledged decisions,
// recording the send and the acknowledgments. --dry-run prints the exact mutating requests.
#include "auditlog.h"
#include "command.h"
#include "common.h"
#include "error.h"
#include "fileio.h"
#include "kubernetesapplier.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <cstdio>

namespace dl2::cli {

namespace {

std::vector<ResizeDecision> loadDecisions(const std::string &path)
{
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(readFile(path)));
    const QJsonArray array =
        doc.isArray() ? doc.array() : doc.object().value(QStringLiteral("decisions")).toArray();
    if (array.isEmpty() && !doc.isArray() && !doc.object().contains(QStringLiteral("decisions")))
        throw Error(path + ": expected a JSON array of decisions or {\"decisions\": [...]}");
    std::vector<ResizeDecision> out;
    for (const auto &v : array) {
        ResizeDecision d = decisionFromJson(v.toObject());
        if (d.id.empty())
            throw Error(path + ": a decision has no id");
        out.push_back(std::move(d));
    }
    return out;
}

int runKubeApply(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Apply approved resize decisions to Kubernetes training jobs: PyTorchJob (kubeflow.org/v1, "
        "workers through the scale subresource) and Volcano jobs (batch.volcano.sh/v1alpha1, "
        "spec.tasks[i].replicas). Idempotent by decision id (dl2.io/last-decision annotation)."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("api"), QStringLiteral("API server URL, e.g. https://10.0.0.1:6443."),
         QStringLiteral("URL")},
        {QStringLiteral("token-file"), QStringLiteral("Bearer token file (service account token)."),
         QStringLiteral("F")},
        {QStringLiteral("ca"), QStringLiteral("PEM CA bundle of the API server."),
         QStringLiteral("PEM")},
        {QStringLiteral("jobs"),
         QStringLiteral(
             "Job map JSON: {\"jobs\": {\"<id>\": {\"kind\", \"namespace\", \"name\"}}}."),
         QStringLiteral("FILE")},
        {QStringLiteral("audit"),
         QStringLiteral("Apply the audit log's unacknowledged decisions and record the acks."),
         QStringLiteral("FILE")},
        {QStringLiteral("decisions"),
         QStringLiteral("Apply the decisions of a JSON file (dl2 audit --decisions --json)."),
         QStringLiteral("FILE")},
        {QStringLiteral("dry-run"),
         QStringLiteral("Read, but print the mutating requests instead of sending them.")},
        {QStringLiteral("json"), QStringLiteral("Print the acknowledgments as JSON.")},
    });
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("kube-apply", [&] {
        if (parser.isSet(QStringLiteral("audit")) == parser.isSet(QStringLiteral("decisions")))
            throw Error("give exactly one of --audit FILE and --decisions FILE");
        if (!parser.isSet(QStringLiteral("jobs")))
            throw Error("--jobs MAP.json is required");
        KubernetesOptions o;
        o.apiServer = parser.value(QStringLiteral("api")).toStdString();
        o.dryRun = parser.isSet(QStringLiteral("dry-run"));
        o.caFile = parser.value(QStringLiteral("ca")).toStdString();
        if (parser.isSet(QStringLiteral("token-file"))) {
            o.token = readFile(parser.value(QStringLiteral("token-file")).toStdString());
            while (!o.token.empty() && std::isspace(static_cast<unsigned char>(o.token.back())))
                o.token.pop_back();
        }
        const std::string mapPath = parser.value(QStringLiteral("jobs")).toStdString();
        KubernetesApplier applier(o, parseJobMap(readFile(mapPath), mapPath));
        if (o.dryRun) // requests go to stdout; keep the summary off it
            applier.setRequestPrinter([](const std::string &t) { std::fputs(t.c_str(), stdout); });

        std::unique_ptr<AuditLog> audit;
        std::vector<ResizeDecision> decisions;
        if (parser.isSet(QStringLiteral("audit"))) {
            audit = std::make_unique<AuditLog>(parser.value(QStringLiteral("audit")).toStdString());
            decisions = audit->unacknowledged();
        } else {
            decisions = loadDecisions(parser.value(QStringLiteral("decisions")).toStdString());
        }
        if (audit && !o.dryRun)
            audit->recordSent(decisions, false, "kubernetes " + o.apiServer);
        const auto acks = applier.apply(decisions);
        if (audit && !o.dryRun)
            audit->recordAcks(acks);
        int invalid = 0;
        QJsonArray out;
        for (const auto &a : acks) {
            invalid += a.status == Acknowledgment::Status::Invalid;
            if (parser.isSet(QStringLiteral("json"))) {
                out.append(QJsonObject{
                    {QStringLiteral("decision_id"), QString::fromStdString(a.decisionId)},
                    {QStringLiteral("status"), QString::fromLatin1(toString(a.status))},
                    {QStringLiteral("message"), QString::fromStdString(a.message)}});
            } else {
                std::fprintf(o.dryRun ? stderr : stdout, "%-28s %-9s %s\n", a.decisionId.c_str(),
                             toString(a.status), a.message.c_str());
            }
        }
        if (parser.isSet(QStringLiteral("json")))
            printJson(
                QJsonObject{{QStringLiteral("acks"), out}, {QStringLiteral("dry_run"), o.dryRun}});
        return invalid ? 1 : 0;
    });
}

} // namespace

static CommandRegistration kubeapplyRegistration{
    {"kube-apply", "apply approved decisions to Kubernetes (PyTorchJob, Volcano)", runKubeApply}};

} // namespace dl2::cli
