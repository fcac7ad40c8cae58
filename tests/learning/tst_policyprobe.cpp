// dl2 policy probe (policyprobe.h): re-scoring window rows as each job type, and counting a
// tied network's active units per position.
#include "policyprobe.h"

#include "checkpoint.h"
#include "error.h"
#include "rltestutil.h"
#include "scenario.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

using namespace dl2;
using namespace dl2::test;

namespace {

TypeProbeOptions shortProbe()
{
    TypeProbeOptions o;
    o.firstSlot = 2;
    o.playSlots = 5;
    o.states = 20;
    return o;
}

Checkpoint smallCheckpoint(ParameterSet parameters)
{
    Checkpoint c;
    c.spec = smallDl2();
    c.info.scenario = "dl2-small";
    c.parameters = std::make_shared<const ParameterSet>(std::move(parameters));
    return c;
}

// The largest |q(worker | row) as type t - as its own type| over the rows probed, every band.
double largestTypeEffect(const TypeProbe &r)
{
    double largest = 0.0;
    for (int band = 0; band < TypeProbe::kBands; ++band)
        largest = std::max(largest, r.spread(band));
    return largest;
}

} // namespace

class TestPolicyProbe : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // A random network's rows score differently as different types; with every weight from
    // the type one-hot set to 0 (and scalar counts: nothing else says the type), not at all.
    void typeRescoringFollowsTheTypeWeights()
    {
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        ParameterSet p = initialParameters(smallDl2(), 7);
        const TypeProbe before = probeTypes(smallCheckpoint(p), sc, profiles, shortProbe());
        QCOMPARE(int(before.types.size()), profiles.size());
        QVERIFY(before.statesKept > 0);
        int rows = 0;
        for (int w = 0; w < TypeProbe::kBands; ++w)
            for (int n : before.rows[w])
                rows += n;
        QVERIFY(rows > before.statesKept); // several rows of every state
        QVERIFY2(largestTypeEffect(before) > 1e-4, qPrintable(QString::number(largestTypeEffect(before))));

        const PolicySpec spec = smallDl2();
        const int F = spec.jobDim(), inputs = spec.window * F;
        auto &w1 = p.at("policy.fc1.weight").data;
        for (int unit = 0; unit < spec.hidden1; ++unit)
            for (int position = 0; position < spec.window; ++position)
                for (int t = 0; t < spec.types; ++t)
                    w1[size_t(unit) * size_t(inputs) + size_t(position * F + t)] = 0.0f;
        const TypeProbe blind = probeTypes(smallCheckpoint(p), sc, profiles, shortProbe());
        QVERIFY(blind.statesKept > 0);
        QVERIFY2(largestTypeEffect(blind) < 1e-6, qPrintable(QString::number(largestTypeEffect(blind))));
        QVERIFY(!blind.tied); // not tied: no unit counts
    }

    // A tied network's own units: one forced on for every row (weights 0, bias 1) is active
    // for all of them and never varies; forced off, never active.
    void unitsOfATiedNetwork()
    {
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        const PolicySpec spec = smallDl2();
        const int inputs = spec.window * spec.jobDim(), own = spec.hidden1 / spec.window;
        QCOMPARE(own, 1);
        for (const float bias : {1.0f, -1.0f}) {
            ParameterSet p = initialParameters(spec, 7);
            auto &w1 = p.at("policy.fc1.weight").data;
            auto &b1 = p.at("policy.fc1.bias").data;
            for (int position = 0; position < spec.window; ++position) {
                std::fill_n(w1.begin() + long(position) * inputs, inputs, 0.0f);
                b1[size_t(position)] = bias;
            }
            Checkpoint c = smallCheckpoint(p);
            c.info.tieWindowSteps = -1;
            const TypeProbe r = probeTypes(c, sc, profiles, shortProbe());
            QVERIFY(r.tied);
            QCOMPARE(r.layers[0].own, 1);
            QCOMPARE(r.layers[0].global, spec.hidden1 - spec.window);
            QCOMPARE(r.layers[0].ownActive, bias > 0 ? 1.0 : 0.0);
            QCOMPARE(r.layers[0].ownVarying, 0);
            QCOMPARE(r.typeWeight, 0.0);
            QCOMPARE(r.otherWeight, 0.0);
        }
    }

    // Rows are split by their job's allocation when the state was kept: at one worker by PSs
    // (one, 2-8, 9 or more), then at two workers or more whatever their PSs. A random
    // network that favours PSs, playing dl2-small, adds tasks within a slot, so the kept
    // states hold rows of each band.
    void rowsAreSplitByWorkersAndPss()
    {
        QCOMPARE(TypeProbe::bandOf(1, 1), TypeProbe::OneWorkerOnePs);
        QCOMPARE(TypeProbe::bandOf(1, 2), TypeProbe::OneWorkerFewPs);
        QCOMPARE(TypeProbe::bandOf(1, 8), TypeProbe::OneWorkerFewPs);
        QCOMPARE(TypeProbe::bandOf(1, 9), TypeProbe::OneWorkerManyPs);
        QCOMPARE(TypeProbe::bandOf(1, 16), TypeProbe::OneWorkerManyPs);
        QCOMPARE(TypeProbe::bandOf(2, 1), TypeProbe::MoreWorkers);
        QCOMPARE(TypeProbe::bandOf(5, 9), TypeProbe::MoreWorkers);
        // PSs favoured by two logits, so that some jobs reach nine PSs at one worker.
        ParameterSet p = initialParameters(smallDl2(), 7);
        auto &bias = p.at("policy.out.bias").data;
        for (size_t a = 1; a + 1 < bias.size(); a += 3)
            bias[a] += 2.0f;
        const TypeProbe r = probeTypes(smallCheckpoint(std::move(p)), scenarioByName("dl2-small"),
                                       ProfileSet::reference(), shortProbe());
        for (int band = 0; band < TypeProbe::kBands; ++band) {
            int rows = 0;
            for (const int n : r.rows[band])
                rows += n;
            QVERIFY2(rows > 0, TypeProbe::bandKey(band));
        }
    }

    // The kept states are drawn among every decision of the probed slots, not the first ones:
    // they come from several slots, only from those, in slot order; the same seed draws the
    // same states, another seed others; asking for more states than decisions keeps them all.
    void statesAreDrawnFromEveryProbedSlot()
    {
        const Checkpoint c = smallCheckpoint(initialParameters(smallDl2(), 7));
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        TypeProbeOptions o;
        o.firstSlot = 3;
        o.playSlots = 9;
        o.states = 12;
        const TypeProbe r = probeTypes(c, sc, profiles, o);
        QCOMPARE(r.statesKept, 12);
        QCOMPARE(int(r.stateSlots.size()), 12);
        QVERIFY(std::is_sorted(r.stateSlots.begin(), r.stateSlots.end()));
        QVERIFY(r.stateSlots.front() >= 3 && r.stateSlots.back() <= 8);
        const auto distinct = [](const std::vector<int> &kept) {
            return int(std::set<int>(kept.begin(), kept.end()).size());
        };
        qInfo("12 states from %d of slots 3-8: %d-%d", distinct(r.stateSlots), r.stateSlots.front(),
              r.stateSlots.back());
        QVERIFY2(distinct(r.stateSlots) >= 3, "the first decisions only");

        const TypeProbe again = probeTypes(c, sc, profiles, o);
        QCOMPARE(again.stateSlots, r.stateSlots);
        QCOMPARE(again.q[TypeProbe::MoreWorkers], r.q[TypeProbe::MoreWorkers]);
        TypeProbeOptions other = o;
        other.seed = 101; // another trace, another draw
        QVERIFY(probeTypes(c, sc, profiles, other).q[TypeProbe::OneWorkerOnePs] !=
                r.q[TypeProbe::OneWorkerOnePs]);

        TypeProbeOptions all = o;
        all.states = 1000000;
        const TypeProbe every = probeTypes(c, sc, profiles, all);
        QVERIFY(every.statesKept > 12 && every.statesKept < all.states);
        QCOMPARE(every.stateSlots.front(), 3);
    }

    void refusesWhatItCannotProbe()
    {
        Checkpoint c;
        c.spec = defaultSpec(PolicyKind::Dl2Plus, 0, 8);
        c.parameters = std::make_shared<const ParameterSet>(initialParameters(c.spec, 1));
        c.origin = "plus.dl2ckpt";
        try {
            probeTypes(c, scenarioByName("dl2-small"), ProfileSet::reference());
            QFAIL("dl2-plus was probed");
        } catch (const Error &e) { // names the file, once
            QCOMPARE(std::string(e.what()), std::string("plus.dl2ckpt: only for the faithful dl2 network with one-hot job types"));
        }
    }
};

QTEST_GUILESS_MAIN(TestPolicyProbe)
#include "tst_policyprobe.moc"
