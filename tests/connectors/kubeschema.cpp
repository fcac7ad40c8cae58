#include "kubeschema.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dl2::test {

namespace {

QString compact(const QJsonValue &v)
{
    if (v.isObject())
        return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    if (v.isArray())
        return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    if (v.isString())
        return QLatin1Char('"') + v.toString() + QLatin1Char('"');
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 17);
    return QStringLiteral("null");
}

QString typeName(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Object:
        return QStringLiteral("object");
    case QJsonValue::Array:
        return QStringLiteral("array");
    case QJsonValue::String:
        return QStringLiteral("string");
    case QJsonValue::Bool:
        return QStringLiteral("boolean");
    case QJsonValue::Double:
        return std::floor(v.toDouble()) == v.toDouble() ? QStringLiteral("integer")
                                                        : QStringLiteral("number");
    default:
        return QStringLiteral("null");
    }
}

bool isInteger(const QJsonValue &v)
{
    return v.isDouble() && std::isfinite(v.toDouble()) && std::floor(v.toDouble()) == v.toDouble();
}

bool hasType(const QJsonValue &v, const QString &type)
{
    if (type == QLatin1String("object"))
        return v.isObject();
    if (type == QLatin1String("array"))
        return v.isArray();
    if (type == QLatin1String("string"))
        return v.isString();
    if (type == QLatin1String("integer"))
        return isInteger(v);
    if (type == QLatin1String("number"))
        return v.isDouble();
    if (type == QLatin1String("boolean"))
        return v.isBool();
    return true;
}

bool isDateTime(const QString &s)
{
    static const QRegularExpression rfc3339(QStringLiteral(
        R"(^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$)"));
    return rfc3339.match(s).hasMatch() && QDateTime::fromString(s, Qt::ISODateWithMs).isValid();
}

// JSON pointer (RFC 6901) -> reference tokens; nothing when malformed.
std::optional<QStringList> pointerTokens(const QString &pointer)
{
    if (pointer.isEmpty())
        return QStringList{};
    if (!pointer.startsWith(QLatin1Char('/')))
        return std::nullopt;
    QStringList tokens = pointer.mid(1).split(QLatin1Char('/'));
    for (QString &t : tokens) {
        for (int i = 0; i < t.size(); ++i)
            if (t[i] == QLatin1Char('~') && (i + 1 >= t.size() || (t[i + 1] != QLatin1Char('0') &&
                                                                   t[i + 1] != QLatin1Char('1'))))
                return std::nullopt;
        t.replace(QLatin1String("~1"), QLatin1String("/"));
        t.replace(QLatin1String("~0"), QLatin1String("~"));
    }
    return tokens;
}

std::optional<int> arrayIndex(const QString &token, int size, bool allowEnd)
{
    if (allowEnd && token == QLatin1String("-"))
        return size;
    bool ok = false;
    const int i = token.toInt(&ok);
    if (!ok || i < 0 || (token.size() > 1 && token[0] == QLatin1Char('0')) ||
        token.startsWith(QLatin1Char('+')))
        return std::nullopt;
    if (i > size || (!allowEnd && i == size))
        return std::nullopt;
    return i;
}

std::optional<QJsonValue> valueAt(const QJsonValue &doc, const QStringList &tokens)
{
    QJsonValue node = doc;
    for (const QString &t : tokens) {
        if (node.isObject()) {
            if (!node.toObject().contains(t))
                return std::nullopt;
            node = node.toObject().value(t);
        } else if (node.isArray()) {
            const auto i = arrayIndex(t, int(node.toArray().size()), false);
            if (!i)
                return std::nullopt;
            node = node.toArray().at(*i);
        } else {
            return std::nullopt;
        }
    }
    return node;
}

enum class Edit
{
    Add,
    Replace,
    Remove
};

