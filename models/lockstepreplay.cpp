#include "lockstepreplay.h"

#include "consolesession.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

namespace dl2console {

LockstepReplay::LockstepReplay(QObject *parent) : QObject(parent)
{
    for (int side = 0; side < kSides; ++side) {
        auto *s = m_sessions[side] = new ConsoleSession(this);
        connect(s, &ConsoleSession::snapshotChanged, this, &LockstepReplay::onSideSnapshot);
        connect(s, &ConsoleSession::timelineChanged, this, &LockstepReplay::timelineChanged);
        connect(s, &ConsoleSession::loaded, this, [this, side] {
            m_loaded[side] = true;
            if (isLoaded())
                Q_EMIT loaded();
        });
        connect(s, &ConsoleSession::errorOccurred, this, [this, side](const QString &message) {
            setPlaying(false);
            m_target = -1;
            m_error = tr("%1: %2").arg(policy(side), message);
            Q_EMIT errorOccurred(m_error);
        });
    }
}

LockstepReplay::~LockstepReplay() = default;

void LockstepReplay::load(const SessionSetup &trace, const QString &leftPolicy,
                          const QString &rightPolicy)
{
    setPlaying(false);
    m_slot = -1;
    m_target = 0;
    m_loaded = {false, false};
    m_error.clear();
    for (auto &s : m_shown)
        s = {};
    for (auto &d : m_shownDecisions)
        d = {};
    Q_EMIT loadStarted();
    const QString policies[kSides] = {leftPolicy, rightPolicy};
    for (int side = 0; side < kSides; ++side) {
        SessionSetup setup = trace;
        setup.policy = policies[side];
        m_sessions[side]->load(setup); // each heads for slot 0 once loaded
    }
}

bool LockstepReplay::isLoaded() const
{
    return m_loaded[0] && m_loaded[1];
}

QString LockstepReplay::policy(int side) const
{
    return m_sessions[side]->setup().policy;
}

int LockstepReplay::lastKnownSlot() const
{
    return std::max(m_sessions[0]->lastKnownSlot(), m_sessions[1]->lastKnownSlot());
}

bool LockstepReplay::runComplete() const
{
    return m_sessions[0]->runComplete() && m_sessions[1]->runComplete();
}

int LockstepReplay::sideSlot(int side, int pairSlot) const
{
    const ConsoleSession *s = m_sessions[side];
    if (s->runComplete() && pairSlot > s->lastKnownSlot())
        return s->lastKnownSlot();
    return pairSlot;
}

bool LockstepReplay::sideReached(int side, int pairSlot) const
{
    const ConsoleSession *s = m_sessions[side];
    return s->isIdle() && s->currentSlot() >= 0 && s->currentSlot() == sideSlot(side, pairSlot);
}

void LockstepReplay::requestSides()
{
    for (int side = 0; side < kSides; ++side) {
        ConsoleSession *s = m_sessions[side];
        if (!s->isLoaded())
            continue; // it heads for its slot 0 by itself, then onSideSnapshot() re-requests
        const int want = sideSlot(side, m_target);
        if (s->targetSlot() != want || (s->isIdle() && s->currentSlot() != want))
            s->seek(want);
    }
}

void LockstepReplay::onSideSnapshot()
{
    if (m_target < 0)
        return;
    if (!sideReached(0, m_target) || !sideReached(1, m_target)) {
        // A side that settled elsewhere (an older request, its run ended) is sent on.
        for (int side = 0; side < kSides; ++side)
            if (m_sessions[side]->isLoaded() && m_sessions[side]->isIdle() &&
                !sideReached(side, m_target))
                m_sessions[side]->seek(sideSlot(side, m_target));
        return;
    }
    m_slot = m_target;
    m_target = -1;
    for (int side = 0; side < kSides; ++side) {
        m_shown[side] = m_sessions[side]->snapshot();
        m_shownDecisions[side] = m_sessions[side]->decisions();
    }
    Q_EMIT slotChanged(m_slot);
    if (m_clock.playingAtMax())
        QMetaObject::invokeMethod(this, &LockstepReplay::onPlayTick, Qt::QueuedConnection);
}

void LockstepReplay::seek(int slot)
{
    slot = std::max(0, slot);
    if (runComplete())
        slot = std::min(slot, lastKnownSlot());
    if (m_target < 0 && slot == m_slot)
        return;
    m_target = slot;
    requestSides();
    onSideSnapshot(); // both may show it already (a side that ended stays put)
}

void LockstepReplay::stepForward()
{
    seek(targetSlot() + 1);
}

void LockstepReplay::stepBack()
{
    setPlaying(false);
    seek(targetSlot() - 1);
}

void LockstepReplay::setPlaying(bool playing)
{
    if (playing && runComplete() && m_slot >= lastKnownSlot())
        playing = false; // nothing left to play
    if (m_clock.setPlaying(playing))
        Q_EMIT playingChanged(playing);
}

void LockstepReplay::setSpeed(double slotsPerSecond)
{
    m_clock.setSpeed(slotsPerSecond);
}

void LockstepReplay::onPlayTick()
{
    if (!m_clock.isPlaying() || !isLoaded())
        return;
    if (runComplete() && m_slot >= lastKnownSlot()) {
        setPlaying(false);
        return;
    }
    if (m_target >= 0)
        return; // a side is still on its way: the pair never runs ahead of its slower half
    seek(m_slot + 1);
}

bool LockstepReplay::waitForSlot(int slot, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    auto wanted = [&] { return runComplete() ? std::min(slot, lastKnownSlot()) : slot; };
    auto reached = [&] { return isIdle() && m_slot >= 0 && m_slot == wanted(); };
    while (!reached() && m_error.isEmpty() && clock.elapsed() < timeoutMs) {
        if (isIdle() && isLoaded() && m_slot != wanted())
            seek(slot);
        QEventLoop loop;
        QTimer::singleShot(5, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return reached();
}

} // namespace dl2console
