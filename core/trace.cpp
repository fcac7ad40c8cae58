#include "trace.h"

#include "error.h"
#include "fileio.h"
#include "modelprofile.h"
#include "textutil.h"
#include "trace.pb.h"

#include <QSaveFile>
#include <QUtf8StringView>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace dl2 {

// tracecsv.cpp: the CSV text, handed to `flush` as it grows.
void appendCsv(const Trace &trace, std::string &out, const std::function<void(std::string &)> &flush);

namespace {

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
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
        JobSource &s = spec.source;
        s.id = j.source_id();
        s.user = j.user();
        s.vc = j.vc();
        s.status = j.status();
        if (j.has_gpus())
            s.gpus = j.gpus();
        if (j.has_submit_time())
            s.submitTime = j.submit_time();
        if (j.has_queue_seconds())
            s.queueSeconds = j.queue_seconds();
        if (j.has_duration_seconds())
            s.durationSeconds = j.duration_seconds();
        s.workers = j.workers();
        s.ps = j.ps();
        trace.jobs.push_back(std::move(spec));
    }
    if (msg.has_slot_seconds())
        trace.slotSeconds = msg.slot_seconds();
    if (msg.has_time_origin())
        trace.timeOrigin = msg.time_origin();
    if (msg.has_cluster()) {
        const auto &c = msg.cluster();
        trace.cluster = TraceCluster{c.nodes(), c.gpus_per_node(), c.cpus_per_node(), c.basis()};
    }
    trace.source = msg.source();
    return trace;
}

void fillProto(pb::TraceJob *j, const JobSpec &spec)
{
    j->set_id(spec.id);
    j->set_arrival_slot(spec.arrivalSlot);
    j->set_model(spec.model);
    j->set_epochs(spec.epochs);
    if (spec.estimatedEpochs)
        j->set_estimated_epochs(*spec.estimatedEpochs);
    const JobSource &s = spec.source;
    j->set_source_id(s.id);
    j->set_user(s.user);
    j->set_vc(s.vc);
    j->set_status(s.status);
    if (s.gpus)
        j->set_gpus(*s.gpus);
    if (s.submitTime)
        j->set_submit_time(*s.submitTime);
    if (s.queueSeconds)
        j->set_queue_seconds(*s.queueSeconds);
    if (s.durationSeconds)
        j->set_duration_seconds(*s.durationSeconds);
    j->set_workers(s.workers);
    j->set_ps(s.ps);
}

pb::Trace toProto(const Trace &trace)
{
    pb::Trace msg;
    msg.set_name(trace.name);
    for (const auto &spec : trace.jobs)
        fillProto(msg.add_jobs(), spec);
    if (trace.slotSeconds)
        msg.set_slot_seconds(*trace.slotSeconds);
    if (trace.timeOrigin)
        msg.set_time_origin(*trace.timeOrigin);
    if (trace.cluster) {
        auto *c = msg.mutable_cluster();
        c->set_nodes(trace.cluster->nodes);
        c->set_gpus_per_node(trace.cluster->gpusPerNode);
        c->set_cpus_per_node(trace.cluster->cpusPerNode);
        c->set_basis(trace.cluster->basis);
    }
    msg.set_source(trace.source);
    return msg;
}

constexpr int kMaxArrivalSlot = 1'000'000;

// Source strings go into CSV cells and Protobuf strings: printable UTF-8 only.
template <class Where>
void checkText(const std::string &text, const Where &where, const char *what)
{
    for (const unsigned char c : text)
        if (c < 0x20 || c == 0x7f)
            throw Error(where() + ": " + what + ": control character in '" + text + "'");
    if (!QUtf8StringView(text).isValidUtf8())
        throw Error(where() + ": " + what + ": not valid UTF-8");
}

template <class Where>
void checkOptional(const std::optional<double> &v, const Where &where, const char *name, double min)
{
    if (v && !(std::isfinite(*v) && *v >= min))
        throw Error(where() + ": " + name + " must be a finite number of at least " +
                    formatNumber(min) + ", got " + formatNumber(*v));
}