bool editAt(QJsonValue &node, const QStringList &tokens, int at, Edit op, const QJsonValue &value)
{
    const QString &key = tokens[at];
    const bool last = at + 1 == tokens.size();
    if (node.isObject()) {
        QJsonObject o = node.toObject();
        if (last) {
            if (op != Edit::Add && !o.contains(key))
                return false;
            if (op == Edit::Remove)
                o.remove(key);
            else
                o.insert(key, value);
        } else {
            if (!o.contains(key))
                return false;
            QJsonValue child = o.value(key);
            if (!editAt(child, tokens, at + 1, op, value))
                return false;
            o.insert(key, child);
        }
        node = o;
        return true;
    }
    if (node.isArray()) {
        QJsonArray a = node.toArray();
        const auto i = arrayIndex(key, int(a.size()), last && op == Edit::Add);
        if (!i)
            return false;
        if (last) {
            if (op == Edit::Add)
                a.insert(*i, value);
            else if (op == Edit::Replace)
                a.replace(*i, value);
            else
                a.removeAt(*i);
        } else {
            QJsonValue child = a.at(*i);
            if (!editAt(child, tokens, at + 1, op, value))
                return false;
            a.replace(*i, child);
        }
        node = a;
        return true;
    }
    return false;
}

bool edit(QJsonValue &doc, const QStringList &tokens, Edit op, const QJsonValue &value)
{
    if (tokens.isEmpty()) {
        if (op == Edit::Remove)
            return false;
        doc = value;
        return true;
    }
    return editAt(doc, tokens, 0, op, value);
}

QString fieldPath(const QString &parent, const QString &key)
{
    return parent.isEmpty() ? key : parent + QLatin1Char('.') + key;
}

// Qualified names as ObjectMeta validation checks annotation keys: [prefix/]name, name <= 63
// characters of [-A-Za-z0-9_.] starting and ending alphanumeric, prefix a DNS subdomain.
QString annotationKeyError(const QString &key)
{
    static const QRegularExpression name(
        QStringLiteral("^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"));
    static const QRegularExpression subdomain(
        QStringLiteral("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
    const QStringList parts = key.split(QLatin1Char('/'));
    if (parts.size() > 2)
        return QStringLiteral("a qualified name must consist of alphanumeric characters, '-', "
                              "'_' or '.', with an optional DNS subdomain prefix and '/'");
    const QString n = parts.back();
    if (n.isEmpty() || n.size() > 63 || !name.match(n).hasMatch())
        return QStringLiteral("name part must consist of alphanumeric characters, '-', '_' or "
                              "'.', and must start and end with an alphanumeric character "
                              "(at most 63 characters)");
    if (parts.size() == 2 &&
        (parts[0].isEmpty() || parts[0].size() > 253 || !subdomain.match(parts[0]).hasMatch()))
        return QStringLiteral("prefix part must be a lowercase RFC 1123 subdomain");
    return {};
}

QJsonObject metadataOf(const QJsonObject &o)
{
    return o.value(QStringLiteral("metadata")).toObject();
}

} // namespace

// ---- schemas ---------------------------------------------------------------------------

KubeSchemas::KubeSchemas(const QString &file)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        throw std::runtime_error("cannot read the schema fixture " + file.toStdString());
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (!doc.isObject())
        throw std::runtime_error("schema fixture " + file.toStdString() + ": " +
                                 err.errorString().toStdString());
    m_definitions = doc.object().value(QStringLiteral("definitions")).toObject();
}

const KubeSchemas &KubeSchemas::fixture()
{
    static const KubeSchemas schemas(QStringLiteral(DL2_KUBE_SCHEMAS));
    return schemas;
}

QJsonObject KubeSchemas::resolve(const QJsonObject &schema) const
{
    QJsonObject s = schema;
    for (int depth = 0; s.contains(QStringLiteral("$ref")) && depth < 16; ++depth) {
        const QString ref = s.value(QStringLiteral("$ref")).toString();
        const QString prefix = QStringLiteral("#/definitions/");
        if (!ref.startsWith(prefix) || !m_definitions.contains(ref.mid(prefix.size())))
            throw std::runtime_error("schema fixture: unresolved $ref " + ref.toStdString());
        s = m_definitions.value(ref.mid(prefix.size())).toObject();
    }
    return s;
}

std::vector<SchemaViolation> KubeSchemas::validate(const QString &definition,
                                                   const QJsonValue &value) const
{
    if (!m_definitions.contains(definition))
        throw std::runtime_error("schema fixture: no definition " + definition.toStdString());
    std::vector<SchemaViolation> out;
    check(m_definitions.value(definition).toObject(), value, QString(), {}, out);
    return out;
}

