// A short seeded SL run on dl2-small: the loss falls and the policy agrees with its teacher
// well above chance; the checkpoint and curves are written and load back. Slot-level DAgger
// (loss falls, deterministic for a seed), order-free labels from the window teacher and the
// teacher's replay orders. Tied window weights, in SL and in the actor-critic.
#include "checkpoint.h"
#include "curves.h"
#include "learner.h"
#include "policynetwork.h"
#include "rltrainer.h"
#include "rng.h"
#include "scenario.h"
#include "sltrainer.h"
#include "simulator.h"
#include "teacherrecorder.h"
#include "trainingrecipe.h"
#include "windowteacher.h"
#include "error.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace dl2;

namespace {

// How far a dl2 checkpoint's network is from computing the same function of every window
// position: 7 random jobs are moved to other positions (some into empty ones), and the
// largest change of a job's logit (and of the stop logit) is returned relative to the
// largest logit (0 for a network tied across the window).
float permutationBreak(const Checkpoint &c, const char *what)
{
    PolicyNetwork net(c.spec, c.parameters);
    const int J = c.spec.window, d = c.spec.jobDim(), jobs = 7;
    EncodedState a;
    a.rows = J;
    a.jobDim = d;
    a.jobs.assign(size_t(J * d), 0.0f);
    a.mask.assign(size_t(a.actionCount()), 1);
    Rng rng(11);
    for (int r = 0; r < jobs; ++r) {
        a.jobs[size_t(r * d + int(rng.below(8)))] = 1.0f; // one-hot type
        for (int f = 8; f < d; ++f)
            a.jobs[size_t(r * d + f)] = float(rng.uniform());
    }
    // Job r moves to position (r * 3 + 5) % J: reordered, some into empty positions.
    std::vector<int> to(static_cast<size_t>(J));
    for (int r = 0; r < J; ++r)
        to[size_t(r)] = r < jobs ? (r * 3 + 5) % J : -1;
    EncodedState b = a;
    std::fill(b.jobs.begin(), b.jobs.end(), 0.0f);
    for (int r = 0; r < jobs; ++r)
        std::copy_n(a.jobs.begin() + r * d, d, b.jobs.begin() + to[size_t(r)] * d);
    std::vector<float> la, lb;
    net.resetCache();
    net.logits(a, la);
    net.resetCache();
    net.logits(b, lb);
    float worst = std::abs(la.back() - lb.back()), scale = 0.0f;
    for (int r = 0; r < jobs; ++r)
        for (int k = 0; k < 3; ++k) {
            worst = std::max(worst, std::abs(la[size_t(3 * r + k)] - lb[size_t(3 * to[size_t(r)] + k)]));
            scale = std::max(scale, std::abs(la[size_t(3 * r + k)]));
        }
    qInfo("%s: largest change of a job's logit under the permutation %.2e (logits up to %.2f)", what,
          double(worst), double(scale));
    return worst / std::max(1.0f, scale);
}

// A short SL run of a fresh dl2 network on dl2-small (window 20: 12 units per position, 16
// global) from the best window teacher, with its weights tied for `tieSteps` updates.
SlOptions windowWarmUp(long long tieSteps, int steps, const std::string &output)
{
    SlOptions o;
    o.scenario = "dl2-small";
    o.teacher = "best-config-window-nocap";
    o.labels = "multi";
    o.kind = PolicyKind::Dl2;
    o.steps = steps;
    o.seed = 4;
    o.validateEvery = steps;
    o.validationSeeds = {100};
    o.tieWindowSteps = tieSteps;
    o.output = output;
    return o;
}

// An actor-critic run on dl2-small from a warm-up, with the code's exploration rules (many
// tasks per slot), validated on seed 100.
RlOptions smallActorCritic(const std::string &init, const std::string &output)
{
    RlOptions o;
    o.scenario = "dl2-small";
    o.init = init;
    o.kind = PolicyKind::Dl2;
    o.exploration = Exploration::Reference;
    o.seed = 2;
    o.validationSeeds = {100};
    o.output = output;
    return o;
}

} // namespace

