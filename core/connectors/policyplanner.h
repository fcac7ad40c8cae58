#pragma once
// Runs a scheduling policy on a connector's view of the cluster, as the simulator would run
// it at the start of the slot (every allocation cleared, the policy adds tasks), and returns
// the allocation the policy wants for every job of the view.
//
// A learned policy also says how sure it was: with an action reader set (the console sets one
// for dl2 / dl2-plus; connectors do not depend on the learning library), plan() turns the
// policy's inferences of the slot into one ActionConfidence per job (lastConfidence()).

#include "clusterconnector.h"
#include "modelprofile.h"
#include "resizedecision.h"
#include "scheduler.h"
#include "simulator.h"

#include <functional>
#include <memory>

namespace dl2 {

class PolicyPlanner
{
public:
    // Throws dl2::Error for an unknown policy.
    PolicyPlanner(const std::string &policy, const SchedulerConfig &config = {},
                  ProfileSet profiles = ProfileSet::reference());
    // A scheduler built by the caller (online learning: a policy whose weights change).
    PolicyPlanner(std::unique_ptr<Scheduler> scheduler, ProfileSet profiles);
    ~PolicyPlanner();

    // The version of the policy that plans (recorded with every decision in the audit log);
    // empty for a fixed policy, "v<N>" for an online-learning one.
    const std::string &version() const { return m_version; }
    void setVersion(std::string version) { m_version = std::move(version); }
    // "v<N>": how the audit log, events and the console name online-learning version N.
    static std::string versionName(int version);
    // The slot a scheduler plans on, rebuilt from a view exactly as plan() does (every
    // allocation cleared): --from-audit and online learning rebuild a decision's state with it.
    struct RebuiltSlot
    {
        int slot = 0;
        Cluster cluster;
        std::vector<JobState> jobs;
        std::vector<int> active;
        SimulationOptions options;
        // Refers to this object's members: keep it alive (and unmoved) while it is used.
        SlotContext context(const ProfileSet &profiles)
        {
            return SlotContext(slot, cluster, jobs, active, profiles, options);
        }
    };
    static RebuiltSlot rebuild(const ClusterView &view);

    // One inference of a learned policy in the last schedule() call.
    struct PolicyAction
    {
        int jobId = -1;      // acted-on job id, -1 for stop
        bool placed = false; // the task was allocated (not a failed allocation, not stop)
        double probability = 0.0;
        std::optional<double> value; // V(s) before the action (none: value network untrained)
    };
    using ActionReader = std::function<std::vector<PolicyAction>(const Scheduler &)>;

    std::vector<Allocation> plan(const ClusterView &view);
    const ProfileSet &profiles() const { return m_profiles; }
    std::string policy() const;
    Scheduler &scheduler() { return *m_scheduler; }
    const Scheduler &scheduler() const { return *m_scheduler; }

    void setActionReader(ActionReader reader) { m_reader = std::move(reader); }
    // Per job id of the last plan(), for learned policies (empty otherwise):
    //   probability = mean of the probabilities of the placed actions on that job (absent
    //                 when no inference placed a task for it, e.g. dl2's forced bundle or a
    //                 scale-down);
    //   value       = V(s) before the first action on that job, else V(s) at slot start.
    const ConfidenceByJob &lastConfidence() const { return m_confidence; }

private:
    void readConfidence(const ClusterView &view);

    std::unique_ptr<Scheduler> m_scheduler;
    ProfileSet m_profiles;
    ActionReader m_reader;
    ConfidenceByJob m_confidence;
    std::string m_version;
};

} // namespace dl2