void KubeSchemas::check(const QJsonObject &schemaIn, const QJsonValue &v, const QString &path,
                        const QStringList &pointer, std::vector<SchemaViolation> &out) const
{
    const QJsonObject s = resolve(schemaIn);
    const QString where = path.isEmpty() ? QStringLiteral("<root>") : path;
    auto invalid = [&](const QString &detail) {
        out.push_back({path,
                       where + QStringLiteral(": Invalid value: ") + compact(v) +
                           QStringLiteral(": ") + detail,
                       false, pointer});
    };
    const bool preserve = s.value(QStringLiteral("x-kubernetes-preserve-unknown-fields")).toBool();
    const QString type = s.value(QStringLiteral("type")).toString();
    if (s.value(QStringLiteral("x-kubernetes-int-or-string")).toBool() && !isInteger(v) &&
        !v.isString())
        return invalid(where + QStringLiteral(" in body must be of type int-or-string: \"") +
                       typeName(v) + QLatin1Char('"'));
    if (!type.isEmpty() && !hasType(v, type))
        return invalid(where + QStringLiteral(" in body must be of type ") + type +
                       QStringLiteral(": \"") + typeName(v) + QLatin1Char('"'));
    if (s.contains(QStringLiteral("anyOf"))) {
        bool any = false;
        for (const auto &branch : s.value(QStringLiteral("anyOf")).toArray()) {
            std::vector<SchemaViolation> probe;
            check(branch.toObject(), v, path, pointer, probe);
            any |= probe.empty();
        }
        if (!any)
            return invalid(where + QStringLiteral(" in body must match a schema in anyOf"));
    }
    const QString format = s.value(QStringLiteral("format")).toString();
    if (isInteger(v) && format == QLatin1String("int32") &&
        (v.toDouble() < std::numeric_limits<std::int32_t>::min() ||
         v.toDouble() > std::numeric_limits<std::int32_t>::max()))
        invalid(where + QStringLiteral(" in body must be of type int32"));
    if (isInteger(v) && format == QLatin1String("int64") && std::fabs(v.toDouble()) > 9.2e18)
        invalid(where + QStringLiteral(" in body must be of type int64"));
    if (v.isString() && format == QLatin1String("date-time") && !isDateTime(v.toString()))
        invalid(where + QStringLiteral(" in body must be of type date-time: ") + compact(v));
    if (s.contains(QStringLiteral("enum")) &&
        !s.value(QStringLiteral("enum")).toArray().contains(v)) {
        QStringList supported;
        for (const auto &e : s.value(QStringLiteral("enum")).toArray())
            supported << compact(e);
        out.push_back({path,
                       where + QStringLiteral(": Unsupported value: ") + compact(v) +
                           QStringLiteral(": supported values: ") +
                           supported.join(QStringLiteral(", ")),
                       false, pointer});
    }
    if (v.isDouble() && s.contains(QStringLiteral("minimum")) &&
        v.toDouble() < s.value(QStringLiteral("minimum")).toDouble())
        invalid(where + QStringLiteral(" in body should be greater than or equal to ") +
                compact(s.value(QStringLiteral("minimum"))));
    if (v.isDouble() && s.contains(QStringLiteral("maximum")) &&
        v.toDouble() > s.value(QStringLiteral("maximum")).toDouble())
        invalid(where + QStringLiteral(" in body should be less than or equal to ") +
                compact(s.value(QStringLiteral("maximum"))));
    if (v.isString()) {
        const qsizetype n = v.toString().toUcs4().size();
        if (s.contains(QStringLiteral("maxLength")) &&
            n > s.value(QStringLiteral("maxLength")).toInt())
            invalid(where + QStringLiteral(" in body should be at most %1 chars long")
                                .arg(s.value(QStringLiteral("maxLength")).toInt()));
        if (s.contains(QStringLiteral("minLength")) &&
            n < s.value(QStringLiteral("minLength")).toInt())
            invalid(where + QStringLiteral(" in body should be at least %1 chars long")
                                .arg(s.value(QStringLiteral("minLength")).toInt()));
        if (s.contains(QStringLiteral("pattern"))) {
            const QString pattern = s.value(QStringLiteral("pattern")).toString();
            if (!QRegularExpression(pattern).match(v.toString()).hasMatch())
                invalid(where + QStringLiteral(" in body should match '") + pattern +
                        QLatin1Char('\''));
        }
    }
    if (v.isArray()) {
        const QJsonArray a = v.toArray();
        if (s.contains(QStringLiteral("minItems")) &&
            a.size() < s.value(QStringLiteral("minItems")).toInt())
            invalid(where + QStringLiteral(" in body should have at least %1 items")
                                .arg(s.value(QStringLiteral("minItems")).toInt()));
        if (s.contains(QStringLiteral("items")))
            for (qsizetype i = 0; i < a.size(); ++i)
                check(s.value(QStringLiteral("items")).toObject(), a.at(i),
                      path + QStringLiteral("[%1]").arg(i),
                      pointer + QStringList{QString::number(i)}, out);
    }
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (const auto &r : s.value(QStringLiteral("required")).toArray())
            if (!o.contains(r.toString()))
                out.push_back({fieldPath(path, r.toString()),
                               fieldPath(path, r.toString()) + QStringLiteral(": Required value"),
                               false, pointer + QStringList{r.toString()}});
        const QJsonObject properties = s.value(QStringLiteral("properties")).toObject();
        const QJsonValue additional = s.value(QStringLiteral("additionalProperties"));
        for (auto it = o.begin(); it != o.end(); ++it) {
            const QString child = fieldPath(path, it.key());
            const QStringList childPointer = pointer + QStringList{it.key()};
            if (properties.contains(it.key()))
                check(properties.value(it.key()).toObject(), it.value(), child, childPointer, out);
            else if (additional.isObject())
                check(additional.toObject(), it.value(), child, childPointer, out);
            else if (!preserve)
                out.push_back({child, QStringLiteral("unknown field \"") + child + QLatin1Char('"'),
                               true, childPointer});
        }
    }
}

