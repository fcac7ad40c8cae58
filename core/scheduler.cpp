#include "scheduler.h"

#include "error.h"

#include <algorithm>
#include <mutex>

namespace dl2 {

SlotContext::SlotContext(int slot, Cluster &cluster, std::vector<JobState> &jobs,
                         std::vector<int> active, const ProfileSet &profiles,
                         const SimulationOptions &options,
                         const std::vector<SpeedTable> *trueSpeed,
                         const std::vector<SpeedTable> *estimatedSpeed)
    : m_slot(slot), m_cluster(cluster), m_jobs(jobs), m_active(std::move(active)),
      m_profiles(profiles), m_options(options), m_trueSpeed(trueSpeed),
      m_estimatedSpeed(estimatedSpeed)
{
}

void SlotContext::limitView()
{
    m_viewLimited = true;
    m_inView.resize(m_jobs.size(), 0);
}

void SlotContext::markInView(int index)
{
    if (m_viewLimited)
        m_inView[size_t(index)] = 1;
}

bool SlotContext::inView(int index) const
{
    return !m_viewLimited || m_inView[size_t(index)] != 0;
}

int SlotContext::maxWorkers() const { return m_options.maxWorkers; }
int SlotContext::maxPs() const { return m_options.maxPs; }

double SlotContext::epochsPerSlot(int index, int ps, int workers) const
{
    const JobState &j = m_jobs[index];
    const ModelProfile &p = m_profiles[j.type];
    const double speed = m_trueSpeed ? (*m_trueSpeed)[j.type](ps, workers)
                                     : (ps > 0 && workers > 0 ? p.speed->speed(ps, workers) : 0.0);
    return speed * m_options.slotSeconds / p.stepsPerEpoch;
}

double SlotContext::estimatedEpochsPerSlot(int index, int ps, int workers) const
{
    const JobState &j = m_jobs[index];
    const ModelProfile &p = m_profiles[j.type];
    if (!p.estimate)
        return epochsPerSlot(index, ps, workers);
    const double speed = m_estimatedSpeed
                             ? (*m_estimatedSpeed)[j.type](ps, workers)
                             : (ps > 0 && workers > 0 ? p.estimate->speed(ps, workers) : 0.0);
    return speed * m_options.slotSeconds / p.stepsPerEpoch;
}

const SlotContext::BestSetting &SlotContext::bestSetting(int index) const
{
    const auto type = static_cast<size_t>(m_jobs[index].type);
    if (m_bestSetting.size() <= type)
        m_bestSetting.resize(type + 1);
    std::optional<BestSetting> &memo = m_bestSetting[type];
    if (!memo) {
        BestSetting best;
        for (int ps = 1; ps <= maxPs(); ++ps)
            for (int w = 1; w <= maxWorkers(); ++w) {
                const double e = epochsPerSlot(index, ps, w);
                const int tasks = ps + w, bestTasks = best.ps + best.workers;
                if (e > best.epochsPerSlot ||
                    (e == best.epochsPerSlot && e > 0.0 &&
                     (tasks < bestTasks || (tasks == bestTasks && w < best.workers))))
                    best = {ps, w, e};
            }
        memo = best;
    }
    return *memo;
}

double SlotContext::dominantShare(int index) const
{
    const Demand total = m_cluster.totalCapacity();
    const Demand &u = m_jobs[index].usage;
    double share = 0.0;
    for (int r = 0; r < kResourceTypes; ++r)
        if (total[r] > 0)
            share = std::max(share, static_cast<double>(u[r]) / total[r]);
    return share;
}

Demand SlotContext::demandOf(int index, TaskKind kind) const
{
    const ModelProfile &p = profileOf(index);
    switch (kind) {
    case TaskKind::Worker: return p.workerDemand;
    case TaskKind::Ps: return p.psDemand;
    case TaskKind::Bundle: return p.workerDemand + p.psDemand;
    }
    return {0, 0};
}

bool SlotContext::atCap(int index, TaskKind kind) const
{
    const JobState &j = m_jobs[index];
    const bool workersFull = j.workers >= m_options.maxWorkers;
    const bool psFull = j.ps >= m_options.maxPs;
    switch (kind) {
    case TaskKind::Worker: return workersFull;
    case TaskKind::Ps: return psFull;
    case TaskKind::Bundle: return workersFull || psFull;
    }
    return true;
}

AddResult SlotContext::add(int index, TaskKind kind)
{
    return add(index, kind, m_options.placement);
}

AddResult SlotContext::add(int index, TaskKind kind, PlacementRule rule)
{
    if (atCap(index, kind))
        return AddResult::AtCap;
    const int node = m_cluster.chooseNode(demandOf(index, kind), rule);
    if (node < 0)
        return AddResult::NoCapacity;
    record(index, kind, node);
    return AddResult::Ok;
}

AddResult SlotContext::addOn(int index, TaskKind kind, int node)
{
    if (atCap(index, kind))
        return AddResult::AtCap;
    if (node < 0 || node >= m_cluster.nodeCount() || !m_cluster.fits(node, demandOf(index, kind)))
        return AddResult::NoCapacity;
    record(index, kind, node);
    return AddResult::Ok;
}

void SlotContext::record(int index, TaskKind kind, int node)
{
    const Demand demand = demandOf(index, kind);
    m_cluster.allocate(node, demand);
    JobState &j = m_jobs[index];
    j.usage = j.usage + demand;
    if (kind != TaskKind::Ps) {
        ++j.workers;
        j.tasks.push_back({node, TaskRole::Worker});
    }
    if (kind != TaskKind::Worker) {
        ++j.ps;
        j.tasks.push_back({node, TaskRole::Ps});
    }
    if (j.workers > 0 && j.ps > 0)
        j.status = JobStatus::Running;
}

bool Scheduler::recordDecisions(DecisionRecording) { return false; }

const std::vector<DecisionRecord> &Scheduler::lastDecisions() const
{
    static const std::vector<DecisionRecord> none;
    return none;
}

// ---- registry ----

namespace {
std::mutex &registryMutex()
{
    static std::mutex m;
    return m;
}
std::vector<SchedulerInfo> &registry()
{
    static std::vector<SchedulerInfo> r;
    return r;
}
} // namespace

void registerScheduler(SchedulerInfo info)
{
    std::lock_guard lock(registryMutex());
    auto &r = registry();
    auto it = std::find_if(r.begin(), r.end(), [&](const SchedulerInfo &s) { return s.name == info.name; });
    if (it != r.end())
        *it = std::move(info);
    else
        r.push_back(std::move(info));
}

std::vector<SchedulerInfo> registeredSchedulers()
{
    registerBaselines();
    std::lock_guard lock(registryMutex());
    return registry();
}

bool isScheduler(const std::string &name)
{
    const auto all = registeredSchedulers();
    return std::any_of(all.begin(), all.end(), [&](const SchedulerInfo &s) { return s.name == name; });
}

std::unique_ptr<Scheduler> makeScheduler(const std::string &name, const SchedulerConfig &config)
{
    const auto all = registeredSchedulers();
    for (const auto &s : all)
        if (s.name == name)
            return s.factory(config);
    std::string known;
    for (const auto &s : all)
        known += (known.empty() ? "" : ", ") + s.name;
    throw Error("unknown policy '" + name + "' (known: " + known + ")");
}

} // namespace dl2
