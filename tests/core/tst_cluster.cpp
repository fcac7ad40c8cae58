// The cluster's indexed node choice must equal the plain definition: least-loaded node
// (load = used CPU + GPU slots, ties by id), optionally restricted to nodes where the task
// fits. Checked against a brute-force scan over long random allocate/release sequences.
#include "cluster.h"
#include "error.h"
#include "rng.h"

#include <QTest>

using namespace dl2;

namespace {

int bruteForce(const Cluster &c, const Demand &d, PlacementRule rule)
{
    int best = -1;
    for (int n = 0; n < c.nodeCount(); ++n) {
        if (rule == PlacementRule::FirstFit && !c.fits(n, d))
            continue;
        if (best < 0 || c.load(n) < c.load(best))
            best = n;
    }
    if (best >= 0 && rule == PlacementRule::LeastLoaded && !c.fits(best, d))
        return -1;
    return best;
}

} // namespace

class TestCluster : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void choiceMatchesBruteForce_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("cpu");
        QTest::addColumn<int>("gpu");
        QTest::newRow("reference nodes") << 37 << 8 << 8;
        QTest::newRow("more than one word") << 130 << 8 << 8;
        QTest::newRow("uneven capacity") << 70 << 16 << 4;
        QTest::newRow("cpu only") << 9 << 6 << 0;
    }
    void choiceMatchesBruteForce()
    {
        QFETCH(int, nodes);
        QFETCH(int, cpu);
        QFETCH(int, gpu);
        Cluster c(nodes, {cpu, gpu});
        Rng rng(99);
        std::vector<std::pair<int, Demand>> placed;
        const std::vector<Demand> demands{{2, 4}, {2, 0}, {4, 4}, {1, 0}, {0, 4}, {3, 1}};
        for (int step = 0; step < 20000; ++step) {
            const Demand d = demands[rng.below(demands.size())];
            for (auto rule : {PlacementRule::LeastLoaded, PlacementRule::FirstFit})
                QCOMPARE(c.chooseNode(d, rule), bruteForce(c, d, rule));
            if (!placed.empty() && rng.below(3) == 0) {
                const size_t k = rng.below(placed.size());
                c.release(placed[k].first, placed[k].second);
                placed.erase(placed.begin() + static_cast<long>(k));
            } else if (const int n = c.chooseNode(d, PlacementRule::FirstFit); n >= 0) {
                c.allocate(n, d);
                placed.emplace_back(n, d);
            }
            if (step % 5000 == 4999) {
                c.clear();
                placed.clear();
                QCOMPARE(c.totalUsed(), (Demand{0, 0}));
                QCOMPARE(c.leastLoadedNode(), 0);
            }
        }
    }

    void usageAndUtilisation()
    {
        Cluster c(4, {8, 8});
        c.allocate(2, {2, 4});
        c.allocate(2, {2, 0});
        QCOMPARE(c.used(2), (Demand{4, 4}));
        QCOMPARE(c.totalUsed(), (Demand{4, 4}));
        QCOMPARE(c.utilisation(Resource::Cpu), 4.0 / 32);
        QCOMPARE(c.utilisation(Resource::Gpu), 4.0 / 32);
        QCOMPARE(c.leastLoadedNode(), 0);
        QCOMPARE(c.chooseNode({9, 0}, PlacementRule::FirstFit), -1);
        c.release(2, {2, 4});
        QCOMPARE(c.used(2), (Demand{2, 0}));
    }

    void rejectsAbsurdSizes()
    {
        QVERIFY_THROWS_EXCEPTION(Error, Cluster(0, {8, 8}));
        QVERIFY_THROWS_EXCEPTION(Error, Cluster(4, {-1, 8}));
        QVERIFY_THROWS_EXCEPTION(Error, Cluster(4, {100000, 8}));
    }
};

QTEST_GUILESS_MAIN(TestCluster)
#include "tst_cluster.moc"
