#pragma once
// Posting work to a worker that lives on another thread, and knowing which results still
// matter. Each start() begins a new job: its generation number tags the work posted for it
// (results carrying an older one are stale and dropped) and the previous job's cancel flag is
// set, so long work can stop early. post() runs a call on the worker's thread and drops it
// when the worker is gone. Used by ConsoleSession (replay loads and seeks), LiveOperations
// (operator commands) and the comparison page (experiments).

#include <QMetaObject>
#include <QPointer>
#include <atomic>
#include <memory>
#include <utility>

namespace dl2console {

class JobTracker
{
public:
    using CancelFlag = std::shared_ptr<std::atomic<bool>>;

    // A new job: cancels the current one and returns the new generation.
    quint64 start()
    {
        cancel();
        m_cancel = std::make_shared<std::atomic<bool>>(false);
        return ++m_generation;
    }
    quint64 generation() const { return m_generation; }
    bool isCurrent(quint64 generation) const { return generation == m_generation; }
    // The current job's flag, for the work to poll (null before the first start()).
    const CancelFlag &cancelFlag() const { return m_cancel; }
    void cancel()
    {
        if (m_cancel)
            m_cancel->store(true);
    }

    // Runs call(worker) on the worker's thread, after what was posted before; nothing when
    // the worker is gone (now or by then).
    template <typename Worker, typename Call>
    static void post(const QPointer<Worker> &worker, Call &&call)
    {
        if (!worker)
            return;
        QMetaObject::invokeMethod(
            worker.data(),
            [w = worker, call = std::forward<Call>(call)] {
                if (w)
                    call(w.data());
            },
            Qt::QueuedConnection);
    }

private:
    quint64 m_generation = 0;
    CancelFlag m_cancel;
};

} // namespace dl2console