class TestSlTrainer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { setTorchThreads(1); }
    void lossFallsAndAgrees()
    {
        QTemporaryDir dir;
        SlOptions o;
        o.scenario = "dl2-small";
        o.teacher = "fifo";
        o.kind = PolicyKind::Dl2Plus;
        o.steps = 120;
        o.seed = 3;
        o.validateEvery = 40;
        o.validationSeeds = {100};
        o.output = dir.path().toStdString() + "/sl.dl2ckpt";
        const TrainResult r = SlTrainer(o).run();
        QCOMPARE(r.curve.size(), size_t(3));
        qInfo("SL: loss %.3f -> %.3f (validation %.3f -> %.3f), agreement %.3f (chance %.3f), val JCT %.2f (teacher %.2f)",
              r.curve.front().trainLoss, r.curve.back().trainLoss, r.curve.front().validationLoss,
              r.curve.back().validationLoss, r.agreement, r.chanceAgreement, r.bestValidationAvgJct,
              r.teacherValidationAvgJct);
        QVERIFY(r.curve.back().validationLoss < r.curve.front().validationLoss);
        QVERIFY(r.curve.back().trainLoss < r.curve.front().trainLoss);
        QVERIFY(r.agreement > 0.35);
        QVERIFY(r.agreement > 4 * r.chanceAgreement);
        const Checkpoint c = readCheckpoint(o.output, PolicyKind::Dl2Plus);
        QCOMPARE(c.info.trainer, std::string("sl"));
        QCOMPARE(c.info.teacher, std::string("fifo"));
        QVERIFY(QFile::exists(QString::fromStdString(o.output + ".curves.csv")));
        QVERIFY(QFile::exists(QString::fromStdString(o.output + ".curves.json")));
    }

    // Slot-level DAgger: after 20 pure-teacher updates the student acts on most slots (the
    // teacher still labels every slot); the loss on teacher states falls, and two runs with
    // the same seed are identical.
    void daggerLossFallsAndDeterministic()
    {
        SlOptions o;
        o.scenario = "dl2-small";
        o.teacher = "optimus";
        o.kind = PolicyKind::Dl2;
        o.steps = 60;
        o.seed = 5;
        o.validateEvery = 20;
        o.validationSeeds = {100};
        o.dagger = true;
        o.daggerStart = 20;
        o.daggerDecay = 0.01; // beta 0.1 after 50 updates: mostly the student
        o.daggerRefresh = 5;
        const TrainResult a = SlTrainer(o).run();
        const TrainResult b = SlTrainer(o).run();
        QCOMPARE(a.curve.size(), size_t(3));
        qInfo("DAgger: loss %.3f -> %.3f (validation %.3f -> %.3f), val JCT %.2f (teacher %.2f), slots %lld teacher / %lld student",
              a.curve.front().trainLoss, a.curve.back().trainLoss, a.curve.front().validationLoss,
              a.curve.back().validationLoss, a.bestValidationAvgJct, a.teacherValidationAvgJct,
              a.teacherSlots, a.studentSlots);
        QVERIFY(a.studentSlots > 0);
        QVERIFY(a.teacherSlots > 0);
        QVERIFY(a.curve.back().validationLoss < a.curve.front().validationLoss);
        QCOMPARE(a.curve.size(), b.curve.size());
        for (size_t i = 0; i < a.curve.size(); ++i) {
            QCOMPARE(a.curve[i].trainLoss, b.curve[i].trainLoss);
            QCOMPARE(a.curve[i].validationLoss, b.curve[i].validationLoss);
            QCOMPARE(a.curve[i].validationAvgJct, b.curve[i].validationAvgJct);
        }
        QCOMPARE(a.studentSlots, b.studentSlots);
    }

    // Order-free labels ("multi": per-action binary cross-entropy on the set of tasks the
    // teacher's allocation still needs) from Optimus restricted to dl2's window: the loss on
    // teacher states falls and the greedy choice is a needed task far above chance.
    void multiLabelsWindowTeacher()
    {
        SlOptions o;
        o.scenario = "dl2-small";
        o.teacher = "optimus-window-nocap";
        o.teacherOrder = "share";
        o.labels = "multi";
        o.kind = PolicyKind::Dl2;
        o.steps = 40;
        o.seed = 5;
        o.validateEvery = 20;
        o.validationSeeds = {100};
        const TrainResult r = SlTrainer(o).run();
        QCOMPARE(r.curve.size(), size_t(2));
        qInfo("multi labels: validation loss %.3f -> %.3f, agreement %.3f (chance %.3f), val JCT %.2f (teacher %.2f)",
              r.curve.front().validationLoss, r.curve.back().validationLoss, r.agreement,
              r.chanceAgreement, r.bestValidationAvgJct, r.teacherValidationAvgJct);
        QVERIFY(r.curve.back().validationLoss < r.curve.front().validationLoss);
        QVERIFY(r.agreement > 0.5);
        QVERIFY(r.agreement > 2 * r.chanceAgreement);
    }

    // The replay orders of the teacher's tasks (sequence labels, so each sample's action is the
    // task replayed): "arrival" gives each job's tasks in turn, the jobs by arrival (window
    // position); "random-jobs" each job's tasks in turn too, the jobs in a random order.
    void teacherReplayOrders()
    {
        registerWindowTeachers();
        const Scenario &sc = scenarioByName("dl2-small");
        const ProfileSet profiles = ProfileSet::reference();
        const PolicySpec spec = defaultSpec(PolicyKind::Dl2, sc.window, 8);
        SchedulerConfig config;
        config.scenario = "dl2-small";
        // Per slot, the window positions in the order their tasks were replayed (one entry per
        // run of tasks on the same position).
        const auto blocks = [&](const std::string &order) {
            std::vector<std::vector<int>> perSlot(1);
            TeacherRecorder recorder(makeScheduler("best-config-window-nocap", config),
                                     "best-config-window-nocap", spec,
                                     [&](Sample x) {
                                         if (x.action == 3 * x.rows) {
                                             perSlot.emplace_back();
                                             return;
                                         }
                                         const int row = x.action / 3;
                                         if (perSlot.back().empty() || perSlot.back().back() != row)
                                             perSlot.back().push_back(row);
                                     },
                                     order, "sequence");
            Simulator sim(sc.cluster, profiles, sc.trace(profiles, 3), sc.simulation);
            for (int slot = 0; slot < 30 && !sim.done(); ++slot)
                sim.step(recorder);
            return perSlot;
        };
        int shuffled = 0, slotsWithJobs = 0;
        for (const std::string order : {"arrival", "random-jobs"}) {
            for (const std::vector<int> &rows : blocks(order)) {
                // Each job's tasks in one run: no position comes back.
                std::vector<int> sorted = rows;
                std::sort(sorted.begin(), sorted.end());
                QVERIFY2(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), order.c_str());
                if (order == "arrival") {
                    QVERIFY(std::is_sorted(rows.begin(), rows.end()));
                } else if (rows.size() > 2) {
                    ++slotsWithJobs;
                    shuffled += std::is_sorted(rows.begin(), rows.end()) ? 0 : 1;
                }
            }
        }
        qInfo("random-jobs: %d of %d slots with 3+ jobs replayed out of arrival order", shuffled, slotsWithJobs);
        QVERIFY(slotsWithJobs >= 10);
        QVERIFY(shuffled > slotsWithJobs / 2);
    }

    // A student with its own window J (`dl2 train sl --window J`): the window teachers it
    // learns from and is measured against restrict the same J, not the scenario's.
    void windowTeacherFollowsTheStudentsWindow()
    {
        QTemporaryDir dir;
        SlOptions o;
        o.scenario = "dl2-small"; // window 20
        o.teacher = "best-config-window-nocap";
        o.kind = PolicyKind::Dl2;
        o.spec = defaultSpec(PolicyKind::Dl2, 4, 8);
        o.steps = 2;
        o.validateEvery = 2;
        o.validationSeeds = {100};
        o.output = dir.path().toStdString() + "/w4.dl2ckpt";
        const TrainResult r = SlTrainer(o).run();
        Scenario narrow = scenarioByName("dl2-small");
        narrow.window = 4;
        const double atFour = evaluateScheduler(narrow, "best-config-window-nocap", {100}, 1);
        const double atTwenty =
            evaluateScheduler(scenarioByName("dl2-small"), "best-config-window-nocap", {100}, 1);
        qInfo("best-config-window-nocap on dl2-small seed 100: window 4 %.2f, window 20 %.2f",
              atFour, atTwenty);
        QVERIFY(atFour > atTwenty * 1.05); // the window binds: J matters
        QCOMPARE(r.teacherValidationAvgJct, atFour);
        QCOMPARE(readCheckpoint(o.output).spec.window, 4);
    }

    // `--tie-window`: trained tied, the flat network computes the same function of every
    // window position (permuting the jobs permutes the logits, the stop logit stays); tied
    // only for the first updates, then free, it no longer does.
    void tiedWindowIsEquivariant()
    {
        QTemporaryDir dir;
        const auto largestBreak = [&](long long tieSteps) {
            SlOptions o = windowWarmUp(tieSteps, 30, dir.path().toStdString() + "/tie" + std::to_string(tieSteps) + ".dl2ckpt");
            o.teacherOrder = "share";
            SlTrainer(o).run();
            const Checkpoint c = readCheckpoint(o.output);
            // The file says how it was trained (dl2 policy show: "tie_window", "labels").
            if (c.info.tieWindowSteps != tieSteps || c.info.slLabels != "multi" || c.info.teacherOrder != "share")
                return -1.0f;
            const std::string what = "SL tied for " + std::to_string(tieSteps) + " of 30 updates";
            return permutationBreak(c, what.c_str());
        };
        const float tied = largestBreak(-1);
        QVERIFY(tied >= 0.0f && tied < 1e-5);
        QVERIFY(largestBreak(10) > 1e-3);
        QVERIFY(largestBreak(0) > 1e-3); // the paper's network, never tied
    }

    // --tie-init job: a fresh tied network's own-position weights and biases start at a
    // per-job network's scale, sqrt(flat fan-in / the position's fan-in) times the "layer"
    // start's, the pooled ones as before; still equivariant; recorded, and refused where
    // nothing fresh is tied.
    void tieInitJobStartsEachPositionAtPerJobScale()
    {
        const PolicySpec spec = defaultSpec(PolicyKind::Dl2, 20, 8);
        const int J = spec.window, d = spec.jobDim(), u1 = spec.hidden1 / J, g1 = spec.hidden1 - J * u1;
        Learner layer(spec, 1e-3, 3), job(spec, 1e-3, 3);
        layer.setTiedWindow(true);
        job.setTiedWindow(true, true);
        const auto a = layer.parameters(), b = job.parameters();
        const auto &w1a = a->at("policy.fc1.weight").data, &w1b = b->at("policy.fc1.weight").data;
        const auto &w2a = a->at("policy.fc2.weight").data, &w2b = b->at("policy.fc2.weight").data;
        // Unit 0 is position 0's first own unit; input 0 is position 0's first feature, input
        // d position 1's (another position's: 0 in both); layer 2's input 0 is an own unit.
        QCOMPARE(w1b[0], float(w1a[0] * std::sqrt(double(J * d) / d)));
        QCOMPARE(w1a[size_t(d)], 0.0f);
        QCOMPARE(w1b[size_t(d)], 0.0f);
        QCOMPARE(w2b[0], float(w2a[0] * std::sqrt(double(spec.hidden1) / (u1 + g1))));
        const size_t globalUnit = size_t(J * u1); // a global unit's pooled weights are unchanged
        QCOMPARE(w1b[globalUnit * size_t(J * d)], w1a[globalUnit * size_t(J * d)]);
        QCOMPARE(a->at("policy.fc1.bias").data[0] * float(std::sqrt(double(J))), b->at("policy.fc1.bias").data[0]);

        QTemporaryDir dir;
        SlOptions o = windowWarmUp(-1, 10, dir.path().toStdString() + "/job.dl2ckpt");
        o.tieInit = "job";
        SlTrainer(o).run();
        const Checkpoint c = readCheckpoint(o.output);
        QCOMPARE(c.info.tieInit, std::string("job"));
        bool shown = false; // dl2 policy show and the Training page's recipe
        for (const RecipeItem &item : trainingRecipe(c.info))
            shown = shown || (item.first == QLatin1String("tie_init") && item.second.toString() == QLatin1String("job"));
        QVERIFY(shown);
        QVERIFY(permutationBreak(c, "SL tied with --tie-init job") < 1e-5f);
        // Resumed with its options, it goes on (the tied weights are kept, not started again).
        o.resume = o.output;
        o.steps = 12;
        SlTrainer(o).run();
        QCOMPARE(readCheckpoint(o.output + ".resume").info.resume.step, 12LL);
        o.resume.clear();
        o.tieWindowSteps = 0;
        QVERIFY_THROWS_EXCEPTION(Error, SlTrainer(o).run());
        o.tieWindowSteps = -1;
        o.tieInit = "wide";
        QVERIFY_THROWS_EXCEPTION(Error, SlTrainer(o).run());
    }

    // `dl2 train rl --tie-window`: the actor-critic keeps a tied warm-up tied (without it the
    // first updates untie it), and refuses a warm-up that was not tied throughout.
    void tiedActorCriticStaysEquivariant()
    {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString();
        const auto warmUp = [&](long long tieSteps, const std::string &name) {
            const SlOptions o = windowWarmUp(tieSteps, 20, path + "/" + name);
            SlTrainer(o).run();
            return o.output;
        };
        const std::string tied = warmUp(-1, "tied.dl2ckpt"), untied = warmUp(0, "untied.dl2ckpt");
        {
            // Tying a tied warm-up keeps what it learned. After many updates its weights differ
            // from their class means in the last bits (Adam's vectorised and scalar loops round
            // differently; 3e-7 in a 300-update dl2-reference warm-up), which once started it
            // again from one entry of each class.
            Checkpoint c = readCheckpoint(tied);
            auto drifted = std::make_shared<ParameterSet>(*c.parameters);
            Rng rng(5);
            for (auto &[name, t] : *drifted)
                for (float &w : t.data)
                    w += float((rng.uniform() - 0.5) * 6e-7);
            c.parameters = drifted;
            Learner learner(c, 1e-4, false);
            learner.setTiedWindow(true);
            const auto after = learner.parameters();
            for (const auto &[name, before] : *c.parameters) {
                float change = 0.0f, scale = 0.0f;
                for (size_t i = 0; i < before.data.size(); ++i) {
                    change = std::max(change, std::abs(before.data[i] - after->at(name).data[i]));
                    scale = std::max(scale, std::abs(before.data[i]));
                }
                QVERIFY2(change <= 1e-5f * std::max(1.0f, scale), name.c_str());
            }
        }
        const auto actorCritic = [&](const std::string &init, bool tie, const std::string &name) {
            RlOptions o = smallActorCritic(init, path + "/" + name);
            o.criticWarmup = 5;
            o.steps = 30;
            o.validateEvery = 30;
            o.tieWindow = tie;
            RlTrainer(o).run();
            return readCheckpoint(o.output);
        };
        const Checkpoint kept = actorCritic(tied, true, "rl-tied.dl2ckpt");
        QCOMPARE(kept.info.tieWindowSteps, -1LL); // a later run can start tied from it
        QVERIFY(permutationBreak(kept, "actor-critic with --tie-window") < 1e-5);
        const Checkpoint freed = actorCritic(tied, false, "rl-free.dl2ckpt");
        QCOMPARE(freed.info.tieWindowSteps, 0LL);
        QVERIFY(permutationBreak(freed, "actor-critic without it") > 1e-3);
        try {
            actorCritic(untied, true, "refused.dl2ckpt");
            QFAIL("an untied warm-up was tied");
        } catch (const Error &e) {
            QVERIFY2(std::string(e.what()).find("was not trained with its window's weights tied") !=
                         std::string::npos,
                     e.what());
        }
    }

    // `dl2 train rl --tie-window --type-step-scale X --count-step-scale Y`: on the first
    // update (Adam's first step has the same size for every weight with a gradient), the
    // weights from each position's type one-hot to its own layer-1 units move exactly X times
    // as far, those from its per-type count bits Y times, every other weight the same.
    void typeStepScaleMovesOnlyTheTypePathFaster()
    {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString();
        SlOptions warm = windowWarmUp(-1, 20, path + "/tied.dl2ckpt");
        PolicySpec perType = defaultSpec(PolicyKind::Dl2, scenarioByName("dl2-small").window, 8);
        perType.features.counts = CountFeatures::PerType;
        warm.spec = perType;
        SlTrainer(warm).run();
        const Checkpoint start = readCheckpoint(warm.output);
        const auto oneUpdate = [&](double typeScale, double countScale, bool tie, const std::string &name) {
            RlOptions o = smallActorCritic(warm.output, path + "/" + name);
            o.criticWarmup = 0;
            o.steps = 1;
            o.validateEvery = 1;
            o.tieWindow = tie;
            o.typeStepScale = typeScale;
            o.countStepScale = countScale;
            RlTrainer(o).run();
            return readCheckpoint(o.output + ".resume"); // the latest weights, not the best
        };
        const Checkpoint plain = oneUpdate(1.0, 1.0, true, "plain.dl2ckpt");
        const Checkpoint fast = oneUpdate(10.0, 4.0, true, "fast.dl2ckpt");
        const PolicySpec &spec = start.spec;
        const int J = spec.window, d = spec.jobDim(), u1 = spec.hidden1 / J;
        const int countsFrom = spec.countBitsFrom();
        QVERIFY(d > countsFrom); // the per-type count bits are there
        int moved[2] = {0, 0};   // type one-hot weights, count bit weights that stepped
        for (const auto &[name, before] : *start.parameters) {
            if (name.rfind("policy.", 0) != 0)
                continue;
            const auto &a = plain.parameters->at(name).data, &b = fast.parameters->at(name).data;
            for (size_t e = 0; e < before.data.size(); ++e) {
                const float da = a[e] - before.data[e], db = b[e] - before.data[e];
                const int unit = int(e / size_t(J * d)), input = int(e % size_t(J * d)), feature = input % d;
                const bool own = name == "policy.fc1.weight" && unit < J * u1 && unit / u1 == input / d;
                const int path = !own ? -1 : feature < spec.types ? 0 : feature >= countsFrom ? 1 : -1;
                const float factor = path == 0 ? 10.0f : path == 1 ? 4.0f : 1.0f;
                if (path >= 0 && std::abs(da) > 1e-6f) { // a step (the rest: rounding of the class means)
                    ++moved[path];
                    QVERIFY2(std::abs(db - factor * da) <= 1e-3f * std::abs(factor * da) + 1e-7f,
                             qPrintable(QStringLiteral("weight %1 (feature %2): %3 vs %4").arg(e).arg(feature).arg(db).arg(da)));
                } else {
                    QVERIFY2(std::abs(db - da) <= (path >= 0 ? 1e-5f : 1e-6f),
                             qPrintable(QString::fromStdString(name) + QStringLiteral(" %1: %2 vs %3").arg(e).arg(db).arg(da)));
                }
            }
        }
        QVERIFY(moved[0] >= J * u1); // at least one type weight of every own unit moved
        QVERIFY(moved[1] >= J * u1); // and one count bit weight
        QCOMPARE(fast.info.typeStepScale, 10.0);
        QCOMPARE(fast.info.countStepScale, 4.0);
        int shown = 0; // dl2 policy show, the Training page's recipe, --resume's check
        for (const RecipeItem &item : trainingRecipe(fast.info))
            shown += (item.first == QLatin1String("type_step_scale") && item.second.toDouble() == 10.0) +
                     (item.first == QLatin1String("count_step_scale") && item.second.toDouble() == 4.0);
        QCOMPARE(shown, 2);
        QVERIFY(permutationBreak(fast, "--type-step-scale 10 --count-step-scale 4") < 1e-5f);
        QVERIFY_THROWS_EXCEPTION(Error, oneUpdate(10.0, 1.0, false, "untied.dl2ckpt"));
        QVERIFY_THROWS_EXCEPTION(Error, oneUpdate(1.0, 4.0, false, "untied-counts.dl2ckpt"));
        QVERIFY_THROWS_EXCEPTION(Error, oneUpdate(0.0, 1.0, true, "zero.dl2ckpt"));
    }
};

QTEST_GUILESS_MAIN(TestSlTrainer)
#include "tst_sltrainer.moc"
