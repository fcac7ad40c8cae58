#include "trace.h"

#include "error.h"
#include "fileio.h"
#include "modelprofile.h"
#include "textutil.h"
#include "trace.pb.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <sstream>

namespace dl2 {

namespace {

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

double parseNumber(const std::string &text, const std::string &origin, int line,
                   const std::string &column)
{
    double value = 0.0;
    const char *end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value))
        throw Error::at(origin, line, "column '" + column + "': not a number: '" + text + "'");
    return value;
}

int parseInt(const std::string &text, const std::string &origin, int line,
             const std::string &column)
{
    const double v = parseNumber(text, origin, line, column);
    if (v != std::floor(v) || std::fabs(v) > 1e9)
        throw Error::at(origin, line, "column '" + column + "': not an integer: '" + text + "'");
    return static_cast<int>(v);
}

class ErrorCollector : public google::protobuf::io::ErrorCollector
{
public:
    explicit ErrorCollector(std::string origin) : m_origin(std::move(origin)) {}
    void AddError(int line, google::protobuf::io::ColumnNumber column,
                  const std::string &message) override
    {
        if (m_message.empty())
            m_message = Error::at(m_origin, line + 1,
                                  "column " + std::to_string(column + 1) + ": " + message)
                            .what();
    }
    std::string m_message;

private:
    std::string m_origin;
};

Trace fromProto(const pb::Trace &msg)
{
    Trace trace;
    trace.name = msg.name();
    trace.jobs.reserve(static_cast<size_t>(msg.jobs_size()));
    for (const auto &j : msg.jobs()) {
        JobSpec spec;
        spec.id = j.id();
        spec.arrivalSlot = j.arrival_slot();
        spec.model = j.model();
        spec.epochs = j.epochs();
        if (j.has_estimated_epochs())
            spec.estimatedEpochs = j.estimated_epochs();
        trace.jobs.push_back(std::move(spec));
    }
    return trace;
}

pb::Trace toProto(const Trace &trace)
{
    pb::Trace msg;
    msg.set_name(trace.name);
    for (const auto &spec : trace.jobs) {
        auto *j = msg.add_jobs();
        j->set_id(spec.id);
        j->set_arrival_slot(spec.arrivalSlot);
        j->set_model(spec.model);
        j->set_epochs(spec.epochs);
        if (spec.estimatedEpochs)
            j->set_estimated_epochs(*spec.estimatedEpochs);
    }
    return msg;
}

std::string formatNumber(double v)
{
    std::ostringstream out;
    out.precision(17);
    out << v;
    return out.str();
}

} // namespace

void Trace::validate(const ProfileSet &profiles, const std::string &origin) const
{
    if (jobs.empty())
        throw Error(origin + ": trace has no jobs");
    if (jobs.size() > 10'000'000)
        throw Error(origin + ": trace has " + std::to_string(jobs.size()) +
                    " jobs, more than the supported 10,000,000");
    std::set<int> ids;
    for (size_t i = 0; i < jobs.size(); ++i) {
        const JobSpec &j = jobs[i];
        const std::string where = origin + ": job " + std::to_string(j.id) + " (entry " +
                                  std::to_string(i + 1) + ")";
        if (!ids.insert(j.id).second)
            throw Error(where + ": duplicate job id");
        if (j.arrivalSlot < 0 || j.arrivalSlot > 1'000'000)
            throw Error(where + ": arrival_slot " + std::to_string(j.arrivalSlot) +
                        " out of range 0..1000000");
        if (!std::isfinite(j.epochs) || j.epochs <= 0 || j.epochs > 1e12)
            throw Error(where + ": epochs must be a positive number, got " + formatNumber(j.epochs));
        if (j.estimatedEpochs && (!std::isfinite(*j.estimatedEpochs) || *j.estimatedEpochs <= 0))
            throw Error(where + ": estimated_epochs must be positive, got " +
                        formatNumber(*j.estimatedEpochs));
        if (!profiles.indexOf(j.model))
            throw Error(where + ": unknown model '" + j.model + "'");
    }
}

int Trace::lastArrival() const
{
    int last = 0;
    for (const auto &j : jobs)
        last = std::max(last, j.arrivalSlot);
    return last;
}

TraceFormat Trace::formatFromPath(const std::string &path)
{
    if (endsWith(path, ".csv"))
        return TraceFormat::Csv;
    if (endsWith(path, ".textproto") || endsWith(path, ".txtpb") || endsWith(path, ".pbtxt"))
        return TraceFormat::Text;
    return TraceFormat::Binary;
}

