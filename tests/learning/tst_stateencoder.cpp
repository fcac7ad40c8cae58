// State encoding golden values on a tiny hand-made slot, and action masking under caps,
// window limits and feasibility, including a long random-policy run in which no masked
// action is ever chosen.
#include "sched/baselines.h"
#include "checkpoint.h"
#include "dl2policy.h"
#include "error.h"
#include "experience.h"
#include "modelprofile.h"
#include "scenario.h"
#include "scheduler.h"
#include "simulator.h"
#include "stateencoder.h"

#include <QTest>

#include <algorithm>
#include <array>
#include <cmath>

using namespace dl2;

class TestStateEncoder : public QObject
{
    Q_OBJECT

    struct Fixture
    {
        Cluster cluster{4, {8, 8}};
        std::vector<JobState> jobs;
        ProfileSet profiles = ProfileSet::reference();
        SimulationOptions options;
        std::unique_ptr<SlotContext> ctx;

        explicit Fixture(int maxWorkers = 16)
        {
            options.maxWorkers = maxWorkers;
            JobState a;
            a.id = 10;
            a.type = 0; // resnet-50, worker [2,4]
            a.arrivalSlot = 0;
            a.totalEpochs = a.estimatedEpochs = 9000;
            a.doneEpochs = 4500;
            a.status = JobStatus::Queued;
            JobState b;
            b.id = 11;
            b.type = 5; // cnn-text, worker [2,0]
            b.arrivalSlot = 2;
            b.totalEpochs = b.estimatedEpochs = 13800;
            b.status = JobStatus::Queued;
            jobs = {a, b};
            ctx = std::make_unique<SlotContext>(5, cluster, jobs, std::vector<int>{0, 1}, profiles, options);
            ctx->add(0, TaskKind::Bundle);
        }
    };

private Q_SLOTS:
    void rawFeatures()
    {
        Fixture f;
        PolicySpec spec = defaultSpec(PolicyKind::Dl2, 3, 8);
        StateEncoder enc(spec);
        EncodedState s;
        enc.encode(*f.ctx, s);
        QCOMPARE(s.rows, 3);
        QCOMPARE(s.jobDim, 13);
        const std::vector<float> row0 = {1, 0, 0, 0, 0, 0, 0, 0, 5, 0.5f, 0.125f, 1, 1};
        const std::vector<float> row1 = {0, 0, 0, 0, 0, 1, 0, 0, 3, 1.0f, 0.0f, 0, 0};
        for (int k = 0; k < 13; ++k) {
            QCOMPARE(s.jobs[size_t(k)], row0[size_t(k)]);
            QCOMPARE(s.jobs[size_t(13 + k)], row1[size_t(k)]);
            QCOMPARE(s.jobs[size_t(26 + k)], 0.0f);
        }
        const std::vector<std::uint8_t> mask = {1, 1, 1, 1, 1, 1, 0, 0, 0, 1};
        QCOMPARE(s.mask, mask);
        QCOMPARE(s.jobIndex, (std::vector<int>{0, 1, -1}));
    }

    void normalisedFeatures()
    {
        Fixture f;
        PolicySpec spec = defaultSpec(PolicyKind::Dl2, 2, 8);
        spec.features = {false, true};
        StateEncoder enc(spec);
        EncodedState s;
        enc.encode(*f.ctx, s);
        QCOMPARE(s.jobDim, 6);
        const std::vector<float> row0 = {1.0f / 8, 5.0f / 15, 0.5f, 0.125f * 4 / 16, 1.0f / 16, 1.0f / 16};
        for (int k = 0; k < 6; ++k)
            QVERIFY(qAbs(s.jobs[size_t(k)] - row0[size_t(k)]) < 1e-6f);
    }

