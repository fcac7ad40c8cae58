#pragma once
// Inside the trace importers: what each format reader hands to the mapping (traceimport.cpp),
// the collector of kept / filtered / malformed records, and the CSV reader they share.

#include "error.h"
#include "textutil.h"
#include "traceimport.h"
#include "traceinput.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dl2::importing {

// Filter reasons, shared by the formats so reports compare across traces.
inline const std::string kFailed = "failed";
inline const std::string kKilled = "killed";
inline const std::string kCancelled = "cancelled";
inline const std::string kTimeout = "timeout";
inline const std::string kNodeFail = "node-fail";
inline const std::string kSuspended = "suspended";
inline const std::string kUnfinished = "unfinished";
inline const std::string kUnknownState = "unknown-state";
inline const std::string kNoAttempts = "no-attempts";
inline const std::string kNoTasks = "no-tasks";
inline const std::string kNoDuration = "no-duration";
inline const std::string kNoSubmitTime = "no-submit-time";
inline const std::string kMalformedTask = "malformed-task";

// A kept job as the source describes it: a JobSpec whose source is filled, source.ps holding
// the PS instances the source names (0 if none). The mapping fills in the rest in place, so a
// million jobs are held once.
using RawJob = JobSpec;
inline double submitOf(const JobSpec &job)
{
    return *job.source.submitTime;
}
inline double gpusOf(const JobSpec &job)
{
    return job.source.gpus.value_or(0.0);
}

// Collects kept jobs, filter counts and malformed records (thrown unless skipping).
class CsvReader;

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
    void malformed(const Error &error, bool isJob = true);
    void count(const std::string &what, long long n = 1) { m_report.counts[what] += n; }
    void note(std::string sentence) { m_report.notes.push_back(std::move(sentence)); }
    // A note the front-end also shows as a warning (stderr in the CLI).
    void warn(std::string sentence)
    {
        m_report.warnings.push_back(sentence);
        note(std::move(sentence));
    }
    // After reading `r` to its end: warns when its last line had no line end (a file cut
    // right after a line's last column reads as complete; the missing line end is the only
    // trace of the cut).
    void checkLastLine(const CsvReader &r);
    // The input's stream broke (e.g. a truncated download): malformed, or thrown.
    void checkStream(const TraceInput &input);
    ImportReport &report() { return m_report; }

    std::vector<RawJob> jobs;
    std::optional<TraceCluster> cluster; // the cluster the source implies
    std::string source;                  // what was read, for Trace::source

private:
    bool m_skip;
    ImportReport &m_report;
};

// Line-by-line CSV from a TraceInput: comma-separated, fields trimmed, optional double quotes
// ("" escapes a quote; no newlines inside quotes). Blank lines are skipped.
class CsvReader
{
public:
    explicit CsvReader(TraceInput &input) : m_input(input) {}

    bool next();
    int line() const { return m_input.lineNumber(); }
    const std::string &path() const { return m_input.name(); }
    const std::vector<std::string> &fields() const { return m_fields; }
    size_t size() const { return m_size; }
    const std::string &operator[](size_t i) const { return m_fields[i]; }
    // The line just read was the file's last and had no line end.
    bool truncated() const { return !m_input.lastLineComplete(); }
    // After next() returned false: the file's last line had no line end.
    bool endedWithoutLineEnd() const { return line() > 0 && !m_input.lastLineComplete(); }
    Error error(const std::string &message) const;
    // A wrong column count, named as truncation when the line is the unterminated last one.
    Error columnCountError(size_t expected, const std::string &layout) const;

    double number(size_t column, const char *name, double min = 0.0) const;
    // Empty -> nullopt; anything else must be a finite number >= min.
    std::optional<double> optionalNumber(size_t column, const char *name, double min = 0.0) const;
    std::optional<double> optionalTime(size_t column, const char *name) const;

private:
    void split(std::string_view line);

    TraceInput &m_input;
    std::vector<std::string> m_fields; // the first m_size are this line's
    size_t m_size = 0;
};

// The parts of a trace each format reads.
void readPhilly(const InputRef &input, const ImportOptions &options, Collector &out);
void readAlibaba(const InputRef &input, const ImportOptions &options, Collector &out);
void readHelios(const InputRef &input, const ImportOptions &options, Collector &out);

// A companion table (job table, machine list): `explicitPath` when given; else the member
// named `names` in the same archive as `main` (same folder first); else a file next to it
// named `names` plain or compressed (.gz, .tar.gz, .tgz, .zip). nullopt if none.
std::optional<InputRef> findCompanion(const InputRef &main, const std::vector<std::string> &names,
                                      const std::string &explicitPath);

// The most common value (ties: the larger).
int mostCommon(const std::vector<int> &values);
// A homogeneous cluster of the machines' most common size: as many nodes as keep their total
// GPUs (keepCount: as many nodes as machines); the basis states what was seen and assumed.
TraceCluster homogeneousCluster(const std::vector<int> &gpusPerMachine,
                                const std::vector<int> &cpusPerMachine, const std::string &what,
                                bool keepCount = false);

std::optional<double> parseDateTime(std::string_view s);
std::optional<double> parseNumber(std::string_view s);

} // namespace dl2::importing
