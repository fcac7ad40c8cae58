// dl2 evaluate: a learned policy against baselines on held-out traces, with the ratio to each
// baseline and to the lower bound, and the decision latency per inference and per slot.
#include "command.h"
#include "common.h"
#include "progressbar.h"

#include "decisionlatency.h"
#include "dl2policy.h"
#include "error.h"
#include "experiment.h"
#include "registerpolicies.h"

#include <QJsonArray>

#include <cstdio>

namespace dl2::cli {

namespace {

int runEvaluate(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(opt(
        "Evaluate a learned policy (--policy dl2|dl2-plus, --checkpoint FILE or the shipped one) "
        "against baselines on --scenario S --seeds A-B (held-out test seeds, default 1-10 of the "
        "scenario) or --trace FILE..."));
    parser.addHelpOption();
    addSetupOptions(parser, true);
    parser.addOption({opt("policy"), opt("dl2 or dl2-plus (default dl2)."), opt("KIND"), opt("dl2")});
    parser.addOption({opt("baselines"), opt("Comma-separated baselines (default drf,optimus,best-config)."),
                      opt("LIST"), opt("drf,optimus,best-config")});
    parser.addOption({opt("json"), opt("Print JSON: {\"runs\", \"summary\", \"decision_latency_us\"}, with --by-model also \"by_model\".")});
    addByModelOption(parser);
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("evaluate", [&] {
        registerLearnedPolicies();
        const std::string policy = parser.value(opt("policy")).toStdString();
        policyKindFromString(policy);
        Setup setup = buildSetup(parser, true);
        std::vector<std::string> policies{policy};
        for (const auto &b : parseList(parser.value(opt("baselines"))))
            if (b != policy)
                policies.push_back(b);
        ExperimentSetup exp = experimentSetup(setup, std::move(policies));
        exp.schedulerConfig.scenario = setup.scenarioName;
        // Load the checkpoint once up front so a bad file fails before any run.
        makeLearnedPolicy(policyKindFromString(policy), exp.schedulerConfig);
        decisionlatency::clear();
        decisionlatency::setEnabled(true);
        const int total = int(exp.policies.size() * exp.traces.size());
        ProgressBar bar("evaluate", total, "runs");
        const auto result = runExperiment(exp, [&](int done, int) { bar.update(done); });
        bar.finish();
        decisionlatency::setEnabled(false);
        const auto lat = decisionlatency::summary();

        const PolicySummary *mine = nullptr;
        for (const auto &s : result.summary)
            if (s.policy == policy)
                mine = &s;
        if (!mine)
            throw Error("no result for policy " + policy);
        const bool json = parser.isSet(opt("json"));
        const bool byModel = parser.isSet(opt("by-model"));
        const std::vector<ModelBreakdown> models =
            byModel ? breakdownByModel(exp, result) : std::vector<ModelBreakdown>{};
        if (json) {
            const QJsonArray runs = runsToJson(result.runs);
            QJsonObject summary;
            for (const auto &s : result.summary) {
                QJsonObject o = toJson(s);
                if (s.policy == policy) {
                    QJsonObject ratios;
                    for (const auto &b : result.summary)
                        if (b.policy != policy && b.meanAvgJct > 0)
                            ratios[QString::fromStdString(b.policy)] = mine->meanAvgJct / b.meanAvgJct;
                    o[opt("ratio_to_baseline")] = ratios;
                }
                summary[QString::fromStdString(s.policy)] = o;
            }
            QJsonObject latency;
            latency[opt("p50")] = lat.inferenceP50;
            latency[opt("p99")] = lat.inferenceP99;
            latency[opt("mean")] = lat.inferenceMean;
            latency[opt("slot_p50")] = lat.slotP50;
            latency[opt("slot_p99")] = lat.slotP99;
            latency[opt("inferences")] = double(lat.inferences);
            latency[opt("slots")] = double(lat.slotCount);
            QJsonObject root;
            root[opt("scenario")] = QString::fromStdString(setup.scenarioName);
            root[opt("policy")] = QString::fromStdString(policy);
            root[opt("checkpoint")] = QString::fromStdString(
                setup.schedulerConfig.checkpoint.empty()
                    ? shippedPolicyPath(policyKindFromString(policy), setup.scenarioName,
                                        setup.schedulerConfig.measuredSpeeds)
                    : setup.schedulerConfig.checkpoint);
            root[opt("runs")] = runs;
            root[opt("summary")] = summary;
            root[opt("decision_latency_us")] = latency;
            if (byModel)
                root[opt("by_model")] = modelBreakdownToJson(models, exp.policies);
            printJson(root);
            return 0;
        }
        std::string title = setup.scenarioName.empty()
                                ? std::to_string(exp.traces.size()) + " trace file(s)"
                                : setup.scenarioName + ", " + std::to_string(exp.traces.size()) + " seed(s)";
        printComparisonTable(result.summary, title);
        std::printf("\n%s: mean avg JCT %.3f slots\n", policy.c_str(), mine->meanAvgJct);
        for (const auto &b : result.summary)
            if (b.policy != policy && b.meanAvgJct > 0)
                std::printf("  vs %-14s ratio %.3f (%+.1f%% JCT)\n", b.policy.c_str(),
                            mine->meanAvgJct / b.meanAvgJct, 100.0 * (mine->meanAvgJct / b.meanAvgJct - 1.0));
        std::printf("  vs lower bound  ratio %.3f\n", mine->ratioToLowerBound);
        std::printf("decision latency: per inference p50 %.1f us, p99 %.1f us (%zu inferences); "
                    "per slot p50 %.1f us, p99 %.1f us (%zu slots)\n",
                    lat.inferenceP50, lat.inferenceP99, lat.inferences, lat.slotP50, lat.slotP99, lat.slotCount);
        if (byModel)
            printModelBreakdown(models, exp.policies);
        return 0;
    });
}

} // namespace

static CommandRegistration evaluateRegistration{
    {"evaluate", "evaluate a learned policy against baselines on held-out traces", runEvaluate}};

} // namespace dl2::cli
