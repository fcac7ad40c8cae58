#include "operationsworker.h"

#include "agentconnection.h"
#include "auditlog.h"
#include "decisionadapter.h"
#include "error.h"
#include "gateundo.h"
#include "grpcconnector.h"
#include "learnerprocess.h"
#include "logging.h"
#include "operatingloop.h"
#include "policyplanner.h"
#include "simulatedconnector.h"
#ifdef DL2_CONSOLE_LEARNING
#include "registerpolicies.h"
#endif

#include <QDateTime>
#include <QTimer>
#include <QUndoStack>

namespace dl2console {

namespace {

// A remote agent reports a ClusterView (or a SlotRecord of its history), not the simulator's
// SlotSnapshot: rebuild what the views need (jobs, node usage from the task placements,
// utilisation, counts).
dl2::SlotSnapshot snapshotFromJobs(int slot, int nodes, dl2::Demand capacity,
                                   const std::vector<dl2::JobState> &jobs,
                                   const dl2::ProfileSet &profiles)
{
    dl2::SlotSnapshot s;
    s.slot = slot;
    s.nodeCapacity = capacity;
    s.nodeUsage.assign(static_cast<size_t>(std::max(0, nodes)), dl2::Demand{0, 0});
    s.jobs = jobs;
    dl2::Demand used{0, 0};
    for (const dl2::JobState &j : jobs) {
        switch (j.status) {
        case dl2::JobStatus::Running:
            ++s.running;
            break;
        case dl2::JobStatus::Queued:
            ++s.queued;
            break;
        case dl2::JobStatus::Finished:
            ++s.finished;
            break;
        case dl2::JobStatus::Pending:
            ++s.pending;
            break;
        }
        if (j.type < 0 || j.type >= profiles.size() || !heldAllocation(j, slot))
            continue;
        const dl2::ModelProfile &p = profiles[j.type];
        for (const dl2::TaskPlacement &t : j.tasks) {
            const dl2::Demand d = t.role == dl2::TaskRole::Ps ? p.psDemand : p.workerDemand;
            for (size_t r = 0; r < d.size(); ++r) {
                if (t.node >= 0 && t.node < nodes)
                    s.nodeUsage[static_cast<size_t>(t.node)][r] += d[r];
                used[r] += d[r];
            }
        }
    }
    for (size_t r = 0; r < used.size(); ++r) {
        const int total = nodes * capacity[r];
        s.utilisation[r] = total > 0 ? static_cast<double>(used[r]) / total : 0.0;
    }
    return s;
}

dl2::SlotSnapshot snapshotFromView(const dl2::ClusterView &v, const dl2::ProfileSet &profiles)
{
    dl2::SlotSnapshot s =
        snapshotFromJobs(v.nextSlot - 1, v.nodes, v.nodeCapacity, v.jobs, profiles);
    s.reward = v.reward;
    s.cumulativeReward = v.cumulativeReward;
    s.arrivals = v.arrivals;
    s.completions = v.completions;
    return s;
}

} // namespace

OperationsWorker::OperationsWorker(QObject *parent)
    : QObject(parent), m_deadlineTimer(new QTimer(this)), m_connection(new AgentConnection(this))
{
    m_deadlineTimer->setSingleShot(true);
    connect(m_deadlineTimer, &QTimer::timeout, this, [this] {
        if (!m_gate || !m_gate->isOpen())
            return;
        guarded(tr("Review deadline"), [this] {
            const int n = m_gate->resolveDeadline(true);
            qCInfo(lcLive, "review deadline of slot %d: default applied to %d decisions",
                   m_gate->slot(), n);
        });
        closeBatch();
    });
    connect(m_connection, &AgentConnection::changed, this, &OperationsWorker::connectorChanged);
    connect(m_connection, &AgentConnection::retry, this, &OperationsWorker::tryConnect);
}

OperationsWorker::~OperationsWorker()
{
    m_loop.reset();
    m_learner.reset();
    m_sink.reset();
    m_gate.reset();
}

template <typename F>
bool OperationsWorker::guarded(const QString &what, F &&f)
{
    try {
        f();
        return true;
    } catch (const std::exception &e) {
        const QString message = what + QStringLiteral(": ") + QString::fromStdString(e.what());
        qCWarning(lcLive) << message;
        Q_EMIT commandFailed(message);
        return false;
    }
}

void OperationsWorker::start(const LiveSetup &setup)
{
    m_setup = setup;
    m_gateSettings = {setup.mode, setup.rulesFile, setup.reviewDeadlineMs, setup.atDeadline};
    try {
        m_rig = buildLiveRig(setup);
        m_resend = m_rig.remote != nullptr; // what an earlier run committed and never saw acked
        buildGate();
    } catch (const std::exception &e) {
        Q_EMIT failed(QString::fromStdString(e.what()));
        return;
    }
    if (m_rig.remote)
        m_connection->begin(ConnectorStatus::State::Connecting, setup.agentAddress);
    else
        m_connection->begin(ConnectorStatus::State::Embedded,
                            QString::fromStdString(m_rig.connector().describe()));
    if (setup.learn)
        applyLearning(true);
    tryConnect();
}

QString OperationsWorker::policyCheckpoint() const
{
    if (!m_setup.checkpoint.isEmpty())
        return m_setup.checkpoint;
#ifdef DL2_CONSOLE_LEARNING
    return QString::fromStdString(dl2::shippedPolicyPath(
        dl2::policyKindFromString(m_setup.policy.toStdString()), m_setup.scenario.toStdString(),
        dl2::SchedulerConfig{}.measuredSpeeds));
#else
    return {};
#endif
}

void OperationsWorker::setLearning(bool on)
{
    if (m_gate && m_gate->isOpen()) {
        m_learnWanted = on; // the planner changes between batches
        return;
    }
    applyLearning(on);
}

void OperationsWorker::applyLearning(bool on)
{
    m_learnWanted.reset();
    if (!on) {
        if (!m_learner)
            return;
        m_learner->stop();
        const LearningStatus status = m_learner->status();
        m_learnedCheckpoint = m_learner->checkpoint();
        if (m_loop)
            m_loop->setSlotObserver(nullptr);
        m_learner.release()->deleteLater(); // keeps the acting policy's version, frozen
        Q_EMIT learningChanged(status);
        return;
    }
    if (m_learner || !m_rig.planner)
        return;
    if (m_setup.policy != QLatin1String("dl2") && m_setup.policy != QLatin1String("dl2-plus")) {
        Q_EMIT learningFailed(tr("Learning needs a learned policy (dl2 or dl2-plus); this run's "
                                 "policy is %1")
                                  .arg(m_setup.policy));
        return;
    }
    LearningSettings settings = m_setup.learning;
    if (settings.directory.isEmpty())
        settings.directory = m_setup.auditFile + QStringLiteral(".learn");
    // Each learning session its own versions (v1, v2, ... restart from the version in use).
    settings.directory += QLatin1Char('/') +
                          QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
    auto learner = std::make_unique<LearnerProcess>();
    connect(learner.get(), &LearnerProcess::statusChanged, this,
            &OperationsWorker::learningChanged);
    connect(learner.get(), &LearnerProcess::pointAdded, this, &OperationsWorker::learningPoint);
    connect(learner.get(), &LearnerProcess::markAdded, this, &OperationsWorker::learningMark);
    connect(learner.get(), &LearnerProcess::failed, this, [this](const QString &message) {
        learnerFailed();
        Q_EMIT learningFailed(message);
    });
    try {
        const QString init =
            m_learnedCheckpoint.isEmpty() ? policyCheckpoint() : m_learnedCheckpoint;
        auto acting = learner->start(settings, init, m_rig.audit.get());
        m_loop.reset(); // it refers to the planner
        m_rig.planner =
            std::make_unique<dl2::PolicyPlanner>(std::move(acting), m_rig.planner->profiles());
        attachDecisionReader(*m_rig.planner);
        learner->setPlanner(m_rig.planner.get());
        m_learner = std::move(learner);
        buildGate(); // the loop runs the acting policy, observed by the learner
    } catch (const std::exception &e) {
        if (!m_loop)
            guarded(tr("Gate"), [this] { buildGate(); });
        Q_EMIT learningFailed(tr("Learning did not start: %1; live operation continues with the "
                                 "policy as it was")
                                  .arg(QString::fromStdString(e.what())));
    }
}

void OperationsWorker::learnerFailed()
{
    // The acting policy keeps deciding at its version, frozen.
    if (!m_learner)
        return;
    m_learnedCheckpoint = m_learner->checkpoint();
    if (m_loop)
        m_loop->setSlotObserver(nullptr);
    m_learner.release()->deleteLater(); // we may be inside its signal
}

void OperationsWorker::buildGate()
{
    dl2::DecisionGate::Options o;
    o.mode = m_gateSettings.mode;
    if (!m_gateSettings.rulesFile.isEmpty())
        o.rules = dl2::GateRules::load(m_gateSettings.rulesFile.toStdString());
    o.reviewDeadline = std::chrono::milliseconds(m_gateSettings.reviewDeadlineMs);
    o.atDeadline = m_gateSettings.atDeadline;
    m_loop.reset();
    m_sink.reset();
    m_gate = std::make_unique<dl2::DecisionGate>(o, m_rig.planner->profiles());
    m_sink = std::make_unique<dl2::UndoStackSink>(*m_gate, m_rig.undo.get());
    m_loop = std::make_unique<dl2::OperatingLoop>(m_rig.connector(), *m_rig.planner, *m_gate,
                                                  *m_rig.audit);
    m_loop->setRunId(m_rig.runId);
    if (m_learner)
        m_loop->setSlotObserver(m_learner.get());
    m_gateDirty = false;
}

void OperationsWorker::setGateSettings(const GateSettings &settings)
{
    if (settings == m_gateSettings)
        return;
    m_gateSettings = settings;
    m_gateDirty = true; // from the next batch: the open one keeps its rules and deadline
    if (m_gate && !m_gate->isOpen())
        guarded(tr("Gate settings"), [this] { buildGate(); });
}

void OperationsWorker::tryConnect()
{
    if (!m_loop)
        return;
    try {
        if (m_rig.remote) {
            m_health = m_rig.remote->health();
            if (m_resend)
                m_loop->resendUnacknowledged();
            m_resend = false;
            m_connection->succeeded();
        }
        if (!m_started) {
            const dl2::ClusterView v = m_rig.connector().snapshot();
            RunInfo info;
            info.traceName = QString::fromStdString(v.scenario);
            info.policy = m_setup.policy;
            info.nodes = v.nodes;
            info.jobs = v.totalJobs;
            info.slotSeconds = v.slotSeconds;
            if (m_rig.remote) {
                info.backend = QString::fromStdString(m_health.backend);
                info.cluster = QString::fromStdString(
                    m_health.description.empty() ? m_health.scenario : m_health.description);
            } else {
                info.backend = QStringLiteral("embedded");
                info.cluster = QString::fromStdString(m_rig.connector().describe());
            }
            m_started = true;
            Q_EMIT started(info);
            fetchHistory(v.nextSlot - 1); // a cluster already running: the slots it ran
            publishSlot(0, 0, {}, {});
        } else {
            // Reconnected: the slots the cluster ran meanwhile (another operator, or ours
            // whose result was lost with the connection).
            fetchHistory(m_rig.connector().snapshot().nextSlot - 1);
        }
    } catch (const std::exception &e) {
        connectionLost(e.what());
        return;
    }
    publishBatch();
    if (m_runWanted) {
        m_runWanted = false;
        runSlot();
    }
}

void OperationsWorker::fetchHistory(int lastSlot)
{
    if (lastSlot <= m_lastPublishedSlot)
        return;
    const std::vector<dl2::SlotRecord> records =
        m_rig.connector().history(m_lastPublishedSlot + 1, lastSlot);
    if (records.empty())
        return;
    const dl2::ClusterView v = m_rig.connector().snapshot(); // nodes and capacity
    std::vector<LiveSlotPacket> packets;
    packets.reserve(records.size());
    for (const dl2::SlotRecord &r : records) {
        LiveSlotPacket p;
        p.fromHistory = true;
        p.packet.snapshot =
            snapshotFromJobs(r.slot, v.nodes, v.nodeCapacity, r.jobs, m_rig.planner->profiles());
        p.packet.snapshot.reward = r.reward;
        p.packet.snapshot.cumulativeReward = r.cumulativeReward;
        p.packet.snapshot.arrivals = r.arrivals;
        p.packet.snapshot.completions = r.completions;
        p.packet.decisions.slot = r.slot;
        p.packet.decisions.notes =
            tr("Slot %1 ran before this console was attached to the cluster (it was read from "
               "the cluster's history): the policy's inferences of that slot were not recorded "
               "here. The decision queue shows the decisions the cluster applied for it, with "
               "the policy's confidence.")
                .arg(r.slot);
        p.summary = summarise(p.packet.snapshot);
        for (const dl2::ResizeDecision &d : r.applied) {
            p.entries.push_back({d, dl2::GateEntry::Verdict::Approved, "applied by the cluster"});
            p.acks.push_back({d.id, dl2::Acknowledgment::Status::Applied, {}, r.slot});
            ++p.approved;
            ++p.applied;
        }
        if (!r.applied.empty() && r.applied.front().value)
            p.summary.value = static_cast<float>(*r.applied.front().value);
        m_lastPublishedSlot = std::max(m_lastPublishedSlot, r.slot);
        packets.push_back(std::move(p));
    }
    qCInfo(lcLive, "read %zu slots of the cluster's history (%d..%d)", packets.size(),
           packets.front().summary.slot, packets.back().summary.slot);
    m_historyTail = packets.back();
    Q_EMIT historyLoaded(packets);
}

void OperationsWorker::connectionLost(const std::string &why)
{
    const QString message = QString::fromStdString(why);
    if (!m_rig.remote) { // the embedded simulator does not disconnect: this is a real error
        Q_EMIT failed(message);
        return;
    }
    m_resend = true;
    m_connection->lost(message);
}

void OperationsWorker::runSlot()
{
    if (!m_loop || m_done || m_gate->isOpen())
        return;
    if (m_rig.remote && m_connection->status().state != ConnectorStatus::State::Connected) {
        m_runWanted = m_connection->status().state != ConnectorStatus::State::RejectedToken;
        return;
    }
    if (m_gateDirty && !guarded(tr("Gate settings"), [this] { buildGate(); }))
        return;
    try {
        if (!m_loop->openSlot()) {
            m_done = true;
            Q_EMIT runComplete();
            return;
        }
    } catch (const dl2::Error &e) {
        connectionLost(e.what());
        m_runWanted = true;
        return;
    } catch (const std::exception &e) {
        Q_EMIT failed(QString::fromStdString(e.what()));
        return;
    }
    if (m_gate->pending() == 0) {
        closeBatch();
        return;
    }
    m_deadlineTimer->start(m_gateSettings.reviewDeadlineMs);
    publishBatch();
}

void OperationsWorker::closeBatch()
{
    m_deadlineTimer->stop();
    if (!m_gate->isOpen())
        return;
    const int total = static_cast<int>(m_gate->entries().size());
    std::vector<dl2::Acknowledgment> acks;
    int approved = 0;
    try {
        const int before = m_loop->summary().approved;
        acks = m_loop->closeSlot();
        approved = m_loop->summary().approved - before;
    } catch (const std::exception &e) {
        publishBatch();
        if (m_gate->isOpen()) { // the commit itself failed (audit log)
            Q_EMIT commandFailed(tr("Commit: %1").arg(QString::fromStdString(e.what())));
            return;
        }
        connectionLost(e.what()); // committed; re-sent after reconnecting
        return;
    }
    // The closed batch first: whoever reacts to the completed slot sees no open batch (a
    // second commit of the same batch would otherwise be sent and ignored).
    publishBatch();
    publishSlot(approved, total - approved, acks, m_gate->entries());
    if (m_learnWanted)
        applyLearning(*m_learnWanted);
}

void OperationsWorker::publishBatch()
{
    GateBatch b;
    if (m_gate) {
        b.open = m_gate->isOpen();
        b.slot = m_gate->slot();
        b.mode = m_gate->options().mode;
        b.atDeadline = m_gate->options().atDeadline;
        if (b.open) {
            b.entries = m_gate->entries();
            const dl2::ClusterView &v = m_loop->openView();
            for (const auto &e : b.entries) {
                int type = -1;
                for (const auto &j : v.jobs)
                    if (j.id == e.decision.job)
                        type = j.type;
                b.jobTypes.push_back(type);
            }
            b.maxPs = v.maxPs;
            b.maxWorkers = v.maxWorkers;
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                m_gate->deadline() - std::chrono::steady_clock::now());
            b.deadlineEpochMs = QDateTime::currentMSecsSinceEpoch() + std::max<qint64>(0, left.count());
        }
    }
    if (const QUndoStack *undo = m_rig.undo.get()) {
        b.canUndo = undo->canUndo();
        b.canRedo = undo->canRedo();
        b.undoText = undo->undoText();
        b.redoText = undo->redoText();
    }
    Q_EMIT batchChanged(b);
}

