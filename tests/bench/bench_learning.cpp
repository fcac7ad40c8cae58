// Benchmark of the learned scheduler (prints figures; not a test):
//   - decision latency per inference and per slot (p50/p99) of dl2 and dl2-plus on a
//     500-node dl2-reference trace (shipped policy if built in, otherwise random weights of
//     the same size: the cost does not depend on the weights);
//   - SL warm-up time until the greedy policy is within 5% of its teacher's validation JCT;
//   - the training pipeline against Optimus on dl2-contended (where Optimus can be beaten; on
//     dl2-reference with the fitted speeds it sits on the lower bound): dl2-plus SL warm-up,
//     then RL by evolution strategies; the wall time until the policy's validation JCT is
//     below Optimus', and what RL adds on top of SL.
//   - --rl-vs-control: the paper's actor-critic on dl2-reference (measured-speed default)
//     from an SL checkpoint (--init CKPT, or a DRF-taught warm-up it trains first), the real
//     run and a shuffled-advantage control side by side on the two cores for --minutes M
//     each; validation JCT (the deployed, sampled policy) over wall time for both.
//   - --window-ceiling: what the faithful dl2 can reach at best within its own rules (a window
//     of the first J unfinished jobs, one bundle for every other job): the window teachers
//     (optimus-window-*, best-config-window-*, windowteacher.h) next to DRF, Optimus and
//     best-config on dl2-reference, validation seeds 100-109 and test seeds 1-10, and the
//     best of them with windows of 50-80; --rollout adds that teacher improved by one step of
//     clairvoyant rollout (rolloutTeacherJct), test seeds only.
// Usage: bench_learning [--json FILE] [--seed N] [--no-rl]
//   - --credit-signal: how much one slot's allocation tells about the JCT still to come
//     (measureCreditSignal, rltrainer.h) at the paper's DRF warm-up (trained first) and at
//     --init CKPT if given, dl2-reference, 8 branches per slot (4 allocations x 2 random
//     streams for the rest of the run), --slots N consecutive slots (default 150).
//        bench_learning --window-ceiling [--rollout] [--json FILE]
//        bench_learning --credit-signal [--init CKPT] [--slots N] [--json FILE]
//        bench_learning --rl-vs-control [--init CKPT] [--minutes M] [--credit split|slot|episode|episode-job]
//                       [--exploration paper|reference] [--task-credit progress|remaining]
//                       [--speed-table FILE] [--out DIR] [--json FILE]
//   - --imitation-gap --init CKPT: where a dl2 student's allocations differ from its window
//     teacher's on its own slots, and which of its decisions the JCT gap is in (imitationgap.h).
//        bench_learning --imitation-gap --init CKPT [--json FILE]
//   - --ablations: the paper's ablation table (no-value, no-exploration, no-replay,
//     per-action-reward) against the full actor-critic, --steps N updates each from one warm-up.
//        bench_learning --ablations [--init CKPT] [--steps N] [--exploration paper|reference]
//                       [--task-credit progress|remaining] [--out DIR] [--json FILE]
#include "checkpoint.h"
#include "decisionlatency.h"
#include "imitationgap.h"
#include "dl2policy.h"
#include "learner.h"
#include "modelprofile.h"
#include "registerpolicies.h"
#include "rltrainer.h"
#include "scenario.h"
#include "simulator.h"
#include "sltrainer.h"
#include "speed/measurements.h"
#include "windowteacher.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>

using namespace dl2;

