#pragma once
// What both trainers share: the training curve (written as CSV and JSON next to the
// checkpoint) and the evaluation of a policy or a baseline on a scenario's seeds.

#include "policynetwork.h"
#include "scenario.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dl2 {

struct CurvePoint
{
    long long step = 0;
    double seconds = 0.0;
    double trainLoss = 0.0;        // SL cross-entropy / RL total policy loss
    double validationLoss = -1.0;  // SL only (-1 = not measured at this point)
    double agreement = -1.0;       // SL: top-1 agreement with the teacher on validation states
    double valueLoss = 0.0;        // RL
    double entropy = 0.0;          // RL
    double reward = 0.0;           // RL: mean per-slot reward of the training environments
    double validationAvgJct = -1.0; // slots, -1 = not measured at this point
    // RL action mix over the training decisions since the last point (shares sum to 1), and
    // the allocation the training environments ended their slots with.
    double workerShare = -1.0, psShare = -1.0, bundleShare = -1.0, stopShare = -1.0;
    double workersPerJob = -1.0, psPerJob = -1.0; // per running job
    // RL: the share of the training environments' decisions that exploration (job-aware
    // rules, stop exploration) replaced by its own action since the last point.
    double exploredFraction = -1.0;
};

struct TrainResult
{
    std::vector<CurvePoint> curve;
    double bestValidationAvgJct = -1.0;
    long long bestStep = -1;
    double teacherValidationAvgJct = -1.0; // SL
    double secondsToTeacher5 = -1.0;       // SL: first validation within 5% of the teacher
    double agreement = -1.0;               // SL: last measured agreement
    double chanceAgreement = -1.0;         // SL: agreement of a uniform random valid action
    bool cancelled = false;
    long long lastStep = 0; // the last update done (where Ctrl-C stopped the run)
    std::string checkpoint;
    long long teacherSlots = 0;            // SL: training slots acted on by the teacher
    long long studentSlots = 0;            // SL DAgger: ... by the student (teacher-labelled)
};

using TrainProgress = std::function<void(long long step, long long total, const CurvePoint &last)>;

// <checkpoint>.curves.csv and <checkpoint>.curves.json (atomic writes).
void writeCurves(const std::string &checkpointPath, const std::vector<CurvePoint> &curve);
// The curve writeCurves left next to `checkpointPath` (its .curves.json); empty when the file
// is missing or unreadable.
std::vector<CurvePoint> readCurves(const std::string &checkpointPath);

// What every trainer does with a curve point: append it; if it is a validation point
// (validationAvgJct >= 0) that beats result's best (or is the first), make it the best and
// call `saveBest`, and rewrite the curves next to `checkpointPath` (if any); then report it.
void recordCurvePoint(TrainResult &result, const CurvePoint &point,
                      const std::string &checkpointPath, const std::function<void()> &saveBest,
                      const TrainProgress &progress, long long totalSteps);

// Mean avg JCT of the policy as deployed (decoded as its spec says: arg max, or sampled with
// the trace's seed) or of a registered scheduler on the scenario's traces for `seeds`, on
// `threads` threads.
// `profiles` (default: ProfileSet::reference()) sets the job types and speed model.
double evaluatePolicy(const Scenario &scenario, const PolicySpec &spec,
                      std::shared_ptr<const ParameterSet> parameters,
                      const std::vector<std::uint64_t> &seeds, int threads);
double evaluatePolicy(const Scenario &scenario, const ProfileSet &profiles, const PolicySpec &spec,
                      std::shared_ptr<const ParameterSet> parameters,
                      const std::vector<std::uint64_t> &seeds, int threads);
double evaluateScheduler(const Scenario &scenario, const std::string &scheduler,
                         const std::vector<std::uint64_t> &seeds, int threads);
double evaluateScheduler(const Scenario &scenario, const ProfileSet &profiles,
                         const std::string &scheduler, const std::vector<std::uint64_t> &seeds,
                         int threads);

std::vector<std::uint64_t> seedRange(std::uint64_t first, std::uint64_t last);

} // namespace dl2
