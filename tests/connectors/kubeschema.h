#pragma once
// What the tests' fake Kubernetes API servers check before they accept a write, as the real
// API server does for these custom resources:
//  - a validator for the subset of OpenAPI v3 / JSON Schema that structural CRD schemas use
//    (type, format int32/int64/date-time, properties, additionalProperties, required, items,
//    minItems, minimum, maximum, minLength, maxLength, pattern, enum, anyOf with
//    x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields, $ref to a definition);
//    fields no schema declares are reported apart ("unknown"): the API server prunes them, or
//    refuses them with 400 under ?fieldValidation=Strict;
//  - JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386);
//  - the writes the applier makes, each ending in the object's validation:
//    PUT .../pytorchjobs/NAME/scale (autoscaling/v1 Scale), merge patch, JSON patch; and the
//    update rules of Volcano's admission webhook (validateJobUpdate).
// The schemas come from tests/connectors/fixtures/kubernetes-schemas.json (provenance inside).
//
// No Debian package fits: libvalijson-dev (the only C++ JSON Schema validator in Debian 12)
// depends on qtbase5-dev, libpoco-dev and five JSON libraries, and knows none of the
// Kubernetes rules above (pruning, int-or-string, preserve-unknown-fields, integer formats).

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>
#include <vector>

namespace dl2::test {

struct SchemaViolation
{
    QString path;    // "spec.tasks[1].replicas"
    QString message; // "spec.tasks[1].replicas: Invalid value: -1: ... greater than or equal to 0"
    bool unknownField = false; // a field no schema declares (pruned, or 400 when strict)
    QStringList pointer;       // the value's location as JSON pointer tokens
};

class KubeSchemas
{
public:
    explicit KubeSchemas(const QString &file);
    // The fixture next to the tests (DL2_KUBE_SCHEMAS, set by CMake).
    static const KubeSchemas &fixture();

    // Validates `value` against definitions[definition]; empty = valid.
    std::vector<SchemaViolation> validate(const QString &definition, const QJsonValue &value) const;
    bool has(const QString &definition) const { return m_definitions.contains(definition); }

private:
    void check(const QJsonObject &schema, const QJsonValue &value, const QString &path,
               const QStringList &pointer, std::vector<SchemaViolation> &out) const;
    QJsonObject resolve(const QJsonObject &schema) const;
    QJsonObject m_definitions;
};

// RFC 6902. Returns the patched document, or nothing with `error` set ("testing value
// /metadata/resourceVersion failed", "path /spec/x does not exist", ...). `testFailed` tells
// a failed "test" operation from a malformed or inapplicable one.
std::optional<QJsonValue> applyJsonPatch(const QJsonValue &document, const QJsonArray &ops,
                                         QString *error, bool *testFailed = nullptr);
// RFC 7386.
QJsonValue applyMergePatch(const QJsonValue &target, const QJsonValue &patch);

// A write as the API server answers it: status code and body (the object, or a Status).
struct ApiReply
{
    int status = 200;
    QJsonObject body;
};

// Builds a Kubernetes Status object.
QJsonObject apiStatusObject(int code, const QString &reason, const QString &message);

// One stored custom resource and the writes the applier makes to it. `definition` names its
// schema (PyTorchJob, TFJob, VolcanoJob), `resource` its API name for messages
// ("pytorchjobs.kubeflow.org"). Every write is validated: the request body (Scale, JSON
// patch, merge patch), then the object it produces; on success the object is replaced, its
// resourceVersion bumped from `*resourceVersion`. `strict`: the request carried
// ?fieldValidation=Strict (unknown fields -> 400 instead of being pruned).
class FakeResource
{
public:
    FakeResource() = default;
    FakeResource(QString definition, QString resource, QJsonObject object);

    QJsonObject object;
    // Extra admission rule (a webhook): returns an error message to refuse the new object.
    std::function<QString(const QJsonObject &before, const QJsonObject &after)> admission;
    QString webhookName;

    ApiReply putScale(const QByteArray &body, bool strict, int *resourceVersion);
    ApiReply getScale() const;
    ApiReply mergePatch(const QByteArray &body, bool strict, int *resourceVersion);
    ApiReply jsonPatch(const QByteArray &body, bool strict, int *resourceVersion);

    // Violations of the stored object itself (test fixtures must be valid objects).
    std::vector<SchemaViolation> selfCheck() const;
    // Every request body or object refused for its schema (not for conflicts or admission
    // rules): tests assert the applier never produced one.
    QStringList schemaRejections;
    // Unknown fields a non-strict write dropped.
    QStringList pruned;

private:
    ApiReply accept(QJsonObject next, bool strict, int *resourceVersion);
    ApiReply invalid(const std::vector<SchemaViolation> &violations);
    QString name() const;
    QString m_definition, m_resource;
};

// Volcano's validating admission webhook on update (volcano-sh/volcano,
// pkg/webhooks/admission/jobs/validate/admit_job.go, validateJobUpdate): replicas >= 0,
// task minAvailable <= its replicas, job minAvailable <= total replicas and >= 0, no task
// added or removed, and nothing else in spec changed but minAvailable, priorityClassName and
// tasks[*].replicas / minAvailable. Returns the webhook's message, or empty.
QString volcanoUpdateAdmission(const QJsonObject &before, const QJsonObject &after);

// A stored training job as the API server holds it: `job` with a pod template (containers, as
// the operators require) added to every replica spec / task, its schema picked by
// `definition` (PyTorchJob, TFJob, VolcanoJob); a Volcano job sits behind Volcano's update
// webhook plus a site rule of at most 100 replicas per task (a queue's capability).
FakeResource fakeJob(const QString &definition, QJsonObject job);

// "name=value" query parameters of a request path; the path without them.
QByteArray pathWithoutQuery(const QByteArray &path);
bool hasQueryParameter(const QByteArray &path, const QByteArray &nameValue);

} // namespace dl2::test
