// Rng::shuffle: a uniform permutation whose draws are fixed (seeded trainings replay the same
// job orders, control permutations and window shuffles after a refactor or on another machine).
#include "rng.h"

#include <QTest>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <vector>

using namespace dl2;

class TestRng : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shuffleDrawsAsDocumented()
    {
        for (const int n : {2, 3, 7, 64}) {
            std::vector<int> v(static_cast<size_t>(n));
            std::iota(v.begin(), v.end(), 0);
            Rng a(17 + n), b(17 + n);
            a.shuffle(v.begin(), v.end());
            // The documented sequence: below(n), below(n - 1), ..., below(2), last position down.
            std::vector<int> w(static_cast<size_t>(n));
            std::iota(w.begin(), w.end(), 0);
            for (auto k = std::uint64_t(n); k > 1; --k)
                std::swap(w[size_t(k - 1)], w[size_t(b.below(k))]);
            QCOMPARE(v, w);
            QCOMPARE(a.state(), b.state());
            std::vector<int> sorted = v;
            std::sort(sorted.begin(), sorted.end());
            std::vector<int> identity(static_cast<size_t>(n));
            std::iota(identity.begin(), identity.end(), 0);
            QCOMPARE(sorted, identity);
        }
    }

    void shortRangesDrawNothing()
    {
        Rng rng(5);
        const auto before = rng.state();
        std::vector<int> empty, one{42};
        rng.shuffle(empty.begin(), empty.end());
        rng.shuffle(one.begin(), one.end());
        QCOMPARE(rng.state(), before);
        QCOMPARE(one.front(), 42);
    }

    void shuffleIsUniform()
    {
        // All 24 orders of 4 elements, 24,000 shuffles: each expected 1,000 times (sd 31).
        Rng rng(2026);
        std::map<std::array<int, 4>, int> seen;
        for (int k = 0; k < 24000; ++k) {
            std::array<int, 4> v{0, 1, 2, 3};
            rng.shuffle(v.begin(), v.end());
            ++seen[v];
        }
        QCOMPARE(int(seen.size()), 24);
        for (const auto &[order, count] : seen)
            QVERIFY2(count > 850 && count < 1150, qPrintable(QString::number(count)));
    }
};

QTEST_GUILESS_MAIN(TestRng)
#include "tst_rng.moc"