namespace {

constexpr const char *kUsage =
    "Usage: bench_learning [--json FILE] [--seed N] [--no-rl]\n"
    "         latency of dl2 / dl2-plus, SL time to the teacher, SL + ES against Optimus\n"
    "       bench_learning --rl-vs-control [--init CKPT] [--minutes M] [--exploration paper|reference]\n"
    "                      [--credit split|slot|episode|episode-job] [--task-credit progress|remaining]\n"
    "                      [--speed-table FILE] [--out DIR]\n"
    "         the actor-critic and its shuffled-advantage control side by side\n"
    "       bench_learning --ablations [--init CKPT] [--steps N] [--exploration paper|reference]\n"
    "                      [--task-credit progress|remaining] [--speed-table FILE] [--out DIR]\n"
    "         the paper's ablation table: full, no-value, no-exploration, no-replay,\n"
    "         per-action-reward, N updates each (default 1500) from one warm-up\n"
    "       bench_learning --window-ceiling [--rollout]\n"
    "         the window teachers: what dl2 can reach within its own rules (and wider windows);\n"
    "         --rollout adds the best teacher improved by clairvoyant rollout (about 10 min)\n"
    "       bench_learning --credit-signal [--init CKPT] [--slots N]\n"
    "         how much one slot's allocation tells about the JCT still to come\n"
    "       bench_learning --imitation-gap --init CKPT\n"
    "         a dl2 student against its window teacher: allocations compared, mixed replays\n"
    "Without --init, the RL modes first train the paper's warm-up (SL on DRF, 300 steps).\n"
    "Every mode writes its figures to --json FILE as well.\n";

QJsonObject latency(PolicyKind kind, std::uint64_t seed)
{
    const Scenario &sc = scenarioByName("dl2-reference");
    const ProfileSet profiles = ProfileSet::reference();
    PolicySpec spec = defaultSpec(kind, sc.window, profiles.size());
    std::shared_ptr<const ParameterSet> params;
    std::string source = "random weights";
    try {
        const Checkpoint c = readCheckpoint(shippedPolicyPath(kind, sc.name), kind);
        spec = c.spec;
        params = c.parameters;
        source = c.origin;
    } catch (const std::exception &) {
        params = std::make_shared<const ParameterSet>(initialParameters(spec, 1));
    }
    Dl2Policy policy(spec, params, seed);
    Simulator sim(sc.cluster, profiles, sc.trace(profiles, seed), sc.simulation);
    decisionlatency::clear();
    decisionlatency::setEnabled(true);
    const RunResult r = runSimulation(sim, policy);
    decisionlatency::setEnabled(false);
    const auto s = decisionlatency::summary();
    std::printf("%-9s (%s): per inference p50 %.1f us p99 %.1f us mean %.1f us (%zu); per 500-node slot "
                "p50 %.2f ms p99 %.2f ms max %.2f ms (%zu slots); avg JCT %.2f\n",
                toString(kind), source.c_str(), s.inferenceP50, s.inferenceP99, s.inferenceMean,
                s.inferences, s.slotP50 / 1000, s.slotP99 / 1000, s.slotMax / 1000, s.slotCount, r.avgJct);
    QJsonObject o;
    o[QStringLiteral("weights")] = QString::fromStdString(source);
    o[QStringLiteral("inference_p50_us")] = s.inferenceP50;
    o[QStringLiteral("inference_p99_us")] = s.inferenceP99;
    o[QStringLiteral("inference_mean_us")] = s.inferenceMean;
    o[QStringLiteral("inferences")] = double(s.inferences);
    o[QStringLiteral("slot_p50_us")] = s.slotP50;
    o[QStringLiteral("slot_p99_us")] = s.slotP99;
    o[QStringLiteral("slot_max_us")] = s.slotMax;
    o[QStringLiteral("slots")] = double(s.slotCount);
    return o;
}

QJsonObject slToTeacher(PolicyKind kind, const char *teacher)
{
    SlOptions o;
    o.scenario = "dl2-small";
    o.teacher = teacher;
    o.kind = kind;
    o.steps = 400;
    o.validateEvery = 20;
    o.validationSeeds = {100, 101, 102};
    const TrainResult r = SlTrainer(o).run();
    std::printf("SL %s <- %s on dl2-small: teacher val JCT %.2f, best %.2f at step %lld, within 5%% after %.1f s, "
                "agreement %.3f (chance %.3f)\n",
                toString(kind), teacher, r.teacherValidationAvgJct, r.bestValidationAvgJct, r.bestStep,
                r.secondsToTeacher5, r.agreement, r.chanceAgreement);
    QJsonObject j;
    j[QStringLiteral("teacher")] = QString::fromLatin1(teacher);
    j[QStringLiteral("teacher_validation_avg_jct")] = r.teacherValidationAvgJct;
    j[QStringLiteral("best_validation_avg_jct")] = r.bestValidationAvgJct;
    j[QStringLiteral("best_step")] = double(r.bestStep);
    j[QStringLiteral("seconds_to_within_5pct")] = r.secondsToTeacher5;
    j[QStringLiteral("agreement")] = r.agreement;
    j[QStringLiteral("chance_agreement")] = r.chanceAgreement;
    return j;
}

QJsonObject pipelineVsOptimus()
{
    const Scenario &scenario = scenarioByName("dl2-contended");
    const std::vector<std::uint64_t> validation = {100, 101, 102};
    const double optimus = evaluateScheduler(scenario, "optimus", validation, 2);
    QTemporaryDir dir;
    double beatAt = -1.0;
    SlOptions sl;
    sl.scenario = scenario.name;
    sl.teacher = "optimus";
    sl.teacherOrder = "share";
    sl.kind = PolicyKind::Dl2Plus;
    sl.steps = 500;
    sl.validateEvery = 100;
    sl.validationSeeds = validation;
    sl.threads = 2;
    sl.saveOptimizer = false;
    sl.output = dir.path().toStdString() + "/sl.dl2ckpt";
    const TrainResult s = SlTrainer(sl).run([&](long long, long long, const CurvePoint &p) {
        if (beatAt < 0 && p.validationAvgJct > 0 && p.validationAvgJct < optimus)
            beatAt = p.seconds;
    });
    const double slSeconds = s.curve.empty() ? 0.0 : s.curve.back().seconds;

    RlOptions es;
    es.algorithm = "es";
    es.scenario = scenario.name;
    es.init = sl.output;
    es.kind = PolicyKind::Dl2Plus;
    es.esSigma = 0.1;
    es.learningRate = 0.02;
    es.steps = 20;
    es.validateEvery = 5;
    es.validationSeeds = validation;
    es.threads = 2;
    es.output = dir.path().toStdString() + "/es.dl2ckpt";
    const TrainResult r = RlTrainer(es).run([&](long long, long long, const CurvePoint &p) {
        if (beatAt < 0 && p.validationAvgJct > 0 && p.validationAvgJct < optimus)
            beatAt = slSeconds + p.seconds;
    });
    const double esSeconds = r.curve.empty() ? 0.0 : r.curve.back().seconds;
    std::printf("dl2-contended, validation seeds 100-102: optimus %.2f; dl2-plus SL (500 steps, %.0f s) %.2f; "
                "+ ES (20 iterations, %.0f s) %.2f (%+.1f%% from RL); below optimus after %s\n",
                optimus, slSeconds, s.bestValidationAvgJct, esSeconds, r.bestValidationAvgJct,
                100.0 * (r.bestValidationAvgJct / s.bestValidationAvgJct - 1.0),
                beatAt < 0 ? "never (not reached)" : (std::to_string(int(beatAt)) + " s").c_str());
    QJsonObject j;
    j[QStringLiteral("scenario")] = QString::fromStdString(scenario.name);
    j[QStringLiteral("optimus_validation_avg_jct")] = optimus;
    j[QStringLiteral("sl_best_validation_avg_jct")] = s.bestValidationAvgJct;
    j[QStringLiteral("sl_seconds")] = slSeconds;
    j[QStringLiteral("es_best_validation_avg_jct")] = r.bestValidationAvgJct;
    j[QStringLiteral("es_seconds")] = esSeconds;
    j[QStringLiteral("seconds_to_beat_optimus")] = beatAt;
    return j;
}

// What the RL modes (--rl-vs-control, --ablations) take from the command line.
struct RlBenchOptions
{
    std::string init;
    std::string out;
    double minutes = 60.0;
    std::string credit = "split";
    std::string speedTable; // measured speeds (exact RBF) instead of the scenario's default
    std::uint64_t seed = 1;
    Exploration exploration = Exploration::Paper;
    std::string taskCredit = "progress"; // split credit's task term (rltrainer.h)
};

// The paper's warm-up: supervised learning on DRF's decisions, 300 steps, as DIR/sl-drf.dl2ckpt.
std::string drfWarmUp(const std::string &dir, const ProfileSet &profiles,
                      const std::vector<std::uint64_t> &validation)
{
    SlOptions sl;
    sl.scenario = "dl2-reference";
    sl.teacher = "drf";
    sl.kind = PolicyKind::Dl2;
    sl.steps = 300;
    sl.validateEvery = 100;
    sl.validationSeeds = validation;
    sl.profiles = profiles;
    sl.output = dir + "/sl-drf.dl2ckpt";
    std::printf("training the SL warm-up (DRF teacher, 300 steps) ...\n");
    std::fflush(stdout);
    SlTrainer(sl).run();
    return sl.output;
}

// The paper's actor-critic with the defaults (split credit) on dl2-reference from `init`,
// validated every 100 updates on `validation` (the deployed, sampled policy).
RlOptions actorCritic(const std::string &init, const ProfileSet &profiles,
                      const std::vector<std::uint64_t> &validation, const RlBenchOptions &options,
                      const std::string &output)
{
    RlOptions o;
    o.exploration = options.exploration;
    o.taskCredit = options.taskCredit;
    o.scenario = "dl2-reference";
    o.init = init;
    o.kind = PolicyKind::Dl2;
    o.profiles = profiles;
    o.validateEvery = 100;
    o.validationSeeds = validation;
    o.seed = options.seed;
    o.output = output;
    return o;
}

ProfileSet benchProfiles(const RlBenchOptions &options)
{
    ProfileSet profiles = ProfileSet::reference();
    if (!options.speedTable.empty())
        profiles.useMeasuredSpeeds(readDl2Measurements(options.speedTable), options.speedTable);
    return profiles;
}

QJsonObject rlVsControl(const RlBenchOptions &options)
{
    const std::string scenario = "dl2-reference";
    const std::vector<std::uint64_t> validation = seedRange(100, 104);
    QTemporaryDir tmp;
    const std::string dir = options.out.empty() ? tmp.path().toStdString() : options.out;
    const ProfileSet profiles = benchProfiles(options);
    const std::string init = options.init.empty() ? drfWarmUp(dir, profiles, validation) : options.init;
    const Scenario &sc = scenarioByName(scenario);
    const double drf = evaluateScheduler(sc, profiles, "drf", validation, 2);
    const double optimus = evaluateScheduler(sc, profiles, "optimus", validation, 2);

    struct Run
    {
        const char *name;
        bool control;
        TrainResult result;
        std::atomic<bool> cancel{false};
    };
    Run runs[2] = {{"real", false, {}, {}}, {"control", true, {}, {}}};
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<long long>(options.minutes * 60000.0));
    auto train = [&](Run &run) {
        RlOptions o = actorCritic(init, profiles, validation, options, dir + "/rl-" + run.name + ".dl2ckpt");
        o.credit = options.credit;
        o.control = run.control;
        o.steps = 100000000;
        if (options.credit.rfind("episode", 0) == 0) {
            // An update is 8 whole rollouts of one trace (core/learning/README.md).
            o.envs = 8;
            o.episodeKeep = 0.02;
            o.learningRate = 3e-4;
            o.validateEvery = 25;
        }
        run.result = RlTrainer(o).run(
            [&](long long step, long long, const CurvePoint &p) {
                if (p.validationAvgJct >= 0) {
                    std::printf("%-7s step %6lld  %7.0f s  validation JCT %.2f\n", run.name, step,
                                p.seconds, p.validationAvgJct);
                    std::fflush(stdout);
                }
                if (std::chrono::steady_clock::now() >= deadline)
                    run.cancel = true;
            },
            &run.cancel);
    };
    std::thread other([&] { train(runs[1]); });
    train(runs[0]);
    other.join();

