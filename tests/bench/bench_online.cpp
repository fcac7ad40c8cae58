// bench_online: dl2 operate with online learning, through the agent (an in-process dl2-agent
// server over gRPC on a simulated cluster), against the same run frozen.
//   - decision latency per slot (snapshot -> the policy's proposals), p50 / p99, learning off
//     and on (the learner trains in its own thread between slots; target: p99 within 20 %);
//   - reward over slots: the frozen shipped policy as deployed (greedy), and the online run
//     (sampling, updating between slots) with its shadow reference (the frozen policy,
//     sampling on the same live states with the same random numbers).
// Usage: bench_online [--scenario S] [--slots N] [--updates U] [--json FILE]
// Prints figures and writes JSON; it asserts nothing about time.
#include "benchstats.h"
#include "agentserver.h"
#include "auditlog.h"
#include "checkpoint.h"
#include "decisionlatency.h"
#include "dl2policy.h"
#include "onlineacting.h"
#include "decisiongate.h"
#include "grpcconnector.h"
#include "learner.h"
#include "onlinelearner.h"
#include "operatingloop.h"
#include "policyplanner.h"
#include "registerpolicies.h"
#include "simulatedconnector.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>

using namespace dl2;

namespace {
using dl2bench::percentile;

// The reward the cluster reported for each slot, from the snapshots.
class RewardRecorder final : public SlotObserver
{
public:
    void beforePlan(const ClusterView &view) override
    {
        if (view.nextSlot > 0)
            rewards.push_back(view.reward);
    }
    std::vector<double> rewards;
};

// Forwards to the learner and records the rewards too; times the learner's share of each
// decision (its beforePlan / afterPlan, counted in the loop's snapshot -> proposals time).
class Both final : public SlotObserver
{
public:
    Both(SlotObserver &a, SlotObserver &b) : m_a(a), m_b(b) {}
    void beforeSnapshot() override
    {
        m_a.beforeSnapshot();
        m_b.beforeSnapshot();
    }
    void beforePlan(const ClusterView &v) override
    {
        const auto t0 = std::chrono::steady_clock::now();
        m_a.beforePlan(v);
        observerMs.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
        m_b.beforePlan(v);
    }
    void afterPlan() override
    {
        const auto t0 = std::chrono::steady_clock::now();
        m_a.afterPlan();
        if (!observerMs.empty())
            observerMs.back() +=
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
        m_b.afterPlan();
    }
    void afterSlot(const ClusterView &v, const std::vector<GateEntry> &e) override
    {
        m_a.afterSlot(v, e);
        m_b.afterSlot(v, e);
    }
    std::vector<double> observerMs;

private:
    SlotObserver &m_a, &m_b;
};

// The learning run's acting policy without a learner: the same sampling policy, reseeded per
// slot as the learner does, never updated (what learning costs beyond sampling).
class Reseeder final : public SlotObserver
{
public:
    explicit Reseeder(Dl2Policy &policy) : m_policy(policy) {}
    void beforePlan(const ClusterView &view) override
    {
        m_policy.reseed(onlineSlotSeed(1, view.nextSlot));
        rewards.beforePlan(view);
    }
    RewardRecorder rewards;

private:
    Dl2Policy &m_policy;
};

QJsonArray array(const std::vector<double> &v)
{
    QJsonArray a;
    for (double x : v)
        a.append(x);
    return a;
}

struct Result
{
    OperateSummary operate;
    std::vector<double> rewards;
    std::optional<OnlineSummary> learning;
    std::vector<double> learnerMs; // the learner's share of each decision
    decisionlatency::Summary inference; // of every plan of a learned policy in the run
};

enum class Mode { Frozen, Sampling, Learning };

Result run(const std::string &scenario, int slotCount, Mode mode, int updates,
           const QTemporaryDir &dir)
{
    const bool learn = mode == Mode::Learning;
    SimulatedConnector backend(scenario, 1);
    AgentServerOptions so;
    so.token = "bench";
    AgentServer server(backend, so);
    server.start();
    GrpcConnectorOptions co;
    co.address = "127.0.0.1:" + std::to_string(server.port());
    co.token = "bench";
    GrpcConnector agent(co);
    const std::string tag = learn ? "online" : mode == Mode::Sampling ? "sampling" : "frozen";
    AuditLog audit(dir.filePath(QString::fromStdString(tag + ".db")).toStdString());
    SchedulerConfig config;
    config.scenario = scenario;
    std::unique_ptr<OnlineLearner> learner;
    std::unique_ptr<PolicyPlanner> planner;
    std::unique_ptr<Reseeder> reseeder;
    if (mode == Mode::Sampling) {
        auto acting = makeOnlineActingPolicy(
            readCheckpoint(shippedPolicyPath(PolicyKind::Dl2Plus, scenario)), 1);
        reseeder = std::make_unique<Reseeder>(*acting);
        planner = std::make_unique<PolicyPlanner>(std::move(acting), ProfileSet::reference());
    } else if (learn) {
        OnlineOptions o;
        o.init = shippedPolicyPath(PolicyKind::Dl2Plus, scenario);
        o.directory = dir.filePath(QStringLiteral("learn")).toStdString();
        o.updatesPerSlot = updates;
        learner = std::make_unique<OnlineLearner>(o, &audit);
        planner = std::make_unique<PolicyPlanner>(learner->takeActingPolicy(),
                                                  ProfileSet::reference());
        learner->setPlanner(planner.get());
    } else {
        planner = std::make_unique<PolicyPlanner>("dl2-plus", config);
    }
    DecisionGate gate({});
    OperatingLoop loop(agent, *planner, gate, audit);
    RewardRecorder rewards;
    std::unique_ptr<Both> both;
    if (learner) {
        both = std::make_unique<Both>(*learner, rewards);
        loop.setSlotObserver(both.get());
    } else if (reseeder) {
        loop.setSlotObserver(reseeder.get());
    } else {
        loop.setSlotObserver(&rewards);
    }
    Result r;
    decisionlatency::clear();
    r.operate = loop.run(slotCount);
    r.inference = decisionlatency::summary();
    if (learner)
        r.learning = learner->finish();
    r.rewards = reseeder ? reseeder->rewards.rewards : rewards.rewards;
    if (both)
        r.learnerMs = both->observerMs;
    server.shutdown();
    return r;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    registerBaselines();
    registerLearnedPolicies();
    setTorchThreads(1);
    decisionlatency::setEnabled(true);
    std::string scenario = "dl2-reference", jsonPath;
    int slotCount = 80, updates = 4;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--scenario"))
            scenario = args[i + 1].toStdString();
        else if (args[i] == QLatin1String("--slots"))
            slotCount = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--updates"))
            updates = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--json"))
            jsonPath = args[i + 1].toStdString();
        else {
            std::fprintf(stderr, "bench_online: unknown option '%s'\n", qPrintable(args[i]));
            return 2;
        }
    }
    QTemporaryDir dir;
    std::printf("%s, %d slots through the agent (gRPC, in-process server)\n", scenario.c_str(),
                slotCount);
    const Result frozen = run(scenario, slotCount, Mode::Frozen, updates, dir);
    const Result sampling = run(scenario, slotCount, Mode::Sampling, updates, dir);
    const Result online = run(scenario, slotCount, Mode::Learning, updates, dir);
    const size_t n = std::min(frozen.rewards.size(), online.rewards.size());
    auto sum = [&](const std::vector<double> &v) {
        return std::accumulate(v.begin(), v.begin() + std::ptrdiff_t(std::min(n, v.size())), 0.0);
    };
    std::vector<double> reference;
    for (const OnlinePoint &p : online.learning->curve)
        reference.push_back(p.reference);
    const double f50 = percentile(frozen.operate.decisionMs, 0.5),
                 f99 = percentile(frozen.operate.decisionMs, 0.99);
    const double o50 = percentile(online.operate.decisionMs, 0.5),
                 o99 = percentile(online.operate.decisionMs, 0.99);
    const double s50 = percentile(sampling.operate.decisionMs, 0.5),
                 s99 = percentile(sampling.operate.decisionMs, 0.99);
    const double l50 = percentile(online.learnerMs, 0.5), l99 = percentile(online.learnerMs, 0.99);
    std::printf("decision latency per slot (snapshot -> proposals): frozen (greedy, as deployed) "
                "p50 %.2f ms p99 %.2f ms; frozen sampling policy (what learning acts with) p50 "
                "%.2f ms p99 %.2f ms; learning p50 %.2f ms p99 %.2f ms (p99 x%.2f of frozen "
                "sampling, x%.2f of frozen greedy), of which the learner's hooks p50 %.3f ms p99 "
                "%.3f ms\n",
                f50, f99, s50, s99, o50, o99, s99 > 0 ? o99 / s99 : 0.0, f99 > 0 ? o99 / f99 : 0.0,
                l50, l99);
    std::printf("reward over %zu slots: frozen (greedy, as deployed) %.2f; online %.2f; its shadow "
                "reference (frozen, sampled, same states) %.2f\n",
                n, sum(frozen.rewards), sum(online.rewards), sum(reference));
    for (const auto &[name, r] : {std::pair{"frozen", &frozen}, std::pair{"sampling", &sampling},
                                  std::pair{"learning (acting + its shadow reference)", &online}})
        std::printf("  %s: %zu plans, %.0f inferences per plan, per inference p50 %.1f us p99 "
                    "%.1f us; per plan p50 %.2f ms p99 %.2f ms\n",
                    name, r->inference.slotCount,
                    r->inference.slotCount ? double(r->inference.inferences) /
                                                 double(r->inference.slotCount)
                                           : 0.0,
                    r->inference.inferenceP50, r->inference.inferenceP99,
                    r->inference.slotP50 / 1000.0, r->inference.slotP99 / 1000.0);
    const OnlineSummary &l = *online.learning;
    std::printf("learning: %d versions, %d adopted, %d late, %d rollbacks, decisions waited %.0f "
                "ms in all for updates\n",
                l.versions, l.adopted, l.lateUpdates, l.rollbacks, l.waitedMs);
    QJsonObject out;
    out.insert(QStringLiteral("scenario"), QString::fromStdString(scenario));
    out.insert(QStringLiteral("slots"), int(n));
    out.insert(QStringLiteral("updates_per_slot"), updates);
    QJsonObject fz;
    fz.insert(QStringLiteral("decision_ms_p50"), f50);
    fz.insert(QStringLiteral("decision_ms_p99"), f99);
    fz.insert(QStringLiteral("reward_sum"), sum(frozen.rewards));
    fz.insert(QStringLiteral("rewards"), array(frozen.rewards));
    out.insert(QStringLiteral("frozen"), fz);
    QJsonObject sa;
    sa.insert(QStringLiteral("decision_ms_p50"), s50);
    sa.insert(QStringLiteral("decision_ms_p99"), s99);
    sa.insert(QStringLiteral("reward_sum"), sum(sampling.rewards));
    out.insert(QStringLiteral("frozen_sampling"), sa);
    QJsonObject on = l.toJson();
    on.remove(QStringLiteral("curve"));
    on.insert(QStringLiteral("decision_ms_p50"), o50);
    on.insert(QStringLiteral("decision_ms_p99"), o99);
    on.insert(QStringLiteral("learner_hooks_ms_p50"), l50);
    on.insert(QStringLiteral("learner_hooks_ms_p99"), l99);
    on.insert(QStringLiteral("reward_sum"), sum(online.rewards));
    on.insert(QStringLiteral("reference_reward_sum"), sum(reference));
    on.insert(QStringLiteral("rewards"), array(online.rewards));
    on.insert(QStringLiteral("reference_rewards"), array(reference));
    out.insert(QStringLiteral("online"), on);
    out.insert(QStringLiteral("p99_ratio"), s99 > 0 ? o99 / s99 : 0.0);
    out.insert(QStringLiteral("p99_ratio_vs_greedy"), f99 > 0 ? o99 / f99 : 0.0);
    const QByteArray json = QJsonDocument(out).toJson(QJsonDocument::Indented);
    if (!jsonPath.empty()) {
        QFile f(QString::fromStdString(jsonPath));
        if (!f.open(QIODevice::WriteOnly) || f.write(json) != json.size()) {
            std::fprintf(stderr, "bench_online: cannot write '%s'\n", jsonPath.c_str());
            return 2;
        }
    }
    std::printf("%s", json.left(0).constData());
    return 0;
}