void OperationsWorker::publishSlot(int approved, int rejected,
                                   const std::vector<dl2::Acknowledgment> &acks,
                                   const std::vector<dl2::GateEntry> &entries)
{
    LiveSlotPacket p;
    p.approved = approved;
    p.rejected = rejected;
    p.entries = entries;
    p.acks = acks;
    for (const auto &a : acks) {
        if (a.status == dl2::Acknowledgment::Status::Applied)
            ++p.applied;
        else if (a.status == dl2::Acknowledgment::Status::Invalid)
            ++p.invalid;
    }
    try {
        const dl2::ClusterView v = m_rig.connector().snapshot();
        for (size_t i = 0; i < v.jobs.size() && i < v.targets.size(); ++i)
            p.targets[v.jobs[i].id] = v.targets[i];
        p.packet.snapshot =
            m_rig.simulated ? m_rig.simulated->slotSnapshot()
                            : snapshotFromView(v, m_rig.planner->profiles());
        if (v.done && !m_done) {
            m_done = true;
            Q_EMIT runComplete();
        }
    } catch (const std::exception &e) {
        connectionLost(e.what());
        return;
    }
    p.summary = summarise(p.packet.snapshot);
    const int slot = p.packet.snapshot.slot;
    if (entries.empty() && acks.empty() && slot >= 0 && m_historyTail.summary.slot == slot) {
        // The state on attach is the last slot of the history just read: keep what it knows.
        p.entries = m_historyTail.entries;
        p.acks = m_historyTail.acks;
        p.approved = m_historyTail.approved;
        p.applied = m_historyTail.applied;
        p.fromHistory = true;
        p.summary.value = m_historyTail.summary.value;
    } else {
        // The planner's last plan was for the slot that just ran (the decision inspector's slot).
        p.packet.decisions = collectDecisions(m_rig.planner->scheduler(), slot);
        if (const auto v = p.packet.decisions.slotValue())
            p.summary.value = static_cast<float>(*v);
    }
    m_historyTail = {};
    m_lastPublishedSlot = std::max(m_lastPublishedSlot, slot);
    Q_EMIT slotCompleted(p);
}