template <class Where>
void validateSource(const JobSource &s, const Where &where)
{
    checkText(s.id, where, "source_id");
    checkText(s.user, where, "user");
    checkText(s.vc, where, "vc");
    checkText(s.status, where, "status");
    checkOptional(s.gpus, where, "gpus", 0.0);
    checkOptional(s.submitTime, where, "submit_time", -1e12);
    checkOptional(s.queueSeconds, where, "queue_seconds", 0.0);
    checkOptional(s.durationSeconds, where, "duration_seconds", 0.0);
    if (s.workers < 0 || s.ps < 0 || s.workers > 4096 || s.ps > 4096 || (s.workers > 0) != (s.ps > 0))
        throw Error(where() + ": observed allocation " + std::to_string(s.ps) + " PS / " +
                    std::to_string(s.workers) + " workers: give both (1..4096) or neither");
}

} // namespace

void Trace::validate(const ProfileSet &profiles, const std::string &origin) const
{
    if (jobs.empty())
        throw Error(origin + ": trace has no jobs");
    if (jobs.size() > 10'000'000)
        throw Error(origin + ": trace has " + std::to_string(jobs.size()) +
                    " jobs, more than the supported 10,000,000");
    // Duplicate ids: sorted copies of the ids (4 bytes a job, not a tree node).
    std::vector<std::pair<int, size_t>> ids(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i)
        ids[i] = {jobs[i].id, i};
    std::sort(ids.begin(), ids.end());
    for (size_t k = 1; k < ids.size(); ++k)
        if (ids[k].first == ids[k - 1].first)
            throw Error(origin + ": job " + std::to_string(ids[k].first) + " (entry " +
                        std::to_string(ids[k].second + 1) + "): duplicate job id");
    for (size_t i = 0; i < jobs.size(); ++i) {
        const JobSpec &j = jobs[i];
        // Built only for an error: a million jobs pass through here.
        auto where = [&] {
            return origin + ": job " + std::to_string(j.id) + " (entry " + std::to_string(i + 1) + ")";
        };
        if (j.arrivalSlot < 0 || j.arrivalSlot > kMaxArrivalSlot)
            throw Error(where() + ": arrival_slot " + std::to_string(j.arrivalSlot) +
                        " out of range 0..1000000");
        if (!std::isfinite(j.epochs) || j.epochs <= 0 || j.epochs > 1e12)
            throw Error(where() + ": epochs must be a positive number, got " + formatNumber(j.epochs));
        if (j.epochs < kMinTraceEpochs) {
            char value[32];
            std::snprintf(value, sizeof value, "%.3g", j.epochs);
            throw Error(where() +
                        (j.source.id.empty() ? std::string() : " (source id '" + j.source.id + "')") +
                        ": epochs " + value + " is absurdly small (below 1e-9): the job would be "
                        "instant; was it made from a failed (near-zero) speed?");
        }
        if (j.estimatedEpochs && (!std::isfinite(*j.estimatedEpochs) || *j.estimatedEpochs <= 0))
            throw Error(where() + ": estimated_epochs must be positive, got " +
                        formatNumber(*j.estimatedEpochs));
        if (!profiles.indexOf(j.model))
            throw Error(where() + ": unknown model '" + j.model + "'");
        if (!j.source.empty())
            validateSource(j.source, where);
    }
    if (slotSeconds && !(*slotSeconds > 0 && *slotSeconds <= 1e7))
        throw Error(origin + ": slot_seconds must be in (0, 1e7], got " + formatNumber(*slotSeconds));
    if (timeOrigin && !std::isfinite(*timeOrigin))
        throw Error(origin + ": time_origin must be a finite number");
    if (cluster) {
        const TraceCluster &c = *cluster;
        // Within what the simulator's cluster indexes cheaply (a usage bucket per CPU x GPU slot).
        if (c.nodes < 1 || c.nodes > 100'000 || c.gpusPerNode < 0 || c.gpusPerNode > 16 ||
            c.cpusPerNode < 0 || c.cpusPerNode > 512 || c.gpusPerNode + c.cpusPerNode == 0)
            throw Error(origin + ": cluster: " + std::to_string(c.nodes) + " nodes of " +
                        std::to_string(c.gpusPerNode) + " GPUs and " +
                        std::to_string(c.cpusPerNode) +
                        " CPUs is out of range (1..100000 nodes, up to 16 GPUs and 512 CPUs each)");
        checkText(c.basis, [&] { return origin + ": cluster"; }, "basis");
    }
    checkText(source, [&] { return origin; }, "source");
}

