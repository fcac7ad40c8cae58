#pragma once
// The slot-by-slot simulator (docs/model.md section 3): every slot admits arrivals, clears every
// allocation, lets the scheduler add tasks, advances each job with >= 1 worker and >= 1 PS
// by f(p, w) * slot_seconds / steps_per_epoch epochs (fractional last slot), and records the
// normalised-progress reward. Deterministic for a given trace, policy and seed.

#include "cluster.h"
#include "jobstate.h"
#include "modelprofile.h"
#include "simulationoptions.h"
#include "trace.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dl2 {

class Scheduler;

struct ClusterSpec
{
    int nodes = 500;
    Demand capacity{8, 8};
    bool operator==(const ClusterSpec &) const = default;
};

// The simulator's cluster for a trace's cluster: 1 CPU = 1 CPU slot, 1 GPU = 4 GPU slots.
ClusterSpec clusterSpecOf(const TraceCluster &cluster);

// The jobs of one slot: arrived and unfinished at its start, each either running (>= 1 worker
// and >= 1 PS, the slot it finishes in included) or waiting; and the tasks placed.
struct SlotJobs
{
    int running = 0;
    int waiting = 0;
    int workers = 0;
    int ps = 0;
    // Of the jobs arrived and unfinished at the slot's start, those the policy never had in
    // view in the slot (SlotContext::limitView: dl2's window); -1 for a policy that sees all.
    int outsideView = -1;
};

struct RunResult
{
    std::string policy;
    std::string traceName;
    int jobs = 0;
    int completed = 0;
    int slotCount = 0;          // slots simulated
    // A run that stops before every job finished is truncated: its average JCT covers the
    // jobs that arrived, the unfinished ones censored at the stop (a lower bound of theirs).
    bool truncated = false;
    std::string stopReason;     // "" (every job finished), "max-slots" or "stalled"
    int unfinished = 0;         // arrived, not finished at the stop
    int notArrived = 0;         // arriving after the stop (left out of the averages)
    // Jobs the policy could never place on this cluster (observed: an observed allocation
    // larger than the cluster); they stay unfinished. Job ids, in the order found.
    std::vector<int> neverFit;
    double avgJct = 0.0;        // slots, over arrived jobs (censored when truncated)
    double makespan = 0.0;      // slots
    double avgReward = 0.0;
    double lowerBoundAvgJct = 0.0; // over the same jobs as avgJct, censored the same way
    double wallSeconds = 0.0;
    std::vector<double> jcts;   // per job in trace order (-1 if unfinished or not arrived)
    std::vector<double> rewards; // per slot
    std::vector<std::array<double, kResourceTypes>> utilisation; // per slot
    std::vector<SlotJobs> slotJobs; // per slot
};

// Mean over the slots of a run of their utilisation (0 for a run of no slots).
std::array<double, kResourceTypes> meanUtilisation(const RunResult &result);

class Simulator
{
public:
    Simulator(const ClusterSpec &cluster, ProfileSet profiles, Trace trace,
              SimulationOptions options = {});

    void reset();
    bool done() const { return m_done; }
    int slot() const { return m_slot; } // the next slot to simulate
    void step(Scheduler &scheduler);
    // The state after the last step (or the initial state).
    SlotSnapshot snapshot() const;
    RunResult result() const;

    const Cluster &cluster() const { return m_cluster; }
    const ProfileSet &profiles() const { return m_profiles; }
    const Trace &trace() const { return m_trace; }
    const SimulationOptions &options() const { return m_options; }
    const std::vector<JobState> &jobs() const { return m_jobs; }
    const std::vector<double> &rewards() const { return m_rewards; }
    int unfinishedJobs() const { return m_jobCount - m_finished; }
    // After a step: the reference reward job `index` would have contributed in that slot with
    // (ps, workers) instead of its allocation (true speed; no noise or resize cost). The
    // difference to its allocation's contribution is a task's counterfactual credit.
    double slotProgress(int index, int ps, int workers) const;

private:
    void admitArrivals();
    int observedStartSlot(const JobSpec &spec) const;
    void progress();

    Cluster m_cluster;
    ProfileSet m_profiles;
    Trace m_trace;
    SimulationOptions m_options;
    std::vector<SpeedTable> m_speed;     // per profile, true speed
    std::vector<SpeedTable> m_estimated; // per profile, fitted estimate (or true speed)
    std::vector<JobState> m_jobs;
    std::vector<int> m_arrivalOrder; // job indices by arrival slot, then id
    size_t m_nextArrival = 0;
    std::vector<int> m_lastArrivals, m_lastCompletions;
    std::vector<double> m_rewards;
    std::vector<std::array<double, kResourceTypes>> m_utilisation;
    std::vector<SlotJobs> m_slotJobs;
    std::vector<double> m_lowerBounds; // per job, in trace order
    double m_lowerBound = 0.0;          // their mean
    int m_idleSlots = 0;                // consecutive slots without progress after the last arrival
    bool m_progressed = false;          // some job progressed in the last slot
    std::string m_stopReason;
    std::uint64_t m_noiseState = 0;
    int m_slot = 0;
    int m_finished = 0;
    int m_jobCount = 0;
    bool m_done = false;
};

// Runs a whole simulation; fills RunResult.policy and wallSeconds. `afterSlot`, if set, is
// called after every slot (to read the scheduler's decisions of that slot).
RunResult runSimulation(Simulator &simulator, Scheduler &scheduler,
                        const std::function<void()> &afterSlot = {});

// Average JCT (slots) when every job runs alone from its arrival at its best (p, w) within
// the caps and the cluster's capacity; per job with lowerBoundJcts.
double lowerBoundAvgJct(const ClusterSpec &cluster, const ProfileSet &profiles,
                        const Trace &trace, const SimulationOptions &options);
std::vector<double> lowerBoundJcts(const ClusterSpec &cluster, const ProfileSet &profiles,
                                   const Trace &trace, const SimulationOptions &options);
// Best (ps, workers) of a profile within the caps and a capacity budget (true speed).
struct BestConfig : TaskCounts
{
    double speed = 0.0;
};
BestConfig bestConfig(const SpeedModel &model, const ModelProfile &profile, int maxPs,
                  int maxWorkers, const Demand &budget);

} // namespace dl2
