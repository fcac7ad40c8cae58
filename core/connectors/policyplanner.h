#pragma once
// Runs a scheduling policy on a connector's view of the cluster, as the simulator would run
// it at the start of the slot (every allocation cleared, the policy adds tasks), and returns
// the allocation the policy wants for every job of the view.

#include "clusterconnector.h"
#include "modelprofile.h"
#include "scheduler.h"

#include <memory>

namespace dl2 {

class PolicyPlanner
{
public:
    // Throws dl2::Error for an unknown policy.
    PolicyPlanner(const std::string &policy, const SchedulerConfig &config = {},
                  ProfileSet profiles = ProfileSet::reference());
    ~PolicyPlanner();

    std::vector<Allocation> plan(const ClusterView &view);
    const ProfileSet &profiles() const { return m_profiles; }
    std::string policy() const;

private:
    std::unique_ptr<Scheduler> m_scheduler;
    ProfileSet m_profiles;
};

} // namespace dl2
