#pragma once
// Play and pause at a speed in slots per second, shared by a session (ConsoleSession) and
// the side-by-side pair (LockstepReplay): a precise timer ticks every 1 / speed seconds. At
// speed 0 ("max") there is no busy timer: the clock ticks once when play starts or the speed
// drops to max, and the owner ticks again as soon as the slot it asked for arrived
// (playingAtMax()).

#include <QTimer>
#include <functional>

namespace dl2console {

class PlaybackClock
{
public:
    PlaybackClock(double slotsPerSecond, std::function<void()> tick);

    bool isPlaying() const { return m_playing; }
    double speed() const { return m_speed; }
    bool playingAtMax() const { return m_playing && m_speed <= 0; }

    // Returns false when the clock already was in that state (and does nothing).
    bool setPlaying(bool playing);
    // Clamped to >= 0.
    void setSpeed(double slotsPerSecond);

private:
    QTimer m_timer;
    std::function<void()> m_tick;
    bool m_playing = false;
    double m_speed = 0.0;
};

} // namespace dl2console
