#pragma once
// A trace: the jobs of one run (id, arrival slot, model, total epochs, optional estimate).
// Stored as Protobuf dl2.Trace (binary ".pb" or text ".textproto"/".txtpb") or CSV with the
// header job_id,arrival_slot,model,epochs[,estimated_epochs].

#include <optional>
#include <string>
#include <vector>

namespace dl2 {

class ProfileSet;

struct JobSpec
{
    int id = 0;
    int arrivalSlot = 0;
    std::string model;
    double epochs = 0.0;                    // true total epochs (completion uses these)
    std::optional<double> estimatedEpochs;  // what the scheduler sees, when set
    bool operator==(const JobSpec &) const = default;
};

enum class TraceFormat { Auto, Binary, Text, Csv };

struct Trace
{
    std::string name;
    std::vector<JobSpec> jobs;

    // Checks ids unique, arrival >= 0, epochs > 0 and finite, models known; throws dl2::Error
    // naming `origin` and the job.
    void validate(const ProfileSet &profiles, const std::string &origin) const;
    int lastArrival() const;

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