int Trace::maxObservedWorkers() const
{
    int most = 0;
    for (const auto &j : jobs)
        most = std::max(most, j.source.workers);
    return most;
}

int Trace::maxObservedPs() const
{
    int most = 0;
    for (const auto &j : jobs)
        most = std::max(most, j.source.ps);
    return most;
}

bool Trace::rescaleArrivals(double seconds)
{
    if (!timeOrigin || !(seconds > 0) ||
        std::any_of(jobs.begin(), jobs.end(),
                    [](const JobSpec &j) { return !j.source.submitTime.has_value(); }))
        return false;
    std::vector<int> slots;
    slots.reserve(jobs.size());
    for (const auto &j : jobs) {
        const double slot = std::floor((*j.source.submitTime - *timeOrigin) / seconds);
        if (!(slot >= 0 && slot <= kMaxArrivalSlot))
            return false;
        slots.push_back(static_cast<int>(slot));
    }
    for (size_t i = 0; i < jobs.size(); ++i)
        jobs[i].arrivalSlot = slots[i];
    slotSeconds = seconds;
    return true;
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

namespace {

// A QSaveFile fed in chunks: a million-job trace is never a second whole copy in memory, and
// a failed write leaves no partial file.
class ChunkedFile
{
public:
    explicit ChunkedFile(const std::string &path) : m_path(path), m_file(QString::fromStdString(path))
    {
        if (!m_file.open(QIODevice::WriteOnly))
            throw Error(path + ": cannot write: " + m_file.errorString().toStdString());
    }
    // Writes `buffer` out when it has grown past a chunk (and empties it).
    void flushIfFull(std::string &buffer)
    {
        if (buffer.size() >= (1u << 20))
            flush(buffer);
    }
    void flush(std::string &buffer)
    {
        const auto size = static_cast<qint64>(buffer.size());
        if (m_file.write(buffer.data(), size) != size)
            throw Error(m_path + ": write failed: " + m_file.errorString().toStdString());
        buffer.clear();
    }
    void commit(std::string &buffer)
    {
        flush(buffer);
        if (!m_file.commit())
            throw Error(m_path + ": write failed: " + m_file.errorString().toStdString());
    }

private:
    std::string m_path;
    QSaveFile m_file;
};

void appendVarint(std::string &out, std::uint64_t v)
{
    while (v >= 0x80) {
        out += static_cast<char>((v & 0x7f) | 0x80);
        v >>= 7;
    }
    out += static_cast<char>(v);
}

} // namespace

void Trace::save(const std::string &path, TraceFormat format) const
{
    if (format == TraceFormat::Auto)
        format = formatFromPath(path);
    if (format == TraceFormat::Text) {
        std::string out;
        if (!google::protobuf::TextFormat::PrintToString(toProto(*this), &out))
            throw Error(path + ": cannot encode trace as text");
        writeFileAtomically(path, out);
        return;
    }
    ChunkedFile file(path);
    std::string buffer;
    if (format == TraceFormat::Csv) {
        appendCsv(*this, buffer, [&](std::string &b) { file.flushIfFull(b); });
        file.commit(buffer);
        return;
    }
    // dl2.pb.Trace, its jobs encoded one at a time: the trace-level fields, then each job as
    // field 2 (length-delimited), which is the same message a whole SerializeToString gives.
    Trace header; // the trace-level fields only (no copy of the jobs)
    header.name = name;
    header.slotSeconds = slotSeconds;
    header.timeOrigin = timeOrigin;
    header.cluster = cluster;
    header.source = source;
    if (!toProto(header).AppendToString(&buffer))
        throw Error(path + ": cannot encode trace");
    pb::TraceJob message;
    std::string job;
    for (const auto &spec : jobs) {
        message.Clear();
        fillProto(&message, spec);
        job.clear();
        if (!message.SerializeToString(&job))
            throw Error(path + ": cannot encode job " + std::to_string(spec.id));
        buffer += static_cast<char>((2 << 3) | 2);
        appendVarint(buffer, job.size());
        buffer += job;
        file.flushIfFull(buffer);
    }
    file.commit(buffer);
}

} // namespace dl2
