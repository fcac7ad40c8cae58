#pragma once
// Many simulations at once: the policies x traces grid behind `dl2 compare`, `dl2 evaluate`
// and the console's comparison page. Runs on a pool of threads; results come back in grid
// order whatever the thread count, so output is deterministic.

#include "simulator.h"
#include "scheduler.h"

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dl2 {

struct ExperimentSetup
{
    ClusterSpec cluster;
    ProfileSet profiles;
    SimulationOptions simulation;
    std::vector<Trace> traces;       // one run per trace and policy
    std::vector<std::uint64_t> seeds; // the seed each trace came from (0 for files)
    std::vector<std::string> policies;
    SchedulerConfig schedulerConfig;
    // Per policy name, a checkpoint that replaces schedulerConfig.checkpoint (so dl2 and
    // dl2-plus can each run their own file in one experiment).
    std::map<std::string, std::string> checkpoints;
    int threads = 0; // 0 = hardware concurrency

    SchedulerConfig configFor(const std::string &policy) const
    {
        SchedulerConfig c = schedulerConfig;
        if (const auto it = checkpoints.find(policy); it != checkpoints.end())
            c.checkpoint = it->second;
        return c;
    }
};

struct ExperimentRun
{
    std::string policy;
    std::uint64_t seed = 0;
    RunResult result;
};

struct PolicySummary
{
    std::string policy;
    int runs = 0;
    double meanAvgJct = 0.0;
    double stdAvgJct = 0.0;
    double minAvgJct = 0.0;
    double maxAvgJct = 0.0;
    double meanMakespan = 0.0;
    double meanAvgReward = 0.0;
    double meanLowerBound = 0.0;
    double ratioToLowerBound = 0.0; // mean over runs of avgJct / lower bound
    double ratioToDrf = 0.0;        // mean avgJct / DRF's mean avgJct (0 if no DRF run)
    double meanCompleted = 0.0;
};

struct ExperimentResult
{
    std::vector<ExperimentRun> runs;           // policy-major, trace-minor
    std::vector<PolicySummary> summary;        // in policy order
    bool cancelled = false;
};

using ProgressCallback = std::function<void(int done, int total)>;

// Which jobs make up each policy's average JCT: the jobs of one type (model), pooled over the
// traces of an experiment. `part` is these jobs' JCTs summed and divided by the number of all
// jobs, so a policy's parts add up to its pooled average JCT (the mean of the runs' average
// JCTs when every trace has as many jobs), and two policies' parts split the difference of
// their averages by model. The lower bound is each job's JCT alone on the cluster at its best
// setting (lowerBoundJcts).
struct ModelBreakdown
{
    std::string model;
    int jobs = 0;                 // of this model, over all traces
    double lowerBound = 0.0;      // mean over these jobs
    std::vector<double> meanJct;  // per policy, in the experiment's policy order
    std::vector<double> part;     // per policy, as above
};

// Throws dl2::Error for an unknown policy before running anything.
ExperimentResult runExperiment(const ExperimentSetup &setup,
                               const ProgressCallback &progress = {},
                               const std::atomic<bool> *cancel = nullptr);
// Throws dl2::Error when a run is missing (a cancelled experiment) or stopped before every
// job finished: its unfinished jobs would count for some policies and not for others.
std::vector<ModelBreakdown> breakdownByModel(const ExperimentSetup &setup,
                                             const ExperimentResult &result);
// The "all" row of a breakdown: every job, the pooled lower bound, and per policy its average
// JCT over all jobs (mean and part both: the sum of the parts).
ModelBreakdown allModels(const std::vector<ModelBreakdown> &models);
std::vector<PolicySummary> summarise(const std::vector<ExperimentRun> &runs,
                                     const std::vector<std::string> &policies);

} // namespace dl2
