#include "consolesession.h"

#include "liveoperations.h"
#include "logging.h"
#include "simulationworker.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QThread>
#include <QTimer>
#include <algorithm>

namespace dl2console {

ConsoleSession::ConsoleSession(QObject *parent)
    : QObject(parent), m_profiles(dl2::ProfileSet::reference())
{
    qRegisterMetaType<dl2console::SessionSetup>();
    qRegisterMetaType<dl2console::RunInfo>();
    qRegisterMetaType<dl2console::SlotSummary>();
    qRegisterMetaType<dl2console::SnapshotPacket>();
    qRegisterMetaType<dl2::SlotSnapshot>();

    m_thread = new QThread(this);
    m_thread->setObjectName(QStringLiteral("dl2-simulation"));
    auto *worker = new SimulationWorker;
    worker->moveToThread(m_thread);
    m_worker = worker;
    connect(m_thread, &QThread::finished, worker, &QObject::deleteLater);
    connect(worker, &SimulationWorker::loaded, this, &ConsoleSession::onLoaded);
    connect(worker, &SimulationWorker::loadFailed, this, &ConsoleSession::onLoadFailed);
    connect(worker, &SimulationWorker::summariesReady, this, &ConsoleSession::onSummaries);
    connect(worker, &SimulationWorker::snapshotReady, this, &ConsoleSession::onSnapshot);
    m_thread->start();
}

ConsoleSession::~ConsoleSession()
{
    delete m_live; // no liveChanged(): the listeners may be gone already
    m_live = nullptr;
    if (m_worker)
        m_worker->requestStop();
    m_thread->quit();
    m_thread->wait();
}

// Forgets the current run (a new one is loading): views empty, nothing in flight.
void ConsoleSession::clearRun(int wantedSlot)
{
    m_loaded = false;
    m_runComplete = false;
    m_inFlightSlot = -1;
    m_wanted = wantedSlot;
    m_snapshot = {};
    m_decisions = {};
    m_timeline.clear();
    m_liveSlots.clear();
    m_liveLabels.clear();
    m_livePosition = -1;
    m_liveHead.reset();
    m_viewingHistory = false;
    setPlaying(false);
    Q_EMIT loadStarted();
    Q_EMIT timelineChanged();
    Q_EMIT snapshotChanged();
}

void ConsoleSession::load(const SessionSetup &setup)
{
    stopLive();
    const quint64 generation = m_jobs.start();
    m_setup = setup;
    try { // the views' speeds follow the run's speed model; a bad table is reported by the worker
        m_profiles = dl2::profilesFor(dl2::speedModelChoiceFromString(setup.speedModel.toStdString()),
                                      setup.speedTable.toStdString());
    } catch (const std::exception &) {
        m_profiles = dl2::ProfileSet::reference();
    }
    clearRun(0);
    JobTracker::post(m_worker,
                     [generation, setup](SimulationWorker *w) { w->load(generation, setup); });
}

void ConsoleSession::startLive(const LiveSetup &setup)
{
    stopLive();
    m_jobs.start(); // drops whatever the replay worker still sends
    JobTracker::post(m_worker, [](SimulationWorker *w) { w->unload(); });
    m_setup = SessionSetup{};
    m_setup.scenario = setup.scenario;
    m_setup.seed = setup.seed;
    m_setup.policy = setup.policy;
    m_setup.checkpoint = setup.checkpoint;
    clearRun(-1);

    m_live = new LiveOperations(setup, this);
    connect(m_live, &LiveOperations::started, this, [this](const RunInfo &info) {
        m_info = info;
        m_loaded = true;
        Q_EMIT loaded();
    });
    connect(m_live, &LiveOperations::failed, this, [this](const QString &message) {
        qCWarning(lcLive) << "live operations failed:" << message;
        setPlaying(false);
        Q_EMIT errorOccurred(message);
    });
    connect(m_live, &LiveOperations::slotCompleted, this, &ConsoleSession::onLiveSlot);
    connect(m_live, &LiveOperations::historyLoaded, this, &ConsoleSession::onLiveHistory);
    connect(m_live, &LiveOperations::finished, this, [this] {
        m_runComplete = true;
        setPlaying(false);
        Q_EMIT timelineChanged();
    });
    Q_EMIT liveChanged();
}

void ConsoleSession::stopLive()
{
    if (!m_live)
        return;
    delete m_live; // stops its worker thread
    m_live = nullptr;
    Q_EMIT liveChanged();
}

int ConsoleSession::keepLiveSlot(const LiveSlotPacket &packet)
{
    const int label = packet.summary.slot;
    if (label < 0)
        return -1; // the state before the first slot: nothing ran
    // Kept in the backend's slot order, counted by position: a backend numbering its slots by
    // wall-clock time (Kubernetes) or one whose history starts late leaves no gap to fill.
    const auto it = std::lower_bound(m_liveLabels.begin(), m_liveLabels.end(), label);
    const auto position = static_cast<size_t>(it - m_liveLabels.begin());
    SlotSummary summary = packet.summary;
    summary.slot = static_cast<int>(position); // the timeline's index
    if (it != m_liveLabels.end() && *it == label) {
        m_liveSlots[position] = packet;
        m_timeline[position] = std::move(summary);
        return static_cast<int>(position);
    }
    m_liveLabels.insert(it, label);
    m_liveSlots.insert(m_liveSlots.begin() + static_cast<std::ptrdiff_t>(position), packet);
    m_timeline.insert(m_timeline.begin() + static_cast<std::ptrdiff_t>(position), std::move(summary));
    for (size_t i = position + 1; i < m_timeline.size(); ++i) // an older slot came late
        m_timeline[i].slot = static_cast<int>(i);
    if (m_livePosition >= static_cast<int>(position))
        ++m_livePosition; // the slot on display moved up one
    return static_cast<int>(position);
}

int ConsoleSession::positionOfLabel(int label) const
{
    const auto it = std::lower_bound(m_liveLabels.begin(), m_liveLabels.end(), label);
    return it != m_liveLabels.end() && *it == label ? static_cast<int>(it - m_liveLabels.begin())
                                                    : -1;
}

int ConsoleSession::liveSlotLabel(int position) const
{
    return position >= 0 && position < static_cast<int>(m_liveLabels.size())
               ? m_liveLabels[static_cast<size_t>(position)]
               : -1;
}

void ConsoleSession::showLivePacket(const LiveSlotPacket &packet, int position)
{
    m_snapshot = packet.packet.snapshot;
    m_decisions = packet.packet.decisions;
    m_livePosition = position;
    Q_EMIT snapshotChanged();
}

void ConsoleSession::setViewingHistory(bool on)
{
    if (on == m_viewingHistory)
        return;
    m_viewingHistory = on;
    Q_EMIT liveViewChanged();
}

void ConsoleSession::onLiveSlot(const LiveSlotPacket &packet)
{
    keepLiveSlot(packet);
    if (!m_liveHead || packet.summary.slot >= m_liveHead->summary.slot)
        m_liveHead = std::make_unique<LiveSlotPacket>(packet);
    if (!m_viewingHistory) // else the operator keeps looking at the slot they chose
        showLivePacket(*m_liveHead, liveSlot());
    Q_EMIT timelineChanged();
    if (m_clock.playingAtMax())
        onPlayTick();
}

void ConsoleSession::onLiveHistory(const std::vector<LiveSlotPacket> &packets)
{
    for (const LiveSlotPacket &p : packets)
        keepLiveSlot(p);
    // Slots newer than the state on display (run while disconnected): the newest is live now.
    if (!packets.empty() &&
        (!m_liveHead || packets.back().summary.slot > m_liveHead->summary.slot)) {
        m_liveHead = std::make_unique<LiveSlotPacket>(packets.back());
        if (!m_viewingHistory)
            showLivePacket(*m_liveHead, liveSlot());
    }
    Q_EMIT timelineChanged();
}

int ConsoleSession::liveSlot() const
{
    return m_liveHead ? positionOfLabel(m_liveHead->summary.slot) : -1;
}

const LiveSlotPacket *ConsoleSession::liveRecord(int slot) const
{
    if (slot < 0 || slot >= static_cast<int>(m_liveSlots.size()))
        return nullptr;
    return &m_liveSlots[static_cast<size_t>(slot)];
}

GateBatch ConsoleSession::historyBatch(int slot) const
{
    GateBatch b;
    b.history = true;
    b.slot = slot;
    const LiveSlotPacket *p = liveRecord(slot);
    if (!p)
        return b;
    b.slot = liveSlotLabel(slot); // the backend's number, as the live batch shows it
    b.entries = p->entries;
    for (const dl2::GateEntry &e : b.entries) {
        int type = -1;
        for (const dl2::JobState &j : p->packet.snapshot.jobs)
            if (j.id == e.decision.job)
                type = j.type;
        b.jobTypes.push_back(type);
        QString text;
        for (const dl2::Acknowledgment &a : p->acks) {
            if (a.decisionId != e.decision.id)
                continue;
            text = QString::fromLatin1(dl2::toString(a.status));
            if (a.status == dl2::Acknowledgment::Status::Invalid && !a.message.empty())
                text += QStringLiteral(": ") + QString::fromStdString(a.message);
        }
        b.acks.push_back(text);
    }
    return b;
}

void ConsoleSession::backToLive()
{
    if (!m_live)
        return;
    setViewingHistory(false);
    if (m_liveHead)
        showLivePacket(*m_liveHead, liveSlot());
}

void ConsoleSession::onLoaded(quint64 generation, const RunInfo &info)
{
    if (!m_jobs.isCurrent(generation))
        return;
    m_info = info;
    m_loaded = true;
    Q_EMIT loaded();
    sendNext();
}

void ConsoleSession::onLoadFailed(quint64 generation, const QString &message)
{
    if (!m_jobs.isCurrent(generation))
        return;
    qCWarning(lcSim) << "simulation failed:" << message;
    m_inFlightSlot = -1;
    m_wanted = -1;
    setPlaying(false);
    Q_EMIT errorOccurred(message);
}

void ConsoleSession::onSummaries(quint64 generation, const QVector<SlotSummary> &summaries,
                                 bool runComplete)
{
    if (!m_jobs.isCurrent(generation))
        return;
    for (const auto &s : summaries)
        if (s.slot == static_cast<int>(m_timeline.size()))
            m_timeline.push_back(s);
    m_runComplete = runComplete;
    Q_EMIT timelineChanged();
}

void ConsoleSession::onSnapshot(quint64 generation, const SnapshotPacket &packet)
{
    if (!m_jobs.isCurrent(generation))
        return;
    m_inFlightSlot = -1;
    m_snapshot = packet.snapshot;
    m_decisions = packet.decisions;
    Q_EMIT snapshotChanged();
    sendNext();
    if (m_clock.playingAtMax() && m_wanted < 0)
        onPlayTick();
}

void ConsoleSession::sendNext()
{
    if (!m_loaded || m_inFlightSlot >= 0 || m_wanted < 0)
        return;
    if (m_wanted == currentSlot()) {
        m_wanted = -1;
        return;
    }
    m_inFlightSlot = m_wanted;
    m_wanted = -1;
    const quint64 generation = m_jobs.generation();
    const int slot = m_inFlightSlot;
    JobTracker::post(m_worker,
                     [generation, slot](SimulationWorker *w) { w->requestSlot(generation, slot); });
}

void ConsoleSession::seek(int slot)
{
    if (m_live) {
        // Beyond the newest slot: run the next one (the cluster only goes forward, one gated
        // slot at a time). The newest slot: the live state. Older: a kept slot, read-only.
        const int head = liveSlot();
        if (slot > head) {
            backToLive();
            m_live->runSlot();
        } else if (slot == head) {
            backToLive();
        } else if (const LiveSlotPacket *p = liveRecord(std::max(0, slot))) {
            setViewingHistory(true);
            showLivePacket(*p, std::max(0, slot));
        }
        return;
    }
    slot = std::max(0, slot);
    if (m_runComplete)
        slot = std::min(slot, lastKnownSlot());
    m_wanted = slot;
    sendNext();
}

void ConsoleSession::stepForward()
{
    seek(targetSlot() + 1);
}

void ConsoleSession::stepBack()
{
    if (!m_live) // live: looking back does not stop the cluster
        setPlaying(false);
    seek(targetSlot() - 1);
}

void ConsoleSession::setPlaying(bool playing)
{
    if (playing && m_runComplete && currentSlot() >= lastKnownSlot())
        playing = false; // nothing left to play
    // At "max" speed the next request goes out as soon as a snapshot arrives (no busy timer).
    if (m_clock.setPlaying(playing))
        Q_EMIT playingChanged(playing);
}

void ConsoleSession::setSpeed(double slotsPerSecond)
{
    slotsPerSecond = std::max(0.0, slotsPerSecond);
    if (qFuzzyCompare(slotsPerSecond + 1.0, m_clock.speed() + 1.0))
        return;
    m_clock.setSpeed(slotsPerSecond);
    Q_EMIT speedChanged(m_clock.speed());
}

void ConsoleSession::onPlayTick()
{
    if (!m_loaded)
        return;
    if (m_live) {
        if (m_live->runComplete())
            setPlaying(false);
        else
            m_live->runSlot(); // no-op while a batch waits for review
        return;
    }
    if (m_runComplete && currentSlot() >= lastKnownSlot()) {
        setPlaying(false);
        return;
    }
    if (m_inFlightSlot >= 0)
        return; // the simulator is behind the clock: skip the tick rather than queue
    seek(currentSlot() + 1);
}

} // namespace dl2console

namespace dl2console {

bool ConsoleSession::waitForSlot(int slot, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    bool failed = false;
    QMetaObject::Connection c =
        connect(this, &ConsoleSession::errorOccurred, this, [&failed] { failed = true; });
    auto reached = [&] {
        if (!isIdle() || currentSlot() < 0)
            return false;
        return currentSlot() == slot ||
               (m_runComplete && slot > lastKnownSlot() && currentSlot() == lastKnownSlot());
    };
    while (!reached() && !failed && clock.elapsed() < timeoutMs) {
        if (isIdle() && m_loaded && currentSlot() != slot)
            seek(slot);
        QEventLoop loop;
        QTimer::singleShot(5, &loop, &QEventLoop::quit);
        loop.exec();
    }
    disconnect(c);
    return reached();
}

} // namespace dl2console