    void perTypeCountFeatures()
    {
        Fixture f;
        for (int k = 0; k < 2; ++k)
            f.ctx->add(0, TaskKind::Ps); // job 0 (type 0): 1 worker, 3 PSs
        PolicySpec spec = defaultSpec(PolicyKind::Dl2, 3, 8);
        spec.features.normalise = true;
        spec.features.counts = CountFeatures::PerType;
        StateEncoder enc(spec);
        EncodedState s;
        enc.encode(*f.ctx, s);
        QCOMPARE(s.jobDim, 13 + 240);
        const float *row0 = s.jobs.data();
        const float *row1 = s.jobs.data() + s.jobDim;
        QCOMPARE(row0[12], 3.0f / 16); // the scalar counts stay
        // Job 0: type 0, workers >= c for no c in 2..16, PSs >= c for c = 2, 3; nothing else.
        for (int k = 0; k < 240; ++k) {
            const bool psLevel = k >= 15 && k < 30 && k - 15 + 2 <= 3;
            QCOMPARE(row0[13 + k], psLevel ? 1.0f : 0.0f);
            QCOMPARE(row1[13 + k], 0.0f); // job 1 has no task yet
        }
        // After a task only that job's row changes, by the incremental update as by a full encode.
        f.ctx->add(1, TaskKind::Bundle);
        f.ctx->add(1, TaskKind::Worker);
        enc.update(*f.ctx, 1, s);
        EncodedState full;
        enc.encode(*f.ctx, full);
        QCOMPARE(s.jobs, full.jobs);
        const int type1 = 5;
        QCOMPARE(s.jobs[size_t(s.jobDim + 13 + type1 * 30)], 1.0f); // workers >= 2
        QCOMPARE(s.jobs[size_t(s.jobDim + 13 + type1 * 30 + 1)], 0.0f); // not >= 3
        QCOMPARE(s.jobs[size_t(s.jobDim + 13 + type1 * 30 + 15)], 0.0f); // PSs: 1
        // The inspector's columns cover the row.
        Dl2Policy policy(spec, std::make_shared<const ParameterSet>(initialParameters(spec, 1)));
        const DecisionLayout layout = policy.decisionLayout();
        QCOMPARE(layout.columns.back().first + layout.columns.back().count, s.jobDim);
        QCOMPARE(layout.columns.back().name, std::string("counts"));
        QVERIFY(layout.columns.back().bits);
    }

    // Training samples keep a mostly-zero state sparse, and give back exactly what was encoded:
    // as a state, as a batch row written over old contents, and with its window shuffled.
    void samplesKeepTheirInputs()
    {
        Fixture f;
        f.ctx->add(1, TaskKind::Worker);
        PolicySpec spec = defaultSpec(PolicyKind::Dl2, 3, 8);
        spec.features.normalise = true;
        spec.features.counts = CountFeatures::PerType;
        EncodedState s;
        StateEncoder(spec).encode(*f.ctx, s);
        const int action = 3 * 1 + 0; // a worker for the job in row 1
        const Sample x = Sample::fromState(s, action);
        QVERIFY(x.jobs.sparse());
        QCOMPARE(x.jobs.size(), s.jobs.size());
        QVERIFY(x.jobs.bytes() * 4 < s.jobs.size() * sizeof(float));
        EncodedState back;
        x.toState(spec, back);
        QCOMPARE(back.jobs, s.jobs);
        std::vector<float> row(s.jobs.size(), std::nanf(""));
        x.jobs.writeTo(row.data());
        QCOMPARE(row, s.jobs);

        Rng rng(3);
        for (int trial = 0; trial < 8; ++trial) {
            const Sample y = shuffledWindow(x, rng);
            const std::vector<float> in = x.jobs.dense(), out = y.jobs.dense();
            const int d = s.jobDim;
            // Every row of the shuffled window is one of the original rows, with its mask,
            // and the action follows its job.
            std::vector<bool> used(size_t(s.rows), false);
            for (int r = 0; r < s.rows; ++r) {
                int from = -1;
                for (int q = 0; q < s.rows && from < 0; ++q)
                    if (!used[size_t(q)] && std::equal(out.begin() + r * d, out.begin() + (r + 1) * d, in.begin() + q * d))
                        from = q;
                QVERIFY(from >= 0);
                used[size_t(from)] = true;
                if (y.action / 3 == r)
                    QVERIFY(std::equal(in.begin() + (action / 3) * d, in.begin() + (action / 3 + 1) * d, out.begin() + r * d));
            }
            QCOMPARE(y.action % 3, action % 3);
        }

        // dl2-plus states are mostly nonzero: kept dense, the same values.
        EncodedState p;
        StateEncoder(defaultSpec(PolicyKind::Dl2Plus, 0, 8)).encode(*f.ctx, p);
        const Sample z = Sample::fromState(p, 0);
        QVERIFY(!z.jobs.sparse());
        QCOMPARE(z.jobs.dense(), p.jobs);
    }

