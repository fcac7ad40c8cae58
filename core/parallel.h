#pragma once
// The one way core runs independent work items in parallel: a small pool of threads that
// calls body(i) for every i in [0, count), the calling thread working too. Experiments,
// learning curves and the trainers use it; a pool kept across calls (a trainer's updates)
// starts its threads once.

#include <atomic>
#include <functional>
#include <memory>

namespace dl2 {

// The number of threads `requested` means: itself when > 0, else one per core (at least 1).
int threadCountFor(int requested);

class ParallelPool
{
public:
    // `threads` counts the calling thread: ParallelPool(1) starts none. 0 = one per core.
    explicit ParallelPool(int threads = 0);
    ~ParallelPool();
    ParallelPool(const ParallelPool &) = delete;
    ParallelPool &operator=(const ParallelPool &) = delete;

    int threads() const { return m_threads; }

    // Calls body(i) for every i in [0, count), indices handed out in increasing order, and
    // returns when every call has returned. The first exception stops handing out indices and
    // is rethrown here; a set `cancel` stops handing them out too. Returns the number of calls
    // that completed. One run at a time (concurrent callers wait for each other).
    int run(int count, const std::function<void(int)> &body,
            const std::atomic<bool> *cancel = nullptr);

private:
    struct Shared;
    std::unique_ptr<Shared> m_shared;
    int m_threads = 1;
};

// One-off: a pool of min(threadCountFor(threads), count) threads for one run.
int parallelFor(int count, int threads, const std::function<void(int)> &body,
                const std::atomic<bool> *cancel = nullptr);

} // namespace dl2