// ---- patches ---------------------------------------------------------------------------

std::optional<QJsonValue> applyJsonPatch(const QJsonValue &document, const QJsonArray &ops,
                                         QString *error, bool *testFailed)
{
    QJsonValue doc = document;
    if (testFailed)
        *testFailed = false;
    for (const auto &item : ops) {
        const QJsonObject op = item.toObject();
        const QString kind = op.value(QStringLiteral("op")).toString();
        const QString path = op.value(QStringLiteral("path")).toString();
        const auto tokens = pointerTokens(path);
        if (!tokens) {
            *error = QStringLiteral("invalid JSON pointer '%1'").arg(path);
            return std::nullopt;
        }
        const bool needsValue = kind == QLatin1String("add") || kind == QLatin1String("replace") ||
                                kind == QLatin1String("test");
        if (needsValue && !op.contains(QStringLiteral("value"))) {
            *error = QStringLiteral("%1 operation at %2 has no value").arg(kind, path);
            return std::nullopt;
        }
        const QJsonValue value = op.value(QStringLiteral("value"));
        bool ok = false;
        if (kind == QLatin1String("add")) {
            ok = edit(doc, *tokens, Edit::Add, value);
        } else if (kind == QLatin1String("replace")) {
            ok = edit(doc, *tokens, Edit::Replace, value);
        } else if (kind == QLatin1String("remove")) {
            ok = edit(doc, *tokens, Edit::Remove, {});
        } else if (kind == QLatin1String("test")) {
            const auto current = valueAt(doc, *tokens);
            if (!current || *current != value) {
                *error = QStringLiteral("testing value %1 failed: test failed").arg(path);
                if (testFailed)
                    *testFailed = true;
                return std::nullopt;
            }
            ok = true;
        } else if (kind == QLatin1String("move") || kind == QLatin1String("copy")) {
            const auto from = pointerTokens(op.value(QStringLiteral("from")).toString());
            const auto moved = from ? valueAt(doc, *from) : std::nullopt;
            ok = moved && (kind == QLatin1String("copy") || edit(doc, *from, Edit::Remove, {})) &&
                 edit(doc, *tokens, Edit::Add, *moved);
        } else {
            *error = QStringLiteral("Unexpected kind: %1").arg(kind);
            return std::nullopt;
        }
        if (!ok) {
            *error = QStringLiteral("%1 operation does not apply: doc is missing path: %2")
                         .arg(kind, path);
            return std::nullopt;
        }
    }
    return doc;
}

