#pragma once
// The one scheduler interface every policy implements (baselines, best-config, the learned
// DL2 policies). Each slot the simulator clears all allocations and calls schedule() with a
// SlotContext through which the policy adds tasks one at a time.

#include "cluster.h"
#include "decisionrecord.h"
#include "jobstate.h"
#include "modelprofile.h"
#include "simulationoptions.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dl2 {

class SlotContext
{
public:
    // trueSpeed/estimatedSpeed: per-profile caches (the simulator passes its own; when null
    // the profiles' models are evaluated directly).
    SlotContext(int slot, Cluster &cluster, std::vector<JobState> &jobs,
                std::vector<int> active, const ProfileSet &profiles,
                const SimulationOptions &options,
                const std::vector<SpeedTable> *trueSpeed = nullptr,
                const std::vector<SpeedTable> *estimatedSpeed = nullptr);

    int slot() const { return m_slot; }
    const Cluster &cluster() const { return m_cluster; }
    const ProfileSet &profiles() const { return m_profiles; }
    const SimulationOptions &options() const { return m_options; }
    int maxWorkers() const;
    int maxPs() const;

    // Indices (into jobs()) of arrived, unfinished jobs, by arrival slot then id.
    const std::vector<int> &activeJobs() const { return m_active; }
    const std::vector<JobState> &jobs() const { return m_jobs; }
    const JobState &job(int index) const { return m_jobs[index]; }
    const ModelProfile &profileOf(int index) const { return m_profiles[m_jobs[index].type]; }

    // Epochs per slot at (ps, workers) with the true speed / the fitted estimate
    // (falls back to the true speed when a profile has no estimate).
    double epochsPerSlot(int index, int ps, int workers) const;
    double estimatedEpochsPerSlot(int index, int ps, int workers) const;
    // The fastest (ps, workers) within the caps for a job's type on the true speed, ranked as
    // best-config ranks settings (ties: fewer tasks, then fewer workers); epochsPerSlot 0 when
    // no setting makes progress. Searched once per type and slot.
    struct BestSetting
    {
        int ps = 0;
        int workers = 0;
        double epochsPerSlot = 0.0;
    };
    const BestSetting &bestSetting(int index) const;
    // max over types of (job usage / cluster total), as DRF uses it.
    double dominantShare(int index) const;
    Demand demandOf(int index, TaskKind kind) const;

    bool atCap(int index, TaskKind kind) const;
    // Adds a task on the node the simulation's placement rule chooses.
    AddResult add(int index, TaskKind kind);
    // Same with an explicit placement rule (e.g. best-config searches all nodes).
    AddResult add(int index, TaskKind kind, PlacementRule rule);
    // Adds on a given node (policies that place by themselves, e.g. Tetris).
    AddResult addOn(int index, TaskKind kind, int node);

    // A policy that decides for a window of jobs only (the faithful dl2: the first J not at
    // both caps) says so with limitView(), and marks each job it had in view at some point of
    // the slot. The simulator then counts the jobs left out of it (SlotJobs::outsideView,
    // JobState::slotsOutsideView), so that a job held back by the window is told from one held
    // back by capacity.
    void limitView();
    void markInView(int index);
    bool viewLimited() const { return m_viewLimited; }
    bool inView(int index) const;

private:
    void record(int index, TaskKind kind, int node);

    int m_slot;
    Cluster &m_cluster;
    std::vector<JobState> &m_jobs;
    std::vector<int> m_active;
    const ProfileSet &m_profiles;
    const SimulationOptions &m_options;
    const std::vector<SpeedTable> *m_trueSpeed;
    const std::vector<SpeedTable> *m_estimatedSpeed;
    bool m_viewLimited = false;
    std::vector<std::uint8_t> m_inView; // by job index, once limitView() was called
    mutable std::vector<std::optional<BestSetting>> m_bestSetting; // by type
};

class Scheduler
{
public:
    virtual ~Scheduler() = default;
    virtual std::string name() const = 0;
    // Called once before the first slot of a run.
    virtual void reset() {}
    virtual void schedule(SlotContext &context) = 0;

    // The decision record (decisionrecord.h), kept by the learned policies. recordDecisions
    // sets how much of it they keep and says whether the scheduler keeps one; lastDecisions()
    // holds the inferences of the last slot (Full only); lastSlotValue() V(s) of its state
    // before the first inference (SlotValue or Full; none when the slot made no inference);
    // decisionLayout() names the state's columns.
    virtual bool recordDecisions(DecisionRecording level);
    virtual const std::vector<DecisionRecord> &lastDecisions() const;
    virtual std::optional<double> lastSlotValue() const { return std::nullopt; }
    virtual DecisionLayout decisionLayout() const { return {}; }
    // Ids of the jobs this policy found it can never place on the run's cluster (a policy that
    // places a job whole or not at all: observed), in the order found; empty for the others.
    virtual std::vector<int> neverPlacedJobs() const { return {}; }
};

// What a factory may need: a checkpoint for learned policies, a seed for stochastic ones.
struct SchedulerConfig
{
    std::string checkpoint;
    std::string scenario;
    std::uint64_t seed = 1;
    bool measuredSpeeds = true; // the simulation runs on measured speeds (false: the fitted model)
    std::string decode;         // learned policies: "greedy" | "sample"; empty = the checkpoint's
    int window = 0;             // window teachers: dl2's window J; 0 = the scenario's
};

using SchedulerFactory = std::function<std::unique_ptr<Scheduler>(const SchedulerConfig &)>;

struct SchedulerInfo
{
    std::string name;
    std::string description;
    SchedulerFactory factory;
    // Replays an imported trace's observed history (policy observed): it refuses traces
    // without one, e.g. the scenarios' generated traces.
    bool replaysHistory{};
};

// Registry. The baselines of core/sched register themselves through registerBaselines()
// (defined there; registeredSchedulers() calls it once so the registry is never empty); the
// learning library adds dl2 / dl2-plus through its own register function, called by the
// front-ends.
void registerScheduler(SchedulerInfo info);
void registerBaselines();
std::vector<SchedulerInfo> registeredSchedulers();
bool isScheduler(const std::string &name);
// Throws dl2::Error naming the unknown policy and listing the known ones.
std::unique_ptr<Scheduler> makeScheduler(const std::string &name,
                                         const SchedulerConfig &config = {});

} // namespace dl2
