// Microsoft Philly (msr-fiddle/philly-traces): cluster_job_log, one JSON array of jobs, read
// one job at a time so a damaged or truncated job names itself and can be skipped.
#include "traceimportformats.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace dl2::importing {

namespace {

// The top-level elements of a JSON array, found without parsing them: each element's bytes,
// so every job parses (and fails) on its own.
class ArrayScanner
{
public:
    ArrayScanner(const std::string &text, std::string path) : m_text(text), m_path(std::move(path))
    {
        skipBlanks();
        if (m_pos >= m_text.size() || m_text[m_pos] != '[')
            throw Error(m_path + ": expected a JSON array of jobs (Philly cluster_job_log)");
        ++m_pos;
    }
    // The next element; false after the closing bracket. `complete` is false when the text
    // ends inside the element (a truncated file).
    bool next(std::string_view &element, bool &complete)
    {
        skipBlanks();
        if (m_pos >= m_text.size())
            throw Error::at(m_path, lineAt(m_pos),
                            "the file ends before the jobs array is closed: a truncated file?");
        if (m_text[m_pos] == ']')
            return false;
        if (m_index > 0) {
            if (m_text[m_pos] != ',')
                throw Error::at(m_path, lineAt(m_pos),
                                "invalid JSON at byte " + std::to_string(m_pos) +
                                    ": expected ',' or ']' after job[" +
                                    std::to_string(m_index - 1) + "]");
            const size_t comma = m_pos++;
            skipBlanks();
            // Cut right after a job's ',': no job follows, and no ']' closes the array.
            if (m_pos >= m_text.size())
                throw Error::at(m_path, lineAt(comma),
                                "the file ends after job[" + std::to_string(m_index - 1) +
                                    "] and its ',' before the jobs array is closed: a "
                                    "truncated file?");
        }
        m_start = m_pos;
        int depth = 0;
        bool inString = false;
        for (; m_pos < m_text.size(); ++m_pos) {
            const char c = m_text[m_pos];
            if (inString) {
                if (c == '\\')
                    ++m_pos;
                else if (c == '"')
                    inString = false;
                continue;
            }
            if (c == '"')
                inString = true;
            else if (c == '{' || c == '[')
                ++depth;
            else if (c == '}' || c == ']') {
                if (depth == 0)
                    break; // the array's own ']' after a scalar
                if (--depth == 0) {
                    ++m_pos;
                    break;
                }
            } else if (c == ',' && depth == 0)
                break;
        }
        complete = m_pos <= m_text.size() && depth == 0 && !inString;
        m_pos = std::min(m_pos, m_text.size());
        element = std::string_view(m_text).substr(m_start, m_pos - m_start);
        if (!complete)
            m_pos = m_text.size();
        ++m_index;
        return true;
    }
    bool atEnd()
    {
        skipBlanks();
        return m_pos >= m_text.size();
    }
    int lineAt(size_t offset)
    {
        // Lines are counted incrementally: offsets only grow.
        for (; m_lineOffset < offset && m_lineOffset < m_text.size(); ++m_lineOffset)
            m_line += m_text[m_lineOffset] == '\n';
        return m_line;
    }
    size_t start() const { return m_start; }
    qsizetype index() const { return m_index - 1; }
    void close()
    {
        ++m_pos; // the ']'
        skipBlanks();
        if (m_pos < m_text.size())
            throw Error::at(m_path, lineAt(m_pos), "text after the jobs array");
    }

private:
    void skipBlanks()
    {
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' ||
                                         m_text[m_pos] == '\r' || m_text[m_pos] == '\t'))
            ++m_pos;
    }

    const std::string &m_text;
    std::string m_path;
    size_t m_pos = 0;
    size_t m_start = 0;
    qsizetype m_index = 0;
    size_t m_lineOffset = 0;
    int m_line = 1;
};