QJsonValue applyMergePatch(const QJsonValue &target, const QJsonValue &patch)
{
    if (!patch.isObject())
        return patch;
    QJsonObject out = target.isObject() ? target.toObject() : QJsonObject();
    const QJsonObject p = patch.toObject();
    for (auto it = p.begin(); it != p.end(); ++it) {
        if (it.value().isNull())
            out.remove(it.key());
        else
            out.insert(it.key(), applyMergePatch(out.value(it.key()), it.value()));
    }
    return out;
}

// ---- the fake resource -----------------------------------------------------------------

QJsonObject apiStatusObject(int code, const QString &reason, const QString &message)
{
    return {{QStringLiteral("kind"), QStringLiteral("Status")},
            {QStringLiteral("apiVersion"), QStringLiteral("v1")},
            {QStringLiteral("status"), QStringLiteral("Failure")},
            {QStringLiteral("reason"), reason},
            {QStringLiteral("code"), code},
            {QStringLiteral("message"), message}};
}

FakeResource::FakeResource(QString definition, QString resource, QJsonObject o)
    : object(std::move(o)), m_definition(std::move(definition)), m_resource(std::move(resource))
{
}

QString FakeResource::name() const
{
    return metadataOf(object).value(QStringLiteral("name")).toString();
}

std::vector<SchemaViolation> FakeResource::selfCheck() const
{
    return KubeSchemas::fixture().validate(m_definition, object);
}

ApiReply FakeResource::invalid(const std::vector<SchemaViolation> &violations)
{
    QStringList messages;
    for (const auto &v : violations)
        messages << v.message;
    const QString kind = object.value(QStringLiteral("kind")).toString();
    const QString group = m_resource.section(QLatin1Char('.'), 1);
    QString text = messages.size() == 1
                       ? messages.front()
                       : QLatin1Char('[') + messages.join(QStringLiteral(", ")) + QLatin1Char(']');
    text = QStringLiteral("%1.%2 \"%3\" is invalid: %4").arg(kind, group, name(), text);
    schemaRejections << text;
    return {422, apiStatusObject(422, QStringLiteral("Invalid"), text)};
}

ApiReply FakeResource::accept(QJsonObject next, bool strict, int *resourceVersion)
{
    std::vector<SchemaViolation> violations = KubeSchemas::fixture().validate(m_definition, next);
    std::vector<SchemaViolation> unknown, bad;
    for (auto &v : violations)
        (v.unknownField ? unknown : bad).push_back(v);
    // ObjectMeta rules the API server applies to every object.
    const QJsonObject before = metadataOf(object), after = metadataOf(next);
    for (const char *key : {"name", "namespace"})
        if (after.value(QLatin1String(key)) != before.value(QLatin1String(key)))
            bad.push_back({QStringLiteral("metadata.") + QLatin1String(key),
                           QStringLiteral("metadata.%1: Invalid value: %2: field is immutable")
                               .arg(QLatin1String(key), compact(after.value(QLatin1String(key)))),
                           false,
                           {}});
    const QJsonObject annotations = after.value(QStringLiteral("annotations")).toObject();
    for (auto it = annotations.begin(); it != annotations.end(); ++it)
        if (const QString why = annotationKeyError(it.key()); !why.isEmpty())
            bad.push_back({QStringLiteral("metadata.annotations"),
                           QStringLiteral("metadata.annotations: Invalid value: \"%1\": %2")
                               .arg(it.key(), why),
                           false,
                           {}});
    if (!bad.empty())
        return invalid(bad);
    if (!unknown.empty()) {
        QStringList fields;
        for (const auto &u : unknown)
            fields << u.message;
        if (strict) {
            const QString text =
                QStringLiteral("strict decoding error: ") + fields.join(QStringLiteral(", "));
            schemaRejections << text;
            return {400, apiStatusObject(400, QStringLiteral("BadRequest"), text)};
        }
        pruned << fields; // the API server drops them (and warns)
        QJsonValue doc = next;
        for (const auto &u : unknown)
            edit(doc, u.pointer, Edit::Remove, {});
        next = doc.toObject();
    }
    if (admission) {
        if (const QString why = admission(object, next); !why.isEmpty()) {
            const QString text = QStringLiteral("admission webhook \"%1\" denied the request: %2")
                                     .arg(webhookName, why);
            return {400, apiStatusObject(400, QStringLiteral("BadRequest"), text)};
        }
    }
    QJsonObject md = metadataOf(next);
    md.insert(QStringLiteral("resourceVersion"), QString::number(++*resourceVersion));
    next.insert(QStringLiteral("metadata"), md);
    object = next;
    return {200, object};
}

