#include "simulator.h"

#include "error.h"
#include "scheduler.h"
#include "rng.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace dl2 {

namespace {

constexpr int kSlotLimit = 10'000'000;

void checkOptions(const ClusterSpec &cluster, const SimulationOptions &o)
{
    if (cluster.nodes <= 0 || cluster.nodes > 1'000'000)
        throw Error("simulation: --nodes must be in 1..1000000, got " + std::to_string(cluster.nodes));
    if (cluster.capacity[0] < 0 || cluster.capacity[1] < 0 || cluster.capacity[0] > 1'000'000 ||
        cluster.capacity[1] > 1'000'000)
        throw Error("simulation: node capacity out of range");
    if (!(o.slotSeconds > 0) || o.slotSeconds > 1e7)
        throw Error("simulation: slot length must be in (0, 1e7] seconds");
    if (o.maxSlots < 0 || o.maxSlots > kSlotLimit)
        throw Error("simulation: max slots must be in 0..10000000 (0 = until every job finishes), got " +
                    std::to_string(o.maxSlots));
    if (o.stallSlots <= 0)
        throw Error("simulation: stall slots must be positive");
    if (o.maxWorkers <= 0 || o.maxPs <= 0 || o.maxWorkers > 4096 || o.maxPs > 4096)
        throw Error("simulation: worker/PS caps must be in 1..4096");
    if (o.resizeCostSeconds < 0 || !std::isfinite(o.resizeCostSeconds))
        throw Error("simulation: resize cost must be a non-negative number of seconds");
    if (o.speedNoise < 0 || o.speedNoise >= 1)
        throw Error("simulation: speed noise must be in [0, 1)");
}

} // namespace

Simulator::Simulator(const ClusterSpec &cluster, ProfileSet profiles, Trace trace,
                     SimulationOptions options)
    : m_profiles(std::move(profiles)), m_trace(std::move(trace)), m_options(options)
{
    checkOptions(cluster, m_options);
    m_trace.validate(m_profiles, m_trace.name.empty() ? std::string("trace") : m_trace.name);
    m_cluster = Cluster(cluster.nodes, cluster.capacity);
    for (const auto &p : m_profiles.all()) {
        if (!p.speed)
            throw Error("profile '" + p.name + "' has no speed model");
        if (!(p.stepsPerEpoch > 0))
            throw Error("profile '" + p.name + "': steps per epoch must be positive");
        m_speed.emplace_back(*p.speed, m_options.maxPs, m_options.maxWorkers);
        m_estimated.emplace_back(p.estimate ? *p.estimate : *p.speed, m_options.maxPs,
                                 m_options.maxWorkers);
    }
    m_lowerBounds = lowerBoundJcts(cluster, m_profiles, m_trace, m_options);
    m_lowerBound = m_lowerBounds.empty()
                       ? 0.0
                       : std::accumulate(m_lowerBounds.begin(), m_lowerBounds.end(), 0.0) /
                             static_cast<double>(m_lowerBounds.size());
    reset();
}

void Simulator::reset()
{
    m_cluster.clear();
    m_jobs.clear();
    m_jobs.reserve(m_trace.jobs.size());
    for (const auto &spec : m_trace.jobs) {
        JobState j;
        j.id = spec.id;
        j.type = *m_profiles.indexOf(spec.model);
        j.arrivalSlot = spec.arrivalSlot;
        j.totalEpochs = spec.epochs;
        j.estimatedEpochs = spec.estimatedEpochs.value_or(spec.epochs);
        j.observedWorkers = spec.source.workers;
        j.observedPs = spec.source.ps;
        j.observedStartSlot = observedStartSlot(spec);
        m_jobs.push_back(std::move(j));
    }
    m_arrivalOrder.resize(m_jobs.size());
    std::iota(m_arrivalOrder.begin(), m_arrivalOrder.end(), 0);
    std::stable_sort(m_arrivalOrder.begin(), m_arrivalOrder.end(), [this](int a, int b) {
        const JobState &x = m_jobs[a], &y = m_jobs[b];
        return x.arrivalSlot != y.arrivalSlot ? x.arrivalSlot < y.arrivalSlot : x.id < y.id;
    });
    m_nextArrival = 0;
    m_lastArrivals.clear();
    m_lastCompletions.clear();
    m_rewards.clear();
    m_utilisation.clear();
    m_slotJobs.clear();
    m_noiseState = m_options.seed;
    m_slot = 0;
    m_finished = 0;
    m_idleSlots = 0;
    m_progressed = false;
    m_stopReason.clear();
    m_jobCount = static_cast<int>(m_jobs.size());
    m_done = m_jobCount == 0;
}

