#include "parallel.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace dl2 {

int threadCountFor(int requested)
{
    if (requested > 0)
        return requested;
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

struct ParallelPool::Shared
{
    std::mutex runMutex; // one run at a time
    std::mutex mutex;    // guards everything below but the atomics
    std::condition_variable wake;
    std::condition_variable idle;
    std::vector<std::thread> workers;
    std::uint64_t generation = 0; // one per run: a worker joins each run once
    int busy = 0;                 // workers inside the current run
    bool active = false;          // a run is handing out indices (a late worker skips it)
    bool stopping = false;

    const std::function<void(int)> *body = nullptr;
    const std::atomic<bool> *cancel = nullptr;
    int count = 0;
    std::atomic<int> next{0};
    std::atomic<int> completed{0};
    std::exception_ptr failure;

    // Takes indices until none is left, a call failed or the run is cancelled.
    void drain()
    {
        for (;;) {
            if (cancel && cancel->load())
                return;
            const int i = next.fetch_add(1);
            if (i >= count)
                return;
            try {
                (*body)(i);
                completed.fetch_add(1);
            } catch (...) {
                std::lock_guard lock(mutex);
                if (!failure)
                    failure = std::current_exception();
                next.store(count);
                return;
            }
        }
    }

    void work()
    {
        std::uint64_t seen = 0;
        std::unique_lock lock(mutex);
        for (;;) {
            wake.wait(lock, [&] { return stopping || generation != seen; });
            if (stopping)
                return;
            seen = generation;
            if (!active)
                continue;
            ++busy;
            lock.unlock();
            drain();
            lock.lock();
            if (--busy == 0)
                idle.notify_all();
        }
    }
};

ParallelPool::ParallelPool(int threads)
    : m_shared(std::make_unique<Shared>()), m_threads(threadCountFor(threads))
{
    for (int t = 1; t < m_threads; ++t)
        m_shared->workers.emplace_back([s = m_shared.get()] { s->work(); });
}

ParallelPool::~ParallelPool()
{
    {
        std::lock_guard lock(m_shared->mutex);
        m_shared->stopping = true;
    }
    m_shared->wake.notify_all();
    for (auto &t : m_shared->workers)
        t.join();
}

int ParallelPool::run(int count, const std::function<void(int)> &body,
                      const std::atomic<bool> *cancel)
{
    if (count <= 0)
        return 0;
    Shared &s = *m_shared;
    std::lock_guard runLock(s.runMutex);
    {
        std::lock_guard lock(s.mutex);
        s.active = true;
        s.body = &body;
        s.cancel = cancel;
        s.count = count;
        s.next.store(0);
        s.completed.store(0);
        s.failure = nullptr;
        if (!s.workers.empty() && count > 1)
            ++s.generation;
    }
    s.wake.notify_all();
    s.drain();
    std::exception_ptr failure;
    {
        std::unique_lock lock(s.mutex);
        s.idle.wait(lock, [&] { return s.busy == 0; });
        failure = s.failure;
        s.active = false;
        s.body = nullptr;
        s.cancel = nullptr;
    }
    if (failure)
        std::rethrow_exception(failure);
    return s.completed.load();
}

int parallelFor(int count, int threads, const std::function<void(int)> &body,
                const std::atomic<bool> *cancel)
{
    if (count <= 0)
        return 0;
    ParallelPool pool(std::min(threadCountFor(threads), count));
    return pool.run(count, body, cancel);
}

} // namespace dl2
