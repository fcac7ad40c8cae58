#pragma once
// Importers for public cluster traces (Microsoft Philly, Alibaba PAI 2020, SenseTime Helios),
// read as published (plain, gzip, tar.gz or zip; BOM; CRLF) with each publisher's conventions:
// - Philly: a job's duration by default spans its attempts (last attempt's end - first
//   attempt's start, as the publisher's notebook), its GPUs those of attempt 0; Killed and
//   Failed jobs are filtered;
// - PAI: a start_time of 0 means "not started", an end_time of 0 "not ended" (the publisher's
//   analysis); duration = latest task end - earliest task start over the tasks that ran;
//   queueing delay = earliest task start - the job's submission; only Terminated jobs kept;
// - Helios: every documented state is counted (COMPLETED kept; CANCELLED, FAILED, TIMEOUT,
//   NODE_FAIL, SUSPENDED filtered; RUNNING/PENDING unfinished; anything else unknown-state).
// Each kept job becomes a JobSpec that also keeps what the source said (JobSource). Mapping:
// - arrival slot = floor((submit - origin) / slot seconds); origin = --time-origin, else
//   --from, else the earliest kept submission;
// - observed allocation: workers = GPUs rounded up (at least 1); PS by rule (auto: the PAI job's
//   ps instances when it has ps tasks, else one per worker; per-worker; one); both capped only
//   when a cap is given;
// - model by rule: by-size (0 GPUs -> cnn-text-classification | dssm; more than 0 and up to 2
//   -> resnext-110 | seq2seq | wlm; more than 2 -> inception-bn | resnet-50 | vgg-16; the member
//   of the class drawn uniformly) or sample (uniform over all profiles). Draws use an Rng seeded
//   with (seed, source job id), so a job's model does not depend on which other jobs are kept;
//   a model with no speed at the job's observed allocation (0, or below
//   kNegligibleSpeedFraction of its best: the measured table's failed points, e.g. vgg-16 at
//   4 PSs and 8 workers) is drawn again among the others (counted, model-redrawn), and a job
//   no model can run is filtered (no-speed); a job of fewer than kMinTraceEpochs epochs
//   (a sub-millisecond duration) is filtered (too-short);
// - epochs = observed duration x f(ps, workers) / steps per epoch, so the job alone at its
//   observed allocation runs exactly its observed duration.
// CPU-only jobs are filtered unless keepCpuJobs. Every filtered job is counted per reason.
// The trace records its slot length, origin and, where the source implies it, its cluster.

#include "trace.h"
#include "traceinput.h"
#include "types.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dl2 {

class ProfileSet;

enum class ImportFormat { Philly, Alibaba, Helios };
const char *toString(ImportFormat format);
ImportFormat importFormatFromString(const std::string &name); // throws dl2::Error

enum class ModelRule { BySize, Sample };
const char *toString(ModelRule rule);
ModelRule modelRuleFromString(const std::string &name); // throws dl2::Error

// How a Philly job's attempts make its duration.
enum class PhillyDuration {
    Span,        // last attempt's end - first attempt's start (the publisher's notebook)
    LastAttempt, // the last complete attempt only (and its GPUs)
    Sum,         // the sum of the attempts' durations
};
const char *toString(PhillyDuration rule);
PhillyDuration phillyDurationFromString(const std::string &name); // throws dl2::Error

enum class PsRule {
    Auto,      // the trace's PS count where it has one (PAI ps tasks), else one per worker
    PerWorker, // as many PSs as workers
    One,       // one PS
};
const char *toString(PsRule rule);
PsRule psRuleFromString(const std::string &name); // throws dl2::Error

struct ImportOptions
{
    double slotSeconds = 1200.0;
    std::optional<double> timeOrigin; // on the trace's clock (parseTraceTime); default: from, or earliest
    std::optional<double> from;       // keep jobs submitted at or after (trace clock)
    std::optional<double> to;         // keep jobs submitted before
    int maxJobs = 0;                  // keep the first N by submission; 0 = all
    ModelRule modelRule = ModelRule::BySize;
    std::uint64_t seed = 1;
    bool skipMalformed = false; // count malformed records instead of throwing
    bool keepCpuJobs = false;   // CPU-only jobs become one-worker jobs instead of being filtered
    int maxWorkers = 0;         // cap on the observed workers; 0 = none
    int maxPs = 0;              // cap on the observed PSs; 0 = none
    PsRule psRule = PsRule::Auto;
    PhillyDuration phillyDuration = PhillyDuration::Span;
    std::string member;         // the archive member of the input (empty: by the format's names)
    std::string alibabaJobTable; // empty: pai_job_table next to the task table (or in its archive)
    // The machines: Philly cluster_machine_list, PAI pai_machine_spec, Helios
    // cluster_gpu_number.csv. Empty: looked for next to the input (or in its archive).
    std::string machines;
    const ProfileSet *profiles = nullptr; // null: ProfileSet::reference()
};

struct ImportReport
{
    std::vector<std::string> inputs; // what was read ("file" or "archive:member")
    // Job records read = kept + filtered + malformed job records. Filter reasons: failed,
    // killed, cancelled, timeout, node-fail, suspended, unfinished (Running/Waiting/RUNNING/
    // PENDING), unknown-state, no-attempts, no-tasks, no-duration, no-submit-time,
    // malformed-task (a skipped PAI task row), cpu-only, before-from, after-to, before-origin,
    // over-max-jobs, no-speed (no model of the job's class has a speed at its observed
    // allocation), too-short (fewer than kMinTraceEpochs epochs).
    int records = 0;
    int kept = 0;
    std::map<std::string, int> filtered;
    int malformed = 0;                          // records/rows skipped (with skipMalformed)
    std::vector<std::string> malformedExamples; // the first few messages
    // Facts an analyst should know, counted: e.g. multi-attempt jobs, tasks-not-started,
    // capped-workers, start-before-submit.
    std::map<std::string, long long> counts;
    std::vector<std::string> notes; // the same and more as sentences
    std::vector<std::string> warnings; // notes that may mean damaged input (also in notes)
    double timeOrigin = 0.0;
    int firstSlot = 0;
    int lastSlot = 0;
    std::map<std::string, int> keptStatus; // status of the kept jobs as the source writes it
};

struct ImportResult
{
    Trace trace; // each job's JobSource holds what the source said
    ImportReport report;
};

// Throws dl2::Error naming the file and line (CSV) or job index (JSON) of a malformed record,
// unless options.skipMalformed.
ImportResult importTrace(const std::string &path, ImportFormat format,
                         const ImportOptions &options = {});

// "YYYY-MM-DD HH:MM:SS" (read as UTC) or plain seconds -> seconds; nullopt if neither.
std::optional<double> parseTraceTime(std::string_view text);
std::string formatTraceTime(double seconds); // "YYYY-MM-DD HH:MM:SS"

// Workers = GPUs rounded up (at least 1); PS = `sourcePs` (auto, when positive) or by rule;
// caps of 0 mean none.
TaskCounts observedAllocation(double gpus, int maxPs = 0, int maxWorkers = 0,
                                      PsRule rule = PsRule::Auto, int sourcePs = 0);

} // namespace dl2
