#pragma once
// Policy checkpoints (*.dl2ckpt), one self-describing file:
//   bytes 0-7   magic "DL2CKPT\0"
//   bytes 8-11  format version (uint32 little endian, currently 2)
//   bytes 12-15 length M of the metadata record (uint32 LE)
//   M bytes     dl2.pb.CheckpointMeta (checkpoint.proto): kind, dims, window, feature
//               options, hidden sizes, hyper-parameters, scenario, step, validation JCT,
//               sizes and FNV-1a 64 checksums of what follows
//   then        dl2.pb.Weights: every network parameter by name ("policy.fc1.weight", ...)
//               with its shape, as plain Protobuf, so reading a policy needs no libtorch
//   rest        unless shipped weights-only, the Adam state as a libtorch archive
//               (torch::serialize::OutputArchive, keys "optimizer" (policy) and
//               "value_optimizer" (value network)); only trainers read it.
// Version 1 files (the weights inside one libtorch archive) are read only where the training
// library registered its decoder (dl2-train); elsewhere the error says how to convert them.
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

// The trainer's state beyond the weights and the optimizer, so that `dl2 train --resume`
// continues where the checkpoint was written (the replay buffer and the environments'
// half-run traces are not kept: they start afresh on the next training traces).
struct ResumeState
{
    bool present = false;
    long long step = 0;
    std::vector<std::uint64_t> rng;
    std::uint64_t nextSeed = 0;
    double bestValidationAvgJct = -1.0;
    long long bestStep = -1;
    std::vector<double> values;
    int worldSize = 1;
};

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
    std::string credit; // trainer "rl": "slot" or "split"
    double valueLearningRate = 0.0;
    std::string optimizer; // trainer "rl": the policy's, "adam" or "sgd" (empty: adam)
    std::string lrAnneal;  // trainer "rl": "constant" or "linear" (empty: constant)
    int criticWarmup = 0;
    double stopEpsilon = 0.0;
    double kindEpsilon = 0.0;       // trainer "rl": RlOptions::kindEpsilon
    double kindEntropyWeight = 0.0; // trainer "rl": RlOptions::kindEntropyWeight
    bool control = false; // a shuffled-advantage control run
    std::string exploration; // trainer "rl": job-aware rules, "paper" or "reference"
    std::string taskMarginal; // trainer "rl", credit "split": "final" or "added" (empty: final)
    std::string kindCredit;   // trainer "rl": RlOptions::kindCredit (empty: sampled)
    std::string rowCredit;    // trainer "rl": RlOptions::rowCredit (empty: sampled)
    std::string rowScale;     // trainer "rl": RlOptions::rowScale (empty: batch)
    std::string stopCredit;   // trainer "rl": RlOptions::stopCredit (empty: expected)
    std::string taskCredit;  // trainer "rl", credit "split": "progress" or "remaining"
    std::string slLabels;     // trainer "sl": SlOptions::labels (empty: a file from before)
    std::string teacherOrder; // trainer "sl": SlOptions::teacherOrder
    long long tieWindowSteps = 0; // trainer "sl": SlOptions::tieWindowSteps
    std::string tieInit;          // trainer "sl": SlOptions::tieInit (empty: "layer")
    double typeStepScale = 1.0;   // trainer "rl": RlOptions::typeStepScale
    double countStepScale = 1.0;  // trainer "rl": RlOptions::countStepScale
    // The value network has been trained (by an actor-critic run in this policy's history);
    // until then its V(s) is noise and policies report none (Dl2Policy::setValueEstimates).
    bool valueTrained = false;
    long long step = 0;
    double validationAvgJct = 0.0;
    std::uint64_t seed = 0;
    ResumeState resume;
};

struct Checkpoint
{
    std::string origin; // file name it came from
    PolicySpec spec;
    TrainingInfo info;
    bool hasOptimizer = false;
    // Every parameter the spec names, except a value network the file left out
    // (valueOmitted): policies never read an untrained one, and trainers take
    // freshValueNetwork(*this) instead.
    std::shared_ptr<const ParameterSet> parameters;
    // The file leaves out its untrained value network (a deliverable file: weights only,
    // no actor-critic in its history), so `parameters` holds the policy network alone.
    bool valueOmitted = false;
    // libtorch archive holding the optimizer state under "optimizer" (trainers resume from
    // it); empty for weights-only files.
    std::string archive;
};

// What a trainer saves: the weights and, optionally, the optimizer's libtorch archive.
struct NetworkArchive
{
    ParameterSet parameters;
    std::string optimizer; // libtorch archive with key "optimizer"; empty = weights only
};

inline constexpr std::uint32_t kCheckpointFormatVersion = 2;

// `path` may be a file or a Qt resource (":/dl2/policies/...").
Checkpoint readCheckpoint(const std::string &path, std::optional<PolicyKind> expected = {});
Checkpoint parseCheckpoint(const std::string &bytes, const std::string &origin,
                           std::optional<PolicyKind> expected = {});
// The file bytes of a checkpoint (the archive from Learner::archive). The optimizer state is
// kept only when hasOptimizer is set and the archive holds one.
std::string encodeCheckpoint(const PolicySpec &spec, const TrainingInfo &info,
                             const NetworkArchive &archive, bool hasOptimizer);
// Weights-only checkpoint from a ParameterSet (tests, exports).
void writeCheckpoint(const std::string &path, const PolicySpec &spec, const TrainingInfo &info,
                     const ParameterSet &parameters);
// Freshly initialised parameters (libtorch default init under manual_seed(seed));
// implemented in the training library (learner.cpp).
ParameterSet initialParameters(const PolicySpec &spec, std::uint64_t seed);

// The value network a file that left it out stands for (valueOmitted; empty otherwise):
// drawn from the file's seed, so every reader starts from the same one. Drawn when asked
// for, not when the file is read: for the window-60 dl2 it is 15 MB that only a trainer
// starting from the file uses.
ParameterSet freshValueNetwork(const Checkpoint &c);

// Checks names, shapes and values of `parameters` against what `spec` needs (with
// withoutValue, the policy network's alone: there must be no value parameter); throws
// dl2::Error naming `origin` and the parameter.
void checkParameters(const ParameterSet &parameters, const PolicySpec &spec,
                     const std::string &origin, bool withoutValue = false);

// Format version 1 kept the weights inside a libtorch archive. The training library
// registers its decoder (enableLegacyCheckpoints() in learner.h); without it, reading such a
// file throws an error that says how to convert it.
using LegacyArchiveDecoder = ParameterSet (*)(const std::string &archive, const PolicySpec &spec,
                                              const std::string &origin);
void setLegacyArchiveDecoder(LegacyArchiveDecoder decoder);

} // namespace dl2
