// dl2 audit FILE [--csv|--json] [--job ID] [--since TIME] [--decisions]
// Lists or exports an audit log: the event trail (default) or the decisions with their state.
#include "auditlog.h"
#include "command.h"
#include "common.h"
#include "error.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <cstdio>

namespace dl2::cli {

namespace {

std::string csvField(const std::string &s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos)
        return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

// "2 PS / 3 workers (approved)" for the table; the JSON/CSV exports keep everything.
std::string brief(const std::string &json)
{
    if (json.empty())
        return {};
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
    std::string text = describe(allocationFromJson(o));
    if (o.contains(QStringLiteral("verdict")))
        text += " (" + o.value(QStringLiteral("verdict")).toString().toStdString() + ")";
    return text;
}

std::string optionalText(const std::optional<double> &v)
{
    if (!v)
        return {};
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4g", *v);
    return buffer;
}

// The policy's probability and V(s) as proposed (learned policies only).
void insertConfidence(QJsonObject &o, const std::optional<double> &probability,
                      const std::optional<double> &value)
{
    o.remove(QStringLiteral("probability"));
    o.remove(QStringLiteral("value"));
    if (probability)
        o.insert(QStringLiteral("probability"), *probability);
    if (value)
        o.insert(QStringLiteral("value"), *value);
}

int runAudit(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "List or export an audit log written by dl2 operate or the console: every proposal, "
        "operator action, send and acknowledgment (default), or the decisions and their state "
        "(--decisions). A learned policy's probability of each proposal and its value estimate "
        "V(s) are shown with the proposal (\"probability\", \"value\"). An audit log of an "
        "older schema is migrated when opened."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("Audit log (SQLite)."));
    parser.addOptions({
        {QStringLiteral("csv"), QStringLiteral("CSV output.")},
        {QStringLiteral("json"), QStringLiteral("JSON output.")},
        {QStringLiteral("decisions"), QStringLiteral("List decisions instead of events.")},
        {QStringLiteral("job"), QStringLiteral("Only this job."), QStringLiteral("ID")},
        {QStringLiteral("since"),
         QStringLiteral("Only events at or after this UTC time (ISO 8601, e.g. 2026-01-31T12:00)."),
         QStringLiteral("TIME")},
    });
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("audit", [&] {
        const QStringList files = parser.positionalArguments();
        if (files.size() != 1)
            throw Error("expected one audit log file");
        if (!QFileInfo::exists(files[0]))
            throw Error("audit log '" + files[0].toStdString() + "' does not exist");
        if (parser.isSet(QStringLiteral("csv")) && parser.isSet(QStringLiteral("json")))
            throw Error("--csv and --json exclude each other");
        std::optional<int> job;
        if (parser.isSet(QStringLiteral("job"))) {
            bool ok = false;
            job = parser.value(QStringLiteral("job")).toInt(&ok);
            if (!ok)
                throw Error("--job: expected a job id, got '" +
                            parser.value(QStringLiteral("job")).toStdString() + "'");
        }
        std::string since;
        if (parser.isSet(QStringLiteral("since"))) {
            QDateTime t =
                QDateTime::fromString(parser.value(QStringLiteral("since")), Qt::ISODateWithMs);
            if (!t.isValid())
                throw Error("--since: expected an ISO 8601 time, got '" +
                            parser.value(QStringLiteral("since")).toStdString() + "'");
            if (t.timeSpec() == Qt::LocalTime)
                t.setTimeSpec(Qt::UTC);
            since = t.toUTC().toString(Qt::ISODateWithMs).toStdString();
        }
        AuditLog log(files[0].toStdString());
        const bool csv = parser.isSet(QStringLiteral("csv"));
        const bool json = parser.isSet(QStringLiteral("json"));

        if (parser.isSet(QStringLiteral("decisions"))) {
            const auto records = log.decisions(job);
            if (json) {
                QJsonArray arr;
                for (const auto &r : records) {
                    QJsonObject o = toJson(r.decision);
                    insertConfidence(o, r.probability, r.value);
                    if (!r.policyVersion.empty())
                        o.insert(QStringLiteral("policy_version"),
                                 QString::fromStdString(r.policyVersion));
                    o.insert(QStringLiteral("state"), QString::fromStdString(r.state));
                    o.insert(QStringLiteral("ack"), QString::fromStdString(r.ack));
                    arr.append(o);
                }
                QJsonObject root;
                root.insert(QStringLiteral("run_id"), QString::fromStdString(log.runId()));
                root.insert(QStringLiteral("decisions"), arr);
                printJson(root);
                return 0;
            }
            if (csv)
                std::printf("id,slot,job,from_ps,from_workers,to_ps,to_workers,speed_before,speed_"
                            "after,state,ack,probability,value\n");
            else
                std::printf("%-28s %5s %5s %-16s %-16s %-13s %-9s %8s %9s\n", "decision", "slot",
                            "job", "from", "to", "state", "ack", "p", "V(s)");
            for (const auto &r : records) {
                const auto &d = r.decision;
                if (csv)
                    std::printf("%s,%d,%d,%d,%d,%d,%d,%.6g,%.6g,%s,%s,%s,%s\n",
                                csvField(d.id).c_str(), d.slot, d.job, d.from.ps, d.from.workers,
                                d.to.ps, d.to.workers, d.speedBefore, d.speedAfter, r.state.c_str(),
                                r.ack.c_str(), optionalText(r.probability).c_str(),
                                optionalText(r.value).c_str());
                else
                    std::printf("%-28s %5d %5d %-16s %-16s %-13s %-9s %8s %9s\n", d.id.c_str(),
                                d.slot, d.job, describe(d.from).c_str(), describe(d.to).c_str(),
                                r.state.c_str(), r.ack.c_str(), optionalText(r.probability).c_str(),
                                optionalText(r.value).c_str());
            }
            return 0;
        }

        const auto events = log.events(job, since);
        if (json) {
            QJsonArray arr;
            for (const auto &e : events) {
                QJsonObject o;
                o.insert(QStringLiteral("seq"), e.seq);
                o.insert(QStringLiteral("time"), QString::fromStdString(e.time));
                o.insert(QStringLiteral("decision_id"), QString::fromStdString(e.decisionId));
                o.insert(QStringLiteral("job"), e.job);
                o.insert(QStringLiteral("kind"), QString::fromStdString(e.kind));
                o.insert(QStringLiteral("actor"), QString::fromStdString(e.actor));
                if (!e.before.empty())
                    o.insert(QStringLiteral("before"),
                             QJsonDocument::fromJson(QByteArray::fromStdString(e.before)).object());
                if (!e.after.empty())
                    o.insert(QStringLiteral("after"),
                             QJsonDocument::fromJson(QByteArray::fromStdString(e.after)).object());
                if (!e.detail.empty())
                    o.insert(QStringLiteral("detail"), QString::fromStdString(e.detail));
                if (e.kind == "proposed") {
                    insertConfidence(o, e.probability, e.value);
                    if (!e.policyVersion.empty())
                        o.insert(QStringLiteral("policy_version"),
                                 QString::fromStdString(e.policyVersion));
                }
                arr.append(o);
            }
            QJsonObject root;
            root.insert(QStringLiteral("run_id"), QString::fromStdString(log.runId()));
            root.insert(QStringLiteral("events"), arr);
            printJson(root);
            return 0;
        }
        if (csv)
            std::printf("seq,time,decision_id,job,kind,actor,before,after,detail,probability,"
                        "value\n");
        for (const auto &e : events) {
            if (csv) {
                // The policy's probability and V(s) belong to the proposal, as in the JSON.
                const bool proposed = e.kind == "proposed";
                std::printf("%lld,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s\n", static_cast<long long>(e.seq),
                            e.time.c_str(), csvField(e.decisionId).c_str(), e.job,
                            csvField(e.kind).c_str(), csvField(e.actor).c_str(),
                            csvField(e.before).c_str(), csvField(e.after).c_str(),
                            csvField(e.detail).c_str(),
                            proposed ? optionalText(e.probability).c_str() : "",
                            proposed ? optionalText(e.value).c_str() : "");
            }
            else {
                std::string detail = e.detail.empty() ? "" : "  " + e.detail;
                if (e.kind == "proposed" && (e.probability || e.value))
                    detail += "  p " + (e.probability ? optionalText(e.probability) : "-") +
                              ", V(s) " + (e.value ? optionalText(e.value) : "-");
                if (e.kind == "proposed" && !e.policyVersion.empty())
                    detail += "  by " + e.policyVersion;
                if (e.kind == "learning") // no allocation: the online learner's own record
                    std::printf("%6lld %s %-28s %-8s %-14s %-10s %s\n",
                                static_cast<long long>(e.seq), e.time.c_str(), "", "",
                                e.kind.c_str(), e.actor.c_str(), e.detail.c_str());
                else
                    std::printf("%6lld %s %-28s job %-4d %-14s %-10s %s%s%s%s\n",
                                static_cast<long long>(e.seq), e.time.c_str(),
                                e.decisionId.c_str(), e.job, e.kind.c_str(), e.actor.c_str(),
                                brief(e.before).c_str(), e.after.empty() ? "" : " -> ",
                                brief(e.after).c_str(), detail.c_str());
            }
        }
        return 0;
    });
}

} // namespace

static CommandRegistration auditRegistration{{"audit", "list or export an operate audit log", runAudit}};

} // namespace dl2::cli