    QJsonObject j;
    j[QStringLiteral("scenario")] = QString::fromStdString(scenario);
    j[QStringLiteral("init")] = QString::fromStdString(init);
    j[QStringLiteral("credit")] = QString::fromStdString(options.credit);
    j[QStringLiteral("task_credit")] = QString::fromStdString(options.taskCredit);
    j[QStringLiteral("exploration")] = QString::fromLatin1(toString(options.exploration));
    j[QStringLiteral("minutes")] = options.minutes;
    j[QStringLiteral("drf_validation_avg_jct")] = drf;
    j[QStringLiteral("optimus_validation_avg_jct")] = optimus;
    for (const Run &run : runs) {
        QJsonArray curve;
        for (const CurvePoint &p : run.result.curve)
            if (p.validationAvgJct >= 0) {
                QJsonObject c;
                c[QStringLiteral("step")] = double(p.step);
                c[QStringLiteral("seconds")] = p.seconds;
                c[QStringLiteral("validation_avg_jct")] = p.validationAvgJct;
                curve.append(c);
            }
        const double start = run.result.curve.empty() ? -1.0 : run.result.curve.front().validationAvgJct;
        const double last = curve.isEmpty() ? -1.0 : curve.last().toObject()[QStringLiteral("validation_avg_jct")].toDouble();
        QJsonObject r;
        r[QStringLiteral("start_validation_avg_jct")] = start;
        r[QStringLiteral("best_validation_avg_jct")] = run.result.bestValidationAvgJct;
        r[QStringLiteral("last_validation_avg_jct")] = last;
        r[QStringLiteral("steps")] = run.result.curve.empty() ? 0.0 : double(run.result.curve.back().step);
        r[QStringLiteral("curve")] = curve;
        j[QString::fromLatin1(run.name)] = r;
        std::printf("%-7s: SL start %.2f -> best %.2f (%+.1f%%), last %.2f, after %.0f steps; "
                    "DRF %.2f, Optimus %.2f (validation seeds 100-104)\n",
                    run.name, start, run.result.bestValidationAvgJct,
                    100.0 * (run.result.bestValidationAvgJct / start - 1.0), last,
                    r[QStringLiteral("steps")].toDouble(), drf, optimus);
    }
    return j;
}

