#pragma once
// A trace: the jobs of one run (id, arrival slot, model, total epochs, optional estimate), and
// for imported traces what the source said (per job: source id, user, VC, status, requested
// GPUs, submission, queueing delay, observed duration and allocation; per trace: the slot
// length the arrival slots were made for, slot 0's time, the cluster).
// Stored as Protobuf dl2.Trace (binary ".pb" or text ".textproto"/".txtpb") or CSV with the
// header job_id,arrival_slot,model,epochs[,estimated_epochs] followed by any of the optional
// columns source_id,user,vc,status,gpus,submit_time,queue_seconds,duration_seconds,workers,ps;
// trace-level fields are comment lines "# slot_seconds: 1200" before the header.

#include <optional>
#include <string>
#include <vector>

namespace dl2 {

class ProfileSet;

// What the source trace says about a job; empty/unset when it says nothing (generated traces).
struct JobSource
{
    std::string id; // the job's id in the source trace
    std::string user;
    std::string vc;
    std::string status;
    std::optional<double> gpus;            // requested GPUs
    std::optional<double> submitTime;      // seconds on the source's clock
    std::optional<double> queueSeconds;    // submission to first start
    std::optional<double> durationSeconds; // observed run time
    int workers = 0; // observed allocation (0: unknown)
    int ps = 0;
    bool empty() const { return *this == JobSource{}; }
    bool operator==(const JobSource &) const = default;
};

struct JobSpec
{
    int id = 0;
    int arrivalSlot = 0;
    std::string model;
    double epochs = 0.0;                    // true total epochs (completion uses these)
    std::optional<double> estimatedEpochs;  // what the scheduler sees, when set
    JobSource source{}; // (default member initializer: {id, slot, model, epochs, estimate} stays complete)
    bool operator==(const JobSpec &) const = default;
};

// The cluster a trace ran on, in physical units (the simulator counts 1 GPU = 4 GPU slots,
// 1 CPU core = 1 CPU slot).
struct TraceCluster
{
    int nodes = 0;
    int gpusPerNode = 0;
    int cpusPerNode = 0;
    std::string basis; // where the figures come from
    bool operator==(const TraceCluster &) const = default;
};

enum class TraceFormat { Auto, Binary, Text, Csv };

// The fewest epochs a job may have. A real job is at least a fraction of a step: with the
// slowest measured speed (~0.5 steps/s) and the longest epoch (780 steps), a 1-second job is
// ~6e-4 epochs. Less is a job made from a speed that is no speed (a failed measurement's
// ~1e-16) or a unit mix-up, and it would finish within a slot whatever the schedule.
inline constexpr double kMinTraceEpochs = 1e-9;

struct Trace
{
    std::string name;
    std::vector<JobSpec> jobs;
    // (Default member initializers: Trace{name, jobs} stays a complete initialisation.)
    std::optional<double> slotSeconds{}; // the slot length the arrival slots were made for
    std::optional<double> timeOrigin{};  // source-clock seconds at the start of slot 0
    std::optional<TraceCluster> cluster{};
    std::string source{};                // where it was imported from, when it was

    // Checks ids unique, arrival >= 0, epochs finite in [kMinTraceEpochs, 1e12], models known, source fields
    // sane; throws dl2::Error naming `origin` and the job.
    void validate(const ProfileSet &profiles, const std::string &origin) const;
    int lastArrival() const;
    // The largest observed allocation of any job (0, 0 when the trace has none).
    int maxObservedWorkers() const;
    int maxObservedPs() const;
    // Re-derives arrival slots for another slot length from the submission times; false (and
    // nothing changed) when some job has no submission time or the trace no time origin.
    bool rescaleArrivals(double slotSeconds);

    static TraceFormat formatFromPath(const std::string &path);
    // Reads any format; throws dl2::Error("FILE:LINE: ...") on malformed input.
    static Trace load(const std::string &path, TraceFormat format = TraceFormat::Auto);
    // The same from bytes already read (`format` Binary, Text or Csv; `origin` names them in
    // errors and becomes the name of an unnamed trace).
    static Trace parse(const std::string &data, TraceFormat format, const std::string &origin);
    static Trace parseCsv(const std::string &text, const std::string &origin);
    std::string toCsv() const;
    // Writes atomically (temporary file, then rename): no partial file on failure.
    void save(const std::string &path, TraceFormat format = TraceFormat::Auto) const;
};

} // namespace dl2