    void plusFeatures()
    {
        Fixture f;
        StateEncoder enc(defaultSpec(PolicyKind::Dl2Plus, 0, 8));
        EncodedState s;
        enc.encode(*f.ctx, s);
        QCOMPARE(s.rows, 2);
        QCOMPARE(s.jobDim, kPlusJobFeatures);
        QCOMPARE(s.globalDim, kPlusGlobalFeatures);
        QCOMPARE(s.jobs[0], 0.5f);                 // remaining fraction
        QVERIFY(qAbs(s.jobs[1] - 5.0f / 15) < 1e-6f); // age
        QCOMPARE(s.jobs[2], 1.0f / 16);            // workers
        QCOMPARE(s.jobs[5], 0.5f);                 // worker GPU demand 4 / 8
        QCOMPARE(s.jobs[13], 1.0f);                // running
        QCOMPARE(s.jobs[size_t(kPlusJobFeatures + 13)], 0.0f);
        QVERIFY(qAbs(s.global[0] - (1.0f - 4.0f / 32)) < 1e-6f); // free CPU
        QVERIFY(qAbs(s.global[1] - (1.0f - 4.0f / 32)) < 1e-6f); // free GPU
        QCOMPARE(s.global[3], 0.5f);               // half the jobs run
    }

    // The best-setting features point at the setting best-config (an independent search over
    // the same speed model) gives the job on an empty cluster, and read zero gap there.
    void plusBestSettingFeatures()
    {
        PolicySpec spec = defaultSpec(PolicyKind::Dl2Plus, 0, 8);
        spec.features.bestSetting = true;
        const StateEncoder enc(spec);
        Cluster big(64, {64, 64});
        for (int type = 0; type < 8; ++type) {
            JobState j;
            j.id = 1;
            j.type = type;
            j.totalEpochs = j.estimatedEpochs = 500;
            j.status = JobStatus::Queued;
            SimulationOptions options;
            std::vector<JobState> jobs{j};
            const ProfileSet profiles = ProfileSet::reference();
            SlotContext fresh(0, big, jobs, {0}, profiles, options);
            EncodedState s;
            enc.encode(fresh, s);
            QCOMPARE(s.jobDim, kPlusJobFeatures + kPlusBestSettingFeatures);
            const int gapWorkers = qRound(s.jobs[14] * options.maxWorkers);
            const int gapPs = qRound(s.jobs[15] * options.maxPs);
            QCOMPARE(s.jobs[17], 0.0f); // no tasks: no speed yet

            Cluster again = big;
            std::vector<JobState> jobs2{j};
            SlotContext byBestConfig(0, again, jobs2, {0}, profiles, options);
            makeBestConfig()->schedule(byBestConfig);
            const JobState &got = byBestConfig.job(0);
            QVERIFY2(got.workers == gapWorkers && got.ps == gapPs,
                     qPrintable(QStringLiteral("type %1: features (%2 w, %3 ps), best-config (%4 w, %5 ps)")
                                    .arg(type).arg(gapWorkers).arg(gapPs).arg(got.workers).arg(got.ps)));
            EncodedState at;
            enc.encode(byBestConfig, at);
            QCOMPARE(at.rows, 1);
            QCOMPARE(at.jobs[14], 0.0f);
            QCOMPARE(at.jobs[15], 0.0f);
            QCOMPARE(at.jobs[17], 1.0f);
        }
        // Off by default: shipped dl2-plus checkpoints keep their 14 features.
        QCOMPARE(defaultSpec(PolicyKind::Dl2Plus, 0, 8).jobDim(), kPlusJobFeatures);
    }

    void capsAreMasked()
    {
        Fixture f(1); // at most one worker: job 0 is at its worker cap
        StateEncoder enc(defaultSpec(PolicyKind::Dl2, 3, 8));
        EncodedState s;
        enc.encode(*f.ctx, s);
        QCOMPARE(s.mask[0], std::uint8_t(0)); // worker
        QCOMPARE(s.mask[1], std::uint8_t(1)); // PS
        QCOMPARE(s.mask[2], std::uint8_t(0)); // bundle
    }