// The paper's ablation table: the actor-critic as we run it ("full") and with one part taken
// out at a time, each for `steps` updates from the same warm-up (--init, or the DRF warm-up
// trained first), two runs at a time on the two cores; the best validation JCT of each and how
// much worse than the full run it is, beside the paper's figure.
// Each row is also one `dl2 train rl --init CKPT --ablation NAME` (core/learning/README.md).
QJsonObject ablationTable(const RlBenchOptions &options, long long steps)
{
    struct Row
    {
        const char *name;   // the --ablation value ("" = the full run)
        double paperWorse;  // the paper's "% worse" (-1: the reference row)
        TrainResult result;
        double explored = -1.0; // mean share of decisions exploration replaced
    };
    std::vector<Row> rows = {{"", -1.0, {}},
                             {"no-value", 21.1, {}},
                             {"no-exploration", 28.8, {}},
                             {"no-replay", 39.6, {}},
                             {"per-action-reward", 29.1, {}}};
    const std::vector<std::uint64_t> validation = seedRange(100, 104);
    QTemporaryDir tmp;
    const std::string dir = options.out.empty() ? tmp.path().toStdString() : options.out;
    const ProfileSet profiles = benchProfiles(options);
    const std::string init = options.init.empty() ? drfWarmUp(dir, profiles, validation) : options.init;
    std::printf("ablations on dl2-reference from %s, %lld updates each, %s exploration rules, "
                "task credit %s, validation seeds 100-104\n",
                init.c_str(), steps, toString(options.exploration), options.taskCredit.c_str());
    std::fflush(stdout);
    std::atomic<size_t> next{0};
    auto worker = [&] {
        for (size_t i = next++; i < rows.size(); i = next++) {
            Row &row = rows[i];
            const std::string name = *row.name ? row.name : "full";
            RlOptions o = actorCritic(init, profiles, validation, options,
                                      dir + "/rl-" + name + ".dl2ckpt");
            o.steps = steps;
            if (*row.name)
                o.ablations = {row.name};
            if (o.ablations == std::vector<std::string>{"per-action-reward"})
                o.taskCredit = "progress"; // that ablation replaces the split credit
            row.result = RlTrainer(o).run();
            double sum = 0.0;
            int n = 0;
            for (const CurvePoint &p : row.result.curve)
                if (p.exploredFraction >= 0) {
                    sum += p.exploredFraction;
                    ++n;
                }
            row.explored = n > 0 ? sum / n : -1.0;
            std::printf("  %-18s done: best %.2f (%.0f s)\n", name.c_str(), row.result.bestValidationAvgJct,
                        row.result.curve.empty() ? 0.0 : row.result.curve.back().seconds);
            std::fflush(stdout);
        }
    };
    std::thread other(worker);
    worker();
    other.join();

    const double start = rows[0].result.curve.empty() ? -1.0 : rows[0].result.curve.front().validationAvgJct;
    const double full = rows[0].result.bestValidationAvgJct;
    std::printf("%-18s %9s %9s %12s %12s %10s\n", "run", "start", "best", "vs full", "paper", "explored");
    QJsonArray out;
    for (const Row &row : rows) {
        const double best = row.result.bestValidationAvgJct;
        const double worse = 100.0 * (best / full - 1.0);
        const std::string name = *row.name ? row.name : "full";
        const std::string paper =
            row.paperWorse < 0 ? "-" : QString::asprintf("%+.1f%%", row.paperWorse).toStdString();
        std::printf("%-18s %9.2f %9.2f %+11.1f%% %12s %9.1f%%\n", name.c_str(), start, best, worse,
                    paper.c_str(), 100.0 * row.explored);
        QJsonObject j;
        j[QStringLiteral("ablation")] = QString::fromStdString(name);
        j[QStringLiteral("start_validation_avg_jct")] = start;
        j[QStringLiteral("best_validation_avg_jct")] = best;
        j[QStringLiteral("best_step")] = double(row.result.bestStep);
        j[QStringLiteral("worse_than_full_pct")] = worse;
        j[QStringLiteral("paper_worse_pct")] = row.paperWorse;
        j[QStringLiteral("explored_fraction")] = row.explored;
        j[QStringLiteral("seconds")] = row.result.curve.empty() ? 0.0 : row.result.curve.back().seconds;
        out.append(j);
    }
    QJsonObject root;
    root[QStringLiteral("init")] = QString::fromStdString(init);
    root[QStringLiteral("steps")] = double(steps);
    root[QStringLiteral("exploration")] = QString::fromLatin1(toString(options.exploration));
    root[QStringLiteral("task_credit")] = QString::fromStdString(options.taskCredit);
    root[QStringLiteral("rows")] = out;
    return root;
}