// An attempt time: missing, null or "None" -> nullopt; otherwise a valid date-time.
std::optional<double> phillyTime(const QJsonObject &attempt, const char *key,
                                 const std::string &where)
{
    const QJsonValue v = attempt.value(QLatin1String(key));
    if (v.isUndefined() || v.isNull() || v == QJsonValue(QStringLiteral("None")))
        return std::nullopt;
    const auto t = v.isString() ? parseDateTime(v.toString().toStdString()) : std::nullopt;
    if (!t)
        throw Error(where + ": " + key + ": expected \"YYYY-MM-DD HH:MM:SS\", \"None\" or null");
    return t;
}

struct Attempt
{
    std::optional<double> start, end;
    double gpus = 0;
};

// Machines seen in the attempts: the largest GPU index + 1 on each (a lower bound of its GPUs).
using MachinesSeen = std::map<std::string, int>;

std::vector<Attempt> readAttempts(const QJsonObject &job, const std::string &where,
                                  MachinesSeen &machines)
{
    const QJsonValue attemptsValue = job.value(QLatin1String("attempts"));
    if (!attemptsValue.isUndefined() && !attemptsValue.isNull() && !attemptsValue.isArray())
        throw Error(where + ": attempts: expected a list");
    std::vector<Attempt> attempts;
    const QJsonArray list = attemptsValue.toArray();
    for (qsizetype a = 0; a < list.size(); ++a) {
        const std::string at = where + ": attempts[" + std::to_string(a) + "]";
        if (!list[a].isObject())
            throw Error(at + ": expected a JSON object");
        const QJsonObject attempt = list[a].toObject();
        Attempt out;
        out.start = phillyTime(attempt, "start_time", at);
        out.end = phillyTime(attempt, "end_time", at);
        if (out.start && out.end && *out.end < *out.start)
            throw Error(at + ": end_time is before start_time");
        const QJsonValue detail = attempt.value(QLatin1String("detail"));
        if (!detail.isUndefined() && !detail.isNull() && !detail.isArray())
            throw Error(at + ": detail: expected a list");
        for (const QJsonValue &machine : detail.toArray()) {
            const QJsonValue g = machine.toObject().value(QLatin1String("gpus"));
            if (!machine.isObject() || (!g.isUndefined() && !g.isArray()))
                throw Error(at + ": detail: expected {ip, gpus: [...]} objects");
            const QJsonArray gpus = g.toArray();
            out.gpus += static_cast<double>(gpus.size());
            int &most = machines[machine.toObject().value(QLatin1String("ip")).toString().toStdString()];
            for (const QJsonValue &name : gpus) {
                const QString n = name.toString();
                bool ok = false;
                const int index = n.startsWith(QLatin1String("gpu")) ? n.mid(3).toInt(&ok) : -1;
                if (ok && index >= 0 && index < 4096)
                    most = std::max(most, index + 1);
            }
        }
        attempts.push_back(out);
    }
    return attempts;
}

// Over the jobs the reader keeps, CPU-only ones left out unless kept (the filters applied
// after reading, the time window and max jobs, are not reflected).
struct PhillyStats
{
    long long multiAttempt = 0;
    double spanSeconds = 0;        // job-seconds of kept jobs under span
    double lastAttemptSeconds = 0; // ... and under last-attempt
};

struct Measured
{
    std::optional<double> duration; // by the rule; nullopt if the attempts give none
    double gpus = 0;                // by the rule
    std::optional<double> span, lastAttempt; // both rules, for the statistics
};

// Duration and GPUs of a job's attempts by the rule.
Measured measure(const std::vector<Attempt> &attempts, PhillyDuration rule)
{
    std::optional<double> first, last, sum, lastComplete;
    double lastGpus = 0;
    for (const auto &a : attempts) {
        if (a.start)
            first = std::min(first.value_or(*a.start), *a.start);
        if (a.end)
            last = std::max(last.value_or(*a.end), *a.end);
        if (a.start && a.end) {
            sum = sum.value_or(0.0) + (*a.end - *a.start);
            lastComplete = *a.end - *a.start;
            lastGpus = a.gpus;
        }
    }
    // GPUs of attempt 0 (the notebook); an attempt 0 that lists none never ran: the first that does.
    double firstGpus = 0;
    for (const auto &a : attempts)
        if (a.gpus > 0) {
            firstGpus = a.gpus;
            break;
        }
    const std::optional<double> span =
        first && last && *last >= *first ? std::optional<double>(*last - *first) : std::nullopt;
    switch (rule) {
    case PhillyDuration::Span: return {span, firstGpus, span, lastComplete};
    case PhillyDuration::LastAttempt: return {lastComplete, lastGpus, span, lastComplete};
    case PhillyDuration::Sum: return {sum, firstGpus, span, lastComplete};
    }
    return {};
}