int Simulator::observedStartSlot(const JobSpec &spec) const
{
    const JobSource &s = spec.source;
    if (!s.queueSeconds)
        return s.workers > 0 ? spec.arrivalSlot : -1; // no delay known: from its arrival
    double slot = spec.arrivalSlot + std::floor(*s.queueSeconds / m_options.slotSeconds);
    if (s.submitTime && m_trace.timeOrigin)
        slot = std::floor((*s.submitTime + *s.queueSeconds - *m_trace.timeOrigin) /
                          m_options.slotSeconds);
    return static_cast<int>(std::clamp(slot, static_cast<double>(spec.arrivalSlot), double(kSlotLimit)));
}

void Simulator::admitArrivals()
{
    m_lastArrivals.clear();
    while (m_nextArrival < m_arrivalOrder.size() &&
           m_jobs[m_arrivalOrder[m_nextArrival]].arrivalSlot <= m_slot) {
        JobState &j = m_jobs[m_arrivalOrder[m_nextArrival++]];
        j.status = JobStatus::Queued;
        m_lastArrivals.push_back(j.id);
    }
}

void Simulator::step(Scheduler &scheduler)
{
    if (m_done)
        return;
    admitArrivals();

    // Every slot is decided from scratch.
    m_cluster.clear();
    std::vector<int> active;
    active.reserve(m_jobs.size());
    for (size_t k = 0; k < m_nextArrival; ++k) {
        const int i = m_arrivalOrder[k];
        JobState &j = m_jobs[i];
        j.outsideViewThisSlot = false;
        if (j.status == JobStatus::Finished) {
            // A job shows its allocation in the slot it finished, none afterwards.
            if (!j.tasks.empty() || j.workers || j.ps) {
                j.workers = j.ps = 0;
                j.tasks.clear();
                j.usage = {0, 0};
                j.speed = j.epochsThisSlot = 0.0;
            }
            continue;
        }
        j.prevWorkers = j.workers;
        j.prevPs = j.ps;
        j.workers = j.ps = 0;
        j.tasks.clear();
        j.usage = {0, 0};
        j.speed = j.epochsThisSlot = 0.0;
        j.status = JobStatus::Queued;
        active.push_back(i);
    }

    SlotContext context(m_slot, m_cluster, m_jobs, std::move(active), m_profiles, m_options,
                        &m_speed, &m_estimated);
    scheduler.schedule(context);
    int outsideView = -1;
    if (context.viewLimited()) {
        outsideView = 0;
        for (const int i : context.activeJobs())
            if (!context.inView(i)) {
                ++outsideView;
                ++m_jobs[size_t(i)].slotsOutsideView;
                m_jobs[size_t(i)].outsideViewThisSlot = true;
            }
    }
    progress();
    m_slotJobs.back().outsideView = outsideView;

    m_utilisation.push_back({m_cluster.utilisation(Resource::Cpu), m_cluster.utilisation(Resource::Gpu)});
    ++m_slot;
    const bool allArrived = m_nextArrival == m_arrivalOrder.size();
    m_idleSlots = allArrived && !m_progressed ? m_idleSlots + 1 : 0;
    if (m_finished == m_jobCount) {
        m_done = true;
    } else if (m_slot >= (m_options.maxSlots > 0 ? m_options.maxSlots : kSlotLimit)) {
        m_done = true;
        m_stopReason = "max-slots";
    } else if (m_options.maxSlots == 0 && m_idleSlots >= m_options.stallSlots) {
        m_done = true;
        m_stopReason = "stalled";
    }
}