ApiReply FakeResource::getScale() const
{
    const QJsonObject md = metadataOf(object);
    const QJsonValue replicas = object.value(QStringLiteral("spec"))
                                    .toObject()
                                    .value(QStringLiteral("pytorchReplicaSpecs"))
                                    .toObject()
                                    .value(QStringLiteral("Worker"))
                                    .toObject()
                                    .value(QStringLiteral("replicas"));
    return {200,
            {{QStringLiteral("kind"), QStringLiteral("Scale")},
             {QStringLiteral("apiVersion"), QStringLiteral("autoscaling/v1")},
             {QStringLiteral("metadata"),
              QJsonObject{{QStringLiteral("name"), md.value(QStringLiteral("name"))},
                          {QStringLiteral("namespace"), md.value(QStringLiteral("namespace"))},
                          {QStringLiteral("resourceVersion"),
                           md.value(QStringLiteral("resourceVersion"))}}},
             {QStringLiteral("spec"),
              QJsonObject{{QStringLiteral("replicas"), replicas.isUndefined() ? 1 : replicas}}},
             {QStringLiteral("status"),
              QJsonObject{{QStringLiteral("replicas"), replicas.isUndefined() ? 1 : replicas},
                          {QStringLiteral("selector"), QString()}}}}};
}

namespace {
ApiReply conflict(const QString &resource, const QString &name)
{
    return {409, apiStatusObject(409, QStringLiteral("Conflict"),
                                 QStringLiteral("Operation cannot be fulfilled on %1 \"%2\": the "
                                                "object has been modified; please apply your "
                                                "changes to the latest version and try again")
                                     .arg(resource, name))};
}
ApiReply badRequest(QStringList &rejections, const QString &text)
{
    rejections << text;
    return {400, apiStatusObject(400, QStringLiteral("BadRequest"), text)};
}
} // namespace

ApiReply FakeResource::putScale(const QByteArray &body, bool strict, int *resourceVersion)
{
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &err);
    if (!doc.isObject())
        return badRequest(schemaRejections,
                          QStringLiteral("couldn't decode the Scale: ") + err.errorString());
    const QJsonObject scale = doc.object();
    if ((scale.contains(QStringLiteral("apiVersion")) &&
         scale.value(QStringLiteral("apiVersion")) != QLatin1String("autoscaling/v1")) ||
        (scale.contains(QStringLiteral("kind")) &&
         scale.value(QStringLiteral("kind")) != QLatin1String("Scale")))
        return badRequest(schemaRejections,
                          QStringLiteral("the body is not an autoscaling/v1 Scale"));
    std::vector<SchemaViolation> violations =
        KubeSchemas::fixture().validate(QStringLiteral("Scale"), scale);
    std::vector<SchemaViolation> bad;
    QStringList unknown;
    for (const auto &v : violations) {
        if (!v.unknownField)
            bad.push_back(v);
        else
            unknown << v.message;
    }
    const int replicas =
        scale.value(QStringLiteral("spec")).toObject().value(QStringLiteral("replicas")).toInt(0);
    if (replicas < 0)
        bad.push_back({QStringLiteral("spec.replicas"),
                       QStringLiteral("spec.replicas: Invalid value: %1: must be greater than or "
                                      "equal to 0")
                           .arg(replicas),
                       false,
                       {}});
    if (!bad.empty()) {
        QStringList messages;
        for (const auto &b : bad)
            messages << b.message;
        const QString text = QStringLiteral("Scale.autoscaling \"%1\" is invalid: %2")
                                 .arg(name(), messages.join(QStringLiteral(", ")));
        schemaRejections << text;
        return {422, apiStatusObject(422, QStringLiteral("Invalid"), text)};
    }
    if (!unknown.isEmpty() && strict)
        return badRequest(schemaRejections, QStringLiteral("strict decoding error: ") +
                                                unknown.join(QStringLiteral(", ")));
    if (!unknown.isEmpty())
        pruned << unknown;
    const QJsonObject md = metadataOf(scale);
    if (md.contains(QStringLiteral("name")) && md.value(QStringLiteral("name")) != name())
        return badRequest(schemaRejections,
                          QStringLiteral("the name of the object (%1) does not match the name on "
                                         "the URL (%2)")
                              .arg(md.value(QStringLiteral("name")).toString(), name()));
    const QString rv = md.value(QStringLiteral("resourceVersion")).toString();
    if (!rv.isEmpty() &&
        rv != metadataOf(object).value(QStringLiteral("resourceVersion")).toString())
        return conflict(m_resource, name());
    // specReplicasPath of the PyTorchJob CRD: .spec.pytorchReplicaSpecs.Worker.replicas
    QJsonValue next = object;
    if (!edit(next,
              {QStringLiteral("spec"), QStringLiteral("pytorchReplicaSpecs"),
               QStringLiteral("Worker"), QStringLiteral("replicas")},
              Edit::Add, replicas))
        return {422,
                apiStatusObject(422, QStringLiteral("Invalid"),
                                QStringLiteral("spec.pytorchReplicaSpecs.Worker: Required value"))};
    const ApiReply r = accept(next.toObject(), strict, resourceVersion);
    return r.status == 200 ? getScale() : r;
}

