#pragma once
// The one retry policy of DL2 Console: exponential backoff, doubling from an initial delay up
// to a maximum, reset by a success. The gRPC connector retries a call within a time budget
// with it; the console's live worker (which turns the connector's own retries off) counts its
// reconnect delays down with it.

#include <algorithm>
#include <chrono>

namespace dl2 {

class Backoff
{
public:
    using Delay = std::chrono::milliseconds;
    Backoff(Delay initial, Delay max)
        : m_initial(std::max(Delay(0), initial)), m_max(std::max(m_initial, max)), m_delay(m_initial) {}

    // The delay before the next attempt.
    Delay delay() const { return m_delay; }
    // After a failed attempt: the next delay doubles, up to the maximum.
    void failed()
    {
        m_delay = std::min(m_max, m_delay * 2);
        ++m_failures;
    }
    // After a success: back to the initial delay.
    void succeeded()
    {
        m_delay = m_initial;
        m_failures = 0;
    }
    int failures() const { return m_failures; } // since the last success

    // Whether waiting delay() more still fits in `budget` after `elapsed`.
    template <typename Duration>
    bool fits(Duration elapsed, Delay budget) const
    {
        return elapsed + m_delay <= budget;
    }

private:
    Delay m_initial;
    Delay m_max;
    Delay m_delay;
    int m_failures = 0;
};

} // namespace dl2
