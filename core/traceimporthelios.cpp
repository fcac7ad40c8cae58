// SenseTime Helios (S-Lab-System-Group/HeliosData): data/<Cluster>/cluster_log.csv with a
// header row, and cluster_gpu_number.csv (daily GPUs per VC) for the cluster's size.
#include "traceimportformats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

namespace dl2::importing {

namespace {

constexpr int kHeliosGpusPerNode = 8; // HeliosData README: every node has 8 GPUs

const std::map<std::string, const std::string *> &stateReasons()
{
    static const std::map<std::string, const std::string *> reasons{
        {"CANCELLED", &kCancelled}, {"FAILED", &kFailed},        {"TIMEOUT", &kTimeout},
        {"NODE_FAIL", &kNodeFail},  {"SUSPENDED", &kSuspended},  {"RUNNING", &kUnfinished},
        {"PENDING", &kUnfinished},  {"REQUEUED", &kUnfinished}, {"PREEMPTED", &kUnfinished}};
    return reasons;
}

// cluster_gpu_number.csv: daily GPUs per VC. Read leniently (wide: date, one column per VC;
// or long: date, vc, GPUs): the GPUs of a day are the sum of its numeric cells after the first
// column; the cluster's GPUs are the largest day.
std::optional<double> readGpuNumbers(const InputRef &ref, Collector &out, std::string &name)
{
    TraceInput input(ref, {"cluster_gpu_number.csv"});
    name = input.name();
    out.report().inputs.push_back(name);
    CsvReader r(input);
    std::map<std::string, double> perDay;
    while (r.next())
        for (size_t i = 1; i < r.size(); ++i)
            if (const auto v = parseNumber(r[i]); v && *v > 0)
                perDay[r[0]] += *v;
    double most = 0;
    for (const auto &[day, gpus] : perDay)
        most = std::max(most, gpus);
    return most > 0 ? std::optional<double>(most) : std::nullopt;
}

// The largest number of GPUs in use at once by the log's jobs (every state).
double peakGpus(std::vector<std::pair<double, double>> &events)
{
    std::sort(events.begin(), events.end()); // at equal times, releases (negative) first
    double inUse = 0, peak = 0;
    for (const auto &[time, delta] : events) {
        inUse += delta;
        peak = std::max(peak, inUse);
    }
    return peak;
}

} // namespace

void readHelios(const InputRef &ref, const ImportOptions &options, Collector &out)
{
    TraceInput input(ref, {"cluster_log.csv"});
    const std::string path = input.name();
    out.report().inputs.push_back(path);
    CsvReader r(input);
    if (!r.next())
        throw Error(path + ": empty file");
    std::unordered_map<std::string, size_t> columns;
    for (size_t i = 0; i < r.size(); ++i)
        columns.emplace(r[i], i);
    const size_t width = r.size();
    auto column = [&](const char *name, bool required) -> std::optional<size_t> {
        const auto it = columns.find(name);
        if (it != columns.end())
            return it->second;
        if (required)
            throw r.error(std::string("header: missing column '") + name +
                          "' (expected Helios cluster_log.csv: job_id, user, vc, gpu_num, "
                          "cpu_num, node_num, state, submit_time, start_time, end_time, "
                          "duration, queue)");
        return std::nullopt;
    };
    const size_t cId = *column("job_id", true), cGpu = *column("gpu_num", true);
    const size_t cState = *column("state", true), cSubmit = *column("submit_time", true);
    const auto cStart = column("start_time", false), cEnd = column("end_time", false);
    const auto cDuration = column("duration", false), cQueue = column("queue", false);
    const auto cUser = column("user", false), cVc = column("vc", false);
    if (!cDuration && !(cStart && cEnd))
        throw r.error("header: needs 'duration' or both 'start_time' and 'end_time'");

    std::vector<std::pair<double, double>> usage; // (time, +-GPUs) of every job that ran
    std::map<std::string, int> unknownStates;
    // NaN = no value (std::optional here trips GCC's -Wmaybe-uninitialized).
    constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    while (r.next()) {
        try {
            if (r.size() != width)
                throw r.columnCountError(width, "as in the header");
            const std::string &state = r[cState];
            const double gpus = r.number(cGpu, "gpu_num");
            const auto submit = r.optionalTime(cSubmit, "submit_time");
            const double start = cStart ? r.optionalTime(*cStart, "start_time").value_or(kNone) : kNone;
            const double end = cEnd ? r.optionalTime(*cEnd, "end_time").value_or(kNone) : kNone;
            if (end < start)
                throw r.error("end_time is before start_time");
            if (gpus > 0 && end > start) {
                usage.emplace_back(start, gpus);
                usage.emplace_back(end, -gpus);
            }
            if (state != "COMPLETED") {
                const auto reason = stateReasons().find(state);
                if (reason == stateReasons().end()) {
                    ++unknownStates[state];
                    out.filter(kUnknownState);
                } else {
                    out.filter(*reason->second);
                }
                continue;
            }
            if (!submit) {
                out.filter(kNoSubmitTime);
                continue;
            }
            double duration =
                cDuration ? r.optionalNumber(*cDuration, "duration").value_or(kNone) : kNone;
            if (std::isnan(duration))
                duration = end - start; // NaN unless both are known
            if (!(duration > 0)) {
                out.filter(kNoDuration);
                continue;
            }
            RawJob raw;
            JobSource &s = raw.source;
            s.id = r[cId];
            s.status = state;
            if (cUser)
                s.user = r[*cUser];
            if (cVc)
                s.vc = r[*cVc];
            s.submitTime = submit;
            s.gpus = gpus;
            s.durationSeconds = duration;
            double queue = cQueue ? r.optionalNumber(*cQueue, "queue", -1e12).value_or(kNone) : kNone;
            if (std::isnan(queue))
                queue = start - *submit;
            if (!std::isnan(queue)) {
                if (queue < 0)
                    out.count("start-before-submit");
                s.queueSeconds = std::max(0.0, queue);
            }
            out.keep(std::move(raw));
        } catch (const Error &e) {
            out.malformed(e);
        }
    }
    out.checkStream(input);
    out.checkLastLine(r);
    if (!unknownStates.empty()) {
        std::string list;
        for (const auto &[state, n] : unknownStates)
            list += (list.empty() ? "" : ", ") + (state.empty() ? "(empty)" : state) + " " + std::to_string(n);
        out.note("states outside the documented ones, filtered as unknown-state: " + list);
    }

    // The cluster: 8 GPUs per node; the node count from cluster_gpu_number.csv, else the
    // peak of GPUs in use at once in the log.
    TraceCluster c;
    c.gpusPerNode = kHeliosGpusPerNode;
    c.cpusPerNode = 4 * kHeliosGpusPerNode;
    std::string numbersName;
    if (const auto numbers = findCompanion(input.ref(), {"cluster_gpu_number.csv"}, options.machines)) {
        if (const auto gpus = readGpuNumbers(*numbers, out, numbersName)) {
            c.nodes = static_cast<int>(std::ceil(*gpus / kHeliosGpusPerNode));
            c.basis = baseName(numbersName) + ": at most " + std::to_string(static_cast<long long>(*gpus)) +
                      " GPUs a day over the VCs; 8 GPUs per node (HeliosData README)";
        }
    }
    if (c.nodes == 0) {
        const double peak = peakGpus(usage);
        if (peak > 0) {
            c.nodes = static_cast<int>(std::ceil(peak / kHeliosGpusPerNode));
            c.basis = "estimated: at most " + std::to_string(static_cast<long long>(peak)) +
                      " GPUs in use at once in the log; 8 GPUs per node (HeliosData README)";
        }
    }
    if (c.nodes > 0) {
        c.basis += "; CPUs assumed 4 per GPU";
        out.cluster = c;
    }
    // "helios Venus/cluster_log.csv": the cluster's folder names it.
    const size_t last = path.find_last_of('/');
    const size_t folder = last == std::string::npos || last == 0 ? std::string::npos
                                                                  : path.find_last_of("/:", last - 1);
    out.source = "helios " + (folder == std::string::npos ? baseName(path) : path.substr(folder + 1));
}

} // namespace dl2::importing
