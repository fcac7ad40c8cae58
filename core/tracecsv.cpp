// Trace CSV: job_id,arrival_slot,model,epochs then optional named columns (estimated_epochs
// and the source fields); trace-level fields as "# key: value" comment lines before the header.
#include "trace.h"

#include "error.h"
#include "textutil.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <functional>
#include <sstream>

namespace dl2 {

// The CSV text, handed to `flush` (when given) after each job; trace.cpp saves through it.
void appendCsv(const Trace &trace, std::string &out, const std::function<void(std::string &)> &flush);

namespace {

enum class Column {
    EstimatedEpochs,
    SourceId,
    User,
    Vc,
    Status,
    Gpus,
    SubmitTime,
    QueueSeconds,
    DurationSeconds,
    Workers,
    Ps,
    Count
};

constexpr std::array<const char *, static_cast<size_t>(Column::Count)> kColumnNames{
    "estimated_epochs", "source_id",        "user",   "vc",
    "status",           "gpus",             "submit_time", "queue_seconds",
    "duration_seconds", "workers",          "ps"};

const char *kHeader = "job_id,arrival_slot,model,epochs";

struct Cell
{
    const std::string &origin;
    int line;
    const std::string &column;
    Error error(const std::string &message) const
    {
        return Error::at(origin, line, "column '" + column + "': " + message);
    }
};

double parseNumber(const std::string &text, const Cell &cell)
{
    double value = 0.0;
    const char *end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value))
        throw cell.error("not a number: '" + text + "'");
    return value;
}

int parseInt(const std::string &text, const Cell &cell)
{
    const double v = parseNumber(text, cell);
    if (v != std::floor(v) || std::fabs(v) > 1e9)
        throw cell.error("not an integer: '" + text + "'");
    return static_cast<int>(v);
}

// Comma-separated fields, trimmed; a field may be double-quoted ("" is a quote inside).
std::vector<std::string> splitFields(const std::string &line, const std::string &origin, int lineNo)
{
    std::vector<std::string> fields;
    size_t count = 0;
    const CsvProblem problem = splitCsvLine(line, fields, count);
    if (problem != CsvProblem::None)
        throw Error::at(origin, lineNo, describe(problem));
    fields.resize(count);
    return fields;
}

std::string quoted(const std::string &text)
{
    const bool plain = text.find_first_of(",\"") == std::string::npos && trim(text) == text;
    if (plain)
        return text;
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"')
            out += '"';
        out += c;
    }
    return out + '"';
}

std::string formatOptional(const std::optional<double> &v)
{
    return v ? formatNumber(*v) : std::string();
}

// "# key: value" before the header: the trace-level fields.
void readMetadata(const std::string &comment, Trace &trace, const std::string &origin, int lineNo)
{
    const auto colon = comment.find(':');
    if (comment.size() < 2 || colon == std::string::npos)
        return; // an ordinary comment
    const std::string key = trim(comment.substr(1, colon - 1));
    const std::string value = trim(comment.substr(colon + 1));
    const std::string column = "# " + key;
    const Cell cell{origin, lineNo, column};
    auto cluster = [&]() -> TraceCluster & {
        if (!trace.cluster)
            trace.cluster = TraceCluster{};
        return *trace.cluster;
    };
    if (key == "name")
        trace.name = value;
    else if (key == "source")
        trace.source = value;
    else if (key == "slot_seconds")
        trace.slotSeconds = parseNumber(value, cell);
    else if (key == "time_origin")
        trace.timeOrigin = parseNumber(value, cell);
    else if (key == "cluster_nodes")
        cluster().nodes = parseInt(value, cell);
    else if (key == "cluster_gpus_per_node")
        cluster().gpusPerNode = parseInt(value, cell);
    else if (key == "cluster_cpus_per_node")
        cluster().cpusPerNode = parseInt(value, cell);
    else if (key == "cluster_basis")
        cluster().basis = value;
}

using Setter = std::function<void(JobSpec &, const std::string &, const Cell &)>;

