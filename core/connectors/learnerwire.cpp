#include "learnerwire.h"

#include "error.h"
#include "protoconvert.h"
#include "resizedecision.h"

#include "dl2_agent_v1.pb.h"

#include <QDataStream>
#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace dl2 {

namespace {

constexpr quint32 kMagic = 0x444c324c; // "DL2L"
constexpr quint32 kMaxFrame = 1u << 30;

const char *verdictName(GateEntry::Verdict v)
{
    switch (v) {
    case GateEntry::Verdict::Approved:
        return "approved";
    case GateEntry::Verdict::Rejected:
        return "rejected";
    case GateEntry::Verdict::Pending:
        break;
    }
    return "pending";
}

} // namespace

QByteArray encodeLearnerFrame(const LearnerSlotFrame &frame, const ProfileSet &profiles)
{
    agent::v1::Snapshot snapshot;
    agentproto::fill(snapshot, frame.view, profiles);
    for (int i = 0; i < snapshot.jobs_size() && i < int(frame.view.jobs.size()); ++i)
        if (frame.view.jobs[size_t(i)].totalEpochs != frame.view.jobs[size_t(i)].estimatedEpochs)
            snapshot.mutable_jobs(i)->set_true_total_epochs(frame.view.jobs[size_t(i)].totalEpochs);
    const std::string view = snapshot.SerializeAsString();
    QJsonArray entries;
    for (const GateEntry &e : frame.entries) {
        QJsonObject o;
        o.insert(QStringLiteral("decision"), toJson(e.decision));
        o.insert(QStringLiteral("verdict"), QString::fromLatin1(verdictName(e.verdict)));
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
    agent::v1::Snapshot snapshot;
    if (!snapshot.ParseFromArray(view.constData(), int(view.size())))
        throw Error("learner frame: the view is not a readable snapshot");
    frame.view = agentproto::toView(snapshot, profiles);
    QJsonParseError jsonError;
    const QJsonDocument doc = QJsonDocument::fromJson(entries, &jsonError);
    if (!doc.isArray())
        throw Error("learner frame: the gate entries are not a JSON array: " +
                    jsonError.errorString().toStdString());
    for (const QJsonValue &v : doc.array()) {
        const QJsonObject o = v.toObject();
        GateEntry e;
        e.decision = decisionFromJson(o.value(QStringLiteral("decision")).toObject());
        const QString verdict = o.value(QStringLiteral("verdict")).toString();
        e.verdict = verdict == QLatin1String("approved")   ? GateEntry::Verdict::Approved
                    : verdict == QLatin1String("rejected") ? GateEntry::Verdict::Rejected
                                                           : GateEntry::Verdict::Pending;
        e.reason = o.value(QStringLiteral("reason")).toString().toStdString();
        frame.entries.push_back(std::move(e));
    }
    return frame;
}

} // namespace dl2