    void windowLimit()
    {
        Fixture f;
        StateEncoder enc(defaultSpec(PolicyKind::Dl2, 1, 8));
        EncodedState s;
        enc.encode(*f.ctx, s);
        QCOMPARE(s.rows, 1);
        QCOMPARE(s.jobIndex, std::vector<int>{0});
        QCOMPARE(s.actionCount(), 4);
    }

    void infeasibleIsMaskedForPlus()
    {
        Fixture f;
        // Fill every GPU: GPU workers fit nowhere, CPU tasks still do.
        for (int n = 0; n < 4; ++n)
            f.cluster.allocate(n, {0, 8 - f.cluster.used(n)[1]});
        StateEncoder enc(defaultSpec(PolicyKind::Dl2Plus, 0, 8));
        EncodedState s;
        enc.encode(*f.ctx, s);
        QCOMPARE(s.mask[0], std::uint8_t(0)); // resnet worker: no GPU left
        QCOMPARE(s.mask[1], std::uint8_t(1)); // its PS fits
        QCOMPARE(s.mask[3], std::uint8_t(1)); // cnn-text worker fits
    }

    void randomPolicyNeverPicksMaskedAction_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("dl2") << QStringLiteral("dl2");
        QTest::newRow("dl2-plus") << QStringLiteral("dl2-plus");
    }
    void randomPolicyNeverPicksMaskedAction()
    {
        QFETCH(QString, kind);
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        const PolicySpec spec = defaultSpec(policyKindFromString(kind.toStdString()), sc.window, profiles.size());
        auto params = std::make_shared<const ParameterSet>(initialParameters(spec, 3));
        Dl2Policy policy(spec, params, 7);
        long decisions = 0, invalid = 0;
        ActorOptions actor;
        actor.sample = true;
        actor.epsilon = 0.4;
        actor.onDecision = [&](const EncodedState &s, int action, float mu, int) {
            ++decisions;
            if (action < 0 || action >= s.actionCount() || !s.mask[size_t(action)] || !(mu > 0.0f))
                ++invalid;
        };
        policy.setActor(actor);
        policy.recordDecisions(DecisionRecording::Full);
        Simulator sim(sc.cluster, profiles, sc.trace(profiles, 5), sc.simulation);
        int failed = 0;
        long long explored = 0;
        for (int slot = 0; slot < 60 && !sim.done(); ++slot) {
            sim.step(policy);
            for (const auto &d : policy.lastDecisions()) {
                QVERIFY(d.action >= 0 && d.action < int(d.probabilities.size()));
                QVERIFY(d.probabilities[size_t(d.action)] > 0.0f || d.explored);
                QVERIFY(d.result != AddResult::AtCap);
                failed += d.result == AddResult::NoCapacity ? 1 : 0;
                explored += d.explored ? 1 : 0;
            }
        }
        QVERIFY(decisions > 100);
        QCOMPARE(invalid, 0L);
        // The trainers' explored_fraction: the policy's counts agree with its records, and
        // taking them starts the next count from zero.
        const ExplorationCounts counts = policy.takeExplorationCounts();
        QCOMPARE(counts.decisions, (long long)decisions);
        QCOMPARE(counts.explored, explored);
        QCOMPARE(policy.takeExplorationCounts().decisions, 0LL);
        if (spec.feasibilityMask)
            QCOMPARE(failed, 0); // dl2-plus never ends a slot on a failed allocation
    }

    // The reference code's exploration rules override far more decisions than the paper's
    // (which fire only in poor states), and never choose a masked action.
    void referenceExplorationOverridesMoreOften()
    {
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        const PolicySpec spec = defaultSpec(PolicyKind::Dl2, sc.window, profiles.size());
        auto params = std::make_shared<const ParameterSet>(initialParameters(spec, 3));
        double share[2] = {0.0, 0.0};
        for (const Exploration rules : {Exploration::Paper, Exploration::Reference}) {
            Dl2Policy policy(spec, params, 7);
            long invalid = 0;
            ActorOptions actor;
            actor.sample = true;
            actor.epsilon = 0.4;
            actor.exploration = rules;
            actor.onDecision = [&](const EncodedState &s, int action, float, int) {
                if (action < 0 || action >= s.actionCount() || !s.mask[size_t(action)])
                    ++invalid;
            };
            policy.setActor(actor);
            Simulator sim(sc.cluster, profiles, sc.trace(profiles, 5), sc.simulation);
            for (int slot = 0; slot < 40 && !sim.done(); ++slot)
                sim.step(policy);
            const ExplorationCounts c = policy.takeExplorationCounts();
            QVERIFY(c.decisions > 100);
            QCOMPARE(invalid, 0L);
            share[rules == Exploration::Reference ? 1 : 0] = double(c.explored) / double(c.decisions);
        }
        QVERIFY2(share[1] > 0.25 && share[1] > 3.0 * share[0],
                 qPrintable(QStringLiteral("explored: paper %1, reference %2").arg(share[0]).arg(share[1])));
        QCOMPARE(explorationFromString("reference"), Exploration::Reference);
        QVERIFY_THROWS_EXCEPTION(Error, explorationFromString("greedy"));
    }

    // The console records every inference of the slot on display, only V(s) for the others
    // and nothing when it replays to a slot: all three must play the same run, and agree on V(s).
    // A fourth records in full without V(s) (a value network never trained): the same run too.
    void recordingNeverChangesADecision_data() { randomPolicyNeverPicksMaskedAction_data(); }
    void recordingNeverChangesADecision()
    {
        QFETCH(QString, kind);
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        const PolicySpec spec = defaultSpec(policyKindFromString(kind.toStdString()), sc.window, profiles.size());
        auto params = std::make_shared<const ParameterSet>(initialParameters(spec, 3));
        const std::array levels{DecisionRecording::Off, DecisionRecording::SlotValue,
                                DecisionRecording::Full, DecisionRecording::Full};
        std::vector<std::unique_ptr<Dl2Policy>> policies;
        std::vector<Simulator> sims;
        sims.reserve(levels.size());
        for (const DecisionRecording level : levels) {
            policies.push_back(std::make_unique<Dl2Policy>(spec, params, 7));
            ActorOptions greedy;
            greedy.greedy = true;
            policies.back()->setActor(greedy);
            QVERIFY(policies.back()->recordDecisions(level));
            policies.back()->setValueEstimates(policies.size() < 4);
            sims.emplace_back(sc.cluster, profiles, sc.trace(profiles, 5), sc.simulation);
        }
        int valued = 0;
        for (int slot = 0; slot < 60 && !sims[0].done(); ++slot) {
            for (size_t k = 0; k < levels.size(); ++k)
                sims[k].step(*policies[k]);
            for (size_t k = 1; k < levels.size(); ++k)
                for (size_t i = 0; i < sims[0].jobs().size(); ++i) {
                    QCOMPARE(sims[k].jobs()[i].workers, sims[0].jobs()[i].workers);
                    QCOMPARE(sims[k].jobs()[i].ps, sims[0].jobs()[i].ps);
                }
            QVERIFY(policies[0]->lastDecisions().empty());
            QVERIFY(!policies[0]->lastSlotValue());
            QVERIFY(policies[1]->lastDecisions().empty());
            const auto &full = policies[2]->lastDecisions();
            QCOMPARE(policies[1]->lastSlotValue().has_value(), !full.empty());
            QCOMPARE(policies[2]->lastSlotValue().has_value(), !full.empty());
            if (full.empty())
                continue;
            ++valued;
            QCOMPARE(*policies[1]->lastSlotValue(), double(*full.front().value));
            QCOMPARE(*policies[2]->lastSlotValue(), double(*full.front().value));
            const auto &unvalued = policies[3]->lastDecisions();
            QCOMPARE(unvalued.size(), full.size());
            QVERIFY(!policies[3]->lastSlotValue());
            for (size_t i = 0; i < full.size(); ++i) {
                QVERIFY(full[i].value.has_value());
                QVERIFY(!unvalued[i].value);
                QCOMPARE(unvalued[i].action, full[i].action);
                QCOMPARE(unvalued[i].probabilities, full[i].probabilities);
            }
            for (const DecisionRecord &d : full) {
                double sum = 0.0;
                for (float p : d.probabilities)
                    sum += p;
                QVERIFY2(std::abs(sum - 1.0) < 1e-4, "a recorded arg max step keeps probabilities");
            }
        }
        QVERIFY(valued > 10);
        QVERIFY(policies[2]->decisionLayout().notes.find("No V(s)") == std::string::npos);
        QVERIFY(policies[3]->decisionLayout().notes.find("No V(s)") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestStateEncoder)
#include "tst_stateencoder.moc"
