#include "playbackclock.h"

#include <algorithm>

namespace dl2console {

PlaybackClock::PlaybackClock(double slotsPerSecond, std::function<void()> tick)
    : m_tick(std::move(tick))
{
    m_timer.setTimerType(Qt::PreciseTimer);
    QObject::connect(&m_timer, &QTimer::timeout, &m_timer, [this] { m_tick(); });
    setSpeed(slotsPerSecond);
}

bool PlaybackClock::setPlaying(bool playing)
{
    if (playing == m_playing)
        return false;
    m_playing = playing;
    if (playing && m_speed > 0)
        m_timer.start();
    else
        m_timer.stop();
    if (playing && m_speed <= 0)
        m_tick();
    return true;
}

void PlaybackClock::setSpeed(double slotsPerSecond)
{
    m_speed = std::max(0.0, slotsPerSecond);
    m_timer.setInterval(m_speed > 0 ? static_cast<int>(1000.0 / m_speed) : 0);
    if (m_playing && m_speed > 0 && !m_timer.isActive()) {
        m_timer.start();
    } else if (m_playing && m_speed <= 0) {
        m_timer.stop();
        m_tick();
    }
}

} // namespace dl2console
