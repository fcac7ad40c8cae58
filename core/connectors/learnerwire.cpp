#include "learnerwire.h"

#include "error.h"
#include "protoconvert.h"
#include "resizedecision.h"

#include <QDataStream>
#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace dl2 {

namespace {

constexpr quint32 kMagic = 0x444c324c; // "DL2L"
constexpr quint32 kMaxFrame = 1u << 30;

} // namespace

QByteArray encodeLearnerFrame(const LearnerSlotFrame &frame, const ProfileSet &profiles)
{
    const std::string view = agentproto::recordedView(frame.view, profiles);
    QJsonArray entries;
    for (const GateEntry &e : frame.entries) {
        QJsonObject o;
        o.insert(QStringLiteral("decision"), toJson(e.decision));
        o.insert(QStringLiteral("verdict"), QString::fromLatin1(toString(e.verdict)));
        o.insert(QStringLiteral("reason"), QString::fromStdString(e.reason));
        entries.append(o);
    }
    QByteArray payload;
    {
        QDataStream out(&payload, QIODevice::WriteOnly);
        out.setVersion(QDataStream::Qt_6_4);
        out << kMagic << qint32(frame.version)
            << QByteArray(view.data(), qsizetype(view.size()))
            << QJsonDocument(entries).toJson(QJsonDocument::Compact) << frame.trace;
    }
    QByteArray framed;
    QDataStream(&framed, QIODevice::WriteOnly) << quint32(payload.size());
    return framed + payload;
}

std::optional<LearnerSlotFrame> takeLearnerFrame(QByteArray &buffer, const ProfileSet &profiles)
{
    if (buffer.size() < 4)
        return std::nullopt;
    quint32 length = 0;
    QDataStream(buffer.left(4)) >> length;
    if (length > kMaxFrame)
        throw Error("learner frame: length " + std::to_string(length) + " is not a frame's");
    if (quint32(buffer.size()) < 4 + length)
        return std::nullopt;
    const QByteArray payload = buffer.mid(4, qsizetype(length));
    buffer.remove(0, 4 + qsizetype(length));
    QDataStream in(payload);
    in.setVersion(QDataStream::Qt_6_4);
    quint32 magic = 0;
    qint32 version = 0;
    QByteArray view, entries;
    LearnerSlotFrame frame;
    in >> magic >> version >> view >> entries >> frame.trace;
    if (in.status() != QDataStream::Ok || magic != kMagic)
        throw Error("learner frame: not a slot frame of the console");
    frame.version = version;
    try {
        frame.view = agentproto::fromRecordedView(view, profiles);
    } catch (const Error &e) {
        throw Error(std::string("learner frame: the view: ") + e.what());
    }
    QJsonParseError jsonError;
    const QJsonDocument doc = QJsonDocument::fromJson(entries, &jsonError);
    if (!doc.isArray())
        throw Error("learner frame: the gate entries are not a JSON array: " +
                    jsonError.errorString().toStdString());
    for (const QJsonValue &v : doc.array()) {
        const QJsonObject o = v.toObject();
        GateEntry e;
        e.decision = decisionFromJson(o.value(QStringLiteral("decision")).toObject());
        const std::string verdict = o.value(QStringLiteral("verdict")).toString().toStdString();
        for (const auto v : {GateEntry::Verdict::Approved, GateEntry::Verdict::Rejected})
            if (verdict == toString(v))
                e.verdict = v;
        e.reason = o.value(QStringLiteral("reason")).toString().toStdString();
        frame.entries.push_back(std::move(e));
    }
    return frame;
}

} // namespace dl2
