// Benchmark of the learned scheduler (prints figures; not a test):
//   - decision latency per inference and per slot (p50/p99) of dl2 and dl2-plus on a
//     500-node dl2-reference trace (shipped policy if built in, otherwise random weights of
//     the same size: the cost does not depend on the weights);
//   - SL warm-up time until the greedy policy is within 5% of its teacher's validation JCT;
//   - the training pipeline against Optimus on dl2-contended (where Optimus can be beaten; on
//     dl2-reference with the fitted speeds it sits on the lower bound): dl2-plus SL warm-up,
//     then RL by evolution strategies; the wall time until the policy's validation JCT is
//     below Optimus', and what RL adds on top of SL.
// Usage: bench_learning [--json FILE] [--seed N] [--no-rl]
#include "checkpoint.h"
#include "decisionlatency.h"
#include "dl2policy.h"
#include "learner.h"
#include "modelprofile.h"
#include "registerpolicies.h"
#include "rltrainer.h"
#include "scenario.h"
#include "simulator.h"
#include "sltrainer.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include <cstdio>
#include <cstring>

using namespace dl2;

namespace {

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

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    std::string json;
    std::uint64_t seed = 1;
    bool rl = true;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--no-rl"))
            rl = false;
        else if (!std::strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = std::strtoull(argv[++i], nullptr, 10);
    }
    setTorchThreads(1);
    QJsonObject root;
    root[QStringLiteral("latency_dl2")] = latency(PolicyKind::Dl2, seed);
    root[QStringLiteral("latency_dl2_plus")] = latency(PolicyKind::Dl2Plus, seed);
    root[QStringLiteral("sl_dl2_drf")] = slToTeacher(PolicyKind::Dl2, "drf");
    root[QStringLiteral("sl_dl2_plus_optimus")] = slToTeacher(PolicyKind::Dl2Plus, "optimus");
    if (rl)
        root[QStringLiteral("pipeline_vs_optimus")] = pipelineVsOptimus();
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