Setter setterFor(Column column)
{
    auto optionalNumber = [](std::optional<double> JobSource::*member) -> Setter {
        return [member](JobSpec &j, const std::string &v, const Cell &cell) {
            if (!v.empty())
                j.source.*member = parseNumber(v, cell);
        };
    };
    auto text = [](std::string JobSource::*member) -> Setter {
        return [member](JobSpec &j, const std::string &v, const Cell &) { j.source.*member = v; };
    };
    switch (column) {
    case Column::EstimatedEpochs:
        return [](JobSpec &j, const std::string &v, const Cell &cell) {
            if (v.empty())
                return;
            j.estimatedEpochs = parseNumber(v, cell);
            if (*j.estimatedEpochs <= 0)
                throw cell.error("must be positive");
        };
    case Column::SourceId: return text(&JobSource::id);
    case Column::User: return text(&JobSource::user);
    case Column::Vc: return text(&JobSource::vc);
    case Column::Status: return text(&JobSource::status);
    case Column::Gpus: return optionalNumber(&JobSource::gpus);
    case Column::SubmitTime: return optionalNumber(&JobSource::submitTime);
    case Column::QueueSeconds: return optionalNumber(&JobSource::queueSeconds);
    case Column::DurationSeconds: return optionalNumber(&JobSource::durationSeconds);
    case Column::Workers:
        return [](JobSpec &j, const std::string &v, const Cell &cell) {
            j.source.workers = v.empty() ? 0 : parseInt(v, cell);
        };
    case Column::Ps:
        return [](JobSpec &j, const std::string &v, const Cell &cell) {
            j.source.ps = v.empty() ? 0 : parseInt(v, cell);
        };
    case Column::Count: break;
    }
    return {};
}

} // namespace

Trace Trace::parseCsv(const std::string &text, const std::string &origin)
{
    Trace trace;
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    bool header = false;
    std::vector<std::string> extraNames; // names of the optional columns, in file order
    std::vector<Setter> extra;
    while (std::getline(in, line)) {
        ++lineNo;
        std::string t = trim(line);
        if (lineNo == 1 && t.compare(0, 3, "\xef\xbb\xbf") == 0)
            t = trim(t.substr(3)); // UTF-8 byte-order mark
        if (t.empty())
            continue;
        if (t[0] == '#') {
            if (!header)
                readMetadata(t, trace, origin, lineNo);
            continue;
        }
        const auto fields = splitFields(t, origin, lineNo);
        if (!header) {
            const std::vector<std::string> expected{"job_id", "arrival_slot", "model", "epochs"};
            if (fields.size() < 4 || !std::equal(expected.begin(), expected.end(), fields.begin()))
                throw Error::at(origin, lineNo,
                                std::string("expected header '") + kHeader + "', got '" + t + "'");
            for (size_t i = 4; i < fields.size(); ++i) {
                const auto known = std::find(kColumnNames.begin(), kColumnNames.end(), fields[i]);
                if (known == kColumnNames.end())
                    throw Error::at(origin, lineNo, "unexpected extra header column '" + fields[i] + "'");
                if (std::find(extraNames.begin(), extraNames.end(), fields[i]) != extraNames.end())
                    throw Error::at(origin, lineNo, "header column '" + fields[i] + "' given twice");
                extraNames.push_back(fields[i]);
                extra.push_back(setterFor(static_cast<Column>(known - kColumnNames.begin())));
            }
            header = true;
            continue;
        }
        const size_t want = 4 + extra.size();
        // Trailing optional cells may be left out (e.g. "1,0,dssm,5" under an estimated_epochs header).
        if (fields.size() < 4 || fields.size() > want)
            throw Error::at(origin, lineNo, "expected " + std::to_string(want) + " columns, got " +
                                                std::to_string(fields.size()));
        JobSpec spec;
        const std::string idName = "job_id", slotName = "arrival_slot", epochsName = "epochs";
        spec.id = parseInt(fields[0], {origin, lineNo, idName});
        spec.arrivalSlot = parseInt(fields[1], {origin, lineNo, slotName});
        spec.model = fields[2];
        if (spec.model.empty())
            throw Error::at(origin, lineNo, "column 'model' is empty");
        spec.epochs = parseNumber(fields[3], {origin, lineNo, epochsName});
        if (spec.arrivalSlot < 0)
            throw Error::at(origin, lineNo, "column 'arrival_slot': must not be negative");
        if (spec.epochs <= 0)
            throw Error::at(origin, lineNo, "column 'epochs': must be positive, got " + fields[3]);
        for (size_t i = 4; i < fields.size(); ++i)
            extra[i - 4](spec, fields[i], {origin, lineNo, extraNames[i - 4]});
        trace.jobs.push_back(std::move(spec));
    }
    if (!header)
        throw Error(origin + std::string(": empty file, expected header '") + kHeader + "'");
    return trace;
}

