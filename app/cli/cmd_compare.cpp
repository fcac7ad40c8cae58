// dl2 compare: several policies on the same traces, summarised in one table.
#include "command.h"
#include "common.h"
#include "progressbar.h"

#include "error.h"
#include "experiment.h"

#include <QJsonArray>

#include <cstdio>
#include <map>

namespace dl2::cli {

namespace {

std::string defaultPolicies()
{
    std::string list = "drf,optimus,best-config";
    for (const char *learned : {"dl2", "dl2-plus"})
        if (isScheduler(learned))
            list += std::string(",") + learned;
    return list;
}

// "drf on t.csv: 12 unfinished, 40 not arrived (max-slots); ..." for the truncated runs.
std::string truncatedRuns(const std::vector<ExperimentRun> &runs)
{
    std::string out;
    int listed = 0, more = 0;
    for (const auto &run : runs) {
        const RunResult &r = run.result;
        if (!r.truncated)
            continue;
        if (listed == 3) {
            ++more;
            continue;
        }
        ++listed;
        out += (out.empty() ? "" : "; ") + run.policy + " on " + r.traceName + ": " +
               std::to_string(r.unfinished) + " unfinished, " + std::to_string(r.notArrived) +
               " not arrived (" + r.stopReason + ")";
    }
    if (more > 0)
        out += "; and " + std::to_string(more) + " more";
    return out;
}

int runCompare(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Run several policies on the same traces (--scenario NAME --seeds 1-10, or --trace FILE "
        "repeated) and print mean and spread of average JCT, makespan, ratio to the lower bound "
        "and ratio to DRF."));
    parser.addHelpOption();
    addSetupOptions(parser, true);
    parser.addOption({QStringLiteral("policies"),
                      QStringLiteral("Comma-separated policies (default %1).")
                          .arg(QString::fromStdString(defaultPolicies())),
                      QStringLiteral("LIST")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print JSON: {\"runs\": [...], \"summary\": {...}}, with --by-model also \"by_model\".")});
    parser.addOption({QStringLiteral("allow-truncated"),
                      QStringLiteral("Rank runs that stopped before every job finished (their average "
                                     "JCTs are censored; marked '*' with a footnote in the table, \"truncated\" in the JSON).")});
    addByModelOption(parser);
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("compare", [&] {
        if (!parser.positionalArguments().isEmpty())
            throw Error("unexpected argument '" + parser.positionalArguments().first().toStdString() +
                        "' (trace files go with --trace)");
        Setup setup = buildSetup(parser, true);
        printNotes("compare", setup);
        ExperimentSetup exp = experimentSetup(
            setup, parseList(parser.isSet(QStringLiteral("policies"))
                                 ? parser.value(QStringLiteral("policies"))
                                 : QString::fromStdString(defaultPolicies())));
        const bool json = parser.isSet(QStringLiteral("json"));
        const int total = static_cast<int>(exp.policies.size() * exp.traces.size());
        ProgressBar bar("compare", total, "runs");
        const auto result = runExperiment(exp, [&](int done, int) {
            if (total >= 20)
                bar.update(done);
        });
        if (total >= 20)
            bar.finish();
        const std::string truncated = truncatedRuns(result.runs);
        const bool byModel = parser.isSet(QStringLiteral("by-model"));
        if (byModel && !truncated.empty())
            throw Error("--by-model needs runs in which every job finished (" + truncated +
                        "): run to completion (without --max-slots)");
        const std::vector<ModelBreakdown> models =
            byModel ? breakdownByModel(exp, result) : std::vector<ModelBreakdown>{};
        if (!truncated.empty()) {
            if (!parser.isSet(QStringLiteral("allow-truncated")))
                throw Error("runs stopped before every job finished (" + truncated +
                            "): their average JCTs are censored and not comparable; run to "
                            "completion (without --max-slots) or pass --allow-truncated");
            std::fprintf(stderr, "dl2 compare: warning: truncated runs ranked on censored average "
                                 "JCTs: %s\n", truncated.c_str());
        }
        if (json) {
            QJsonObject summary;
            for (const auto &s : result.summary)
                summary[QString::fromStdString(s.policy)] = toJson(s);
            QJsonObject root;
            root[QStringLiteral("scenario")] = QString::fromStdString(setup.scenarioName);
            root[QStringLiteral("nodes")] = setup.cluster.nodes;
            root[QStringLiteral("setup")] = setupToJson(setup);
            root[QStringLiteral("truncated")] = !truncated.empty();
            root[QStringLiteral("runs")] = runsToJson(result.runs);
            root[QStringLiteral("summary")] = summary;
            if (byModel)
                root[QStringLiteral("by_model")] = modelBreakdownToJson(models, exp.policies);
            printJson(root);
        } else {
            std::string title = setup.scenarioName.empty()
                                    ? std::to_string(exp.traces.size()) + " trace file(s)"
                                    : setup.scenarioName + ", " + std::to_string(exp.traces.size()) +
                                          " seed(s)";
            title += ", " + std::to_string(setup.cluster.nodes) + " nodes";
            std::map<std::string, int> cut; // truncated runs per policy
            for (const auto &run : result.runs)
                if (run.result.truncated)
                    ++cut[run.policy];
            printComparisonTable(result.summary, title, cut);
            if (byModel)
                printModelBreakdown(models, exp.policies);
        }
        return 0;
    });
}

} // namespace

static CommandRegistration compareRegistration{
    {"compare", "compare policies on the same traces", runCompare}};

} // namespace dl2::cli