// measureCreditSignal at the DRF warm-up and at `init` (if given).
QJsonObject creditSignal(const std::string &init, int slotCount)
{
    QTemporaryDir tmp;
    std::vector<std::pair<std::string, std::string>> policies = {
        {"drf-warm-up", drfWarmUp(tmp.path().toStdString(), ProfileSet::reference(), seedRange(100, 104))}};
    if (!init.empty())
        policies.emplace_back(init, init);
    std::printf("credit signal on dl2-reference (measured speeds), %d slots, 4 branch allocations x 2 "
                "random streams per slot\n%-40s %9s %12s %14s %9s\n",
                slotCount, "policy", "branches", "correlation", "sd (job-slots)", "seconds");
    QJsonArray rows;
    for (const auto &[name, path] : policies) {
        RlOptions o;
        o.scenario = "dl2-reference";
        o.init = path;
        o.envs = 8;
        const CreditSignal s = measureCreditSignal(o, slotCount);
        std::printf("%-40s %9d %12.3f %14.1f %9.1f\n", name.c_str(), s.branches, s.correlation,
                    s.deviation, s.seconds);
        std::fflush(stdout);
        QJsonObject row;
        row[QStringLiteral("policy")] = QString::fromStdString(name);
        row[QStringLiteral("branches")] = s.branches;
        row[QStringLiteral("correlation")] = s.correlation;
        row[QStringLiteral("deviation_job_slots")] = s.deviation;
        row[QStringLiteral("seconds")] = s.seconds;
        rows.append(row);
    }
    QJsonObject out;
    out[QStringLiteral("slots")] = slotCount;
    out[QStringLiteral("policies")] = rows;
    return out;
}