std::string text(const QJsonObject &job, const char *key)
{
    const QJsonValue v = job.value(QLatin1String(key));
    return v.isString() ? v.toString().toStdString() : std::string();
}

void readJob(const QJsonObject &job, std::string where, const ImportOptions &options,
             Collector &out, MachinesSeen &machines, PhillyStats &stats)
{
    RawJob raw;
    JobSource &s = raw.source;
    s.id = text(job, "jobid");
    if (!s.id.empty())
        where += " (" + s.id + ")";
    s.status = text(job, "status");
    s.user = text(job, "user");
    s.vc = text(job, "vc");
    const QJsonValue statusValue = job.value(QLatin1String("status"));
    if (!statusValue.isString())
        throw Error(where + ": status: expected Pass, Killed or Failed");
    const QJsonValue submitValue = job.value(QLatin1String("submitted_time"));
    s.submitTime = submitValue.isString() ? parseDateTime(submitValue.toString().toStdString())
                                          : std::nullopt;
    if (!s.submitTime)
        throw Error(where + ": submitted_time: expected \"YYYY-MM-DD HH:MM:SS\"");
    const std::vector<Attempt> attempts = readAttempts(job, where, machines);

    if (s.status == "Killed")
        return out.filter(kKilled);
    if (s.status == "Failed")
        return out.filter(kFailed);
    if (s.status != "Pass")
        return out.filter(kUnknownState);
    if (attempts.empty())
        return out.filter(kNoAttempts);
    const Measured m = measure(attempts, options.phillyDuration);
    if (!m.duration || *m.duration <= 0)
        return out.filter(kNoDuration);
    s.durationSeconds = m.duration;
    s.gpus = m.gpus;
    if (m.gpus > 0 || options.keepCpuJobs) { // a CPU-only job is filtered after reading
        stats.multiAttempt += attempts.size() > 1;
        if (m.span && m.lastAttempt) {
            stats.spanSeconds += *m.span;
            stats.lastAttemptSeconds += *m.lastAttempt;
        }
    }
    double firstStart = std::numeric_limits<double>::infinity();
    for (const auto &a : attempts)
        if (a.start)
            firstStart = std::min(firstStart, *a.start);
    if (std::isfinite(firstStart)) {
        if (firstStart < *s.submitTime)
            out.count("start-before-submit");
        s.queueSeconds = std::max(0.0, firstStart - *s.submitTime);
    }
    out.keep(std::move(raw));
}

// cluster_machine_list: machineId, number of GPUs, single GPU mem ("m31,8, 24GB"); a header
// row is recognised by its non-numeric GPU column.
std::optional<TraceCluster> readMachineList(const InputRef &ref, Collector &out)
{
    TraceInput input(ref, {"cluster_machine_list", "cluster_machine_list.csv"});
    out.report().inputs.push_back(input.name());
    CsvReader r(input);
    std::vector<int> gpus;
    while (r.next()) {
        if (r.size() < 2)
            throw r.columnCountError(3, "cluster_machine_list: machineId, number of GPUs, "
                                        "single GPU mem");
        const auto n = parseNumber(r[1]);
        if (!n) {
            if (r.line() == 1)
                continue; // header
            throw r.error("column 'number of GPUs': not a number: '" + r[1] + "'");
        }
        if (*n < 0 || *n > 4096 || *n != std::floor(*n))
            throw r.error("column 'number of GPUs': expected 0..4096, got '" + r[1] + "'");
        gpus.push_back(static_cast<int>(*n));
    }
    if (!input.streamError().empty())
        throw Error(input.name() + ": " + input.streamError());
    TraceCluster c = homogeneousCluster(gpus, {}, baseName(input.name()));
    return c.nodes > 0 ? std::optional<TraceCluster>(c) : std::nullopt;
}