ApiReply FakeResource::mergePatch(const QByteArray &body, bool strict, int *resourceVersion)
{
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &err);
    if (!doc.isObject())
        return badRequest(schemaRejections,
                          QStringLiteral("a merge patch must be a JSON object (%1)")
                              .arg(err.error == QJsonParseError::NoError ? QStringLiteral("array")
                                                                         : err.errorString()));
    const QJsonObject patch = doc.object();
    // A resourceVersion in the patch is a precondition (optimistic concurrency).
    const QJsonValue rv = metadataOf(patch).value(QStringLiteral("resourceVersion"));
    if (rv.isString() &&
        rv.toString() != metadataOf(object).value(QStringLiteral("resourceVersion")).toString())
        return conflict(m_resource, name());
    return accept(applyMergePatch(object, patch).toObject(), strict, resourceVersion);
}

ApiReply FakeResource::jsonPatch(const QByteArray &body, bool strict, int *resourceVersion)
{
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &err);
    if (!doc.isArray())
        return badRequest(schemaRejections, QStringLiteral("a JSON patch must be an array of "
                                                           "operations (RFC 6902)"));
    const auto shape = KubeSchemas::fixture().validate(QStringLiteral("JsonPatch"), doc.array());
    if (!shape.empty()) {
        QStringList messages;
        for (const auto &v : shape)
            messages << v.message;
        return badRequest(schemaRejections, QStringLiteral("malformed JSON patch: ") +
                                                messages.join(QStringLiteral(", ")));
    }
    QString why;
    bool testFailed = false;
    const auto patched = applyJsonPatch(object, doc.array(), &why, &testFailed);
    if (!patched) {
        if (!testFailed)
            schemaRejections << why;
        return {422, apiStatusObject(422, QStringLiteral("Invalid"), why)};
    }
    if (!patched->isObject())
        return badRequest(schemaRejections, QStringLiteral("the patch replaced the object"));
    return accept(patched->toObject(), strict, resourceVersion);
}

QString volcanoUpdateAdmission(const QJsonObject &before, const QJsonObject &after)
{
    QJsonObject oldSpec = before.value(QStringLiteral("spec")).toObject();
    QJsonObject newSpec = after.value(QStringLiteral("spec")).toObject();
    const QJsonArray tasks = newSpec.value(QStringLiteral("tasks")).toArray();
    long long total = 0;
    for (const auto &t : tasks) {
        const QJsonObject task = t.toObject();
        const QString name = task.value(QStringLiteral("name")).toString();
        const int replicas = task.value(QStringLiteral("replicas")).toInt(0);
        if (replicas < 0)
            return QStringLiteral("'replicas' must be >= 0 in task: %1").arg(name);
        if (task.contains(QStringLiteral("minAvailable")) &&
            task.value(QStringLiteral("minAvailable")).toInt() > replicas)
            return QStringLiteral("'minAvailable' must be <= 'replicas' in task: %1;").arg(name);
        total += replicas;
    }
    const int minAvailable = newSpec.value(QStringLiteral("minAvailable")).toInt(0);
    if (minAvailable > total)
        return QStringLiteral("job 'minAvailable' must not be greater than total replicas");
    if (minAvailable < 0)
        return QStringLiteral("job 'minAvailable' must be >= 0");
    const QJsonArray oldTasks = oldSpec.value(QStringLiteral("tasks")).toArray();
    if (oldTasks.size() != tasks.size())
        return QStringLiteral("job updates may not add or remove tasks");
    // Everything else in spec must stay as it was.
    for (const char *key : {"minAvailable", "priorityClassName"}) {
        if (oldSpec.contains(QLatin1String(key)))
            newSpec.insert(QLatin1String(key), oldSpec.value(QLatin1String(key)));
        else
            newSpec.remove(QLatin1String(key));
    }
    QJsonArray normalised;
    for (qsizetype i = 0; i < tasks.size(); ++i) {
        QJsonObject task = tasks.at(i).toObject();
        const QJsonObject old = oldTasks.at(i).toObject();
        for (const char *key : {"replicas", "minAvailable"}) {
            if (old.contains(QLatin1String(key)))
                task.insert(QLatin1String(key), old.value(QLatin1String(key)));
            else
                task.remove(QLatin1String(key));
        }
        normalised.append(task);
    }
    newSpec.insert(QStringLiteral("tasks"), normalised);
    if (newSpec != oldSpec)
        return QStringLiteral("job updates may not change fields other than `minAvailable`, "
                              "`tasks[*].replicas under spec`");
    return {};
}

