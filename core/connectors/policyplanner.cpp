#include "policyplanner.h"

#include "error.h"
#include "simulator.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace dl2 {

PolicyPlanner::PolicyPlanner(const std::string &policy, const SchedulerConfig &config,
                             ProfileSet profiles)
    : m_scheduler(makeScheduler(policy, config)), m_profiles(std::move(profiles))
{
    m_scheduler->reset();
}

PolicyPlanner::PolicyPlanner(std::unique_ptr<Scheduler> scheduler, ProfileSet profiles)
    : m_scheduler(std::move(scheduler)), m_profiles(std::move(profiles))
{
    if (!m_scheduler)
        throw Error("policy planner: no scheduler");
    m_scheduler->reset();
}

PolicyPlanner::~PolicyPlanner() = default;

std::string PolicyPlanner::versionName(int version)
{
    std::string name = "v"; // not "v" + std::to_string(): a false -Wrestrict in GCC 12
    name += std::to_string(version);
    return name;
}

std::string PolicyPlanner::policy() const
{
    return m_scheduler->name();
}

PolicyPlanner::RebuiltSlot PolicyPlanner::rebuild(const ClusterView &view)
{
    RebuiltSlot r;
    r.slot = view.nextSlot;
    r.cluster = Cluster(view.nodes, view.nodeCapacity);
    r.jobs = view.jobs;
    std::vector<JobState> &jobs = r.jobs;
    std::vector<int> &active = r.active;
    for (size_t i = 0; i < jobs.size(); ++i) {
        JobState &j = jobs[i];
        if (j.status == JobStatus::Finished)
            continue;
        j.prevWorkers = j.workers;
        j.prevPs = j.ps;
        j.workers = j.ps = 0;
        j.tasks.clear();
        j.usage = {0, 0};
        j.status = JobStatus::Queued;
        active.push_back(static_cast<int>(i));
    }
    std::stable_sort(active.begin(), active.end(), [&](int a, int b) {
        return jobs[a].arrivalSlot != jobs[b].arrivalSlot
                   ? jobs[a].arrivalSlot < jobs[b].arrivalSlot
                   : jobs[a].id < jobs[b].id;
    });
    r.options.slotSeconds = view.slotSeconds;
    r.options.maxWorkers = view.maxWorkers;
    r.options.maxPs = view.maxPs;
    return r;
}

std::vector<Allocation> PolicyPlanner::plan(const ClusterView &view)
{
    RebuiltSlot slot = rebuild(view);
    SlotContext context = slot.context(m_profiles);
    m_scheduler->schedule(context);
    const std::vector<JobState> &jobs = slot.jobs;
    readConfidence(view);
    std::vector<Allocation> out;
    out.reserve(jobs.size());
    for (const JobState &j : jobs)
        out.push_back(j.status == JobStatus::Finished ? Allocation{}
                                                      : Allocation{{j.ps, j.workers}, j.tasks});
    return out;
}

void PolicyPlanner::readConfidence(const ClusterView &view)
{
    m_confidence.clear();
    if (!m_reader)
        return;
    const std::vector<PolicyAction> actions = m_reader(*m_scheduler);
    if (actions.empty())
        return;
    // The mean (not the product) of the per-action probabilities: a job that got six tasks
    // with p = 0.9 each reads as a confident 90 %, not 53 %, and jobs with different numbers
    // of tasks stay comparable.
    struct Sum
    {
        double probability = 0.0;
        int placed = 0;
        std::optional<double> firstValue;
    };
    std::map<int, Sum> sums;
    for (const PolicyAction &a : actions) {
        if (a.jobId < 0)
            continue;
        Sum &s = sums[a.jobId];
        if (!s.firstValue)
            s.firstValue = a.value; // stays empty when the policy reports no V(s)
        if (a.placed) {
            s.probability += a.probability;
            ++s.placed;
        }
    }
    const std::optional<double> slotValue = actions.front().value;
    for (const JobState &j : view.jobs) {
        if (j.status == JobStatus::Finished)
            continue;
        ActionConfidence c;
        c.value = slotValue;
        if (const auto it = sums.find(j.id); it != sums.end()) {
            c.value = it->second.firstValue;
            if (it->second.placed > 0)
                c.probability = it->second.probability / it->second.placed;
        }
        m_confidence[j.id] = c;
    }
}

} // namespace dl2
