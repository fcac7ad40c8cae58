#pragma once
// Supervised warm-up (docs/model.md section 6): imitate a teacher scheduler. Cross-entropy on
// (state, teacher action) samples, Adam (0.005), batch 256 from a FIFO buffer of 8192,
// window shuffling for dl2. One update per simulated teacher slot once the buffer holds a
// batch. Reports train loss, validation loss and top-1 agreement on validation states, and
// the greedy policy's validation avg JCT; the best-on-validation checkpoint is kept.
// Seeds: training traces 1000, 1001, ... (seedBase), validation 100-109 by default; the
// test seeds 1-10 are never used in training.
// DAgger (slot level, option `dagger`): after `daggerStart` pure-teacher updates, each
// training slot is acted on by the teacher with probability beta and otherwise by the
// student (the greedy current policy, weights refreshed every `daggerRefresh` updates);
// beta = daggerDecay^((step - daggerStart) / 100), floored at daggerBetaMin. Every slot is
// still labelled by the teacher: on a student slot, TeacherRecorder::label() replays the
// teacher on a copy of the student-visited slot state. The samples go into the same buffer.

#include "curves.h"
#include "policyspec.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dl2 {

class Communicator;

struct SlOptions
{
    std::string scenario = "dl2-reference";
    std::optional<ProfileSet> profiles; // job types and speed model (default: the reference set)
    std::string teacher = "drf";
    std::string teacherOrder = "auto"; // see teacherrecorder.h
    std::string labels = "sequence";   // "set": order-free targets, see teacherrecorder.h;
                                       // "multi": the same targets, per-action binary
                                       // cross-entropy (Learner::setSlMultiLabel)
    PolicyKind kind = PolicyKind::Dl2;
    std::optional<PolicySpec> spec; // default: defaultSpec(kind, scenario window, 8 types)
    long long steps = 300;
    std::uint64_t seed = 1;
    double learningRate = 0.005;
    int batchSize = 256;
    int bufferSize = 8192;
    bool shuffleWindow = true;
    // dl2: the policy's weights tied across window positions (Learner::setTiedWindow) for
    // the first N updates, then free; -1: for the whole run; 0: never (the paper). With
    // `init`, only from a checkpoint trained tied throughout (an untied one is refused).
    long long tieWindowSteps = 0;
    // A fresh network tied: "layer" (default) keeps the default initialisation's scale of the
    // whole flat layer, so each position's own units start with weights sqrt(J) times smaller
    // than a per-job network's; "job" starts each position's own units at a per-job network's scale
    // (Learner::setTiedWindow).
    std::string tieInit = "layer";
    std::uint64_t trainSeedBase = 1000;
    std::vector<std::uint64_t> validationSeeds = seedRange(100, 109);
    int validateEvery = 50;
    int threads = 1;
    std::string output;       // checkpoint path (empty: nothing written)
    bool saveOptimizer = true;
    std::string init;           // start from this checkpoint's weights (empty: fresh networks)
    bool dagger = false;
    long long daggerStart = -1; // pure-teacher updates first (-1: steps / 5; 0 with `init`)
    double daggerDecay = 0.5;   // beta multiplier per 100 updates
    double daggerBetaMin = 0.0;
    int daggerRefresh = 10;     // student weights refreshed every N updates
    // With set labels: also label every decision the student takes on its slots with the
    // tasks the teacher's allocation (for the slot's start state) still needs at that point,
    // stop once none is left (task-level DAgger: the student's own within-slot states).
    bool daggerTasks = false;
    // Distributed, data-parallel (distributed.h; null: one process): every rank simulates the
    // teacher on its own training traces and gradients are all-reduced (averaged) each update;
    // validation seeds are split across the ranks; only rank 0 writes files.
    std::shared_ptr<Communicator> comm;
    // Continue from this checkpoint's weights, optimizer and ResumeState (same options).
    std::string resume;
};

class SlTrainer
{
public:
    explicit SlTrainer(SlOptions options);
    TrainResult run(const TrainProgress &progress = {}, const std::atomic<bool> *cancel = nullptr);

private:
    SlOptions m_options;
};

} // namespace dl2