FakeResource fakeJob(const QString &definition, QJsonObject job)
{
    const QJsonObject pod{
        {QStringLiteral("spec"),
         QJsonObject{
             {QStringLiteral("containers"),
              QJsonArray{QJsonObject{{QStringLiteral("name"), QStringLiteral("main")},
                                     {QStringLiteral("image"), QStringLiteral("trainer:1")}}}}}}};
    const bool volcano = definition == QLatin1String("VolcanoJob");
    QJsonObject spec = job.value(QStringLiteral("spec")).toObject();
    if (volcano) {
        QJsonArray tasks = spec.value(QStringLiteral("tasks")).toArray();
        for (auto t : tasks) {
            QJsonObject task = t.toObject();
            task.insert(QStringLiteral("template"), pod);
            t = task;
        }
        spec.insert(QStringLiteral("tasks"), tasks);
    } else {
        const QString key = definition == QLatin1String("TFJob")
                                ? QStringLiteral("tfReplicaSpecs")
                                : QStringLiteral("pytorchReplicaSpecs");
        QJsonObject specs = spec.value(key).toObject();
        for (auto it = specs.begin(); it != specs.end(); ++it) {
            QJsonObject replica = it.value().toObject();
            replica.insert(QStringLiteral("template"), pod);
            it.value() = replica;
        }
        spec.insert(key, specs);
    }
    job.insert(QStringLiteral("spec"), spec);
    FakeResource r(definition,
                   volcano ? QStringLiteral("jobs.batch.volcano.sh")
                   : definition == QLatin1String("TFJob")
                       ? QStringLiteral("tfjobs.kubeflow.org")
                       : QStringLiteral("pytorchjobs.kubeflow.org"),
                   job);
    if (volcano) {
        r.webhookName = QStringLiteral("validatejob.volcano.sh");
        r.admission = [](const QJsonObject &before, const QJsonObject &after) {
            if (QString why = volcanoUpdateAdmission(before, after); !why.isEmpty())
                return why;
            const QJsonArray tasks = after.value(QStringLiteral("spec"))
                                         .toObject()
                                         .value(QStringLiteral("tasks"))
                                         .toArray();
            for (qsizetype i = 0; i < tasks.size(); ++i)
                if (const int n = tasks[i].toObject().value(QStringLiteral("replicas")).toInt();
                    n > 100)
                    return QStringLiteral("spec.tasks[%1].replicas: Invalid value: %2: exceeds the "
                                          "queue's capability of 100")
                        .arg(i)
                        .arg(n);
            return QString();
        };
    }
    return r;
}

QByteArray pathWithoutQuery(const QByteArray &path)
{
    const int q = path.indexOf('?');
    return q < 0 ? path : path.left(q);
}

bool hasQueryParameter(const QByteArray &path, const QByteArray &nameValue)
{
    const int q = path.indexOf('?');
    if (q < 0)
        return false;
    for (const QByteArray &p : path.mid(q + 1).split('&'))
        if (p == nameValue)
            return true;
    return false;
}

} // namespace dl2::test
