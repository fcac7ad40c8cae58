// Short RL runs (both kinds, with ablations and two environments): losses stay finite, the
// run does not crash, and the kept checkpoint loads. ES fine-tuning repairs a sabotaged
// policy; the credit-signal probe, the trust region, seeding and errors. (The actor-critic's
// repairs of a poor warm-up, against controls: tst_rlrepair.)
#include "checkpoint.h"
#include "checkpointwriter.h"
#include "curves.h"
#include "dl2policy.h"
#include "jobstate.h"
#include "learner.h"
#include "modelprofile.h"
#include "policynetwork.h"
#include "registerpolicies.h"
#include "rltestutil.h"
#include "rltrainer.h"
#include "scenario.h"
#include "scheduler.h"
#include "simulator.h"
#include "stateencoder.h"
#include "trainingrecipe.h"

#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>

using namespace dl2;
using namespace dl2::test;


namespace {

// What a training with these options refuses them with (empty when it runs).
QString refusal(const RlOptions &o)
{
    try {
        RlTrainer(o).run();
    } catch (const std::exception &e) {
        return QString::fromStdString(e.what());
    }
    return QString();
}

// A sample from a real slot of dl2-small with a window row that allows all three kinds of
// task, and that row (nullopt, -1 when the first slot has none).
std::pair<std::optional<Sample>, int> stateWithFullRow(const Scenario &sc, const ProfileSet &profiles,
                                                       const PolicySpec &spec, const ParameterSet &start)
{
    std::optional<Sample> x;
    int row = -1;
    Dl2Policy policy(spec, std::make_shared<const ParameterSet>(start), 3);
    ActorOptions actor;
    actor.sample = true;
    actor.onDecision = [&](const EncodedState &s, int action, float, int) {
        for (int r = 0; r < s.rows && !x; ++r)
            if (s.jobIndex[size_t(r)] >= 0 && s.mask[size_t(3 * r)] && s.mask[size_t(3 * r + 1)] &&
                s.mask[size_t(3 * r + 2)]) {
                x = Sample::fromState(s, action);
                row = r;
            }
    };
    policy.setActor(std::move(actor));
    Simulator sim(sc.cluster, profiles, sc.trace(profiles, 100), sc.simulation);
    sim.step(policy);
    return {x, row};
}

// A stop sample (return 0) of dl2-small's seed 100 in a state with a window row whose three
// tasks are all allowed, and that row.
std::pair<std::optional<Sample>, int> stopSampleWithFullRow(const PolicySpec &spec, const ParameterSet &start)
{
    auto found = stateWithFullRow(scenarioByName("dl2-small"), ProfileSet::reference(), spec, start);
    if (found.first) {
        found.first->action = 3 * found.first->rows;
        found.first->ret = 0.0f;
    }
    return found;
}

// The best slot progress job `job` of `sim` makes at any allocation from (ps, workers) up to
// the caps, by trying every one (what reachableProgress computes).
double bruteForceReach(const Simulator &sim, int job, int ps, int workers)
{
    double best = 0.0;
    for (int p = ps; p <= sim.options().maxPs; ++p)
        for (int w = workers; w <= sim.options().maxWorkers; ++w)
            best = std::max(best, sim.slotProgress(job, p, w));
    return best;
}

// The split credit's loss with only the policy's terms: no critic, no entropy bonus.
RlLossOptions splitPolicyLoss()
{
    RlLossOptions o;
    o.split = true;
    o.useValue = false;
    o.entropyWeight = 0.0;
    return o;
}

// A 10-update actor-critic run on dl2-small with this network, validated once on seed 100.
RlOptions tenUpdatesOnSmall(const PolicySpec &spec)
{
    RlOptions o;
    o.scenario = "dl2-small";
    o.spec = spec;
    o.steps = 10;
    o.criticWarmup = 2;
    o.validateEvery = 10;
    o.validationSeeds = {100};
    return o;
}

// Runs `o` into dir/name: what its checkpoint recorded, or nothing if it logged no loss or
// one that was not finite.
std::optional<TrainingInfo> recordOfRun(RlOptions o, const QTemporaryDir &dir, const char *name)
{
    o.output = dir.filePath(QLatin1String(name)).toStdString();
    const TrainResult r = RlTrainer(o).run();
    if (r.curve.empty())
        return std::nullopt;
    for (const auto &point : r.curve)
        if (!std::isfinite(point.trainLoss))
            return std::nullopt;
    return readCheckpoint(o.output, o.kind).info;
}

// Whether the recipe shown for a run (dl2 policy show, the Training page) has key = value.
bool recipeShows(const TrainingInfo &info, const char *key, const char *value)
{
    for (const RecipeItem &item : trainingRecipe(info))
        if (item.first == QLatin1String(key) && item.second.toString() == QLatin1String(value))
            return true;
    return false;
}

// The worker's share of the row's task probabilities in sample x's state: of all three
// kinds, or with againstPs of the worker and the PS only.
double rowWorkerShare(const PolicySpec &spec, const Sample &x, int row,
                      std::shared_ptr<const ParameterSet> parameters, bool againstPs = false)
{
    EncodedState s;
    x.toState(spec, s);
    std::vector<float> p;
    PolicyNetwork(spec, std::move(parameters)).probabilities(s, p);
    const double worker = p[size_t(3 * row)], ps = p[size_t(3 * row + 1)];
    return worker / (worker + ps + (againstPs ? 0.0 : p[size_t(3 * row + 2)]));
}

// The decisions of a dl2-plus network sampling on dl2-small (seed 100) for its first 6 slots,
// as samples whose action is stop.
std::vector<Sample> dl2PlusDecisions(const PolicySpec &spec, const ParameterSet &parameters)
{
    const Scenario &sc = scenarioByName("dl2-small");
    const ProfileSet profiles = ProfileSet::reference();
    std::vector<Sample> seen;
    Dl2Policy policy(spec, std::make_shared<const ParameterSet>(parameters), 3);
    ActorOptions actor;
    actor.sample = true;
    actor.onDecision = [&](const EncodedState &s, int, float, int) {
        seen.push_back(Sample::fromState(s, 3 * s.rows));
    };
    policy.setActor(std::move(actor));
    Simulator sim(sc.cluster, profiles, sc.trace(profiles, 100), sc.simulation);
    for (int slot = 0; slot < 6 && !sim.done(); ++slot)
        sim.step(policy);
    return seen;
}

// The rows of sample x that allow all three kinds of task.
std::vector<int> fullRows(const Sample &x)
{
    std::vector<int> rows;
    for (int r = 0; r < x.rows; ++r)
        if (x.mask[size_t(3 * r)] && x.mask[size_t(3 * r + 1)] && x.mask[size_t(3 * r + 2)])
            rows.push_back(r);
    return rows;
}

} // namespace

