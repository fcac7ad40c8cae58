#include "simulationworker.h"

#include "error.h"
#include "logging.h"
#include "modelprofile.h"
#include "scenario.h"
#include "scheduler.h"
#include "simulator.h"
#include "trace.h"

#ifdef DL2_CONSOLE_LEARNING
#include "policyspec.h"
#include "registerpolicies.h"
#endif

#include <QElapsedTimer>
#include <QFileInfo>

namespace dl2console {

SlotSummary summarise(const dl2::SlotSnapshot &s)
{
    SlotSummary r;
    r.slot = s.slot;
    r.reward = s.reward;
    r.cumulativeReward = s.cumulativeReward;
    r.utilisation = s.utilisation;
    r.pending = s.pending;
    r.queued = s.queued;
    r.running = s.running;
    r.finished = s.finished;
    r.arrivals = s.arrivals;
    r.completions = s.completions;
    r.jobs.reserve(s.jobs.size());
    for (const auto &j : s.jobs) {
        if (j.active())
            r.jobSlots += 1.0;
        else if (j.status == dl2::JobStatus::Finished && j.finishTime >= s.slot)
            r.jobSlots += j.finishTime - s.slot;
        if (!heldAllocation(j, s.slot)) {
            r.jobs.push_back({});
            continue;
        }
        r.jobs.push_back({static_cast<std::int16_t>(j.workers), static_cast<std::int16_t>(j.ps),
                          static_cast<float>(j.epochsThisSlot), static_cast<float>(j.speed)});
    }
    return r;
}

QString speedModelLabel(const SessionSetup &setup)
{
    QString label = setup.speedModel == QLatin1String("optimus")
                        ? QStringLiteral("fitted Optimus model")
                        : QStringLiteral("measured speeds (exact RBF)");
    if (!setup.speedTable.isEmpty())
        label += QStringLiteral(" · ") + QFileInfo(setup.speedTable).fileName();
    return label;
}

void applyTraceSetup(const dl2::Trace &trace, int nodes, dl2::ClusterSpec &cluster,
                     dl2::SimulationOptions &simulation)
{
    // As `dl2 simulate --trace` does: the trace's cluster and slot length, caps raised to its
    // largest observed allocation; a cluster size the user set keeps its node count.
    if (trace.cluster) {
        cluster = dl2::clusterSpecOf(*trace.cluster);
        if (nodes > 0)
            cluster.nodes = nodes;
    }
    if (trace.slotSeconds)
        simulation.slotSeconds = *trace.slotSeconds;
    simulation.maxWorkers = std::max(simulation.maxWorkers, trace.maxObservedWorkers());
    simulation.maxPs = std::max(simulation.maxPs, trace.maxObservedPs());
    // An imported trace runs to completion (or until it stalls), as `dl2 simulate` does: its
    // arrivals span far more slots than the scenario's training limit.
    const bool imported = !trace.source.empty() || trace.cluster || trace.slotSeconds;
    if (imported)
        simulation.maxSlots = 0;
}

SimulationWorker::SimulationWorker(QObject *parent) : QObject(parent) {}

SimulationWorker::~SimulationWorker() = default;

void SimulationWorker::load(quint64 generation, const SessionSetup &setup)
{
    m_generation = generation;
    m_setup = setup;
    m_frontier.reset();
    m_cursor.reset();
    m_keyframes.clear();
    try {
        const dl2::Scenario &scenario = dl2::scenarioByName(setup.scenario.toStdString());
        const dl2::SpeedModelChoice speedModel =
            dl2::speedModelChoiceFromString(setup.speedModel.toStdString());
        dl2::ProfileSet profiles = dl2::profilesFor(speedModel, setup.speedTable.toStdString());
        dl2::ClusterSpec cluster = scenario.cluster;
        if (setup.nodes < 0 || setup.nodes > 1'000'000)
            throw dl2::Error("cluster size " + std::to_string(setup.nodes) +
                             " nodes: expected 1 to 1,000,000");
        if (setup.nodes > 0)
            cluster.nodes = setup.nodes;
        dl2::SimulationOptions simulation = scenario.simulation;
        dl2::Trace trace;
        if (!setup.traceFile.isEmpty()) {
            const std::string path = setup.traceFile.toStdString();
            trace = dl2::Trace::load(path);
            trace.validate(profiles, path);
            if (trace.name.empty())
                trace.name = path;
            applyTraceSetup(trace, setup.nodes, cluster, simulation);
        } else {
            trace = scenario.trace(profiles, setup.seed);
        }
        if (trace.jobs.empty())
            throw dl2::Error("the trace has no jobs");
        dl2::SchedulerConfig config;
        // A trace file is not the scenario it was opened from: learned policies take the
        // shipped policy for trace files (the command line does the same).
        config.scenario = setup.traceFile.isEmpty() ? scenario.name : std::string();
        config.seed = setup.seed;
        config.checkpoint = setup.checkpoint.toStdString();
        config.measuredSpeeds = speedModel == dl2::SpeedModelChoice::Measured;
        const std::string policy = setup.policy.toStdString();
        m_frontierScheduler = dl2::makeScheduler(policy, config);
        m_cursorScheduler = dl2::makeScheduler(policy, config);
        m_frontierScheduler->reset();
        m_cursorScheduler->reset();
        // The frontier records V(s) per slot for the timeline (reward plot); the cursor records
        // every inference, but only of the slot it stops on (requestSlot).
        prepareForDecisions(*m_frontierScheduler, dl2::DecisionRecording::SlotValue);
        m_frontier = std::make_unique<dl2::Simulator>(cluster, std::move(profiles),
                                                      std::move(trace), simulation);
        m_keyframes.emplace(0, *m_frontier);
        m_sinceKeyframeNs = 0;

        RunInfo info;
        info.traceName = QString::fromStdString(m_frontier->trace().name);
        info.policy = setup.policy;
        info.nodes = m_frontier->cluster().nodeCount();
        info.jobs = static_cast<int>(m_frontier->jobs().size());
        info.slotSeconds = m_frontier->options().slotSeconds;
        info.maxSlots = m_frontier->options().maxSlots;
        info.speedModel = speedModelLabel(setup);
        {
            auto sources = std::make_shared<std::vector<std::pair<int, dl2::JobSource>>>();
            for (const dl2::JobSpec &job : m_frontier->trace().jobs)
                if (!job.source.empty())
                    sources->emplace_back(job.id, job.source);
            if (!sources->empty())
                info.sources = std::move(sources);
            if (const auto &c = m_frontier->trace().cluster)
                info.clusterSource = QStringLiteral("trace (%1)").arg(QString::fromStdString(c->basis));
        }
        const bool learned = setup.policy == QLatin1String("dl2") || setup.policy == QLatin1String("dl2-plus");
        info.checkpoint = learned ? setup.checkpoint : QString();
#ifdef DL2_CONSOLE_LEARNING
        if (learned && info.checkpoint.isEmpty()) // the scenario's shipped policy, by name
            info.checkpoint = QFileInfo(QString::fromStdString(dl2::shippedPolicyPath(
                                            dl2::policyKindFromString(policy), config.scenario,
                                            config.measuredSpeeds)))
                                  .completeBaseName();
#endif
        qCDebug(lcSim) << "loaded" << info.traceName << "policy" << info.policy;
        qCDebug(lcSched) << "scheduler" << QString::fromStdString(m_cursorScheduler->name());
        Q_EMIT loaded(generation, info);
    } catch (const std::exception &e) {
        m_frontier.reset();
        Q_EMIT loadFailed(generation, QString::fromStdString(e.what()));
        return;
    }
    scheduleScan();
}

void SimulationWorker::unload()
{
    m_generation = 0;
    m_frontier.reset();
    m_cursor.reset();
    m_keyframes.clear();
}

void SimulationWorker::advanceFrontier(QVector<SlotSummary> &out)
{
    QElapsedTimer step;
    step.start();
    m_frontier->step(*m_frontierScheduler);
    m_sinceKeyframeNs += step.nsecsElapsed();
    out.push_back(summarise(m_frontier->snapshot()));
    if (const auto v = m_frontierScheduler->lastSlotValue())
        out.back().value = static_cast<float>(*v);
    if (m_frontier->slot() % kKeyframeInterval == 0 || m_frontier->done() ||
        m_sinceKeyframeNs >= kKeyframeBudgetNs) {
        m_keyframes.emplace(m_frontier->slot(), *m_frontier);
        m_sinceKeyframeNs = 0;
    }
}

void SimulationWorker::flush(QVector<SlotSummary> &out)
{
    if (out.isEmpty())
        return;
    Q_EMIT summariesReady(m_generation, out, m_frontier->done());
    out.clear();
}

void SimulationWorker::requestSlot(quint64 generation, int slot)
{
    if (generation != m_generation || !m_frontier)
        return;
    slot = std::max(slot, 0);
    try {
        QVector<SlotSummary> summaries;
        while (!m_frontier->done() && m_frontier->slot() <= slot && !m_stop)
            advanceFrontier(summaries);
        flush(summaries);
        // The frontier has simulated slot() slots; the last shown slot index is slot() - 1.
        slot = std::min(slot, m_frontier->slot() - 1);
        if (slot < 0)
            return;
        const int wanted = slot + 1; // Simulator::slot() after simulating `slot`
        // A keyframe before `slot`, never at `wanted`: the cursor's scheduler must simulate
        // `slot` itself, or its decision record would be of another slot.
        auto key = std::prev(m_keyframes.upper_bound(slot));
        if (!m_cursor || m_cursor->slot() > wanted || m_cursor->slot() < key->first) {
            m_cursor = std::make_unique<dl2::Simulator>(key->second);
            if (key->first == 0)
                m_cursorScheduler->reset();
        }
        while (m_cursor->slot() < wanted && !m_cursor->done()) {
            prepareForDecisions(*m_cursorScheduler, m_cursor->slot() + 1 == wanted
                                                        ? dl2::DecisionRecording::Full
                                                        : dl2::DecisionRecording::Off);
            m_cursor->step(*m_cursorScheduler);
        }
        SnapshotPacket packet;
        packet.snapshot = m_cursor->snapshot();
        packet.decisions = collectDecisions(*m_cursorScheduler, packet.snapshot.slot);
        Q_EMIT snapshotReady(generation, packet);
    } catch (const std::exception &e) {
        Q_EMIT loadFailed(generation, QString::fromStdString(e.what()));
    }
    scheduleScan();
}

void SimulationWorker::scheduleScan()
{
    if (m_scanPosted || !m_frontier || m_frontier->done() || m_stop)
        return;
    m_scanPosted = true;
    QMetaObject::invokeMethod(this, &SimulationWorker::scanChunk, Qt::QueuedConnection);
}

void SimulationWorker::scanChunk()
{
    m_scanPosted = false;
    if (!m_frontier || m_stop)
        return;
    // A short slice, then back to the event loop so snapshot requests stay responsive.
    QElapsedTimer clock;
    clock.start();
    QVector<SlotSummary> summaries;
    try {
        while (!m_frontier->done() && clock.elapsed() < 15 && !m_stop)
            advanceFrontier(summaries);
    } catch (const std::exception &e) {
        flush(summaries);
        Q_EMIT loadFailed(m_generation, QString::fromStdString(e.what()));
        m_frontier.reset();
        return;
    }
    flush(summaries);
    scheduleScan();
}

} // namespace dl2console