// Average JCT of a scheduler made per trace, on dl2-reference's traces firstSeed..lastSeed.
double meanJct(const std::function<std::unique_ptr<Scheduler>()> &make, int firstSeed, int lastSeed)
{
    const Scenario &sc = scenarioByName("dl2-reference");
    const ProfileSet profiles = ProfileSet::reference();
    double sum = 0.0;
    for (int seed = firstSeed; seed <= lastSeed; ++seed) {
        Simulator sim(sc.cluster, profiles, sc.trace(profiles, std::uint64_t(seed)), sc.simulation);
        sum += runSimulation(sim, *make()).avgJct;
    }
    return sum / (lastSeed - firstSeed + 1);
}

// The same for a scheduler by name (the measured-speed default).
double meanJct(const std::string &policy, int firstSeed, int lastSeed)
{
    SchedulerConfig config;
    config.scenario = "dl2-reference";
    return meanJct([&] { return makeScheduler(policy, config); }, firstSeed, lastSeed);
}

double playToTheEnd(Simulator sim, Scheduler &scheduler)
{
    while (!sim.done())
        sim.step(scheduler);
    return sim.result().avgJct;
}

// best-config-window-25 improved by one step of clairvoyant rollout (the rollout algorithm of
// approximate dynamic programming): each slot, candidate cap decisions are each played to the
// end of the trace with the teacher itself deciding every later slot, and the best candidate
// is taken. The simulation is deterministic and the candidates see the arrivals to come, so
// no policy can count on doing this well; it bounds what search from the best teacher finds
// within dl2's rules. Candidates: the slack (0, 10, 25, 40, 60, 100 % or never cap) for
// the whole slot, or (perJob) the teacher's decision with single jobs' cap decisions reversed,
// the first 60 jobs by arrival, each reversal kept when it helps, two passes.
double rolloutTeacherJct(int seed, bool perJob)
{
    const Scenario &sc = scenarioByName("dl2-reference");
    const ProfileSet profiles = ProfileSet::reference();
    const auto teacher = [&](double slack) {
        return WindowTeacher(sc.window, slack, "best-config-window", "best-config");
    };
    WindowTeacher base = teacher(0.25);
    Simulator sim(sc.cluster, profiles, sc.trace(profiles, std::uint64_t(seed)), sc.simulation);
    const auto score = [&](WindowTeacher &first) {
        Simulator branch = sim;
        branch.step(first);
        return playToTheEnd(std::move(branch), base);
    };
    while (!sim.done()) {
        if (!perJob) {
            double best = 0.0;
            double bestSlack = 0.25;
            for (double slack : {-1e9, 0.0, 0.1, 0.25, 0.4, 0.6, 1.0}) {
                WindowTeacher t = teacher(slack);
                const double jct = score(t);
                if (slack == -1e9 || jct < best - 1e-9) {
                    best = jct;
                    bestSlack = slack;
                }
            }
            WindowTeacher chosen = teacher(bestSlack);
            sim.step(chosen);
            continue;
        }
        std::vector<int> candidates; // arrived (or arriving in the slot to come), unfinished
        for (size_t i = 0; i < sim.jobs().size() && candidates.size() < 60; ++i) {
            const JobState &j = sim.jobs()[i];
            if (j.active() || (j.status == JobStatus::Pending && j.arrivalSlot <= sim.slot()))
                candidates.push_back(int(i));
        }
        WindowTeacher current = teacher(0.25);
        double best = score(current);
        for (int pass = 0; pass < 2; ++pass) {
            bool improved = false;
            for (int job : candidates) {
                std::vector<int> flipped = current.flipped();
                const auto it = std::find(flipped.begin(), flipped.end(), job);
                if (it != flipped.end())
                    flipped.erase(it);
                else
                    flipped.push_back(job);
                WindowTeacher t = teacher(0.25);
                t.setFlipped(flipped);
                const double jct = score(t);
                if (jct < best - 1e-9) {
                    best = jct;
                    current.setFlipped(std::move(flipped));
                    improved = true;
                }
            }
            if (!improved)
                break;
        }
        sim.step(current);
    }
    return sim.result().avgJct;
}