void Simulator::progress()
{
    m_lastCompletions.clear();
    double reward = 0.0;
    double jobSlots = 0.0; // time jobs spent in the system this slot (for the exact reward)
    const double slotSeconds = m_options.slotSeconds;
    m_progressed = false;
    SlotJobs counts;
    for (size_t k = 0; k < m_nextArrival; ++k) {
        JobState &j = m_jobs[m_arrivalOrder[k]];
        if (j.status == JobStatus::Finished)
            continue;
        counts.workers += j.workers;
        counts.ps += j.ps;
        if (j.workers <= 0 || j.ps <= 0) {
            ++counts.waiting;
            jobSlots += 1.0;
            continue;
        }
        ++counts.running;
        if (j.firstRunSlot < 0)
            j.firstRunSlot = m_slot;
        ++j.slotsRun;
        j.workerSlots += j.workers;
        j.psSlots += j.ps;
        const ModelProfile &p = m_profiles[j.type];
        double speed = m_speed[j.type](j.ps, j.workers);
        if (m_options.speedNoise > 0) {
            Rng rng(m_noiseState);
            m_noiseState = rng.next();
            speed *= 1.0 + m_options.speedNoise * (2.0 * rng.uniform() - 1.0);
        }
        double lost = 0.0;
        if (m_options.resizeCostSeconds > 0) {
            const int changed = std::abs(j.workers - j.prevWorkers) + std::abs(j.ps - j.prevPs);
            lost = std::min(slotSeconds, m_options.resizeCostSeconds * changed);
        }
        const double rate = speed / p.stepsPerEpoch; // epochs per second
        double epochs = rate * (slotSeconds - lost);
        j.speed = speed;
        const double remaining = j.totalEpochs - j.doneEpochs;
        if (epochs > 0 && epochs >= remaining) {
            // Finishes after the lost time plus the fraction of the slot it still needed.
            const double fraction = (lost + remaining / rate) / slotSeconds;
            epochs = remaining;
            j.doneEpochs = j.totalEpochs;
            j.finishTime = m_slot + fraction;
            j.status = JobStatus::Finished;
            ++m_finished;
            m_lastCompletions.push_back(j.id);
            jobSlots += fraction;
        } else {
            j.doneEpochs += epochs;
            jobSlots += 1.0;
        }
        j.epochsThisSlot = epochs;
        m_progressed |= epochs > 0;
        reward += epochs / j.estimatedEpochs;
    }
    m_rewards.push_back(m_options.unfinishedJobsReward ? -jobSlots : reward);
    m_slotJobs.push_back(counts);
}

double Simulator::slotProgress(int index, int ps, int workers) const
{
    const JobState &j = m_jobs.at(size_t(index));
    if (j.estimatedEpochs <= 0)
        return 0.0;
    const double remaining = j.totalEpochs - (j.doneEpochs - j.epochsThisSlot);
    const double epochs = m_speed[size_t(j.type)](ps, workers) /
                          m_profiles[j.type].stepsPerEpoch * m_options.slotSeconds;
    return std::min(epochs, std::max(0.0, remaining)) / j.estimatedEpochs;
}

SlotSnapshot Simulator::snapshot() const
{
    SlotSnapshot s;
    s.slot = m_slot - 1;
    s.reward = m_rewards.empty() ? 0.0 : m_rewards.back();
    s.cumulativeReward = std::accumulate(m_rewards.begin(), m_rewards.end(), 0.0);
    s.utilisation = {m_cluster.utilisation(Resource::Cpu), m_cluster.utilisation(Resource::Gpu)};
    s.nodeUsage = m_cluster.usage();
    s.nodeCapacity = m_cluster.nodeCapacity();
    s.jobs = m_jobs;
    s.arrivals = m_lastArrivals;
    s.completions = m_lastCompletions;
    for (const auto &j : m_jobs) {
        switch (j.status) {
        case JobStatus::Pending: ++s.pending; break;
        case JobStatus::Queued: ++s.queued; break;
        case JobStatus::Running: ++s.running; break;
        case JobStatus::Finished: ++s.finished; break;
        }
    }
    return s;
}

