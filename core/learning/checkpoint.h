#pragma once
// Policy checkpoints (*.dl2ckpt), one self-describing file:
//   bytes 0-7   magic "DL2CKPT\0"
//   bytes 8-11  format version (uint32 little endian, currently 1)
//   bytes 12-15 length M of the metadata record (uint32 LE)
//   M bytes     dl2.pb.CheckpointMeta (checkpoint.proto): kind, dims, window, feature
//               options, hidden sizes, hyper-parameters, scenario, step, validation JCT,
//               archive size and FNV-1a 64 checksum
//   rest        libtorch archive (torch::serialize::OutputArchive): every network parameter
//               by name ("policy.fc1.weight", ...) and, unless shipped weights-only, the Adam
//               state under "optimizer".
// Loading checks all of it; a truncated, corrupt or mismatched file throws dl2::Error naming
// the file and what is wrong, never a crash and never a silently wrong policy.
// Writes are atomic (temporary file + rename).

#include "policynetwork.h"
#include "policyspec.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dl2 {

struct TrainingInfo
{
    std::string trainer = "init"; // "init", "sl", "rl"
    std::string scenario;
    std::string teacher;
    std::string replay;
    double learningRate = 0.0;
    int batchSize = 0;
    int bufferSize = 0;
    int envs = 0;
    double entropyWeight = 0.0;
    double epsilon = 0.0;
    double threshold = 0.0;
    double discount = 0.0;
    double importanceClip = 0.0;
    bool unfinishedJobsReward = false;
    std::vector<std::string> ablations;
    int esPairs = 0; // trainer "rl-es"
    int esTraces = 0;
    double esSigma = 0.0;
    std::string esScope;
    long long step = 0;
    double validationAvgJct = 0.0;
    std::uint64_t seed = 0;
};

struct Checkpoint
{
    std::string origin; // file name it came from
    PolicySpec spec;
    TrainingInfo info;
    bool hasOptimizer = false;
    std::shared_ptr<const ParameterSet> parameters;
    std::string archive; // the raw libtorch archive (trainers resume the optimizer from it)
};

inline constexpr std::uint32_t kCheckpointFormatVersion = 1;

// `path` may be a file or a Qt resource (":/dl2/policies/...").
Checkpoint readCheckpoint(const std::string &path, std::optional<PolicyKind> expected = {});
Checkpoint parseCheckpoint(const std::string &bytes, const std::string &origin,
                           std::optional<PolicyKind> expected = {});
// Frames an archive (from Learner::archive or archiveFromParameters) into file bytes.
std::string encodeCheckpoint(const PolicySpec &spec, const TrainingInfo &info,
                             const std::string &archive, bool hasOptimizer);
// Weights-only checkpoint from a ParameterSet (tests, exports).
void writeCheckpoint(const std::string &path, const PolicySpec &spec, const TrainingInfo &info,
                     const ParameterSet &parameters);
// Freshly initialised parameters (libtorch default init under manual_seed(seed)).
ParameterSet initialParameters(const PolicySpec &spec, std::uint64_t seed);

namespace detail {
// Implemented in learner.cpp (the libtorch translation unit).
std::string archiveFromParameters(const ParameterSet &parameters);
ParameterSet parametersFromArchive(const std::string &archive, const PolicySpec &spec,
                                   const std::string &origin);
} // namespace detail

} // namespace dl2