void OperationsWorker::approve(const QString &id)
{
    if (m_gate && guarded(tr("Approve"), [&] { m_gate->approve(id.toStdString()); }))
        publishBatch();
}

void OperationsWorker::reject(const QString &id)
{
    if (m_gate && guarded(tr("Reject"), [&] { m_gate->reject(id.toStdString()); }))
        publishBatch();
}

void OperationsWorker::overrideDecision(const QString &id, int ps, int workers)
{
    if (!m_gate)
        return;
    try {
        m_gate->override(id.toStdString(), ps, workers);
    } catch (const std::exception &e) {
        // "override: ..." from the gate: the dialog shows it next to the spin boxes.
        QString message = QString::fromStdString(e.what());
        if (message.startsWith(QLatin1String("override: ")))
            message = message.mid(10);
        Q_EMIT overrideFinished(id, message);
        return;
    }
    Q_EMIT overrideFinished(id, {});
    publishBatch();
}

void OperationsWorker::approveAll()
{
    if (m_gate && guarded(tr("Approve all"), [&] { m_gate->approveAll(); }))
        publishBatch();
}

void OperationsWorker::undo()
{
    if (m_rig.undo && m_gate && m_gate->isOpen()) {
        m_rig.undo->undo();
        publishBatch();
    }
}