std::string percent(double part, double whole)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f %%", whole > 0 ? 100.0 * part / whole : 0.0);
    return buffer;
}

} // namespace

void readPhilly(const InputRef &ref, const ImportOptions &options, Collector &out)
{
    TraceInput input(ref, {"cluster_job_log", "cluster_job_log.json"});
    const std::string path = input.name();
    out.report().inputs.push_back(path);
    const std::string data = input.readAll();
    out.checkStream(input);
    ArrayScanner scanner(data, path);
    MachinesSeen machines;
    PhillyStats stats;
    std::string_view element;
    bool complete = true;
    for (;;) {
        try {
            if (!scanner.next(element, complete))
                break;
        } catch (const Error &e) {
            // The array's frame is damaged (truncated after a job, or garbage between jobs).
            out.malformed(e, false);
            complete = false;
            break;
        }
        const qsizetype index = scanner.index();
        const int line = scanner.lineAt(scanner.start());
        std::string where = path + ": job[" + std::to_string(index) + "]";
        try {
            if (!complete)
                throw Error::at(path, line,
                                "job[" + std::to_string(index) +
                                    "]: the file ends inside this job: a truncated file?");
            // Wrapped in brackets: the job may be any JSON value, and only an object is one.
            QByteArray wrapped;
            wrapped.reserve(static_cast<qsizetype>(element.size()) + 2);
            wrapped.append('[').append(element.data(), static_cast<qsizetype>(element.size())).append(']');
            QJsonParseError error{};
            const QJsonDocument doc = QJsonDocument::fromJson(wrapped, &error);
            if (error.error != QJsonParseError::NoError) {
                const size_t offset = scanner.start() + static_cast<size_t>(std::max(error.offset - 1, 0));
                throw Error::at(path, scanner.lineAt(offset),
                                "invalid JSON at byte " + std::to_string(offset) + " (job[" +
                                    std::to_string(index) + "]): " + error.errorString().toStdString());
            }
            const QJsonValue value = doc.array().at(0);
            if (!value.isObject())
                throw Error(where + ": expected a JSON object");
            readJob(value.toObject(), where, options, out, machines, stats);
        } catch (const Error &e) {
            out.malformed(e);
        }
        if (!complete)
            break;
    }
    if (complete) {
        try {
            scanner.close();
        } catch (const Error &e) {
            out.malformed(e, false);
        }
    }

    out.count("multi-attempt-jobs", stats.multiAttempt);
    if (stats.multiAttempt > 0 && stats.spanSeconds > 0)
        out.note(std::to_string(stats.multiAttempt) + " kept jobs have several attempts; " +
                 percent(stats.spanSeconds - stats.lastAttemptSeconds, stats.spanSeconds) +
                 " of the job-hours (first start to last end) lie outside the last attempt "
                 "(--philly-duration " +
                 toString(options.phillyDuration) + ")");

    // The cluster: the machine list when there is one, else the machines the attempts name.
    if (const auto list = findCompanion(ref, {"cluster_machine_list", "cluster_machine_list.csv"},
                                        options.machines)) {
        out.cluster = readMachineList(*list, out);
    } else if (!machines.empty()) {
        std::vector<int> gpus;
        for (const auto &[ip, most] : machines)
            gpus.push_back(most);
        // The attempts show the GPUs jobs used: a machine's size is taken as its largest GPU
        // index used + 1, a lower bound; the machines keep their number.
        TraceCluster c = homogeneousCluster(gpus, {},
                                            "no cluster_machine_list; machines named in the "
                                            "attempts, sized by the largest GPU index used",
                                            true);
        if (c.nodes > 0)
            out.cluster = c;
    }
    out.source = "philly " + baseName(path) + ", durations " + toString(options.phillyDuration);
}

} // namespace dl2::importing
