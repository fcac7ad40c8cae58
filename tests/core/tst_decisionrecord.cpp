// DecisionRecord keeps the inputs a policy saw densely or, when most are 0, sparsely: either
// way feature(i) and denseFeatures() must give back exactly what was stored.
#include "decisionrecord.h"
#include "rng.h"

#include <QTest>

using namespace dl2;

namespace {

DecisionRecord recordOf(const std::vector<float> &inputs, int rows)
{
    DecisionRecord r;
    r.jobDim = int(inputs.size()) / rows;
    r.jobIds.assign(size_t(rows), 0);
    r.setFeatures(inputs);
    return r;
}

} // namespace

class TestDecisionRecord : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void inputsComeBackExactly_data()
    {
        QTest::addColumn<double>("density");
        QTest::addColumn<bool>("sparse");
        QTest::newRow("per-type counts (7 % set)") << 0.07 << true;
        QTest::newRow("just under half set") << 0.45 << true;
        QTest::newRow("dense") << 0.9 << false;
        QTest::newRow("all zero") << 0.0 << true;
    }
    void inputsComeBackExactly()
    {
        QFETCH(double, density);
        QFETCH(bool, sparse);
        Rng rng(7);
        const int rows = 60, dim = 251;
        std::vector<float> inputs(size_t(rows * dim), 0.0f);
        for (float &x : inputs)
            if (rng.uniform() < density)
                x = rng.uniform() < 0.5 ? 1.0f : float(rng.normal());
        const DecisionRecord r = recordOf(inputs, rows);
        QCOMPARE(r.features.empty(), sparse);
        QCOMPARE(r.featureCount(), inputs.size());
        QCOMPARE(r.denseFeatures(), inputs);
        for (size_t i = 0; i < inputs.size(); ++i)
            QCOMPARE(r.feature(i), inputs[i]);
        if (sparse) // each stored entry is one non-zero input
            QVERIFY(r.sparseFeatures.size() < inputs.size() / 2);
    }

    void noRowsNoInputs()
    {
        DecisionRecord r;
        r.setFeatures({});
        QVERIFY(r.denseFeatures().empty());
        QCOMPARE(r.featureCount(), size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestDecisionRecord)
#include "tst_decisionrecord.moc"