QJsonObject windowCeiling(bool rollout)
{
    registerWindowTeachers();
    registerLearnedPolicies();
    std::printf("policy on dl2-reference (measured speeds)   validation 100-109   test 1-10\n");
    QJsonObject out;
    const auto row = [&](const std::string &name, double val, double test) {
        if (val >= 0.0)
            std::printf("%-40s %10.2f %18.2f\n", name.c_str(), val, test);
        else
            std::printf("%-40s %10s %18.2f\n", name.c_str(), "-", test);
        std::fflush(stdout);
        QJsonObject o;
        if (val >= 0.0)
            o[QStringLiteral("validation_100_109")] = val;
        o[QStringLiteral("test_1_10")] = test;
        out[QString::fromStdString(name)] = o;
    };
    for (const char *policy :
         {"drf", "optimus", "best-config", "dl2", "optimus-window-nocap", "optimus-window-0",
          "optimus-window-50", "best-config-window-nocap", "best-config-window-0",
          "best-config-window-25", "best-config-window-50", "best-config-window-100"})
        row(policy, meanJct(policy, 100, 109), meanJct(policy, 1, 10));
    // The same teachers with a wider window than dl2-reference's 40 (the network would grow
    // with it: J x 13 inputs with the one-hot type, 3 J + 1 actions).
    for (int window : {50, 60, 80}) {
        for (double slack : {-1.0, 0.25}) {
            const auto make = [&]() -> std::unique_ptr<Scheduler> {
                return std::make_unique<WindowTeacher>(window, slack < 0 ? -1e9 : slack, "w",
                                                       "best-config");
            };
            row("best-config-window-" + std::string(slack < 0 ? "nocap" : "25") + ", window " +
                    std::to_string(window),
                meanJct(make, 100, 109), meanJct(make, 1, 10));
        }
    }
    if (rollout) {
        for (const bool perJob : {false, true}) {
            const auto t0 = std::chrono::steady_clock::now();
            double sum = 0.0;
            for (int seed = 1; seed <= 10; ++seed)
                sum += rolloutTeacherJct(seed, perJob);
            row(perJob ? "best-config-window-25 + rollout, per job" : "best-config-window-25 + rollout, slack",
                -1.0, sum / 10);
            std::printf("   (%.0f s)\n",
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            std::fflush(stdout);
        }
    }
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    std::string json;
    std::uint64_t seed = 1;
    bool rl = true;
    bool versusControl = false;
    bool ceiling = false;
    bool rollout = false;
    bool signal = false;
    bool ablations = false;
    bool gap = false;
    long long ablationSteps = 1500;
    int slotCount = 150;
    RlBenchOptions vs;
    for (int i = 1; i < argc; ++i) {
        const bool hasValue = i + 1 < argc;
        if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            std::printf("%s", kUsage);
            return 0;
        } else if (!std::strcmp(argv[i], "--no-rl"))
            rl = false;
        else if (!std::strcmp(argv[i], "--rl-vs-control"))
            versusControl = true;
        else if (!std::strcmp(argv[i], "--window-ceiling"))
            ceiling = true;
        else if (!std::strcmp(argv[i], "--rollout"))
            rollout = true;
        else if (!std::strcmp(argv[i], "--credit-signal"))
            signal = true;
        else if (!std::strcmp(argv[i], "--slots") && hasValue)
            slotCount = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--init") && hasValue)
            vs.init = argv[++i];
        else if (!std::strcmp(argv[i], "--out") && hasValue)
            vs.out = argv[++i];
        else if (!std::strcmp(argv[i], "--speed-table") && hasValue)
            vs.speedTable = argv[++i];
        else if (!std::strcmp(argv[i], "--credit") && hasValue)
            vs.credit = argv[++i];
        else if (!std::strcmp(argv[i], "--minutes") && hasValue)
            vs.minutes = std::strtod(argv[++i], nullptr);
        else if (!std::strcmp(argv[i], "--json") && hasValue)
            json = argv[++i];
        else if (!std::strcmp(argv[i], "--seed") && hasValue)
            seed = std::strtoull(argv[++i], nullptr, 10);
        else if (!std::strcmp(argv[i], "--ablations"))
            ablations = true;
        else if (!std::strcmp(argv[i], "--imitation-gap"))
            gap = true;
        else if (!std::strcmp(argv[i], "--exploration") && hasValue) {
            try {
                vs.exploration = explorationFromString(argv[++i]);
            } catch (const std::exception &e) {
                std::fprintf(stderr, "bench_learning: %s\n", e.what());
                return 2;
            }
        }
        else if (!std::strcmp(argv[i], "--task-credit") && hasValue) {
            vs.taskCredit = argv[++i];
            try {
                checkTaskCredit(vs.taskCredit);
            } catch (const std::exception &e) {
                std::fprintf(stderr, "bench_learning: %s\n", e.what());
                return 2;
            }
        }
        else if (!std::strcmp(argv[i], "--steps") && hasValue)
            ablationSteps = std::strtoll(argv[++i], nullptr, 10);
        else {
            std::fprintf(stderr, "bench_learning: unknown or incomplete argument '%s'\n%s", argv[i], kUsage);
            return 2;
        }
    }
    if (ablationSteps < 1) {
        std::fprintf(stderr, "bench_learning: --steps must be at least 1\n");
        return 2;
    }
    if (vs.taskCredit != "progress" && vs.credit != "split") {
        std::fprintf(stderr, "bench_learning: --task-credit %s applies to --credit split only, not %s\n",
                     vs.taskCredit.c_str(), vs.credit.c_str());
        return 2;
    }
    setTorchThreads(1);
    QJsonObject root;
    if (gap) {
        if (vs.init.empty()) {
            std::fprintf(stderr, "bench_learning: --imitation-gap needs --init CKPT (a dl2 policy)\n");
            return 2;
        }
        try {
            root[QStringLiteral("imitation_gap")] = imitationGap(vs.init);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "bench_learning: %s\n", e.what());
            return 1;
        }
    } else if (ceiling) {
        root[QStringLiteral("window_ceiling")] = windowCeiling(rollout);
    } else if (signal) {
        try {
            root[QStringLiteral("credit_signal")] = creditSignal(vs.init, slotCount);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "bench_learning: %s\n", e.what());
            return 1;
        }
    } else if (ablations) {
        vs.seed = seed;
        try {
            root[QStringLiteral("ablations")] = ablationTable(vs, ablationSteps);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "bench_learning: %s\n", e.what());
            return 1;
        }
    } else if (versusControl) {
        vs.seed = seed;
        try {
            root[QStringLiteral("rl_vs_control")] = rlVsControl(vs);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "bench_learning: %s\n", e.what());
            return 1;
        }
    } else {
        root[QStringLiteral("latency_dl2")] = latency(PolicyKind::Dl2, seed);
        root[QStringLiteral("latency_dl2_plus")] = latency(PolicyKind::Dl2Plus, seed);
        root[QStringLiteral("sl_dl2_drf")] = slToTeacher(PolicyKind::Dl2, "drf");
        root[QStringLiteral("sl_dl2_plus_optimus")] = slToTeacher(PolicyKind::Dl2Plus, "optimus");
        if (rl)
            root[QStringLiteral("pipeline_vs_optimus")] = pipelineVsOptimus();
    }
    if (!json.empty()) {
        QFile f(QString::fromStdString(json));
        if (!f.open(QIODevice::WriteOnly)) {
            std::fprintf(stderr, "bench_learning: cannot write %s\n", json.c_str());
            return 2;
        }
        f.write(QJsonDocument(root).toJson());
    }
    return 0;
}