class TestRlTrainer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { setTorchThreads(1); }
    void shortRun_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("ablation");
        QTest::addColumn<int>("envs");
        QTest::addColumn<QString>("replay");
        QTest::addColumn<QString>("credit");
        QTest::newRow("dl2-prioritised") << QStringLiteral("dl2") << QString() << 1 << QStringLiteral("prioritised") << QStringLiteral("split");
        QTest::newRow("dl2-plus-2envs") << QStringLiteral("dl2-plus") << QString() << 2 << QStringLiteral("uniform") << QStringLiteral("split");
        QTest::newRow("no-value") << QStringLiteral("dl2") << QStringLiteral("no-value") << 1 << QStringLiteral("uniform") << QStringLiteral("split");
        QTest::newRow("per-action") << QStringLiteral("dl2-plus") << QStringLiteral("per-action-reward") << 1 << QStringLiteral("uniform") << QStringLiteral("split");
        QTest::newRow("no-replay-no-exploration") << QStringLiteral("dl2") << QStringLiteral("no-replay,no-exploration") << 1 << QStringLiteral("uniform") << QStringLiteral("split");
        QTest::newRow("episode-kl") << QStringLiteral("dl2") << QString() << 2 << QStringLiteral("uniform") << QStringLiteral("episode");
        QTest::newRow("vine-dl2-plus-streams-horizon") << QStringLiteral("dl2-plus") << QString() << 4 << QStringLiteral("uniform") << QStringLiteral("vine");
        QTest::newRow("vine-greedy-continuation") << QStringLiteral("dl2") << QString() << 3 << QStringLiteral("uniform") << QStringLiteral("vine-greedy");
    }
    void shortRun()
    {
        QFETCH(QString, kind);
        QFETCH(QString, ablation);
        QFETCH(int, envs);
        QFETCH(QString, replay);
        QFETCH(QString, credit);
        QTemporaryDir dir;
        RlOptions o;
        o.scenario = "dl2-small";
        o.kind = policyKindFromString(kind.toStdString());
        PolicySpec spec = defaultSpec(o.kind, 20, 8);
        spec.hidden1 = spec.hidden2 = 32;
        o.spec = spec;
        o.envs = envs;
        o.credit = credit.toStdString();
        if (credit == QStringLiteral("vine-greedy")) { // 3 allocations, the rest arg max
            o.credit = "vine";
            o.vineGreedy = true;
            o.vineHorizon = 4;
            o.decode = Decode::Greedy;
        }
        const bool episode = credit == QStringLiteral("episode");
        o.steps = episode ? 6 : 40; // an episode step is a whole rollout per environment
        o.klWeight = episode ? 0.5 : 0.0;
        if (credit == QStringLiteral("vine")) { // 2 allocations x 2 streams, 3 slots on
            o.vineStreams = 2;
            o.vineHorizon = 3;
        }
        o.criticWarmup = 10;
        o.validateEvery = episode ? 3 : 20;
        o.validationSeeds = {100};
        o.replay = replayModeFromString(replay.toStdString());
        for (const QString &a : ablation.split(QLatin1Char(','), Qt::SkipEmptyParts))
            o.ablations.push_back(a.toStdString());
        o.output = dir.path().toStdString() + "/rl.dl2ckpt";
        const TrainResult r = RlTrainer(o).run();
        QVERIFY(r.curve.size() >= 3);
        int measured = 0;
        for (const auto &p : r.curve) {
            QVERIFY(std::isfinite(p.trainLoss));
            QVERIFY(std::isfinite(p.valueLoss));
            QVERIFY(std::isfinite(p.entropy));
            // The share exploration decided: a fraction, none without exploration.
            if (p.step > 0 && p.exploredFraction >= 0) {
                ++measured;
                QVERIFY(p.exploredFraction <= 1.0);
                if (ablation.contains(QStringLiteral("no-exploration")))
                    QCOMPARE(p.exploredFraction, 0.0);
            }
        }
        QVERIFY(measured > 0);
        QVERIFY(r.bestValidationAvgJct > 0);
        const Checkpoint c = readCheckpoint(o.output, o.kind);
        QCOMPARE(c.info.trainer, std::string("rl"));
        QVERIFY(c.hasOptimizer);
        // The run's last state: its updates trained the value network, unless it had none
        // (the no-value ablation; credit by whole rollouts, whose baseline is their mean).
        const Checkpoint last = readCheckpoint(resumePath(o.output), o.kind);
        QVERIFY(last.info.step > 0);
        const bool critic = !ablation.contains(QStringLiteral("no-value")) &&
                            o.credit != "episode" && o.credit != "vine";
        QCOMPARE(last.info.valueTrained, critic);
    }

    // Sampled decoding is seeded: the same policy, trace and seed give the same run; greedy
    // and sampled runs of a policy that is not sure differ.
    void sampledDecodingIsSeeded()
    {
        PolicySpec spec = defaultSpec(PolicyKind::Dl2, 20, 8);
        spec.hidden1 = spec.hidden2 = 32;
        auto params = std::make_shared<const ParameterSet>(initialParameters(spec, 3));
        const Scenario &sc = scenarioByName("dl2-small");
        auto jct = [&](Decode decode, std::uint64_t seed) {
            PolicySpec s = spec;
            s.decode = decode;
            return evaluatePolicy(sc, s, params, {seed}, 1);
        };
        QCOMPARE(jct(Decode::Sample, 100), jct(Decode::Sample, 100));
        QVERIFY(jct(Decode::Sample, 100) != jct(Decode::Greedy, 100));
    }

    void cancelKeepsCheckpoint()
    {
        QTemporaryDir dir;
        RlOptions o;
        o.scenario = "dl2-small";
        o.kind = PolicyKind::Dl2Plus;
        o.steps = 1000000;
        o.validationSeeds = {100};
        o.output = dir.path().toStdString() + "/rl.dl2ckpt";
        std::atomic<bool> cancel{false};
        const TrainResult r = RlTrainer(o).run([&](long long step, long long, const CurvePoint &) {
            if (step >= 20)
                cancel = true;
        }, &cancel);
        QVERIFY(r.cancelled);
        QVERIFY(readCheckpoint(o.output).parameters);
    }

    // ES fine-tuning must find its way back when the stop output of a good policy is
    // sabotaged (it then stops too early and leaves jobs without tasks): validation improves,
    // the stop bias comes down, the kept checkpoint is the one measured, and the run does not
    // depend on the number of threads.
    void esRepairsASabotagedStopBias()
    {
        QTemporaryDir dir;
        const Checkpoint shipped = readCheckpoint(shippedPolicyPath(PolicyKind::Dl2Plus, "dl2-reference"));
        ParameterSet sabotaged = *shipped.parameters;
        sabotaged["policy.stop2.bias"].data[0] += 8.0f;
        const std::string init = dir.path().toStdString() + "/sabotaged.dl2ckpt";
        writeCheckpoint(init, shipped.spec, shipped.info, sabotaged);

        auto run = [&](int threads, const std::string &name) {
            RlOptions o;
            o.algorithm = "es";
            o.scenario = "dl2-small";
            o.init = init;
            o.kind = PolicyKind::Dl2Plus;
            o.esScope = "bias";
            o.esPairs = 3;
            o.esTraces = 2;
            o.esSigma = 1.0;
            o.learningRate = 0.5;
            o.steps = 12;
            o.validateEvery = 4;
            o.validationSeeds = {100, 101};
            o.threads = threads;
            o.output = dir.path().toStdString() + "/" + name;
            return RlTrainer(o).run();
        };
        const TrainResult r = run(2, "es2.dl2ckpt");
        const double start = r.curve.front().validationAvgJct;
        const double clean = evaluatePolicy(scenarioByName("dl2-small"), shipped.spec, shipped.parameters, {100, 101}, 1);
        qInfo("intact %.3f, sabotaged %.3f -> best %.3f at step %lld", clean, start, r.bestValidationAvgJct, r.bestStep);
        QVERIFY2(start > 1.03 * clean, "the sabotage must hurt for this test to mean anything");
        // ES closes at least half of the gap the sabotage opened.
        QVERIFY2(r.bestValidationAvgJct < start - 0.5 * (start - clean),
                 qPrintable(QStringLiteral("%1 -> %2 (intact %3)").arg(start).arg(r.bestValidationAvgJct).arg(clean)));
        QVERIFY(r.bestStep > 0);
        const Checkpoint kept = readCheckpoint(r.checkpoint);
        QCOMPARE(kept.info.trainer, std::string("rl-es"));
        QCOMPARE(kept.info.esPairs, 3);
        QCOMPARE(kept.info.esTraces, 2);
        QCOMPARE(kept.info.esSigma, 1.0);
        QCOMPARE(kept.info.esScope, std::string("bias"));
        QVERIFY(!kept.info.valueTrained); // ES leaves the SL policy's value network as it was
        QVERIFY(kept.parameters->at("policy.stop2.bias").data[0] < sabotaged.at("policy.stop2.bias").data[0]);
        const double again = evaluatePolicy(scenarioByName("dl2-small"), kept.spec, kept.parameters, {100, 101}, 1);
        QCOMPARE(again, r.bestValidationAvgJct);

        const TrainResult one = run(1, "es1.dl2ckpt");
        QCOMPARE(one.curve.size(), r.curve.size());
        for (size_t i = 0; i < r.curve.size(); ++i)
            QCOMPARE(one.curve[i].validationAvgJct, r.curve[i].validationAvgJct);
    }

    // ES scores the policy as it will be deployed: --decode (here greedy, from a sampling
    // checkpoint) decides how the validation decodes (the members share its spec), and the
    // result says so; without it the checkpoint's own decoding is kept.
    void esDecodesAsTold()
    {
        QTemporaryDir dir;
        const PolicySpec sampling = smallDl2();
        const ParameterSet start = initialParameters(sampling, 7);
        const std::string init = writeStart(dir, "start.dl2ckpt", sampling, start);
        PolicySpec greedy = sampling;
        greedy.decode = Decode::Greedy;
        const auto params = std::make_shared<const ParameterSet>(start);
        const Scenario small = scenarioByName("dl2-small");
        const double sampled = evaluatePolicy(small, sampling, params, {100}, 1);
        const double argmax = evaluatePolicy(small, greedy, params, {100}, 1);
        QVERIFY2(sampled != argmax, "the two decodings must differ for this test to mean anything");

        auto run = [&](std::optional<Decode> decode, const char *name) {
            RlOptions o;
            o.algorithm = "es";
            o.scenario = "dl2-small";
            o.init = init;
            o.kind = PolicyKind::Dl2;
            o.decode = decode;
            o.esPairs = 1;
            o.esTraces = 1;
            o.steps = 1;
            o.validateEvery = 1;
            o.validationSeeds = {100};
            o.output = dir.path().toStdString() + "/" + name;
            return RlTrainer(o).run();
        };
        const TrainResult asTold = run(Decode::Greedy, "greedy.dl2ckpt");
        QCOMPARE(asTold.curve.front().validationAvgJct, argmax);
        QCOMPARE(readCheckpoint(asTold.checkpoint).spec.decode, Decode::Greedy);
        const TrainResult asSaved = run(std::nullopt, "kept.dl2ckpt");
        QCOMPARE(asSaved.curve.front().validationAvgJct, sampled);
        QCOMPARE(readCheckpoint(asSaved.checkpoint).spec.decode, Decode::Sample);
    }

    void esNeedsAnInitialPolicyAndAKnownScope()
    {
        RlOptions o;
        o.algorithm = "es";
        o.scenario = "dl2-small";
        QVERIFY_THROWS_EXCEPTION(std::exception, RlTrainer(o).run());
        o.init = shippedPolicyPath(PolicyKind::Dl2Plus, "dl2-reference");
        o.kind = PolicyKind::Dl2Plus;
        o.esScope = "everything";
        QVERIFY_THROWS_EXCEPTION(std::exception, RlTrainer(o).run());
        o.esScope = "head";
        o.algorithm = "genetic";
        QVERIFY_THROWS_EXCEPTION(std::exception, RlTrainer(o).run());
    }

    // The credit-signal probe (measureCreditSignal): the same branch allocations, scored with
    // two random streams for the rest of the run, agree closely when the rest is one slot and
    // far less when it is the whole run; the streams do differ; deterministic; it refuses
    // what it cannot measure.
    void creditSignalSeparatesTheAllocationFromTheRest()
    {
        QTemporaryDir dir;
        RlOptions o;
        o.scenario = "dl2-small";
        o.init = writePoorWarmUp(dir, smallDl2());
        o.envs = 8;
        o.vineHorizon = 1;
        const CreditSignal nextSlot = measureCreditSignal(o, 40);
        o.vineHorizon = 0;
        const CreditSignal toTheEnd = measureCreditSignal(o, 40);
        qInfo("correlation of two measurements of the same allocations: %.3f with one slot after "
              "them, %.3f to the end (sd %.1f job-slots)",
              nextSlot.correlation, toTheEnd.correlation, toTheEnd.deviation);
        QCOMPARE(toTheEnd.branches, 40 * 4);
        QVERIFY(toTheEnd.deviation > 0.0);
        QVERIFY2(nextSlot.correlation > 0.8, qPrintable(QString::number(nextSlot.correlation)));
        QVERIFY2(toTheEnd.correlation < nextSlot.correlation - 0.1,
                 qPrintable(QStringLiteral("%1 vs %2").arg(toTheEnd.correlation).arg(nextSlot.correlation)));
        QCOMPARE(measureCreditSignal(o, 40).correlation, toTheEnd.correlation);
        // With the arg max after the branch slot nothing after it is random: the two streams
        // measure the same values, which still differ between the allocations.
        o.vineGreedy = true;
        const CreditSignal exact = measureCreditSignal(o, 40);
        qInfo("arg max continuation: correlation %.6f, sd %.1f job-slots", exact.correlation,
              exact.deviation);
        QVERIFY2(exact.correlation > 0.999999, qPrintable(QString::number(exact.correlation)));
        QVERIFY(exact.deviation > 0.0);
        o.vineGreedy = false;
        o.envs = 6;
        QCOMPARE(measureCreditSignal(o, 5).branches, 5 * 3);
        o.envs = 5;
        QVERIFY_THROWS_EXCEPTION(std::exception, measureCreditSignal(o, 5));
        o.envs = 8;
        o.init.clear();
        QVERIFY_THROWS_EXCEPTION(std::exception, measureCreditSignal(o, 5));
    }

    // The trust region (--kl): with a large weight on KL(warm-up || policy) the same run moves
    // the policy network far less from its warm-up than without.
    void trustRegionHoldsThePolicyNearItsWarmUp()
    {
        QTemporaryDir dir;
        const PolicySpec spec = smallDl2();
        const ParameterSet start = initialParameters(spec, 7);
        const std::string init = writeStart(dir, "start.dl2ckpt", spec, start);
        auto moved = [&](double kl) {
            RlOptions o;
            o.scenario = "dl2-small";
            o.init = init;
            o.steps = 60;
            o.criticWarmup = 0;
            o.learningRate = 1e-3;
            o.klWeight = kl;
            o.validateEvery = 60;
            o.validationSeeds = {100};
            o.output = dir.path().toStdString() + "/kl" + std::to_string(int(kl)) + ".dl2ckpt";
            RlTrainer(o).run();
            const Checkpoint latest = readResumeCheckpoint(o.output, PolicyKind::Dl2);
            double d2 = 0.0;
            for (const auto &[name, t] : *latest.parameters)
                if (name.rfind("policy.", 0) == 0)
                    for (size_t i = 0; i < t.data.size(); ++i)
                        d2 += std::pow(double(t.data[i]) - double(start.at(name).data[i]), 2);
            return std::sqrt(d2);
        };
        const double free = moved(0.0), held = moved(100.0);
        qInfo("policy moved %.4f without the trust region, %.4f with KL weight 100", free, held);
        QVERIFY(free > 0.0);
        QVERIFY2(held < 0.5 * free, qPrintable(QStringLiteral("%1 vs %2").arg(held).arg(free)));
    }

    void episodeCreditRefusesWhatItHasNot()
    {
        RlOptions o;
        o.scenario = "dl2-small";
        o.credit = "episode";
        o.envs = 4;
        auto error = [&] { return refusal(o); };
        o.ablations = {"no-value"};
        QVERIFY(error().contains(QStringLiteral("only no-exploration applies")));
        o.ablations.clear();
        o.episodeKeep = 0.0;
        QVERIFY(error().contains(QStringLiteral("--keep")));
        o.episodeKeep = 0.1;
        o.envs = 1; // one rollout: no baseline
        QVERIFY(error().contains(QStringLiteral("--envs 2 or more")));
        o.envs = 4;
        o.vineStreams = 2; // streams belong to the vine credit
        QVERIFY(error().contains(QStringLiteral("--streams applies to --credit vine only")));
        o.vineStreams = 1;
        o.vineHorizon = 3;
        QVERIFY(error().contains(QStringLiteral("--horizon applies to --credit vine only")));
        o.vineHorizon = 0;
        o.credit = "vine";
        o.vineStreams = 4; // 4 branches, 4 streams: one allocation, nothing to compare
        QVERIFY(error().contains(QStringLiteral("at least 2 x --streams")));
        o.envs = 6; // not a multiple of the streams
        QVERIFY(error().contains(QStringLiteral("a multiple of --streams")));
        o.envs = 8;
        o.vineGreedy = true; // the arg max continuation has nothing to average over
        QVERIFY(error().contains(QStringLiteral("--continuation greedy applies to --credit vine with one stream")));
        o.vineStreams = 1;
        o.credit = "episode";
        QVERIFY(error().contains(QStringLiteral("--continuation greedy applies to --credit vine")));
    }

    void unknownCreditIsAnError()
    {
        QVERIFY_THROWS_EXCEPTION(std::exception, checkCredit("everyone"));
        RlOptions o;
        o.scenario = "dl2-small";
        o.credit = "everyone";
        QVERIFY_THROWS_EXCEPTION(std::exception, RlTrainer(o).run());
    }

    // taskCredit "remaining": a task of a job with half its work left counts twice, one of a
    // job about to finish at most 20 times, a fresh job's once.
    void remainingTaskCreditWeighsByWhatIsLeft()
    {
        JobState j;
        j.estimatedEpochs = 100.0;
        QCOMPARE(taskCreditWeight(j), 1.0);
        j.doneEpochs = 60.0; // 10 of them this slot: half was left when the slot began
        j.epochsThisSlot = 10.0;
        QCOMPARE(taskCreditWeight(j), 2.0);
        j.doneEpochs = 99.0;
        j.epochsThisSlot = 0.0;
        QCOMPARE(taskCreditWeight(j), 20.0);
        j.doneEpochs = 130.0; // beyond the estimate (estimation error): still the cap
        QCOMPARE(taskCreditWeight(j), 20.0);
        j.estimatedEpochs = 0.0;
        QCOMPARE(taskCreditWeight(j), 1.0);
    }

    // taskCredit "time": a task's gain over the speed its job goes on at, the slots of the
    // job's training it saves; the same for a long job as for a short one.
    void timeTaskCreditCountsSlotsSaved()
    {
        JobState j;
        j.estimatedEpochs = 100.0;
        // A second worker doubles a job's progress: half a slot saved, whatever its size.
        QCOMPARE(taskGain(TaskCredit::Time, j, 0.02, 0.01, 0.02), 0.5);
        QCOMPARE(taskGain(TaskCredit::Time, j, 0.002, 0.001, 0.002), 0.5);
        QCOMPARE(taskGain(TaskCredit::Progress, j, 0.002, 0.001, 0.002), 0.001);
        // The job went on faster with later tasks: each slot of it is worth less.
        QCOMPARE(taskGain(TaskCredit::Time, j, 0.02, 0.01, 0.04), 0.25);
        // Slower at the end of the slot than with the task (a PS too many): the task's own speed.
        QCOMPARE(taskGain(TaskCredit::Time, j, 0.02, 0.01, 0.015), 0.5);
        // A task that slows its job down, clipped to a whole slot; no progress at all: nothing.
        QCOMPARE(taskGain(TaskCredit::Time, j, 0.01, 0.05, 0.01), -1.0);
        QCOMPARE(taskGain(TaskCredit::Time, j, 0.0, 0.0, 0.0), 0.0);
        j.doneEpochs = 50.0;
        QCOMPARE(taskGain(TaskCredit::Remaining, j, 0.02, 0.01, 0.02), 2.0 * (0.02 - 0.01));
        QCOMPARE(taskCreditFromString("time"), TaskCredit::Time);
        QVERIFY_THROWS_EXCEPTION(std::exception, taskCreditFromString("slots"));
    }

    // The same seeded run with the three task credits: each trains, the checkpoint says which,
    // and the weighting changes what is learned.
    void taskCreditsTrainDifferently()
    {
        QTemporaryDir dir;
        auto run = [&](const std::string &taskCredit) {
            RlOptions o;
            o.scenario = "dl2-small";
            o.kind = PolicyKind::Dl2;
            PolicySpec spec = defaultSpec(o.kind, 20, 8);
            spec.hidden1 = spec.hidden2 = 32;
            o.spec = spec;
            o.taskCredit = taskCredit;
            o.exploration = Exploration::Reference;
            o.steps = 30;
            o.criticWarmup = 5;
            o.validateEvery = 30;
            o.validationSeeds = {100};
            o.output = dir.path().toStdString() + "/" + taskCredit + ".dl2ckpt";
            const TrainResult r = RlTrainer(o).run();
            for (const auto &p : r.curve)
                if (!std::isfinite(p.trainLoss))
                    return Checkpoint{};
            return readCheckpoint(o.output, o.kind);
        };
        const Checkpoint progress = run("progress"), remaining = run("remaining"), time = run("time");
        QVERIFY(progress.parameters && remaining.parameters && time.parameters);
        QCOMPARE(progress.info.taskCredit, std::string("progress"));
        QCOMPARE(remaining.info.taskCredit, std::string("remaining"));
        QCOMPARE(time.info.taskCredit, std::string("time"));
        const auto differ = [](const Checkpoint &a, const Checkpoint &b) {
            for (const auto &[name, t] : *a.parameters)
                if (t.data != b.parameters->at(name).data)
                    return true;
            return false;
        };
        QVERIFY(differ(progress, remaining));
        QVERIFY(differ(progress, time));
        QVERIFY(differ(remaining, time));
    }

    void taskCreditRefusesWhatItDoesNotApplyTo()
    {
        QVERIFY_THROWS_EXCEPTION(std::exception, checkTaskCredit("everything"));
        checkTaskCredit("progress");
        checkTaskCredit("remaining");
        checkTaskCredit("time");
        RlOptions o;
        o.scenario = "dl2-small";
        o.taskCredit = "remaining";
        auto error = [&] { return refusal(o); };
        o.credit = "slot";
        QVERIFY(error().contains(QStringLiteral("which --credit slot does not use")));
        o.credit = "split";
        o.ablations = {"per-action-reward"};
        QVERIFY(error().contains(QStringLiteral("per-action-reward ablation replaces")));
    }

    // --task-marginal: "added" credits each task with its job's gain at the allocation it was
    // added to, so a job's tasks' gains add up to its gain over its slot-start allocation;
    // "final" (leave-one-out) gives every task of a kind the last one's gain.
    void taskMarginalAddedAddsUp()
    {
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        Simulator sim(sc.cluster, profiles, sc.trace(profiles, 100), sc.simulation);
        auto optimus = makeScheduler("optimus");
        int job = -1;
        for (int slot = 0; slot < 20 && job < 0; ++slot) {
            sim.step(*optimus);
            for (size_t i = 0; i < sim.jobs().size(); ++i) {
                const JobState &j = sim.jobs()[i];
                if (j.active() && j.ps >= 3 && j.workers >= 3 && j.epochsThisSlot > 0 &&
                    j.doneEpochs < 0.5 * j.totalEpochs) // not finishing: every task counts
                    job = int(i);
            }
        }
        QVERIFY2(job >= 0, "no job with 3 PSs and 3 workers in 20 slots of optimus");
        const JobState &j = sim.jobs()[size_t(job)];
        // The job's tasks replayed from one bundle: PSs first, then workers.
        std::vector<Sample> tasks;
        int ps = 1, workers = 1;
        while (ps < j.ps || workers < j.workers) {
            Sample x;
            x.jobIndex = job;
            x.psBefore = std::int16_t(ps);
            x.workersBefore = std::int16_t(workers);
            const bool addPs = ps < j.ps;
            x.action = addPs ? 1 : 0; // row 0: 3 x 0 + kind (0 worker, 1 PS)
            QCOMPARE(actionKind(x.action), addPs ? TaskKind::Ps : TaskKind::Worker);
            (addPs ? ps : workers) += 1;
            tasks.push_back(x);
        }
        for (const TaskCredit credit : {TaskCredit::Progress, TaskCredit::Remaining}) {
            double sum = 0.0;
            for (const Sample &x : tasks)
                sum += taskCounterfactual(sim, x, credit, true);
            const double weight = credit == TaskCredit::Remaining ? taskCreditWeight(j) : 1.0;
            const double gain = weight * (sim.slotProgress(job, j.ps, j.workers) - sim.slotProgress(job, 1, 1));
            QVERIFY2(std::abs(sum - gain) <= 1e-5 * std::max(1.0, std::abs(gain)),
                     qPrintable(QStringLiteral("tasks' gains %1, the job's %2").arg(sum).arg(gain)));
        }
        // The first worker's gain is the step from one worker to two at the job's PSs then;
        // leave-one-out credits it with the last worker's.
        const Sample &firstWorker = *std::find_if(tasks.begin(), tasks.end(), [](const Sample &x) {
            return actionKind(x.action) == TaskKind::Worker;
        });
        QCOMPARE(taskCounterfactual(sim, firstWorker, TaskCredit::Progress, true),
                 float(sim.slotProgress(job, j.ps, 2) - sim.slotProgress(job, j.ps, 1)));
        QCOMPARE(taskCounterfactual(sim, firstWorker, TaskCredit::Progress, false),
                 float(sim.slotProgress(job, j.ps, j.workers) - sim.slotProgress(job, j.ps, j.workers - 1)));
        // Credit "time": the same gain in slots of the job's training, at the speed it goes on at
        // (its final allocation's, at least as fast as with the task).
        const double two = sim.slotProgress(job, j.ps, 2), one = sim.slotProgress(job, j.ps, 1);
        const double final = sim.slotProgress(job, j.ps, j.workers);
        QCOMPARE(taskCounterfactual(sim, firstWorker, TaskCredit::Time, true),
                 float((two - one) / std::max(two, final)));

        // The option: recorded, and refused where it does not apply.
        RlOptions o;
        o.scenario = "dl2-small";
        o.taskMarginal = "somewhere";
        QVERIFY(refusal(o).contains(QStringLiteral("unknown task marginal 'somewhere'")));
        o.taskMarginal = "added";
        o.credit = "slot";
        QVERIFY(refusal(o).contains(QStringLiteral("which --credit slot does not use")));
    }

    // --kind-epsilon and --kind-entropy (beyond the paper) keep every kind of task in play. From
    // a start whose worker outputs are dead, kind exploration still adds workers (about
    // kindEpsilon / 3 of the tasks); from one that prefers PSs, the kind entropy evens each
    // row's worker/PS/bundle mix where the same run without it does not. Both are recorded,
    // and refused for dl2-plus.
    void kindExplorationAndEntropyKeepTheMix()
    {
        QTemporaryDir dir;
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        const PolicySpec spec = smallDl2();
        struct Mix
        {
            double workerTasks = 0.0; // share of the tasks added that were workers
            double workerShare = 0.0; // mean over the rows with a task allowed of P(worker | row)
            double entropy = 0.0;     // mean over those rows of the entropy of the row's mix
        };
        auto play = [&](const ParameterSet &parameters, double kindEpsilon) {
            auto shared = std::make_shared<const ParameterSet>(parameters);
            Dl2Policy policy(spec, shared, 3);
            PolicyNetwork network(spec, shared);
            std::vector<float> p;
            long long tasks = 0, workers = 0, rows = 0;
            double share = 0.0, entropy = 0.0;
            ActorOptions actor;
            actor.sample = true;
            actor.kindEpsilon = kindEpsilon;
            actor.onDecision = [&](const EncodedState &s, int action, float, int job) {
                if (job < 0)
                    return;
                ++tasks;
                workers += actionKind(action) == TaskKind::Worker ? 1 : 0;
                network.probabilities(s, p);
                for (int r = 0; r < s.rows; ++r) {
                    const float mass = p[size_t(3 * r)] + p[size_t(3 * r + 1)] + p[size_t(3 * r + 2)];
                    if (mass > 0.0f) {
                        share += p[size_t(3 * r)] / mass;
                        for (int k = 0; k < 3; ++k) {
                            const double q = p[size_t(3 * r + k)] / mass;
                            entropy -= q > 0.0 ? q * std::log(q) : 0.0;
                        }
                        ++rows;
                    }
                }
            };
            policy.setActor(std::move(actor));
            Simulator sim(sc.cluster, profiles, sc.trace(profiles, 100), sc.simulation);
            for (int slot = 0; slot < 10; ++slot)
                sim.step(policy);
            const double n = double(std::max(1LL, rows));
            return Mix{double(workers) / double(std::max(1LL, tasks)), share / n, entropy / n};
        };
        ParameterSet dead = initialParameters(spec, 7);
        for (int r = 0; r < spec.window; ++r)
            dead.at("policy.out.bias").data[size_t(3 * r)] -= 30.0f;
        QCOMPARE(play(dead, 0.0).workerTasks, 0.0);
        const double explored = play(dead, 0.3).workerTasks;
        qInfo("dead workers: %.3f of the tasks are workers with kind exploration 0.3", explored);
        QVERIFY2(explored > 0.05 && explored < 0.2, qPrintable(QString::number(explored)));

        const std::string poor = writePoorWarmUp(dir, spec);
        auto train = [&](double kindEntropy, double kindEpsilon, const std::string &name) {
            RlOptions o;
            o.scenario = "dl2-small";
            o.init = poor;
            o.steps = 100;
            o.criticWarmup = 0;
            o.learningRate = 1e-3;
            o.kindEntropyWeight = kindEntropy;
            o.kindEpsilon = kindEpsilon;
            o.validateEvery = 100;
            o.validationSeeds = {100};
            o.output = dir.path().toStdString() + "/" + name;
            RlTrainer(o).run();
            return readResumeCheckpoint(o.output, PolicyKind::Dl2);
        };
        const Mix before = play(*readCheckpoint(poor).parameters, 0.0);
        const Checkpoint plain = train(0.0, 0.0, "plain.dl2ckpt"), even = train(5.0, 0.0, "even.dl2ckpt");
        const Mix without = play(*plain.parameters, 0.0), with = play(*even.parameters, 0.0);
        qInfo("P(worker | row), entropy: warm-up %.3f %.3f, after RL %.3f %.3f, with kind entropy %.3f %.3f",
              before.workerShare, before.entropy, without.workerShare, without.entropy, with.workerShare, with.entropy);
        QVERIFY(with.entropy > before.entropy + 0.05 && with.entropy > without.entropy + 0.05);
        QCOMPARE(even.info.kindEntropyWeight, 5.0);
        QCOMPARE(plain.info.kindEntropyWeight, 0.0);
        QCOMPARE(train(0.0, 0.25, "explored.dl2ckpt").info.kindEpsilon, 0.25);

        RlOptions o;
        o.scenario = "dl2-small";
        o.kind = PolicyKind::Dl2Plus;
        o.kindEpsilon = 0.1;
        QVERIFY(refusal(o).contains(QStringLiteral("faithful dl2 network only")));
    }

    // --kind-credit expected: the choice of kind learns from the kinds not chosen. A sample
    // adds a PS to a job whose worker would have gained most (its kinds' returns are known
    // exactly); the all-actions term moves that row's mix towards the worker, where the
    // sampled credit (the PS's own return, which is the batch's mean) moves nothing. A short
    // run with it is recorded as such; the option is refused without --task-marginal added.
    void expectedKindCreditLearnsFromKindsNotChosen()
    {
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        const PolicySpec spec = smallDl2();
        const ParameterSet start = initialParameters(spec, 7);
        auto [x, row] = stateWithFullRow(sc, profiles, spec, start);
        QVERIFY(x);
        x->action = 3 * row + 1; // a PS
        x->ret = 0.0f;
        x->taskRet = 0.0f;
        x->kindRet = {1.0f, 0.0f, 0.2f}; // a worker would have gained most
        auto workerShare = [&](std::shared_ptr<const ParameterSet> parameters) {
            return rowWorkerShare(spec, *x, row, std::move(parameters));
        };
        auto trained = [&](bool expected) {
            Learner learner(spec, 1e-2, 7);
            RlLossOptions o = splitPolicyLoss();
            o.kindExpected = expected;
            for (int step = 0; step < 20; ++step)
                learner.rlUpdate({&*x}, {1.0f}, o);
            return workerShare(learner.parameters());
        };
        const double before = workerShare(std::make_shared<const ParameterSet>(start));
        const double sampled = trained(false), expected = trained(true);
        qInfo("P(worker | row) %.3f, after 20 updates: sampled credit %.3f, expected %.3f", before, sampled, expected);
        QCOMPARE(sampled, before); // no advantage anywhere: nothing moves
        QVERIFY2(expected > before + 0.3, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(expected)));

        QTemporaryDir dir;
        RlOptions o = tenUpdatesOnSmall(spec);
        o.kindCredit = "expected";
        QVERIFY(refusal(o).contains(QStringLiteral("needs --task-marginal added")));
        o.kindCredit = "somehow";
        QVERIFY(refusal(o).contains(QStringLiteral("unknown kind credit 'somehow'")));
        o.kindCredit = "expected";
        o.taskMarginal = "added";
        const std::optional<TrainingInfo> recorded = recordOfRun(o, dir, "expected.dl2ckpt");
        QVERIFY(recorded);
        QCOMPARE(recorded->kindCredit, std::string("expected"));
    }

    // --kind-credit expected-balanced: each job type's kind terms carry the same total weight.
    // Nine samples of one type, where a PS gains most, and one of another, where a worker
    // does, all in the same state (so the network cannot tell them apart): the plain expected
    // credit follows the nine and the row's worker share against the PS goes to nothing;
    // balanced, the two types pull equally and both kinds keep a share.
    void balancedKindCreditWeighsEachTypeEqually()
    {
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        const PolicySpec spec = smallDl2();
        const ParameterSet start = initialParameters(spec, 7);
        auto [x, row] = stateWithFullRow(sc, profiles, spec, start);
        QVERIFY(x);
        x->action = 3 * row + 1;
        x->ret = 0.0f;
        x->taskRet = 0.0f;
        Sample common = *x, rare = *x;
        common.jobType = 0;
        common.kindRet = {0.0f, 1.0f, 0.0f}; // a PS gains most
        rare.jobType = 3;
        rare.kindRet = {1.0f, 0.0f, 0.0f}; // a worker gains most
        std::vector<const Sample *> batch(9, &common);
        batch.push_back(&rare);
        auto share = [&](std::shared_ptr<const ParameterSet> parameters) {
            return rowWorkerShare(spec, *x, row, std::move(parameters), true);
        };
        auto trained = [&](bool balanced) {
            Learner learner(spec, 1e-2, 7);
            RlLossOptions o = splitPolicyLoss();
            o.kindExpected = true;
            o.kindBalanced = balanced;
            for (int step = 0; step < 20; ++step)
                learner.rlUpdate(batch, std::vector<float>(batch.size(), 0.1f), o);
            return share(learner.parameters());
        };
        const double before = share(std::make_shared<const ParameterSet>(start));
        const double plain = trained(false), balanced = trained(true);
        qInfo("P(worker) / (P(worker) + P(PS)) in the row %.3f, after 20 updates: expected %.3f, "
              "expected-balanced %.3f", before, plain, balanced);
        QVERIFY2(plain < before - 0.2, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(plain)));
        // Neither type wins outright (the two pulls cancel only to first order: the row's
        // mix still drifts, as the bundle they both push down leaves it).
        QVERIFY2(balanced > 0.25 && balanced < 0.75, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(balanced)));

        // A short run with it is recorded as such, and shown in the recipe.
        QTemporaryDir dir;
        RlOptions o = tenUpdatesOnSmall(spec);
        o.kindCredit = "expected-balanced";
        QVERIFY(refusal(o).contains(QStringLiteral("--kind-credit expected-balanced compares")));
        o.taskMarginal = "added";
        o.output = dir.path().toStdString() + "/balanced.dl2ckpt";
        RlTrainer(o).run();
        const TrainingInfo info = readCheckpoint(o.output, PolicyKind::Dl2).info;
        QCOMPARE(info.kindCredit, std::string("expected-balanced"));
        QVERIFY(recipeShows(info, "kind_credit", "expected-balanced"));
    }

    // --row-credit expected: every task of the window is credited with its exact gain, so
    // a sample teaches the choice among all of them, whatever it did. Here the sample
    // stopped, and one row's worker would have gained: the policy's share of that worker
    // among the tasks rises, where without the row credit nothing moves. expected-stop: stop
    // is credited against the expected gain of continuing, so when every task would lose,
    // stop becomes likelier, and when every task would gain, less likely.
    void rowCreditComparesEveryTaskOfTheWindow()
    {
        const PolicySpec spec = smallDl2();
        const ParameterSet start = initialParameters(spec, 7);
        auto [x, row] = stopSampleWithFullRow(spec, start);
        QVERIFY(x);
        const int stop = 3 * x->rows;
        const auto setReturns = [&](float all, float worker) {
            x->actionRet.assign(size_t(stop), std::numeric_limits<float>::quiet_NaN());
            for (int a = 0; a < stop; ++a)
                if (x->mask[size_t(a)])
                    x->actionRet[size_t(a)] = all;
            x->actionRet[size_t(3 * row)] = worker;
        };
        const auto probability = [&](std::shared_ptr<const ParameterSet> parameters, int action) {
            EncodedState s;
            x->toState(spec, s);
            std::vector<float> p;
            PolicyNetwork(spec, std::move(parameters)).probabilities(s, p);
            return action == stop ? double(p[size_t(stop)]) : p[size_t(action)] / (1.0 - p[size_t(stop)]);
        };
        const auto trained = [&](const char *credit, int action) {
            Learner learner(spec, 1e-2, 7);
            RlLossOptions o = splitPolicyLoss();
            o.rowExpected = std::string(credit) != "sampled";
            o.stopExpected = std::string(credit) == "expected-stop";
            for (int step = 0; step < 20; ++step)
                learner.rlUpdate({&*x}, {1.0f}, o);
            return probability(learner.parameters(), action);
        };
        const auto initial = std::make_shared<const ParameterSet>(start);
        setReturns(0.0f, 1.0f);
        const double workerBefore = probability(initial, 3 * row);
        const double workerSampled = trained("sampled", 3 * row), workerExpected = trained("expected", 3 * row);
        setReturns(-1.0f, -1.0f);
        const double stopBefore = probability(initial, stop);
        const double stopLosing = trained("expected-stop", stop), stopLosingNoStopCredit = trained("expected", stop);
        setReturns(1.0f, 1.0f);
        const double stopGaining = trained("expected-stop", stop);
        qInfo("P(the worker | continue) %.3f, after 20 updates: sampled row credit %.3f, expected %.3f; "
              "P(stop) %.3f, after 20 updates with every task losing: %.3f (expected: %.3f), every "
              "task gaining: %.3f",
              workerBefore, workerSampled, workerExpected, stopBefore, stopLosing, stopLosingNoStopCredit, stopGaining);
        QCOMPARE(workerSampled, workerBefore); // a stop with return 0 and no baseline: nothing moves
        QVERIFY2(workerExpected > workerBefore + 0.3, qPrintable(QStringLiteral("%1 -> %2").arg(workerBefore).arg(workerExpected)));
        QVERIFY2(stopLosing > stopBefore + 0.3, qPrintable(QStringLiteral("%1 -> %2").arg(stopBefore).arg(stopLosing)));
        // Stop keeps the slot return's credit (0 here); the tasks' term, all equal, has no
        // gradient but rounding, which Adam's normalisation makes a step of a few thousandths.
        QVERIFY2(std::abs(stopLosingNoStopCredit - stopBefore) < 0.02,
                 qPrintable(QStringLiteral("%1 -> %2").arg(stopBefore).arg(stopLosingNoStopCredit)));
        QVERIFY2(stopGaining < stopBefore, qPrintable(QStringLiteral("%1 -> %2").arg(stopBefore).arg(stopGaining)));

        // A short run records it and shows it in the recipe; the errors.
        QTemporaryDir dir;
        RlOptions o = tenUpdatesOnSmall(spec);
        o.rowCredit = "expected-stop";
        QVERIFY(refusal(o).contains(QStringLiteral("--row-credit expected-stop credits every task")));
        o.rowCredit = "everywhere";
        QVERIFY(refusal(o).contains(QStringLiteral("unknown row credit 'everywhere'")));
        o.rowCredit = "expected-stop";
        o.taskMarginal = "added";
        const std::optional<TrainingInfo> recorded = recordOfRun(o, dir, "rows.dl2ckpt");
        QVERIFY(recorded);
        const TrainingInfo &info = *recorded;
        QCOMPARE(info.rowCredit, std::string("expected-stop"));
        QVERIFY(recipeShows(info, "row_credit", "expected-stop"));
    }

    // dl2-plus sees every job not at both caps, so its samples have as many rows as jobs in
    // view and a batch pads them to its widest. The row credit's gains are per row: a gain
    // held by a sample wider than the batch's first must still be taught (it once was dropped,
    // its size not matching the first sample's). Its window-stop has no window and is refused.
    void rowCreditTeachesDl2PlusAcrossItsJobsInView()
    {
        PolicySpec spec = defaultSpec(PolicyKind::Dl2Plus, 20, 8);
        spec.decode = Decode::Sample;
        const ParameterSet start = initialParameters(spec, 7);
        const std::vector<Sample> seen = dl2PlusDecisions(spec, start);
        const auto narrow =
            std::min_element(seen.begin(), seen.end(),
                             [](const Sample &a, const Sample &b) { return a.rows < b.rows; });
        Sample x = *narrow, y;
        int row = -1;
        for (const Sample &candidate : seen)
            if (const std::vector<int> rows = fullRows(candidate);
                candidate.rows > x.rows && !rows.empty()) {
                y = candidate;
                row = rows.back();
            }
        QVERIFY2(row >= 0,
                 qPrintable(QStringLiteral("%1 decisions, from %2 rows: none wider with a full row")
                                .arg(seen.size())
                                .arg(x.rows)));
        x.ret = y.ret = 0.0f;
        x.actionRet.assign(size_t(3 * x.rows), 0.0f);
        y.actionRet.assign(size_t(3 * y.rows), 0.0f);
        y.actionRet[size_t(3 * row)] = 1.0f; // only y's worker of that row gains
        const double before =
            rowWorkerShare(spec, y, row, std::make_shared<const ParameterSet>(start));
        Learner learner(spec, 1e-2, 7);
        RlLossOptions o = splitPolicyLoss();
        o.rowExpected = o.stopExpected = true;
        for (int step = 0; step < 20; ++step)
            learner.rlUpdate({&x, &y}, {1.0f, 1.0f}, o);
        const double after = rowWorkerShare(spec, y, row, learner.parameters());
        qInfo("rows in view %d and %d; the gaining worker's share of its row %.3f -> %.3f", x.rows,
              y.rows, before, after);
        QVERIFY2(after > before + 0.3,
                 qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(after)));

        RlOptions plus;
        plus.scenario = "dl2-small";
        plus.kind = PolicyKind::Dl2Plus;
        plus.spec = spec;
        plus.taskMarginal = "added";
        plus.rowCredit = "window-stop";
        QVERIFY(refusal(plus).contains(QStringLiteral("dl2-plus has no window")));
        QTemporaryDir dir;
        plus = tenUpdatesOnSmall(spec);
        plus.kind = PolicyKind::Dl2Plus;
        plus.taskMarginal = "added";
        plus.rowCredit = "lookahead-stop";
        plus.stopCredit = "best";
        const std::optional<TrainingInfo> recorded = recordOfRun(plus, dir, "plus.dl2ckpt");
        QVERIFY(recorded);
        QCOMPARE(recorded->rowCredit, std::string("lookahead-stop"));
        QCOMPARE(recorded->stopCredit, std::string("best"));
    }

    // --row-credit regret-stop: the choice among tasks is taught each task's gain minus its
    // job's headroom to its best. Two jobs in view are below their best, one with five times
    // the other's headroom: the lookahead credit moves the policy towards the one with more,
    // the regret gives no gradient at all. A third job at its best, where every task loses:
    // the regret moves the policy off it.
    void regretCreditTeachesOnlyNotToGrowAJobPastItsBest()
    {
        PolicySpec spec = defaultSpec(PolicyKind::Dl2Plus, 20, 8);
        spec.decode = Decode::Sample;
        const ParameterSet start = initialParameters(spec, 7);
        const std::vector<Sample> seen = dl2PlusDecisions(spec, start);
        const auto found = std::find_if(seen.begin(), seen.end(),
                                        [](const Sample &x) { return fullRows(x).size() >= 3; });
        QVERIFY2(found != seen.end(),
                 "no decision in 6 slots with 3 jobs in view that allow every task");
        Sample x = *found;
        const std::vector<int> rows = fullRows(x);
        const int wide = rows[0], narrow = rows[1], atBest = rows[2];
        x.ret = 0.0f;
        // Every other task keeps its job on the way to its best: gain = headroom = 1.
        x.actionRet.assign(size_t(3 * x.rows), 1.0f);
        x.actionHeadroom.assign(size_t(3 * x.rows), 1.0f);
        for (int k = 0; k < 3; ++k)
            x.actionRet[size_t(3 * wide + k)] = x.actionHeadroom[size_t(3 * wide + k)] = 5.0f;
        const auto rowShare = [&](int row, std::shared_ptr<const ParameterSet> parameters) {
            EncodedState s;
            x.toState(spec, s);
            std::vector<float> p;
            PolicyNetwork(spec, std::move(parameters)).probabilities(s, p);
            return (p[size_t(3 * row)] + p[size_t(3 * row + 1)] + p[size_t(3 * row + 2)]) /
                   (1.0 - p.back());
        };
        const auto order = [&](std::shared_ptr<const ParameterSet> parameters) {
            return rowShare(wide, parameters) / rowShare(narrow, parameters);
        };
        const auto trained = [&](bool regret) {
            Learner learner(spec, 1e-2, 7);
            RlLossOptions o = splitPolicyLoss();
            o.rowExpected = true;
            o.rowRegret = regret;
            for (int step = 0; step < 20; ++step)
                learner.rlUpdate({&x}, {1.0f}, o);
            return learner.parameters();
        };
        const auto initial = std::make_shared<const ParameterSet>(start);
        const double before = order(initial), lookahead = order(trained(false)),
                     regret = order(trained(true));
        qInfo("share of the job with 5x the headroom over the other's: %.3f -> lookahead %.3f, "
              "regret %.3f",
              before, lookahead, regret);
        QVERIFY2(lookahead > 1.5 * before,
                 "the lookahead credit should rank the jobs by their headroom");
        QCOMPARE(regret, before);

        for (int k = 0; k < 3; ++k) { // every task of this one loses: the job is at its best
            x.actionRet[size_t(3 * atBest + k)] = -0.2f;
            x.actionHeadroom[size_t(3 * atBest + k)] = 0.0f;
        }
        const double atBestBefore = rowShare(atBest, initial),
                     atBestAfter = rowShare(atBest, trained(true));
        qInfo("the job at its best: share %.3f -> %.3f", atBestBefore, atBestAfter);
        QVERIFY2(atBestAfter < 0.5 * atBestBefore,
                 "the regret should move the policy off the job at its best");

        // The option runs end to end for dl2-plus and is recorded.
        QTemporaryDir dir;
        RlOptions plus = tenUpdatesOnSmall(spec);
        plus.kind = PolicyKind::Dl2Plus;
        plus.rowCredit = "regret-stop";
        QVERIFY(
            refusal(plus).contains(QStringLiteral("--row-credit regret-stop credits every task")));
        plus.taskMarginal = "added";
        const std::optional<TrainingInfo> recorded = recordOfRun(plus, dir, "regret.dl2ckpt");
        QVERIFY(recorded);
        QCOMPARE(recorded->rowCredit, std::string("regret-stop"));
        QVERIFY(recipeShows(*recorded, "row_credit", "regret-stop"));
    }

    // --optimizer sgd: the policy steps by the learning rate times its gradient, where Adam's
    // first step is about the learning rate on every weight whatever the gradient's size. The
    // same decision is trained once with its credit at full size and once at a tenth: under
    // gradient descent the policy moves a tenth as far, under Adam as far.
    void plainGradientDescentStepsByTheGradient()
    {
        PolicySpec spec = defaultSpec(PolicyKind::Dl2Plus, 20, 8);
        spec.decode = Decode::Sample;
        const ParameterSet start = initialParameters(spec, 7);
        const std::vector<Sample> seen = dl2PlusDecisions(spec, start);
        const auto found = std::find_if(seen.begin(), seen.end(),
                                        [](const Sample &x) { return fullRows(x).size() >= 2; });
        QVERIFY2(found != seen.end(),
                 "no decision in 6 slots with 2 jobs in view that allow every task");
        Sample x = *found;
        x.ret = 0.0f;
        x.actionRet.assign(size_t(3 * x.rows), 0.0f);
        x.actionRet[size_t(3 * fullRows(x)[0])] = 1.0f; // one job's worker gains
        // How far one update moves the policy network (the value network is not trained).
        const auto moved = [&](bool sgd, double scale) {
            Learner learner(spec, 1e-3, 7);
            if (sgd)
                learner.setPlainGradientDescent();
            RlLossOptions o = splitPolicyLoss();
            o.rowExpected = true;
            o.taskAdvantageScale = scale;
            learner.rlUpdate({&x}, {1.0f}, o);
            const auto after = learner.parameters();
            double squares = 0.0;
            for (const auto &[name, tensor] : start) {
                if (name.rfind("value", 0) == 0)
                    continue;
                const std::vector<float> &now = after->at(name).data;
                for (size_t i = 0; i < now.size(); ++i)
                    squares += double(now[i] - tensor.data[i]) * double(now[i] - tensor.data[i]);
            }
            return std::sqrt(squares);
        };
        const double sgdFull = moved(true, 1.0), sgdTenth = moved(true, 0.1);
        const double adamFull = moved(false, 1.0), adamTenth = moved(false, 0.1);
        qInfo("policy moved by one update, credit at full size / a tenth: gradient descent %.3g / "
              "%.3g, Adam %.3g / %.3g",
              sgdFull, sgdTenth, adamFull, adamTenth);
        QVERIFY(sgdFull > 0.0 && adamFull > 0.0);
        QVERIFY2(std::abs(sgdTenth / sgdFull - 0.1) < 0.01,
                 qPrintable(QString::number(sgdTenth / sgdFull)));
        QVERIFY2(std::abs(adamTenth / adamFull - 1.0) < 0.05,
                 qPrintable(QString::number(adamTenth / adamFull)));

        // End to end: recorded, shown in the recipe, and an unknown optimizer refused.
        QTemporaryDir dir;
        RlOptions o = tenUpdatesOnSmall(spec);
        o.kind = PolicyKind::Dl2Plus;
        o.optimizer = "sgd";
        o.learningRate = 1e-3;
        const std::optional<TrainingInfo> recorded = recordOfRun(o, dir, "sgd.dl2ckpt");
        QVERIFY(recorded);
        QCOMPARE(recorded->optimizer, std::string("sgd"));
        QVERIFY(recipeShows(*recorded, "optimizer", "sgd"));
        o.optimizer = "rmsprop";
        QVERIFY(
            refusal(o).contains(QStringLiteral("unknown optimizer 'rmsprop' (known: adam, sgd)")));
    }

    // --lr-anneal linear: the actor's learning rate falls from --lr at its first update
    // towards 0 at the last. Eight actor updates from the same start: under Adam, whose steps
    // are about the rate on every weight, the policy ends about 0.6 times as far from its
    // start as with the constant rate (0.22 against 0.34; the rates' sum is 0.56 times theirs,
    // their root sum of squares 0.63 times).
    void linearAnnealShrinksThePolicysSteps()
    {
        PolicySpec spec = defaultSpec(PolicyKind::Dl2Plus, 20, 8);
        const ParameterSet start = initialParameters(spec, 7);
        QTemporaryDir dir;
        const std::string init = dir.filePath(QStringLiteral("start.dl2ckpt")).toStdString();
        writeCheckpoint(init, spec, TrainingInfo{}, start);
        const auto distance = [&](const char *anneal, const char *name) {
            RlOptions o = tenUpdatesOnSmall(spec);
            o.kind = PolicyKind::Dl2Plus;
            o.init = init;
            o.learningRate = 1e-3;
            o.lrAnneal = anneal;
            if (!recordOfRun(o, dir, name))
                return -1.0;
            const Checkpoint last =
                readCheckpoint(resumePath(dir.filePath(QLatin1String(name)).toStdString()), o.kind);
            double squares = 0.0;
            for (const auto &[key, tensor] : start) {
                if (key.rfind("value", 0) == 0)
                    continue;
                const std::vector<float> &now = last.parameters->at(key).data;
                for (size_t i = 0; i < now.size(); ++i)
                    squares += double(now[i] - tensor.data[i]) * double(now[i] - tensor.data[i]);
            }
            return std::sqrt(squares);
        };
        const double constant = distance("constant", "constant.dl2ckpt");
        const double linear = distance("linear", "linear.dl2ckpt");
        qInfo("the policy's distance from its start after 8 actor updates: constant rate %.4f, "
              "linear anneal %.4f",
              constant, linear);
        QVERIFY(constant > 0.0 && linear > 0.0);
        QVERIFY2(linear < 0.8 * constant && linear > 0.3 * constant,
                 qPrintable(QStringLiteral("%1 against %2").arg(linear).arg(constant)));
        RlOptions o = tenUpdatesOnSmall(spec);
        o.kind = PolicyKind::Dl2Plus;
        o.lrAnneal = "linear";
        const std::optional<TrainingInfo> recorded = recordOfRun(o, dir, "shown.dl2ckpt");
        QVERIFY(recorded);
        QVERIFY(recipeShows(*recorded, "lr_anneal", "linear"));
        o.lrAnneal = "cosine";
        QVERIFY(refusal(o).contains(
            QStringLiteral("unknown learning-rate anneal 'cosine' (known: constant, linear)")));
    }

    // --kind-credit every-row: each window row's own worker/PS/bundle mix is credited with the
    // row's gains at every decision, on top of the row credit, whose all-actions gradient
    // reaches a row only as much as the policy is likely to pick it. One row's worker gains 1,
    // nothing else gains: the loss gains exactly -q(worker | row) / (rows with a task), and
    // the worker's share of its row grows.
    void everyRowKindCreditTeachesEachRowsKind()
    {
        const PolicySpec spec = smallDl2();
        const ParameterSet start = initialParameters(spec, 7);
        auto [x, row] = stopSampleWithFullRow(spec, start);
        QVERIFY(x);
        const int stop = 3 * x->rows;
        x->actionRet.assign(size_t(stop), std::numeric_limits<float>::quiet_NaN());
        int rowsWithTask = 0;
        for (int r = 0; r < x->rows; ++r) {
            bool any = false;
            for (int k = 0; k < 3; ++k)
                if (x->mask[size_t(3 * r + k)]) {
                    x->actionRet[size_t(3 * r + k)] = 0.0f;
                    any = true;
                }
            rowsWithTask += any ? 1 : 0;
        }
        x->actionRet[size_t(3 * row)] = 1.0f;
        const auto workerShare = [&](std::shared_ptr<const ParameterSet> parameters) {
            EncodedState s;
            x->toState(spec, s);
            std::vector<float> p;
            PolicyNetwork(spec, std::move(parameters)).probabilities(s, p);
            return p[size_t(3 * row)] / (p[size_t(3 * row)] + p[size_t(3 * row + 1)] + p[size_t(3 * row + 2)]);
        };
        struct Trained { double firstLoss, share; };
        const auto trained = [&](bool everyRow) {
            Learner learner(spec, 1e-2, 7);
            RlLossOptions o;
            o.split = o.rowExpected = o.stopExpected = true;
            o.kindEveryRow = everyRow;
            o.useValue = false;
            o.entropyWeight = 0.0;
            Trained t{learner.rlUpdate({&*x}, {1.0f}, o).policyLoss, 0.0};
            for (int step = 1; step < 20; ++step)
                learner.rlUpdate({&*x}, {1.0f}, o);
            t.share = workerShare(learner.parameters());
            return t;
        };
        const double before = workerShare(std::make_shared<const ParameterSet>(start));
        const Trained rowOnly = trained(false), everyRow = trained(true);
        qInfo("the gaining worker's share of its row %.3f (%d rows with a task); first loss %.5f, "
              "with every row's kind %.5f; after 20 updates %.3f / %.3f",
              before, rowsWithTask, rowOnly.firstLoss, everyRow.firstLoss, rowOnly.share, everyRow.share);
        QVERIFY(rowsWithTask > 1);
        const double added = everyRow.firstLoss - rowOnly.firstLoss, expected = -before / rowsWithTask;
        QVERIFY2(std::abs(added - expected) < 1e-5, qPrintable(QStringLiteral("%1, expected %2").arg(added).arg(expected)));
        QVERIFY2(everyRow.share > before + 0.3, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(everyRow.share)));

        // Recorded and shown; refused without the row credit whose gains it uses.
        QTemporaryDir dir;
        RlOptions o = tenUpdatesOnSmall(spec);
        o.taskMarginal = "added";
        o.kindCredit = "every-row";
        QVERIFY(refusal(o).contains(QStringLiteral("it needs --row-credit expected, expected-stop, "
                                                   "lookahead-stop, window-stop or regret-stop")));
        o.rowCredit = "expected-stop";
        const std::optional<TrainingInfo> recorded = recordOfRun(o, dir, "every-row.dl2ckpt");
        QVERIFY(recorded);
        const TrainingInfo &info = *recorded;
        QCOMPARE(info.kindCredit, std::string("every-row"));
        QVERIFY(recipeShows(info, "kind_credit", "every-row"));
    }

    // --row-credit lookahead-stop: a task is credited with the best progress its job can still
    // reach after it against its progress without it. From the job's best allocation every
    // task loses; on the measured speeds, which are not concave, some task that loses one step
    // ahead leads on to a better allocation, so the lookahead credits it where expected-stop
    // does not.
    void lookaheadCreditReachesTheBestAllocation()
    {
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        Simulator sim(sc.cluster, profiles, sc.trace(profiles, 100), sc.simulation);
        auto optimus = makeScheduler("optimus");
        const int maxPs = sim.options().maxPs, maxWorkers = sim.options().maxWorkers;
        const auto cell = [&](int p, int w) { return size_t(p * (maxWorkers + 1) + w); };
        int checkedJobs = 0, climbs = 0;
        for (int slot = 0; slot < 10; ++slot) {
            sim.step(*optimus);
            for (size_t i = 0; i < sim.jobs().size(); ++i) {
                const JobState &j = sim.jobs()[i];
                if (!j.active() || j.epochsThisSlot <= 0 || j.doneEpochs > 0.5 * j.totalEpochs)
                    continue;
                const int job = int(i);
                const std::vector<double> best = reachableProgress(sim, job);
                QCOMPARE(best.size(), cell(maxPs, maxWorkers) + 1);
                int topP = 0, topW = 0;
                for (int p = 0; p <= maxPs; ++p)
                    for (int w = 0; w <= maxWorkers; ++w) {
                        QCOMPARE(best[cell(p, w)], bruteForceReach(sim, job, p, w));
                        if (sim.slotProgress(job, p, w) > sim.slotProgress(job, topP, topW))
                            topP = p, topW = w;
                        if (p < 1 || w < 1 || p >= maxPs || w >= maxWorkers)
                            continue;
                        const double now = sim.slotProgress(job, p, w);
                        for (const auto &[dp, dw] : {std::pair{1, 0}, std::pair{0, 1}, std::pair{1, 1}})
                            if (sim.slotProgress(job, p + dp, w + dw) < now && best[cell(p + dp, w + dw)] > now)
                                ++climbs;
                    }
                // From the best allocation, every task loses or gains nothing.
                const double top = sim.slotProgress(job, topP, topW);
                QCOMPARE(best[cell(topP, topW)], top);
                QCOMPARE(best[cell(0, 0)], top);
                if (topP < maxPs)
                    QVERIFY(best[cell(topP + 1, topW)] <= top);
                if (topW < maxWorkers)
                    QVERIFY(best[cell(topP, topW + 1)] <= top);
                ++checkedJobs;
            }
            if (checkedJobs >= 3)
                break;
        }
        QVERIFY2(checkedJobs >= 3, "fewer than 3 running jobs in 10 slots of optimus");
        qInfo("%d tasks, over %d jobs, lose one step ahead and lead on to a better allocation", climbs, checkedJobs);
        QVERIFY(climbs > 0);

        // The option: refused without --task-marginal added, recorded, shown in the recipe.
        QTemporaryDir dir;
        RlOptions o = tenUpdatesOnSmall(smallDl2());
        o.rowCredit = "lookahead-stop";
        QVERIFY(refusal(o).contains(QStringLiteral("--row-credit lookahead-stop credits every task")));
        o.taskMarginal = "added";
        const std::optional<TrainingInfo> recorded = recordOfRun(o, dir, "lookahead.dl2ckpt");
        QVERIFY(recorded);
        const TrainingInfo &info = *recorded;
        QCOMPARE(info.rowCredit, std::string("lookahead-stop"));
        QVERIFY(recipeShows(info, "row_credit", "lookahead-stop"));
    }

    // Row credit "window-stop": a row freed is worth the mean gain, to their best, of the jobs
    // that trained the slot outside the window; nothing when none did.
    void windowExitGainIsTheLeftOutJobsMeanGainToTheirBest()
    {
        // A slot of Optimus on dl2-small where at least 6 jobs trained and some short of their
        // best (Optimus stops where one more task gains nothing, and the surfaces are not
        // concave), so that the means compared below are not both 0.
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        Simulator sim(sc.cluster, profiles, sc.trace(profiles, 100), sc.simulation);
        auto optimus = makeScheduler("optimus");
        const auto bestFrom = [&](int job) {
            const JobState &j = sim.jobs()[size_t(job)];
            return bruteForceReach(sim, job, j.ps, j.workers);
        };
        std::vector<int> trained;
        int short_ = 0;
        for (int slot = 0; slot < 100 && (trained.size() < 6 || short_ == 0); ++slot) {
            sim.step(*optimus);
            trained.clear();
            short_ = 0;
            for (size_t i = 0; i < sim.jobs().size(); ++i)
                if (sim.jobs()[i].epochsThisSlot > 0) {
                    trained.push_back(int(i));
                    const JobState &j = sim.jobs()[i];
                    short_ += bestFrom(int(i)) > sim.slotProgress(int(i), j.ps, j.workers) ? 1 : 0;
                }
        }
        QVERIFY2(trained.size() >= 6 && short_ > 0,
                 "no slot of optimus in which 6 jobs trained and one was short of its best");
        const size_t jobs = sim.jobs().size();
        for (const TaskCredit credit : {TaskCredit::Progress, TaskCredit::Remaining}) {
            QCOMPARE(windowExitGain(sim, std::vector<bool>(jobs, true), credit), 0.0);
            // Every other job that trained left out: the brute-force mean of their gains.
            std::vector<bool> inWindow(jobs, true);
            double sum = 0.0;
            int left = 0;
            for (size_t k = 0; k < trained.size(); ++k) {
                const int job = trained[k];
                const JobState &j = sim.jobs()[size_t(job)];
                const double now = sim.slotProgress(job, j.ps, j.workers), best = bestFrom(job);
                if (k % 2 == 1 && best == now)
                    continue; // every other job, and every job short of its best
                inWindow[size_t(job)] = false;
                sum += taskGain(credit, j, best, now, best);
                ++left;
            }
            const double gain = windowExitGain(sim, inWindow, credit);
            QVERIFY2(std::abs(gain - sum / left) <= 1e-12 * std::max(1.0, std::abs(gain)),
                     qPrintable(QStringLiteral("%1 against %2").arg(gain).arg(sum / left)));
            // Leaving out jobs short of their best costs something.
            QVERIFY(gain > 0.0);
            // Jobs that did not train (queued, finished) are never counted.
            std::vector<bool> none(jobs, false);
            for (const int job : trained)
                none[size_t(job)] = inWindow[size_t(job)];
            QCOMPARE(windowExitGain(sim, none, credit), gain);
        }

        // The option: recorded, shown in the recipe; with stop credited, so --stop-credit takes it.
        QTemporaryDir dir;
        RlOptions o = tenUpdatesOnSmall(smallDl2());
        o.rowCredit = "window-stop";
        o.taskMarginal = "added";
        o.stopCredit = "best";
        const std::optional<TrainingInfo> recorded = recordOfRun(o, dir, "window.dl2ckpt");
        QVERIFY(recorded);
        QCOMPARE(recorded->rowCredit, std::string("window-stop"));
        QVERIFY(recipeShows(*recorded, "row_credit", "window-stop"));
    }

    // --row-scale decision: each decision's gains over their own RMS. Two decisions of one
    // state, one whose row worker gains 1 and one whose other task gains 0.1 (each the only
    // gain of its decision): at the batch's scale the first outweighs the second, and the
    // policy comes to prefer the worker by a factor of millions; per decision they weigh
    // alike, and the second holds the first back.
    void rowScaleDecisionWeighsEveryDecisionAlike()
    {
        const PolicySpec spec = smallDl2();
        const ParameterSet start = initialParameters(spec, 7);
        auto [x, row] = stopSampleWithFullRow(spec, start);
        QVERIFY(x);
        const int stop = 3 * x->rows, worker = 3 * row;
        int other = -1;
        for (int a = 0; a < stop && other < 0; ++a)
            if (x->mask[size_t(a)] && a / 3 != row)
                other = a;
        QVERIFY2(other >= 0, "the state has one row with tasks only");
        const auto withGain = [&](int action, float gain) {
            Sample y = *x;
            y.actionRet.assign(size_t(stop), std::numeric_limits<float>::quiet_NaN());
            for (int a = 0; a < stop; ++a)
                if (y.mask[size_t(a)])
                    y.actionRet[size_t(a)] = a == action ? gain : 0.0f;
            return y;
        };
        const Sample big = withGain(worker, 1.0f), small = withGain(other, 0.1f);
        // P(worker) / P(the other task).
        const auto ratio = [&](std::shared_ptr<const ParameterSet> parameters) {
            EncodedState s;
            x->toState(spec, s);
            std::vector<float> p;
            PolicyNetwork(spec, std::move(parameters)).probabilities(s, p);
            return double(p[size_t(worker)]) / p[size_t(other)];
        };
        const auto trained = [&](bool perDecision) {
            Learner learner(spec, 1e-2, 7);
            RlLossOptions o = splitPolicyLoss();
            o.rowExpected = true;
            o.rowPerDecision = perDecision;
            for (int step = 0; step < 20; ++step)
                learner.rlUpdate({&big, &small}, {1.0f, 1.0f}, o);
            return ratio(learner.parameters());
        };
        const double before = ratio(std::make_shared<const ParameterSet>(start));
        const double batch = trained(false), decision = trained(true);
        qInfo("P(worker) / P(the other task) %.3f; after 20 updates at the batch's scale %.3f, per decision %.3f",
              before, batch, decision);
        // (The network's shared weights do not keep the two symmetric: the worker's share
        // still grows, by orders of magnitude less.)
        QVERIFY2(std::log(batch / before) > 3.0 * std::log(decision / before),
                 qPrintable(QStringLiteral("%1 -> %2 at the batch's scale, %3 per decision")
                                .arg(before)
                                .arg(batch)
                                .arg(decision)));

        // The option: refused without a row credit, recorded, shown in the recipe.
        RlOptions o = tenUpdatesOnSmall(spec);
        o.rowScale = "decision";
        QVERIFY(refusal(o).contains(QStringLiteral("--row-scale decision scales the gains of a row credit")));
        o.rowScale = "sometimes";
        o.rowCredit = "expected";
        o.taskMarginal = "added";
        QVERIFY(refusal(o).contains(QStringLiteral("unknown row scale 'sometimes'")));
        o.rowScale = "decision";
        QTemporaryDir dir;
        const std::optional<TrainingInfo> recorded = recordOfRun(o, dir, "scaled.dl2ckpt");
        QVERIFY(recorded);
        const TrainingInfo &info = *recorded;
        QCOMPARE(info.rowScale, std::string("decision"));
        QVERIFY(recipeShows(info, "row_scale", "decision"));
    }

    // Every task loses but one the policy rarely picks: the expected gain of continuing is
    // below stop's 0, the best task's above it.
    void stopCreditBestContinuesTowardsTheTaskThatGains()
    {
        const PolicySpec spec = smallDl2();
        const ParameterSet start = initialParameters(spec, 7);
        auto [x, row] = stopSampleWithFullRow(spec, start);
        QVERIFY(x);
        const int stop = 3 * x->rows;
        EncodedState s;
        x->toState(spec, s);
        const auto probabilities = [&](std::shared_ptr<const ParameterSet> parameters) {
            std::vector<float> p;
            PolicyNetwork(spec, std::move(parameters)).probabilities(s, p);
            return p;
        };
        const std::vector<float> before =
            probabilities(std::make_shared<const ParameterSet>(start));
        int rare = -1;
        for (int a = 0; a < stop; ++a)
            if (x->mask[size_t(a)] && (rare < 0 || before[size_t(a)] < before[size_t(rare)]))
                rare = a;
        QVERIFY(rare >= 0);
        Sample y = *x;
        y.actionRet.assign(size_t(stop), std::numeric_limits<float>::quiet_NaN());
        double expected = 0.0, continuing = 0.0;
        for (int a = 0; a < stop; ++a)
            if (y.mask[size_t(a)]) {
                y.actionRet[size_t(a)] = a == rare ? 1.0f : -1.0f;
                expected += before[size_t(a)] * y.actionRet[size_t(a)];
                continuing += before[size_t(a)];
            }
        QVERIFY2(expected / continuing < -0.5, "the rare task carries little of the policy's mass");
        const auto trained = [&](bool best) {
            // One small step: the direction each credit pushes stop from this policy (longer,
            // the task term moves the mass to the rare task, and both then continue).
            Learner learner(spec, 1e-3, 7);
            RlLossOptions o = splitPolicyLoss();
            o.rowExpected = true;
            o.stopExpected = true;
            o.stopBest = best;
            learner.rlUpdate({&y}, {1.0f}, o);
            return probabilities(learner.parameters());
        };
        const std::vector<float> expectedRun = trained(false), bestRun = trained(true);
        const auto stopOf = [&](const std::vector<float> &p) { return double(p[size_t(stop)]); };
        qInfo("P(stop) %.5f; after one update, continuing credited with the expected gain %.5f, "
              "the best %.5f; "
              "P(the task that gains) %.4f -> %.4f, %.4f",
              stopOf(before), stopOf(expectedRun), stopOf(bestRun), before[size_t(rare)],
              expectedRun[size_t(rare)], bestRun[size_t(rare)]);
        QVERIFY(stopOf(expectedRun) > stopOf(before));
        QVERIFY(stopOf(bestRun) < stopOf(before));
        QVERIFY(bestRun[size_t(rare)] > before[size_t(rare)]);
        QVERIFY(bestRun[size_t(rare)] > expectedRun[size_t(rare)]);

        // The option: refused without a stop credit to replace, recorded, shown in the recipe.
        RlOptions o = tenUpdatesOnSmall(spec);
        o.stopCredit = "best";
        o.rowCredit = "expected";
        o.taskMarginal = "added";
        QVERIFY(refusal(o).contains(
            QStringLiteral("--stop-credit best credits continuing against stop")));
        o.rowCredit = "expected-stop";
        o.stopCredit = "hopeful";
        QVERIFY(refusal(o).contains(QStringLiteral("unknown stop credit 'hopeful'")));
        o.stopCredit = "best";
        QTemporaryDir dir;
        const std::optional<TrainingInfo> recorded = recordOfRun(o, dir, "best.dl2ckpt");
        QVERIFY(recorded);
        QCOMPARE(recorded->stopCredit, std::string("best"));
        QVERIFY(recipeShows(*recorded, "stop_credit", "best"));
    }

    void unknownAblationIsAnError()
    {
        QVERIFY_THROWS_EXCEPTION(std::exception, checkAblations({"no-brain"}));
    }
};

QTEST_GUILESS_MAIN(TestRlTrainer)
#include "tst_rltrainer.moc"
