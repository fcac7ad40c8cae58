// The one parallel runner of core: every index runs exactly once, on several threads when
// asked; the first failure stops handing out indices and reaches the caller; cancelling
// stops early; a kept pool serves many runs without starting threads again.
#include "parallel.h"

#include <QTest>

#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace dl2;

class TestParallel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyIndexOnce()
    {
        const int count = 1000;
        std::vector<std::atomic<int>> calls(count);
        std::mutex mutex;
        std::set<std::thread::id> threads;
        const int completed = parallelFor(count, 4, [&](int i) {
            calls[static_cast<size_t>(i)].fetch_add(1);
            std::lock_guard lock(mutex);
            threads.insert(std::this_thread::get_id());
        });
        QCOMPARE(completed, count);
        for (int i = 0; i < count; ++i)
            QCOMPARE(calls[static_cast<size_t>(i)].load(), 1);
        QVERIFY(threads.size() >= 1 && threads.size() <= 4);
        QVERIFY(threads.count(std::this_thread::get_id()) <= 1);
    }

    void oneThreadRunsOnTheCaller()
    {
        std::vector<int> order;
        const auto caller = std::this_thread::get_id();
        bool elsewhere = false;
        parallelFor(5, 1, [&](int i) {
            order.push_back(i);
            elsewhere = elsewhere || std::this_thread::get_id() != caller;
        });
        QCOMPARE(order, (std::vector<int>{0, 1, 2, 3, 4}));
        QVERIFY(!elsewhere);
        QCOMPARE(parallelFor(0, 4, [](int) { QFAIL("no index to run"); }), 0);
    }

    void firstFailureStopsAndIsRethrown()
    {
        // One thread: indices in order, none handed out after the failing one.
        std::atomic<int> calls{0};
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, parallelFor(100, 1, [&](int i) {
                                     calls.fetch_add(1);
                                     if (i == 10)
                                         throw std::runtime_error("item 10 failed");
                                 }));
        QCOMPARE(calls.load(), 11);
        // Several threads: the failure reaches the caller (how many other items ran before
        // the hand-out stopped depends on scheduling).
        ParallelPool pool(3);
        bool thrown = false;
        try {
            pool.run(1000, [&](int i) {
                if (i == 10)
                    throw std::runtime_error("item 10 failed");
            });
        } catch (const std::runtime_error &e) {
            thrown = true;
            QCOMPARE(QByteArray(e.what()), QByteArray("item 10 failed"));
        }
        QVERIFY(thrown);
        // The pool is usable after a failure.
        std::atomic<int> again{0};
        QCOMPARE(pool.run(50, [&](int) { again.fetch_add(1); }), 50);
        QCOMPARE(again.load(), 50);
    }

    void cancelStopsHandingOut()
    {
        // One thread: the item that cancels is the last one run.
        std::atomic<bool> cancel{false};
        std::atomic<int> calls{0};
        const int completed = parallelFor(100, 1, [&](int i) {
            calls.fetch_add(1);
            if (i == 5)
                cancel.store(true);
        }, &cancel);
        QCOMPARE(completed, 6);
        QCOMPARE(calls.load(), 6);
        // Several threads, cancelled before the start: nothing runs.
        QCOMPARE(parallelFor(1000, 4, [&](int) { calls.fetch_add(1); }, &cancel), 0);
        QCOMPARE(calls.load(), 6);
    }

    void keptPoolServesManyRuns()
    {
        ParallelPool pool(4);
        QCOMPARE(pool.threads(), 4);
        for (int run = 0; run < 2000; ++run) {
            const int count = 1 + run % 7;
            std::atomic<int> sum{0};
            QCOMPARE(pool.run(count, [&](int i) { sum.fetch_add(i + 1); }), count);
            QCOMPARE(sum.load(), count * (count + 1) / 2);
        }
    }

    void defaultIsOnePerCore()
    {
        QVERIFY(threadCountFor(0) >= 1);
        QCOMPARE(threadCountFor(3), 3);
    }
};

QTEST_GUILESS_MAIN(TestParallel)
#include "tst_parallel.moc"