RunResult Simulator::result() const
{
    RunResult r;
    r.traceName = m_trace.name;
    r.jobs = m_jobCount;
    r.completed = m_finished;
    r.slotCount = m_slot;
    r.rewards = m_rewards;
    r.utilisation = m_utilisation;
    r.slotJobs = m_slotJobs;
    r.stopReason = m_stopReason;
    double sum = 0.0, bound = 0.0;
    int counted = 0;
    for (size_t i = 0; i < m_jobs.size(); ++i) {
        const JobState &j = m_jobs[i];
        if (j.status == JobStatus::Finished) {
            r.jcts.push_back(j.jct());
            sum += j.jct();
            r.makespan = std::max(r.makespan, j.finishTime);
        } else if (j.arrivalSlot < m_slot) {
            // Censored at the end of the run: counts with the time it has spent so far.
            r.jcts.push_back(-1.0);
            ++r.unfinished;
            sum += m_slot - j.arrivalSlot;
            r.makespan = std::max(r.makespan, static_cast<double>(m_slot));
            // Its bound is censored the same way, so the ratio compares like with like.
            bound += std::min(m_lowerBounds[i], static_cast<double>(m_slot - j.arrivalSlot));
            ++counted;
            continue;
        } else {
            r.jcts.push_back(-1.0); // never arrived: no JCT, not averaged
            ++r.notArrived;
            continue;
        }
        ++counted;
        bound += m_lowerBounds[i];
    }
    r.truncated = r.completed < r.jobs;
    if (r.truncated && r.stopReason.empty())
        r.stopReason = "stopped"; // stepped by hand and not run to the end
    r.avgJct = counted ? sum / counted : 0.0;
    r.lowerBoundAvgJct = !r.truncated ? m_lowerBound : counted ? bound / counted : 0.0;
    r.avgReward = m_rewards.empty()
                      ? 0.0
                      : std::accumulate(m_rewards.begin(), m_rewards.end(), 0.0) / m_rewards.size();
    return r;
}

std::array<double, kResourceTypes> meanUtilisation(const RunResult &result)
{
    std::array<double, kResourceTypes> mean{};
    for (const auto &u : result.utilisation)
        for (int r = 0; r < kResourceTypes; ++r)
            mean[r] += u[r];
    if (!result.utilisation.empty())
        for (double &m : mean)
            m /= static_cast<double>(result.utilisation.size());
    return mean;
}

RunResult runSimulation(Simulator &simulator, Scheduler &scheduler, const std::function<void()> &afterSlot)
{
    const auto start = std::chrono::steady_clock::now();
    scheduler.reset();
    while (!simulator.done()) {
        simulator.step(scheduler);
        if (afterSlot)
            afterSlot();
    }
    RunResult r = simulator.result();
    r.policy = scheduler.name();
    r.neverFit = scheduler.neverPlacedJobs();
    r.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

BestConfig bestConfig(const SpeedModel &model, const ModelProfile &profile, int maxPs,
                  int maxWorkers, const Demand &budget)
{
    BestConfig best;
    for (int p = 1; p <= maxPs; ++p) {
        for (int w = 1; w <= maxWorkers; ++w) {
            const Demand need = p * profile.psDemand + w * profile.workerDemand;
            if (need[0] > budget[0] || need[1] > budget[1])
                continue;
            const double s = model.speed(p, w);
            // Strictly faster wins; ties keep the smaller (earlier) configuration.
            if (s > best.speed) {
                best = {{p, w}, s};
            }
        }
    }
    return best;
}

std::vector<double> lowerBoundJcts(const ClusterSpec &cluster, const ProfileSet &profiles,
                                   const Trace &trace, const SimulationOptions &options)
{
    const Demand budget = cluster.nodes * cluster.capacity;
    std::vector<double> epochsPerSlot;
    for (const auto &p : profiles.all()) {
        const BestConfig c = bestConfig(*p.speed, p, options.maxPs, options.maxWorkers, budget);
        epochsPerSlot.push_back(c.speed * options.slotSeconds / p.stepsPerEpoch);
    }
    std::vector<double> bounds;
    bounds.reserve(trace.jobs.size());
    for (const auto &j : trace.jobs) {
        const auto type = profiles.indexOf(j.model);
        const double e = type ? epochsPerSlot[*type] : 0.0;
        // A job that fits nowhere has no finite bound: the run's limit stands in for it.
        bounds.push_back(e > 0 ? j.epochs / e : static_cast<double>(options.maxSlots));
    }
    return bounds;
}

double lowerBoundAvgJct(const ClusterSpec &cluster, const ProfileSet &profiles,
                        const Trace &trace, const SimulationOptions &options)
{
    if (trace.jobs.empty())
        return 0.0;
    const std::vector<double> bounds = lowerBoundJcts(cluster, profiles, trace, options);
    return std::accumulate(bounds.begin(), bounds.end(), 0.0) / static_cast<double>(bounds.size());
}

ClusterSpec clusterSpecOf(const TraceCluster &cluster)
{
    return {cluster.nodes, {cluster.cpusPerNode, 4 * cluster.gpusPerNode}};
}

} // namespace dl2
