#include "traceimport.h"

#include "error.h"
#include "fileio.h"
#include "modelprofile.h"
#include "tracegenerator.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <unordered_map>

namespace dl2 {

namespace {

constexpr size_t kMalformedExamples = 3;
constexpr int kMaxArrivalSlot = 1'000'000; // Trace::validate's limit

// Filter reasons, shared by the formats so reports compare across traces.
const std::string kFailed = "failed";
const std::string kKilled = "killed";
const std::string kCancelled = "cancelled";
const std::string kTimeout = "timeout";
const std::string kNodeFail = "node-fail";
const std::string kUnfinished = "unfinished";
const std::string kNoAttempts = "no-attempts";
const std::string kNoTasks = "no-tasks";
const std::string kNoDuration = "no-duration";
const std::string kMalformedTask = "malformed-task";
const std::string kBeforeOrigin = "before-origin";
const std::string kOverMaxJobs = "over-max-jobs";

// One successful job as the trace describes it.
struct RawJob
{
    std::string id;
    double submit = 0.0;
    double gpus = 0.0;
    double duration = 0.0;
};

// Collects kept jobs, filter counts and malformed records (thrown unless skipping).
class Collector
{
public:
    Collector(const ImportOptions &options, ImportReport &report)
        : m_skip(options.skipMalformed), m_report(report)
    {
    }
    void keep(RawJob job)
    {
        ++m_report.records;
        jobs.push_back(std::move(job));
    }
    void filter(const std::string &reason)
    {
        ++m_report.records;
        ++m_report.filtered[reason];
    }
    // isJob: the malformed thing was a job record (counted in `records`), not e.g. a task row.
    void malformed(const Error &error, bool isJob = true)
    {
        if (!m_skip)
            throw error;
        m_report.records += isJob;
        ++m_report.malformed;
        if (m_report.malformedExamples.size() < kMalformedExamples)
            m_report.malformedExamples.emplace_back(error.what());
    }
    std::vector<RawJob> jobs;

private:
    bool m_skip;
    ImportReport &m_report;
};

// --- Times ---------------------------------------------------------------------------------

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
long long daysFromCivil(int y, int m, int d)
{
    y -= m <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return static_cast<long long>(era) * 146097 + doe - 719468;
}

std::optional<double> parseDateTime(std::string_view s)
{
    // YYYY-MM-DD HH:MM:SS (a 'T' separator is accepted too)
    if (s.size() != 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
        s[13] != ':' || s[16] != ':')
        return std::nullopt;
    auto num = [&](size_t at, size_t len) -> int {
        int v = 0;
        for (size_t i = at; i < at + len; ++i) {
            if (s[i] < '0' || s[i] > '9')
                return -1;
            v = v * 10 + (s[i] - '0');
        }
        return v;
    };
    const int y = num(0, 4), mo = num(5, 2), d = num(8, 2);
    const int h = num(11, 2), mi = num(14, 2), se = num(17, 2);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 ||
        se > 60)
        return std::nullopt;
    static constexpr std::array<int, 12> kDays{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > kDays[static_cast<size_t>(mo - 1)] || (mo == 2 && d == 29 && !leap))
        return std::nullopt;
    return static_cast<double>(daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se);
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

std::optional<double> parseNumber(std::string_view s)
{
    s = trimmed(s);
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

// --- CSV -----------------------------------------------------------------------------------

// Line-by-line CSV: comma-separated, fields trimmed, optional double quotes ("" escapes a quote;
// no newlines inside quotes). Blank lines are skipped.
class CsvReader
{
public:
    CsvReader(std::string_view text, std::string path) : m_text(text), m_path(std::move(path)) {}

    bool next()
    {
        while (m_pos < m_text.size()) {
            const size_t end = std::min(m_text.find('\n', m_pos), m_text.size());
            const std::string_view line = m_text.substr(m_pos, end - m_pos);
            m_pos = end + 1;
            ++m_line;
            if (trimmed(line).empty())
                continue;
            split(line);
            return true;
        }
        return false;
    }
    int line() const { return m_line; }
    const std::string &path() const { return m_path; }
    const std::vector<std::string> &fields() const { return m_fields; }
    Error error(const std::string &message) const { return Error::at(m_path, m_line, message); }

    double number(size_t column, const char *name, double min = 0.0) const
    {
        const auto v = optionalNumber(column, name, min);
        if (!v)
            throw error(std::string("column '") + name + "': missing value");
        return *v;
    }
    // Empty -> nullopt; anything else must be a finite number >= min.
    std::optional<double> optionalNumber(size_t column, const char *name, double min = 0.0) const
    {
        const std::string &f = m_fields[column];
        if (f.empty())
            return std::nullopt;
        const auto v = parseNumber(f);
        if (!v)
            throw error(std::string("column '") + name + "': not a number: '" + f + "'");
        if (*v < min)
            throw error(std::string("column '") + name + "': must be at least " +
                        std::to_string(static_cast<long long>(min)) + ", got '" + f + "'");
        return v;
    }
    std::optional<double> optionalTime(size_t column, const char *name) const
    {
        const std::string &f = m_fields[column];
        if (f.empty())
            return std::nullopt;
        const auto v = parseTraceTime(f);
        if (!v)
            throw error(std::string("column '") + name +
                        "': expected YYYY-MM-DD HH:MM:SS or seconds, got '" + f + "'");
        return v;
    }

private:
    void split(std::string_view line)
    {
        m_fields.clear();
        size_t i = 0;
        while (true) {
            std::string field;
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
                ++i;
            if (i < line.size() && line[i] == '"') {
                for (++i; i < line.size(); ++i) {
                    if (line[i] == '"' && i + 1 < line.size() && line[i + 1] == '"')
                        field += line[++i];
                    else if (line[i] == '"')
                        break;
                    else
                        field += line[i];
                }
                if (i >= line.size())
                    throw error("unterminated quoted field");
                const size_t comma = std::min(line.find(',', i), line.size());
                if (!trimmed(line.substr(i + 1, comma - i - 1)).empty())
                    throw error("text after a closing quote");
                i = comma;
            } else {
                const size_t comma = std::min(line.find(',', i), line.size());
                field = std::string(trimmed(line.substr(i, comma - i)));
                i = comma;
            }
            m_fields.push_back(std::move(field));
            if (i >= line.size())
                break;
            ++i; // the comma
        }
    }

    std::string_view m_text;
    std::string m_path;
    size_t m_pos = 0;
    int m_line = 0;
    std::vector<std::string> m_fields;
};

// --- Microsoft Philly ------------------------------------------------------------------------

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

void readPhillyJob(const QJsonValue &value, const std::string &path, qsizetype index,
                   Collector &out)
{
    std::string where = path + ": job[" + std::to_string(index) + "]";
    if (!value.isObject())
        throw Error(where + ": expected a JSON object");
    const QJsonObject job = value.toObject();
    const std::string id = job.value(QLatin1String("jobid")).toString().toStdString();
    if (!id.empty())
        where += " (" + id + ")";

    const QJsonValue statusValue = job.value(QLatin1String("status"));
    const std::string status = statusValue.toString().toStdString();
    if (!statusValue.isString() || (status != "Pass" && status != "Killed" && status != "Failed"))
        throw Error(where + ": status: expected Pass, Killed or Failed");
    const QJsonValue submitValue = job.value(QLatin1String("submitted_time"));
    const auto submit =
        submitValue.isString() ? parseDateTime(submitValue.toString().toStdString()) : std::nullopt;
    if (!submit)
        throw Error(where + ": submitted_time: expected \"YYYY-MM-DD HH:MM:SS\"");

    const QJsonValue attemptsValue = job.value(QLatin1String("attempts"));
    if (!attemptsValue.isUndefined() && !attemptsValue.isNull() && !attemptsValue.isArray())
        throw Error(where + ": attempts: expected a list");
    const QJsonArray attempts = attemptsValue.toArray();
    std::optional<RawJob> lastComplete;
    for (qsizetype a = 0; a < attempts.size(); ++a) {
        const std::string at = where + ": attempts[" + std::to_string(a) + "]";
        if (!attempts[a].isObject())
            throw Error(at + ": expected a JSON object");
        const QJsonObject attempt = attempts[a].toObject();
        const auto start = phillyTime(attempt, "start_time", at);
        const auto end = phillyTime(attempt, "end_time", at);
        const QJsonValue detail = attempt.value(QLatin1String("detail"));
        if (!detail.isUndefined() && !detail.isNull() && !detail.isArray())
            throw Error(at + ": detail: expected a list");
        double gpus = 0;
        for (const QJsonValue &machine : detail.toArray()) {
            const QJsonValue g = machine.toObject().value(QLatin1String("gpus"));
            if (!machine.isObject() || (!g.isUndefined() && !g.isArray()))
                throw Error(at + ": detail: expected {ip, gpus: [...]} objects");
            gpus += static_cast<double>(g.toArray().size());
        }
        if (start && end) {
            if (*end < *start)
                throw Error(at + ": end_time is before start_time");
            lastComplete = RawJob{id, *submit, gpus, *end - *start};
        }
    }
    if (status == "Killed")
        out.filter(kKilled);
    else if (status == "Failed")
        out.filter(kFailed);
    else if (attempts.isEmpty())
        out.filter(kNoAttempts);
    else if (!lastComplete || lastComplete->duration <= 0)
        out.filter(kNoDuration);
    else
        out.keep(std::move(*lastComplete));
}

void readPhilly(const std::string &path, Collector &out)
{
    const std::string data = readFile(path);
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(
        QByteArray::fromRawData(data.data(), static_cast<qsizetype>(data.size())), &error);
    if (error.error != QJsonParseError::NoError) {
        const auto offset = std::min(static_cast<size_t>(std::max(error.offset, 0)), data.size());
        const auto line =
            1 + std::count(data.begin(), data.begin() + static_cast<long>(offset), '\n');
        throw Error::at(path, static_cast<int>(line),
                        "invalid JSON at byte " + std::to_string(offset) + ": " +
                            error.errorString().toStdString());
    }
    if (!doc.isArray())
        throw Error(path + ": expected a JSON array of jobs (Philly cluster_job_log)");
    const QJsonArray jobs = doc.array();
    for (qsizetype i = 0; i < jobs.size(); ++i) {
        try {
            readPhillyJob(jobs[i], path, i, out);
        } catch (const Error &e) {
            out.malformed(e);
        }
    }
}

// --- Alibaba PAI 2020 --------------------------------------------------------------------------

std::string alibabaJobTablePath(const std::string &taskPath, const ImportOptions &options)
{
    if (!options.alibabaJobTable.empty())
        return options.alibabaJobTable;
    namespace fs = std::filesystem;
    const fs::path task(taskPath);
    std::string name = task.filename().string();
    const auto pos = name.find("pai_task_table");
    name = pos == std::string::npos ? std::string("pai_job_table.csv")
                                    : name.replace(pos, 14, "pai_job_table");
    const fs::path job = task.parent_path() / name;
    std::error_code ec;
    if (!fs::is_regular_file(job, ec))
        throw Error(taskPath +
                    ": cannot find the PAI job table next to the task table (looked for " +
                    job.string() + "); give it with --job-table");
    return job.string();
}

struct TaskAggregate
{
    double gpus = 0.0;
    double start = std::numeric_limits<double>::infinity();
    double end = -std::numeric_limits<double>::infinity();
    bool malformed = false;
};

void readAlibaba(const std::string &taskPath, const ImportOptions &options, ImportReport &report,
                 Collector &out)
{
    const std::string jobPath = alibabaJobTablePath(taskPath, options);
    report.inputs.push_back(jobPath);

    // pai_task_table: job_name, task_name, inst_num, status, start_time, end_time, plan_cpu,
    // plan_mem, plan_gpu, gpu_type
    std::unordered_map<std::string, TaskAggregate> tasks;
    const std::string taskText = readFile(taskPath);
    CsvReader t(taskText, taskPath);
    while (t.next()) {
        try {
            const auto &f = t.fields();
            if (f.size() == 6 && t.line() == 1)
                throw t.error("6 columns: this looks like pai_job_table; give the task table "
                              "(pai_task_table, 10 columns) and the job table with --job-table");
            if (f.size() != 10)
                throw t.error("expected 10 columns (pai_task_table: job_name, task_name, "
                              "inst_num, status, start_time, end_time, plan_cpu, plan_mem, "
                              "plan_gpu, gpu_type), got " +
                              std::to_string(f.size()));
            if (f[0].empty())
                throw t.error("column 'job_name': empty");
            const double instances = t.number(2, "inst_num");
            const auto start = t.optionalNumber(4, "start_time");
            const auto end = t.optionalNumber(5, "end_time");
            const double planGpu = t.optionalNumber(8, "plan_gpu").value_or(0.0);
            if (start && end && *end < *start)
                throw t.error("end_time is before start_time");
            TaskAggregate &agg = tasks[f[0]];
            agg.gpus += instances * planGpu / 100.0;
            if (start && end) {
                agg.start = std::min(agg.start, *start);
                agg.end = std::max(agg.end, *end);
            }
        } catch (const Error &e) {
            out.malformed(e, false);
            if (!t.fields().empty() && !t.fields()[0].empty())
                tasks[t.fields()[0]].malformed = true;
        }
    }

    // pai_job_table: job_name, inst_id, user, status, start_time (= submission), end_time
    const std::string jobText = readFile(jobPath);
    CsvReader j(jobText, jobPath);
    std::unordered_map<std::string, int> seen;
    while (j.next()) {
        try {
            const auto &f = j.fields();
            if (f.size() != 6)
                throw j.error("expected 6 columns (pai_job_table: job_name, inst_id, user, "
                              "status, start_time, end_time), got " +
                              std::to_string(f.size()));
            if (f[0].empty())
                throw j.error("column 'job_name': empty");
            const std::string &status = f[3];
            if (status != "Terminated" && status != "Failed" && status != "Running" &&
                status != "Waiting")
                throw j.error("column 'status': expected Terminated, Failed, Running or "
                              "Waiting, got '" +
                              status + "'");
            const double submit = j.number(4, "start_time");
            j.optionalNumber(5, "end_time");
            if (const auto [it, inserted] = seen.emplace(f[0], j.line()); !inserted)
                throw j.error("duplicate job_name '" + f[0] + "' (first on line " +
                              std::to_string(it->second) + ")");
            if (status == "Failed") {
                out.filter(kFailed);
                continue;
            }
            if (status != "Terminated") {
                out.filter(kUnfinished);
                continue;
            }
            const auto task = tasks.find(f[0]);
            if (task == tasks.end())
                out.filter(kNoTasks);
            else if (task->second.malformed)
                out.filter(kMalformedTask);
            else if (!(task->second.end > task->second.start))
                out.filter(kNoDuration);
            else
                out.keep({f[0], submit, task->second.gpus, task->second.end - task->second.start});
        } catch (const Error &e) {
            out.malformed(e);
        }
    }
}

// --- SenseTime Helios ----------------------------------------------------------------------

void readHelios(const std::string &path, Collector &out)
{
    const std::string text = readFile(path);
    CsvReader r(text, path);
    if (!r.next())
        throw Error(path + ": empty file");
    std::unordered_map<std::string, size_t> columns;
    for (size_t i = 0; i < r.fields().size(); ++i)
        columns.emplace(r.fields()[i], i);
    const size_t width = r.fields().size();
    auto column = [&](const char *name, bool required) -> std::optional<size_t> {
        const auto it = columns.find(name);
        if (it != columns.end())
            return it->second;
        if (required)
            throw r.error(std::string("header: missing column '") + name +
                          "' (expected Helios cluster_log.csv: job_id, ..., gpu_num, ..., state, "
                          "submit_time, start_time, end_time, duration, ...)");
        return std::nullopt;
    };
    const size_t cId = *column("job_id", true), cGpu = *column("gpu_num", true);
    const size_t cState = *column("state", true), cSubmit = *column("submit_time", true);
    const auto cStart = column("start_time", false), cEnd = column("end_time", false);
    const auto cDuration = column("duration", false);
    if (!cDuration && !(cStart && cEnd))
        throw r.error("header: needs 'duration' or both 'start_time' and 'end_time'");

    while (r.next()) {
        try {
            const auto &f = r.fields();
            if (f.size() != width)
                throw r.error("expected " + std::to_string(width) +
                              " columns as in the header, got " + std::to_string(f.size()));
            const std::string &state = f[cState];
            if (state != "COMPLETED" && state != "CANCELLED" && state != "FAILED" &&
                state != "TIMEOUT" && state != "NODE_FAIL")
                throw r.error("column 'state': expected COMPLETED, CANCELLED, FAILED, TIMEOUT or "
                              "NODE_FAIL, got '" +
                              state + "'");
            const double gpus = r.number(cGpu, "gpu_num");
            const auto submit = r.optionalTime(cSubmit, "submit_time");
            if (!submit)
                throw r.error("column 'submit_time': missing value");
            // NaN = no value (std::optional here trips GCC's -Wmaybe-uninitialized).
            constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
            const double start =
                cStart ? r.optionalTime(*cStart, "start_time").value_or(kNone) : kNone;
            const double end = cEnd ? r.optionalTime(*cEnd, "end_time").value_or(kNone) : kNone;
            if (end < start)
                throw r.error("end_time is before start_time");
            double duration =
                cDuration ? r.optionalNumber(*cDuration, "duration").value_or(kNone) : kNone;
            if (std::isnan(duration))
                duration = end - start; // NaN unless both are known
            if (state == "CANCELLED")
                out.filter(kCancelled);
            else if (state == "FAILED")
                out.filter(kFailed);
            else if (state == "TIMEOUT")
                out.filter(kTimeout);
            else if (state == "NODE_FAIL")
                out.filter(kNodeFail);
            else if (!(duration > 0))
                out.filter(kNoDuration);
            else
                out.keep({f[cId], *submit, gpus, duration});
        } catch (const Error &e) {
            out.malformed(e);
        }
    }
}

// --- Mapping -------------------------------------------------------------------------------

// by-size classes (see the header); members missing from the profile set are left out.
const std::vector<std::vector<std::string>> &sizeClasses()
{
    static const std::vector<std::vector<std::string>> classes{
        {"cnn-text-classification", "dssm"},
        {"resnext-110", "seq2seq", "wlm"},
        {"inception-bn", "resnet-50", "vgg-16"}};
    return classes;
}

std::uint64_t fnv1a(const std::string &text)
{
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char c : text)
        h = (h ^ c) * 0x100000001b3ULL;
    return h;
}

size_t sizeClass(double gpus)
{
    return gpus <= 0 ? 0 : gpus <= 2 ? 1 : 2;
}

std::string traceName(const std::string &path)
{
    return std::filesystem::path(path).stem().string();
}

} // namespace

const char *toString(ImportFormat format)
{
    switch (format) {
    case ImportFormat::Philly:
        return "philly";
    case ImportFormat::Alibaba:
        return "alibaba";
    case ImportFormat::Helios:
        return "helios";
    }
    return "?";
}

ImportFormat importFormatFromString(const std::string &name)
{
    for (auto f : {ImportFormat::Philly, ImportFormat::Alibaba, ImportFormat::Helios})
        if (name == toString(f))
            return f;
    throw Error("unknown trace format '" + name + "' (expected philly, alibaba or helios)");
}

const char *toString(ModelRule rule)
{
    return rule == ModelRule::BySize ? "by-size" : "sample";
}

ModelRule modelRuleFromString(const std::string &name)
{
    if (name == "by-size")
        return ModelRule::BySize;
    if (name == "sample")
        return ModelRule::Sample;
    throw Error("unknown model rule '" + name + "' (expected by-size or sample)");
}

std::optional<double> parseTraceTime(std::string_view text)
{
    text = trimmed(text);
    if (auto t = parseDateTime(text))
        return t;
    return parseNumber(text);
}

std::string formatTraceTime(double seconds)
{
    const auto total = static_cast<long long>(std::floor(seconds));
    long long z = (total >= 0 ? total : total - 86399) / 86400;
    const long long secs = total - z * 86400;
    // H. Hinnant's civil_from_days
    z += 719468;
    const long long era = (z >= 0 ? z : z - 146096) / 146097;
    const long long doe = z - era * 146097;
    const long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const long long mp = (5 * doy + 2) / 153;
    const long long d = doy - (153 * mp + 2) / 5 + 1;
    const long long m = mp < 10 ? mp + 3 : mp - 9;
    const long long y = yoe + era * 400 + (m <= 2);
    char buffer[128];
    std::snprintf(buffer, sizeof buffer, "%04lld-%02lld-%02lld %02lld:%02lld:%02lld", y, m, d,
                  secs / 3600, secs / 60 % 60, secs % 60);
    return buffer;
}

ObservedAllocation observedAllocation(double gpus, int maxPs, int maxWorkers)
{
    // Whole GPUs, rounded up (a fractional GPU share still occupies a worker), at least one.
    const double whole = std::ceil(std::max(gpus, 0.0) - 1e-9);
    const int workers = static_cast<int>(std::clamp(whole, 1.0, static_cast<double>(maxWorkers)));
    return {std::min(workers, maxPs), workers};
}

ImportResult importTrace(const std::string &path, ImportFormat format, const ImportOptions &options)
{
    if (!(options.slotSeconds > 0) || !std::isfinite(options.slotSeconds))
        throw Error("slot seconds must be positive");
    if (options.maxJobs < 0 || options.maxPs < 1 || options.maxWorkers < 1)
        throw Error("max jobs must not be negative; PS and worker caps must be positive");
    const ProfileSet &profiles = options.profiles ? *options.profiles : ProfileSet::reference();
    if (profiles.size() == 0)
        throw Error("no model profiles to map jobs to");

    ImportResult result;
    ImportReport &report = result.report;
    report.inputs.push_back(path);
    Collector collector(options, report);
    switch (format) {
    case ImportFormat::Philly:
        readPhilly(path, collector);
        break;
    case ImportFormat::Alibaba:
        readAlibaba(path, options, report, collector);
        break;
    case ImportFormat::Helios:
        readHelios(path, collector);
        break;
    }

    std::vector<RawJob> jobs = std::move(collector.jobs);
    std::stable_sort(jobs.begin(), jobs.end(),
                     [](const RawJob &a, const RawJob &b) { return a.submit < b.submit; });
    report.timeOrigin = options.timeOrigin.value_or(jobs.empty() ? 0.0 : jobs.front().submit);
    const auto firstKept =
        std::lower_bound(jobs.begin(), jobs.end(), report.timeOrigin,
                         [](const RawJob &j, double origin) { return j.submit < origin; });
    if (firstKept != jobs.begin()) {
        report.filtered[kBeforeOrigin] += static_cast<int>(firstKept - jobs.begin());
        jobs.erase(jobs.begin(), firstKept);
    }
    if (options.maxJobs > 0 && jobs.size() > static_cast<size_t>(options.maxJobs)) {
        report.filtered[kOverMaxJobs] += static_cast<int>(jobs.size()) - options.maxJobs;
        jobs.resize(static_cast<size_t>(options.maxJobs));
    }

    // Profile indices per by-size class, resolved once.
    std::vector<std::vector<int>> classes;
    for (const auto &names : sizeClasses()) {
        classes.emplace_back();
        for (const auto &name : names)
            if (const auto index = profiles.indexOf(name))
                classes.back().push_back(*index);
    }

    result.trace.name = traceName(path);
    for (size_t i = 0; i < jobs.size(); ++i) {
        const RawJob &raw = jobs[i];
        const double slot = std::floor((raw.submit - report.timeOrigin) / options.slotSeconds);
        if (slot > kMaxArrivalSlot)
            throw Error("job '" + raw.id + "' would arrive in slot " + std::to_string(slot) +
                        ", past the supported " + std::to_string(kMaxArrivalSlot) +
                        ": use longer slots, a later time origin or fewer jobs");
        // Each job draws from its own stream (seed, source id): its model does not change when
        // other jobs are filtered, cut by the time origin or by max jobs.
        Rng rng(options.seed * 0x9E3779B97F4A7C15ULL ^ fnv1a(raw.id));
        int type = 0;
        if (options.modelRule == ModelRule::Sample) {
            type = static_cast<int>(rng.below(static_cast<std::uint64_t>(profiles.size())));
        } else {
            const auto &members = classes[sizeClass(raw.gpus)];
            if (members.empty())
                throw Error("model rule by-size: the profiles have none of the models for jobs "
                            "with " +
                            std::to_string(raw.gpus) + " GPUs; use the sample rule");
            type = members[rng.below(members.size())];
        }
        const ModelProfile &profile = profiles[type];
        const ObservedAllocation a = observedAllocation(raw.gpus, options.maxPs, options.maxWorkers);
        const double speed = profile.speed ? profile.speed->speed(a.ps, a.workers) : 0.0;
        if (!(speed > 0) || !std::isfinite(speed))
            throw Error("profile '" + profile.name + "' has no positive speed at " +
                        std::to_string(a.ps) + " PS / " + std::to_string(a.workers) +
                        " workers: cannot turn durations into epochs");
        JobSpec spec;
        spec.id = static_cast<int>(i) + 1;
        spec.arrivalSlot = static_cast<int>(slot);
        spec.model = profile.name;
        spec.epochs = raw.duration * speed / profile.stepsPerEpoch;
        result.trace.jobs.push_back(std::move(spec));
        result.jobs.push_back({raw.id, raw.submit, raw.gpus, raw.duration, a.ps, a.workers});
    }
    report.kept = static_cast<int>(result.trace.jobs.size());
    if (!result.trace.jobs.empty()) {
        report.firstSlot = result.trace.jobs.front().arrivalSlot;
        report.lastSlot = result.trace.jobs.back().arrivalSlot;
    }
    return result;
}

} // namespace dl2
