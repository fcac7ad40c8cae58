#include "traceimport.h"

#include "error.h"
#include "modelprofile.h"
#include "traceimportformats.h"
#include "rng.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace dl2 {

using namespace importing;

namespace {

constexpr int kMaxArrivalSlot = 1'000'000; // Trace::validate's limit
constexpr int kMaxAllocation = 4096;       // the simulator's cap limit

const std::string kCpuOnly = "cpu-only";
const std::string kBeforeFrom = "before-from";
const std::string kAfterTo = "after-to";
const std::string kBeforeOrigin = "before-origin";
const std::string kOverMaxJobs = "over-max-jobs";
const std::string kTooShort = "too-short";

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

// The file name without its format and compression suffixes ("trace-data.tar.gz" -> "trace-data").
std::string traceName(const std::string &path)
{
    std::string name = std::filesystem::path(path).filename().string();
    for (bool again = true; again;) {
        again = false;
        for (const char *suffix : {".gz", ".tgz", ".zip", ".tar", ".bz2", ".xz", ".zst", ".csv", ".json"}) {
            const std::string s(suffix);
            if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
                name.resize(name.size() - s.size());
                again = true;
            }
        }
    }
    return name;
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

const char *toString(PhillyDuration rule)
{
    switch (rule) {
    case PhillyDuration::Span:
        return "span";
    case PhillyDuration::LastAttempt:
        return "last-attempt";
    case PhillyDuration::Sum:
        return "sum";
    }
    return "?";
}

PhillyDuration phillyDurationFromString(const std::string &name)
{
    for (auto r : {PhillyDuration::Span, PhillyDuration::LastAttempt, PhillyDuration::Sum})
        if (name == toString(r))
            return r;
    throw Error("unknown Philly duration rule '" + name + "' (expected span, last-attempt or sum)");
}

const char *toString(PsRule rule)
{
    switch (rule) {
    case PsRule::Auto:
        return "auto";
    case PsRule::PerWorker:
        return "per-worker";
    case PsRule::One:
        return "one";
    }
    return "?";
}

PsRule psRuleFromString(const std::string &name)
{
    for (auto r : {PsRule::Auto, PsRule::PerWorker, PsRule::One})
        if (name == toString(r))
            return r;
    throw Error("unknown PS rule '" + name + "' (expected auto, per-worker or one)");
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

TaskCounts observedAllocation(double gpus, int maxPs, int maxWorkers, PsRule rule,
                              int sourcePs)
{
    // Whole GPUs, rounded up (a fractional GPU share still occupies a worker), at least one.
    const double whole = std::ceil(std::max(gpus, 0.0) - 1e-9);
    const int workerCap = maxWorkers > 0 ? std::min(maxWorkers, kMaxAllocation) : kMaxAllocation;
    const int psCap = maxPs > 0 ? std::min(maxPs, kMaxAllocation) : kMaxAllocation;
    const int workers = static_cast<int>(std::clamp(whole, 1.0, static_cast<double>(workerCap)));
    int ps = workers;
    if (rule == PsRule::One)
        ps = 1;
    else if (rule == PsRule::Auto && sourcePs > 0)
        ps = sourcePs;
    return {std::clamp(ps, 1, psCap), workers};
}

namespace {

void checkOptions(const ImportOptions &options)
{
    if (!(options.slotSeconds > 0) || !std::isfinite(options.slotSeconds) ||
        options.slotSeconds > 1e7)
        throw Error("slot seconds must be in (0, 1e7]");
    if (options.maxJobs < 0 || options.maxPs < 0 || options.maxWorkers < 0)
        throw Error("max jobs and the PS and worker caps must not be negative");
    if (options.from && options.to && !(*options.from < *options.to))
        throw Error("the time window is empty: --from must be before --to");
}

// Sorts by submission, ties in trace order, without copying the jobs: the order is found on
// (time, index) pairs, then applied by swapping along the permutation's cycles.
void sortBySubmission(std::vector<JobSpec> &jobs)
{
    std::vector<std::pair<double, size_t>> order(jobs.size());
    for (size_t i = 0; i < jobs.size(); ++i)
        order[i] = {submitOf(jobs[i]), i};
    std::sort(order.begin(), order.end());
    // Position k must receive the job at order[k].second.
    std::vector<bool> placed(jobs.size(), false);
    for (size_t start = 0; start < jobs.size(); ++start) {
        if (placed[start])
            continue;
        size_t k = start;
        while (order[k].second != start) {
            std::swap(jobs[k], jobs[order[k].second]);
            placed[k] = true;
            k = order[k].second;
        }
        placed[k] = true;
    }
}

// Filters applied after reading, in this order: CPU-only, the window, the origin, max jobs.
// In place (remove_if keeps the order): a million jobs are never held twice.
void applyFilters(std::vector<RawJob> &jobs, const ImportOptions &options, ImportReport &report)
{
    auto dropIf = [&](const std::string &reason, auto predicate) {
        const auto end = std::remove_if(jobs.begin(), jobs.end(), predicate);
        const auto n = static_cast<int>(jobs.end() - end);
        if (n > 0)
            report.filtered[reason] += n;
        jobs.erase(end, jobs.end());
    };
    if (!options.keepCpuJobs)
        dropIf(kCpuOnly, [](const RawJob &j) { return !(gpusOf(j) > 0); });
    if (options.from)
        dropIf(kBeforeFrom, [&](const RawJob &j) { return submitOf(j) < *options.from; });
    if (options.to)
        dropIf(kAfterTo, [&](const RawJob &j) { return submitOf(j) >= *options.to; });
    sortBySubmission(jobs);
    report.timeOrigin = options.timeOrigin.value_or(
        options.from.value_or(jobs.empty() ? 0.0 : submitOf(jobs.front())));
    dropIf(kBeforeOrigin, [&](const RawJob &j) { return submitOf(j) < report.timeOrigin; });
    if (options.maxJobs > 0 && jobs.size() > static_cast<size_t>(options.maxJobs)) {
        report.filtered[kOverMaxJobs] += static_cast<int>(jobs.size()) - options.maxJobs;
        jobs.erase(jobs.begin() + options.maxJobs, jobs.end());
    }
}

} // namespace

ImportResult importTrace(const std::string &path, ImportFormat format, const ImportOptions &options)
{
    checkOptions(options);
    const ProfileSet &profiles = options.profiles ? *options.profiles : ProfileSet::reference();
    if (profiles.size() == 0)
        throw Error("no model profiles to map jobs to");

    ImportResult result;
    ImportReport &report = result.report;
    Collector collector(options, report);
    const InputRef input{path, options.member};
    switch (format) {
    case ImportFormat::Philly:
        readPhilly(input, options, collector);
        break;
    case ImportFormat::Alibaba:
        readAlibaba(input, options, collector);
        break;
    case ImportFormat::Helios:
        readHelios(input, options, collector);
        break;
    }

    std::vector<RawJob> jobs = std::move(collector.jobs);
    applyFilters(jobs, options, report);

    // Profile indices per by-size class, resolved once.
    std::vector<std::vector<int>> classes;
    for (const auto &names : sizeClasses()) {
        classes.emplace_back();
        for (const auto &name : names)
            if (const auto index = profiles.indexOf(name))
                classes.back().push_back(*index);
    }

    // Each profile's best speed on the measured grid: a speed below a tiny fraction of it is a
    // failed measurement (the table keeps them, ~1e-16 through the RBF), not a speed.
    std::vector<double> best(static_cast<size_t>(profiles.size()), 0.0);
    for (int t = 0; t < profiles.size(); ++t)
        if (profiles[t].speed)
            best[static_cast<size_t>(t)] = bestSpeed(*profiles[t].speed);

    Trace &trace = result.trace;
    trace.name = traceName(path);
    trace.slotSeconds = options.slotSeconds;
    trace.timeOrigin = report.timeOrigin;
    trace.cluster = collector.cluster;
    trace.source = collector.source;
    long long capped = 0, redrawn = 0;
    size_t keptJobs = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
        JobSpec &spec = jobs[i];
        JobSource &source = spec.source;
        const double slot = std::floor((submitOf(spec) - report.timeOrigin) / options.slotSeconds);
        if (slot > kMaxArrivalSlot)
            throw Error("job '" + source.id + "' would arrive in slot " +
                        std::to_string(static_cast<long long>(slot)) + ", past the supported " +
                        std::to_string(kMaxArrivalSlot) +
                        ": use longer slots, a time window (--from/--to) or fewer jobs");
        // Each job draws from its own stream (seed, source id): its model does not change when
        // other jobs are filtered, cut by the time origin or by max jobs.
        Rng rng(options.seed * 0x9E3779B97F4A7C15ULL ^ fnv1a(source.id));
        std::vector<int> members;
        if (options.modelRule == ModelRule::Sample) {
            for (int t = 0; t < profiles.size(); ++t)
                members.push_back(t);
        } else {
            members = classes[sizeClass(gpusOf(spec))];
            if (members.empty())
                throw Error("model rule by-size: the profiles have none of the models for jobs "
                            "with " +
                            std::to_string(gpusOf(spec)) + " GPUs; use the sample rule");
        }
        const TaskCounts a = observedAllocation(gpusOf(spec), options.maxPs,
                                                options.maxWorkers, options.psRule,
                                                source.ps);
        // A model that cannot run at the observed allocation (no speed there: 0, a failed
        // measurement's ~1e-16, or below kNegligibleSpeedFraction of its best) cannot turn the
        // duration into epochs: the draw goes on among the others (counted), and a job no
        // model of its class can run is filtered.
        int type = -1;
        double speed = 0.0;
        bool first = true;
        while (!members.empty()) {
            const size_t k = rng.below(members.size());
            const ModelProfile &candidate = profiles[members[k]];
            const double s = candidate.speed ? candidate.speed->speed(a.ps, a.workers) : 0.0;
            if (isUsableSpeed(s, best[static_cast<size_t>(members[k])])) {
                type = members[k];
                speed = s;
                break;
            }
            members.erase(members.begin() + static_cast<std::ptrdiff_t>(k));
            first = false;
        }
        if (type < 0) {
            ++report.filtered["no-speed"];
            continue;
        }
        const ModelProfile &profile = profiles[type];
        const double epochs = *source.durationSeconds * speed / profile.stepsPerEpoch;
        if (epochs < kMinTraceEpochs) { // a sub-millisecond duration: not a training job
            ++report.filtered[kTooShort];
            continue;
        }
        redrawn += !first;
        capped += a.workers < std::ceil(gpusOf(spec) - 1e-9);
        spec.id = static_cast<int>(keptJobs) + 1;
        spec.arrivalSlot = static_cast<int>(slot);
        spec.model = profile.name;
        spec.epochs = epochs;
        source.workers = a.workers;
        source.ps = a.ps;
        ++report.keptStatus[source.status];
        if (keptJobs != i)
            jobs[keptJobs] = std::move(spec);
        ++keptJobs;
    }
    jobs.resize(keptJobs);
    if (redrawn > 0) {
        report.counts["model-redrawn"] = redrawn;
        report.notes.push_back(std::to_string(redrawn) + " jobs drew a model with no speed at their "
                               "observed allocation and were given another of their class");
    }
    if (report.filtered.count("no-speed"))
        report.notes.push_back(std::to_string(report.filtered.at("no-speed")) +
                               " jobs filtered: no model of their class has a speed at their "
                               "observed allocation");
    if (report.filtered.count(kTooShort))
        report.notes.push_back(std::to_string(report.filtered.at(kTooShort)) +
                               " jobs filtered (too-short): their duration makes fewer than "
                               "1e-9 epochs");
    trace.jobs = std::move(jobs);
    if (capped > 0) {
        report.counts["capped-workers"] = capped;
        report.notes.push_back(std::to_string(capped) + " jobs used more GPUs than the worker cap " +
                               std::to_string(options.maxWorkers) + " and were capped");
    }
    report.kept = static_cast<int>(trace.jobs.size());
    if (!trace.jobs.empty()) {
        report.firstSlot = trace.jobs.front().arrivalSlot;
        report.lastSlot = trace.jobs.back().arrivalSlot;
    }
    return result;
}

} // namespace dl2
