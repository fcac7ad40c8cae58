#pragma once
// The one checkpoint writer the trainers (SL, actor-critic, ES) share. A run with -o CKPT keeps
// two files, both written atomically (temporary file + rename):
//   CKPT         the policy the run keeps: best on validation (with the resume state of that
//                step, so files of older versions still resume);
//   CKPT.resume  the latest state of the run, rewritten at every validation and when the run
//                ends or is stopped (Ctrl-C): weights, optimizer state, step, random-number
//                state, the best so far. `--resume CKPT` continues from it (readResumeCheckpoint),
//                so a killed run loses at most the updates since its last validation.

#include "checkpoint.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dl2 {

struct TrainResult;

// A trainer's own part of the resume state.
struct TrainerState
{
    std::uint64_t rng = 0;       // its random-number generator
    std::uint64_t nextSeed = 0;  // of the next training trace
    std::vector<double> values;  // what else it needs (running statistics, ES's Adam state)
};

// CKPT.resume for CKPT.
std::string resumePath(const std::string &checkpoint);

// What `--resume PATH` continues from: PATH.resume when it exists and is at least as far as
// PATH (the latest state of the run), else PATH itself (a best-on-validation checkpoint, or a
// .resume file named directly). Throws dl2::Error naming the file when neither can be read.
Checkpoint readResumeCheckpoint(const std::string &path, std::optional<PolicyKind> expected = {});

struct CurvePoint;
// The curve of the run that wrote `resumed` (its <checkpoint>.curves.json) up to the resumed
// step, so that a resumed run's curves go on from it; empty when that file is gone.
std::vector<CurvePoint> curveBefore(const Checkpoint &resumed);

// Throws dl2::Error when `resume` was written by a run of another world size (`origin` names
// the file); a stored world size of 0 resumes at any (ES, whose result does not depend on it).
void checkResumeWorldSize(const ResumeState &resume, int worldSize, const std::string &origin);

class CheckpointWriter
{
public:
    // Nothing is written when `path` is empty (no output, or a rank other than 0). `worldSize`
    // goes into the resume state (0: any world size resumes). Without `withOptimizer` the
    // best-on-validation file holds the weights only (the .resume file always has the
    // optimizer state). A run that does not resume removes a .resume file left by an earlier
    // run of the same output (`fresh`), so that --resume cannot pick up a stranger's state.
    CheckpointWriter(std::string path, PolicySpec spec, TrainingInfo info, int worldSize,
                     bool withOptimizer, bool fresh);

    bool enabled() const { return !m_path.empty(); }
    TrainingInfo &info() { return m_info; }

    // Writes (atomically) the checkpoint of `step`, whose validation avg JCT is `jct` (-1 =
    // not validated), with result's best so far and `state`; `network` is asked for the
    // weights (and optimizer state) only when something is written.
    void save(long long step, double jct, const TrainResult &result, TrainerState state,
              const std::function<NetworkArchive()> &network);
    // Writes (atomically) CKPT.resume: the state after update `step` (skipped when that step
    // was the last one written). `network` must include the optimizer state.
    void saveResume(long long step, const TrainResult &result, TrainerState state,
                    const std::function<NetworkArchive()> &network);

private:
    void fill(long long step, double jct, const TrainResult &result, TrainerState state);

    std::string m_path;
    PolicySpec m_spec;
    TrainingInfo m_info;
    int m_worldSize = 1;
    bool m_withOptimizer = true;
    long long m_lastResumeStep = -1;
};

} // namespace dl2