std::string Trace::toCsv() const
{
    std::string out;
    appendCsv(*this, out, {});
    return out;
}

void appendCsv(const Trace &trace, std::string &out, const std::function<void(std::string &)> &flush)
{
    const auto &jobs = trace.jobs;
    const auto &source = trace.source;
    const auto &slotSeconds = trace.slotSeconds;
    const auto &timeOrigin = trace.timeOrigin;
    const auto &cluster = trace.cluster;
    auto any = [&](const auto &has) { return std::any_of(jobs.begin(), jobs.end(), has); };
    std::array<bool, static_cast<size_t>(Column::Count)> used{};
    used[size_t(Column::EstimatedEpochs)] = any([](const JobSpec &j) { return j.estimatedEpochs.has_value(); });
    used[size_t(Column::SourceId)] = any([](const JobSpec &j) { return !j.source.id.empty(); });
    used[size_t(Column::User)] = any([](const JobSpec &j) { return !j.source.user.empty(); });
    used[size_t(Column::Vc)] = any([](const JobSpec &j) { return !j.source.vc.empty(); });
    used[size_t(Column::Status)] = any([](const JobSpec &j) { return !j.source.status.empty(); });
    used[size_t(Column::Gpus)] = any([](const JobSpec &j) { return j.source.gpus.has_value(); });
    used[size_t(Column::SubmitTime)] = any([](const JobSpec &j) { return j.source.submitTime.has_value(); });
    used[size_t(Column::QueueSeconds)] = any([](const JobSpec &j) { return j.source.queueSeconds.has_value(); });
    used[size_t(Column::DurationSeconds)] = any([](const JobSpec &j) { return j.source.durationSeconds.has_value(); });
    used[size_t(Column::Workers)] = used[size_t(Column::Ps)] =
        any([](const JobSpec &j) { return j.source.workers != 0 || j.source.ps != 0; });

    if (!flush)
        out.reserve(jobs.size() * (used[size_t(Column::SourceId)] ? 120 : 40) + 256);
    auto oneLine = [](const std::string &v) { return v.find_first_of("\r\n") == std::string::npos; };
    // No "# name": a CSV trace is named by its file, as before (a "# name:" line is still read).
    if (!source.empty() && oneLine(source))
        out += "# source: " + source + '\n';
    if (slotSeconds)
        out += "# slot_seconds: " + formatNumber(*slotSeconds) + '\n';
    if (timeOrigin)
        out += "# time_origin: " + formatNumber(*timeOrigin) + '\n';
    if (cluster) {
        out += "# cluster_nodes: " + std::to_string(cluster->nodes) + '\n';
        out += "# cluster_gpus_per_node: " + std::to_string(cluster->gpusPerNode) + '\n';
        out += "# cluster_cpus_per_node: " + std::to_string(cluster->cpusPerNode) + '\n';
        if (!cluster->basis.empty())
            out += "# cluster_basis: " + cluster->basis + '\n';
    }
    out += kHeader;
    for (size_t c = 0; c < used.size(); ++c)
        if (used[c])
            out += std::string(",") + kColumnNames[c];
    out += '\n';
    for (const auto &j : jobs) {
        out += std::to_string(j.id) + ',' + std::to_string(j.arrivalSlot) + ',' + j.model + ',' +
               formatNumber(j.epochs);
        const JobSource &s = j.source;
        for (size_t c = 0; c < used.size(); ++c) {
            if (!used[c])
                continue;
            out += ',';
            switch (static_cast<Column>(c)) {
            case Column::EstimatedEpochs: out += formatOptional(j.estimatedEpochs); break;
            case Column::SourceId: out += quoted(s.id); break;
            case Column::User: out += quoted(s.user); break;
            case Column::Vc: out += quoted(s.vc); break;
            case Column::Status: out += quoted(s.status); break;
            case Column::Gpus: out += formatOptional(s.gpus); break;
            case Column::SubmitTime: out += formatOptional(s.submitTime); break;
            case Column::QueueSeconds: out += formatOptional(s.queueSeconds); break;
            case Column::DurationSeconds: out += formatOptional(s.durationSeconds); break;
            case Column::Workers: out += std::to_string(s.workers); break;
            case Column::Ps: out += std::to_string(s.ps); break;
            case Column::Count: break;
            }
        }
        out += '\n';
        if (flush)
            flush(out);
    }
}

} // namespace dl2
