#include "consolesession.h"

#include "liveoperations.h"
#include "logging.h"
#include "simulationworker.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QThread>
#include <QTimer>

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

    m_playTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_playTimer, &QTimer::timeout, this, &ConsoleSession::onPlayTick);
    updateTimerInterval();
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
    setPlaying(false);
    Q_EMIT loadStarted();
    Q_EMIT timelineChanged();
    Q_EMIT snapshotChanged();
}

void ConsoleSession::load(const SessionSetup &setup)
{
    stopLive();
    ++m_generation;
    m_setup = setup;
    try { // the views' speeds follow the run's speed model; a bad table is reported by the worker
        m_profiles = dl2::profilesFor(dl2::speedModelChoiceFromString(setup.speedModel.toStdString()),
                                      setup.speedTable.toStdString());
    } catch (const std::exception &) {
        m_profiles = dl2::ProfileSet::reference();
    }
    clearRun(0);
    const quint64 generation = m_generation;
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, generation, setup] {
            if (w)
                w->load(generation, setup);
        },
        Qt::QueuedConnection);
}

void ConsoleSession::startLive(const LiveSetup &setup)
{
    stopLive();
    ++m_generation; // drops whatever the replay worker still sends
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker] {
            if (w)
                w->unload();
        },
        Qt::QueuedConnection);
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

void ConsoleSession::onLiveSlot(const LiveSlotPacket &packet)
{
    m_snapshot = packet.packet.snapshot;
    m_decisions = packet.packet.decisions;
    if (packet.summary.slot >= 0 && packet.summary.slot == static_cast<int>(m_timeline.size()))
        m_timeline.push_back(packet.summary);
    Q_EMIT snapshotChanged();
    Q_EMIT timelineChanged();
    if (m_playing && m_speed <= 0)
        onPlayTick();
}

void ConsoleSession::onLoaded(quint64 generation, const RunInfo &info)
{
    if (generation != m_generation)
        return;
    m_info = info;
    m_loaded = true;
    Q_EMIT loaded();
    sendNext();
}

void ConsoleSession::onLoadFailed(quint64 generation, const QString &message)
{
    if (generation != m_generation)
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
    if (generation != m_generation)
        return;
    for (const auto &s : summaries)
        if (s.slot == static_cast<int>(m_timeline.size()))
            m_timeline.push_back(s);
    m_runComplete = runComplete;
    Q_EMIT timelineChanged();
}

void ConsoleSession::onSnapshot(quint64 generation, const SnapshotPacket &packet)
{
    if (generation != m_generation)
        return;
    m_inFlightSlot = -1;
    m_snapshot = packet.snapshot;
    m_decisions = packet.decisions;
    Q_EMIT snapshotChanged();
    sendNext();
    if (m_playing && m_speed <= 0 && m_wanted < 0)
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
    const quint64 generation = m_generation;
    const int slot = m_inFlightSlot;
    QMetaObject::invokeMethod(
        m_worker,
        [w = m_worker, generation, slot] {
            if (w)
                w->requestSlot(generation, slot);
        },
        Qt::QueuedConnection);
}

void ConsoleSession::seek(int slot)
{
    if (m_live) { // a live cluster only goes forward, one gated slot at a time
        if (slot > currentSlot())
            m_live->runSlot();
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
    setPlaying(false);
    if (!m_live)
        seek(targetSlot() - 1);
}

void ConsoleSession::setPlaying(bool playing)
{
    if (playing && m_runComplete && currentSlot() >= lastKnownSlot())
        playing = false; // nothing left to play
    if (playing == m_playing)
        return;
    m_playing = playing;
    // At "max" speed the next request goes out as soon as a snapshot arrives (no busy timer).
    if (playing && m_speed > 0)
        m_playTimer.start();
    else
        m_playTimer.stop();
    if (playing && m_speed <= 0)
        onPlayTick();
    Q_EMIT playingChanged(playing);
}

void ConsoleSession::setSpeed(double slotsPerSecond)
{
    slotsPerSecond = std::max(0.0, slotsPerSecond);
    if (qFuzzyCompare(slotsPerSecond + 1.0, m_speed + 1.0))
        return;
    m_speed = slotsPerSecond;
    updateTimerInterval();
    if (m_playing && m_speed > 0 && !m_playTimer.isActive())
        m_playTimer.start();
    else if (m_playing && m_speed <= 0) {
        m_playTimer.stop();
        onPlayTick();
    }
    Q_EMIT speedChanged(m_speed);
}

void ConsoleSession::updateTimerInterval()
{
    m_playTimer.setInterval(m_speed > 0 ? static_cast<int>(1000.0 / m_speed) : 0);
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