void OperationsWorker::redo()
{
    if (m_rig.undo && m_gate && m_gate->isOpen()) {
        m_rig.undo->redo();
        publishBatch();
    }
}

void OperationsWorker::commit()
{
    if (!m_gate || !m_gate->isOpen()) {
        // The batch closed meanwhile (its deadline, another commit): nothing in flight.
        Q_EMIT commandFailed(tr("Commit: the batch was already closed"));
        return;
    }
    if (const int p = m_gate->pending(); p > 0) {
        Q_EMIT commandFailed(tr("Commit: %n decision(s) still wait for review", nullptr, p));
        return;
    }
    closeBatch();
}

QString ConnectorStatus::stateText() const
{
    switch (state) {
    case State::Embedded:
        return QStringLiteral("embedded");
    case State::Connecting:
        return QStringLiteral("connecting");
    case State::Connected:
        return QStringLiteral("connected");
    case State::Reconnecting:
        return QStringLiteral("reconnecting in %1 s").arg(retryInSeconds);
    case State::RejectedToken:
        return QStringLiteral("rejected token");
    case State::Disconnected:
        return QStringLiteral("disconnected");
    }
    return {};
}

int GateBatch::pending() const
{
    return static_cast<int>(std::count_if(entries.begin(), entries.end(), [](const auto &e) {
        return e.verdict == dl2::GateEntry::Verdict::Pending;
    }));
}

} // namespace dl2console
