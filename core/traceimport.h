#pragma once
// Importers for public cluster traces (Microsoft Philly, Alibaba PAI 2020, SenseTime Helios):
// each successful job becomes a JobSpec. The mapping (also printed by dl2 trace-import --help):
// - arrival slot = floor((submit - origin) / slot seconds); origin = earliest kept submission;
// - observed allocation: workers = GPUs rounded up (at least 1), ps = workers, each capped
//   at 16;
// - model by rule: by-size (0 GPUs -> cnn-text-classification | dssm; more than 0 and up to 2
//   -> resnext-110 | seq2seq | wlm; more than 2 -> inception-bn | resnet-50 | vgg-16; the member
//   of the class drawn uniformly) or sample (uniform over all profiles). Draws use an Rng seeded
//   with (seed, source job id), so a job's model does not depend on which other jobs are kept;
// - epochs = observed duration x f(ps, workers) / steps per epoch, so the job alone at its
//   observed allocation runs exactly its observed duration.
// Unsuccessful jobs and jobs without a duration are counted per reason in the report.

#include "trace.h"

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

struct ImportOptions
{
    double slotSeconds = 1200.0;
    std::optional<double> timeOrigin; // on the trace's clock (parseTraceTime); default: earliest
    int maxJobs = 0;                  // keep the first N by submission; 0 = all
    ModelRule modelRule = ModelRule::BySize;
    std::uint64_t seed = 1;
    bool skipMalformed = false; // count malformed records instead of throwing
    int maxWorkers = 16;
    int maxPs = 16;
    std::string alibabaJobTable;          // empty: pai_job_table(.csv) next to the task table
    const ProfileSet *profiles = nullptr; // null: ProfileSet::reference()
};

// What the trace said about one kept job, in trace order.
struct ImportedJob
{
    std::string sourceId;
    double submitTime = 0.0; // trace clock, seconds
    double gpus = 0.0;
    double durationSeconds = 0.0;
    int ps = 0;
    int workers = 0;
};

struct ImportReport
{
    std::vector<std::string> inputs; // files read
    // Job records read = kept + filtered + malformed job records. Filter reasons: failed, killed,
    // cancelled, timeout, node-fail, unfinished (PAI Running/Waiting), no-attempts, no-tasks,
    // no-duration, malformed-task (a skipped PAI task row), before-origin, over-max-jobs.
    int records = 0;
    int kept = 0;
    std::map<std::string, int> filtered;
    int malformed = 0;                          // records/rows skipped (with skipMalformed)
    std::vector<std::string> malformedExamples; // the first few messages
    double timeOrigin = 0.0;
    int firstSlot = 0;
    int lastSlot = 0;
};

struct ImportResult
{
    Trace trace;
    std::vector<ImportedJob> jobs; // parallel to trace.jobs
    ImportReport report;
};

// Throws dl2::Error naming the file and line (CSV) or job index (JSON) of a malformed record,
// unless options.skipMalformed.
ImportResult importTrace(const std::string &path, ImportFormat format,
                         const ImportOptions &options = {});

// "YYYY-MM-DD HH:MM:SS" (read as UTC) or plain seconds -> seconds; nullopt if neither.
std::optional<double> parseTraceTime(std::string_view text);
std::string formatTraceTime(double seconds); // "YYYY-MM-DD HH:MM:SS"

struct ObservedAllocation
{
    int ps = 0;
    int workers = 0;
};
ObservedAllocation observedAllocation(double gpus, int maxPs = 16, int maxWorkers = 16);

} // namespace dl2
