#pragma once
// The request side of the tests' fake Kubernetes API servers: pulls complete HTTP/1.1
// requests (headers + Content-Length body) off a connection's buffer. Also the resize
// decision both Kubernetes tests send.

#include "resizedecision.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <optional>

namespace dl2::test {

struct Request
{
    QByteArray method, path, contentType, body;
    QByteArray authorization; // the Authorization header's value
};

// The first complete request in `buf` (removed from it), or nothing while it is incomplete.
inline std::optional<Request> takeRequest(QByteArray &buf)
{
    const int end = buf.indexOf("\r\n\r\n");
    if (end < 0)
        return std::nullopt;
    const QList<QByteArray> lines = buf.left(end).split('\n');
    Request r;
    const QList<QByteArray> first = lines.front().trimmed().split(' ');
    r.method = first.value(0);
    r.path = first.value(1);
    int length = 0;
    for (const auto &l : lines.mid(1)) {
        const int colon = l.indexOf(':');
        const QByteArray key = l.left(colon).trimmed().toLower(),
                         value = l.mid(colon + 1).trimmed();
        if (key == "content-length")
            length = value.toInt();
        else if (key == "authorization")
            r.authorization = value;
        else if (key == "content-type")
            r.contentType = value;
    }
    if (buf.size() < end + 4 + length)
        return std::nullopt;
    r.body = buf.mid(end + 4, length);
    buf.remove(0, end + 4 + length);
    return r;
}

// A Kubernetes API Status object, as the API server returns it with an error code.
inline QJsonObject apiStatus(int code, const QString &message)
{
    return {{QStringLiteral("kind"), QStringLiteral("Status")},
            {QStringLiteral("code"), code},
            {QStringLiteral("message"), message}};
}

// A complete HTTP/1.1 response carrying `body` as JSON.
inline QByteArray httpResponse(int code, const QJsonObject &body)
{
    const QByteArray payload = QJsonDocument(body).toJson(QJsonDocument::Compact);
    const char *reason = code == 200   ? "OK"
                         : code == 401 ? "Unauthorized"
                         : code == 403 ? "Forbidden"
                         : code == 404 ? "Not Found"
                         : code == 409 ? "Conflict"
                         : code == 422 ? "Unprocessable Entity"
                                       : "Error";
    return "HTTP/1.1 " + QByteArray::number(code) + ' ' + reason +
           "\r\nContent-Type: application/json\r\nContent-Length: " +
           QByteArray::number(payload.size()) + "\r\n\r\n" + payload;
}

inline ResizeDecision decision(const std::string &id, int slot, int job, Allocation from,
                               Allocation to)
{
    ResizeDecision d;
    d.id = id;
    d.slot = slot;
    d.job = job;
    d.from = std::move(from);
    d.to = std::move(to);
    return d;
}

} // namespace dl2::test