Trace Trace::parseCsv(const std::string &text, const std::string &origin)
{
    Trace trace;
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    bool header = false;
    bool hasEstimate = false;
    while (std::getline(in, line)) {
        ++lineNo;
        const std::string t = trim(line);
        if (t.empty() || t[0] == '#')
            continue;
        const auto fields = splitCsvFields(t);
        if (!header) {
            const std::vector<std::string> expected{"job_id", "arrival_slot", "model", "epochs"};
            if (fields.size() < 4 || !std::equal(expected.begin(), expected.end(), fields.begin()))
                throw Error::at(origin, lineNo,
                                "expected header 'job_id,arrival_slot,model,epochs', got '" + t + "'");
            hasEstimate = fields.size() >= 5 && fields[4] == "estimated_epochs";
            if (fields.size() > (hasEstimate ? 5u : 4u))
                throw Error::at(origin, lineNo, "unexpected extra header column '" + fields.back() + "'");
            header = true;
            continue;
        }
        const size_t want = hasEstimate ? 5 : 4;
        if (fields.size() != want && !(hasEstimate && fields.size() == 4))
            throw Error::at(origin, lineNo, "expected " + std::to_string(want) + " columns, got " +
                                                std::to_string(fields.size()));
        JobSpec spec;
        spec.id = parseInt(fields[0], origin, lineNo, "job_id");
        spec.arrivalSlot = parseInt(fields[1], origin, lineNo, "arrival_slot");
        spec.model = fields[2];
        if (spec.model.empty())
            throw Error::at(origin, lineNo, "column 'model' is empty");
        spec.epochs = parseNumber(fields[3], origin, lineNo, "epochs");
        if (spec.arrivalSlot < 0)
            throw Error::at(origin, lineNo, "column 'arrival_slot': must not be negative");
        if (spec.epochs <= 0)
            throw Error::at(origin, lineNo, "column 'epochs': must be positive, got " + fields[3]);
        if (fields.size() == 5 && !fields[4].empty()) {
            spec.estimatedEpochs = parseNumber(fields[4], origin, lineNo, "estimated_epochs");
            if (*spec.estimatedEpochs <= 0)
                throw Error::at(origin, lineNo, "column 'estimated_epochs': must be positive");
        }
        trace.jobs.push_back(std::move(spec));
    }
    if (!header)
        throw Error(origin + ": empty file, expected header 'job_id,arrival_slot,model,epochs'");
    return trace;
}

std::string Trace::toCsv() const
{
    const bool anyEstimate = std::any_of(jobs.begin(), jobs.end(),
                                         [](const JobSpec &j) { return j.estimatedEpochs.has_value(); });
    std::ostringstream out;
    out << "job_id,arrival_slot,model,epochs" << (anyEstimate ? ",estimated_epochs" : "") << '\n';
    for (const auto &j : jobs) {
        out << j.id << ',' << j.arrivalSlot << ',' << j.model << ',' << formatNumber(j.epochs);
        if (anyEstimate)
            out << ',' << (j.estimatedEpochs ? formatNumber(*j.estimatedEpochs) : std::string());
        out << '\n';
    }
    return out.str();
}

Trace Trace::load(const std::string &path, TraceFormat format)
{
    if (format == TraceFormat::Auto)
        format = formatFromPath(path);
    return parse(readFile(path), format, path);
}

Trace Trace::parse(const std::string &data, TraceFormat format, const std::string &path)
{
    if (format == TraceFormat::Auto)
        format = formatFromPath(path);
    Trace trace;
    if (format == TraceFormat::Csv) {
        trace = parseCsv(data, path);
    } else if (format == TraceFormat::Text) {
        pb::Trace msg;
        google::protobuf::TextFormat::Parser parser;
        ErrorCollector errors(path);
        parser.RecordErrorsTo(&errors);
        if (!parser.ParseFromString(data, &msg))
            throw Error(errors.m_message.empty() ? path + ": malformed text-format trace"
                                                 : errors.m_message);
        trace = fromProto(msg);
    } else {
        pb::Trace msg;
        if (!msg.ParseFromString(data))
            throw Error(path + ": not a valid binary dl2.pb.Trace (truncated or corrupt; " +
                        std::to_string(data.size()) + " bytes)");
        trace = fromProto(msg);
    }
    if (trace.name.empty()) {
        const auto slash = path.find_last_of('/');
        trace.name = slash == std::string::npos ? path : path.substr(slash + 1);
    }
    return trace;
}

void Trace::save(const std::string &path, TraceFormat format) const
{
    if (format == TraceFormat::Auto)
        format = formatFromPath(path);
    std::string out;
    if (format == TraceFormat::Csv) {
        out = toCsv();
    } else if (format == TraceFormat::Text) {
        if (!google::protobuf::TextFormat::PrintToString(toProto(*this), &out))
            throw Error(path + ": cannot encode trace as text");
    } else if (!toProto(*this).SerializeToString(&out)) {
        throw Error(path + ": cannot encode trace");
    }
    writeFileAtomically(path, out);
}

} // namespace dl2
