#include "common.h"

#include "command.h"
#include "error.h"
#include "speed/fitspeed.h"
#include "speed/measurements.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <cstdio>
#include <iostream>

namespace dl2::cli {

std::vector<Command> &commands()
{
    static std::vector<Command> all;
    return all;
}

void addSpeedOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("speed-table"),
                      QStringLiteral("Measured speeds to use instead of the built-in table (DL2 tuple "
                                     "format or CSV model,ps,workers,speed)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("speed-model"),
                      QStringLiteral("rbf: the measured table, exactly interpolated (default, the "
                                     "published setting); optimus: the fitted parametric model "
                                     "(refitted to --speed-table when given)."),
                      QStringLiteral("MODEL")});
    parser.addOption({QStringLiteral("profiles"),
                      QStringLiteral("Model profiles (text dl2.pb.ProfileSet) instead of the built-in ones."),
                      QStringLiteral("FILE")});
}

SpeedModelChoice speedModelFromOptions(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("speed-model")))
        return SpeedModelChoice::Measured;
    try {
        return speedModelChoiceFromString(parser.value(QStringLiteral("speed-model")).toStdString());
    } catch (const Error &e) {
        throw Error(std::string("--speed-model: ") + e.what());
    }
}

ProfileSet profilesFromOptions(const QCommandLineParser &parser)
{
    return profilesFor(speedModelFromOptions(parser),
                       parser.value(QStringLiteral("speed-table")).toStdString(),
                       parser.value(QStringLiteral("profiles")).toStdString());
}

void addSetupOptions(QCommandLineParser &parser, bool multipleSeeds)
{
    parser.addOption({QStringLiteral("scenario"),
                      QStringLiteral("Built-in scenario (dl2 scenario list)."), QStringLiteral("NAME")});
    if (multipleSeeds)
        parser.addOption({QStringLiteral("seeds"),
                          QStringLiteral("Trace seeds of the scenario: 1-10, 3 or 1,4,7 (default 1-10)."),
                          QStringLiteral("LIST")});
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Trace seed of the scenario (default 1)."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("trace"),
                      multipleSeeds ? QStringLiteral("Trace file (.csv, .pb, .textproto); repeatable.")
                                    : QStringLiteral("Trace file (.csv, .pb, .textproto)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("nodes"), QStringLiteral("Override the number of nodes."),
                      QStringLiteral("N")});
    addSpeedOptions(parser);
    parser.addOption({QStringLiteral("placement"),
                      QStringLiteral("least-loaded (reference) or first-fit."), QStringLiteral("RULE")});
    parser.addOption({QStringLiteral("resize-cost"),
                      QStringLiteral("Seconds of training lost per task added or removed (default 0)."),
                      QStringLiteral("SECONDS")});
    parser.addOption({QStringLiteral("speed-noise"),
                      QStringLiteral("Multiplicative speed noise, uniform +-X (default 0)."),
                      QStringLiteral("X")});
    parser.addOption({QStringLiteral("max-slots"), QStringLiteral("Stop after N slots (default 1000)."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("checkpoint"),
                      QStringLiteral("Policy checkpoint for learned policies (dl2, dl2-plus)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("decode"),
                      QStringLiteral("Learned policies: greedy (arg max) or sample (seeded by the "
                                     "run's seed); default: as the checkpoint says."),
                      QStringLiteral("MODE")});
    parser.addOption({QStringLiteral("threads"),
                      QStringLiteral("Worker threads (default: all cores)."), QStringLiteral("N")});
}

std::vector<std::uint64_t> parseSeeds(const QString &text)
{
    std::vector<std::uint64_t> seeds;
    const auto parts = text.split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString &part : parts) {
        const auto range = part.split(QLatin1Char('-'));
        bool ok1 = false, ok2 = true;
        const qulonglong a = range.value(0).trimmed().toULongLong(&ok1);
        qulonglong b = a;
        if (range.size() == 2)
            b = range[1].trimmed().toULongLong(&ok2);
        if (!ok1 || !ok2 || range.size() > 2 || b < a || b - a > 100000)
            throw Error("--seeds: expected e.g. 1-10, 3 or 1,4,7, got '" + text.toStdString() + "'");
        for (qulonglong s = a; s <= b; ++s)
            seeds.push_back(s);
    }
    if (seeds.empty())
        throw Error("--seeds: no seeds in '" + text.toStdString() + "'");
    return seeds;
}

std::vector<std::string> parseList(const QString &text)
{
    std::vector<std::string> out;
    for (const QString &p : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
        out.push_back(p.trimmed().toStdString());
    return out;
}

int parsePositiveInt(const QCommandLineParser &parser, const QString &name, int min, int max)
{
    bool ok = false;
    const QString v = parser.value(name);
    const qlonglong n = v.toLongLong(&ok);
    if (!ok || n < min || n > max)
        throw Error("--" + name.toStdString() + ": expected an integer in " + std::to_string(min) +
                    ".." + std::to_string(max) + ", got '" + v.toStdString() + "'");
    return static_cast<int>(n);
}

double parseDouble(const QCommandLineParser &parser, const QString &name, double min, double max)
{
    bool ok = false;
    const QString v = parser.value(name);
    const double x = v.toDouble(&ok);
    if (!ok || !std::isfinite(x) || x < min || x > max)
        throw Error("--" + name.toStdString() + ": expected a number in [" + std::to_string(min) +
                    ", " + std::to_string(max) + "], got '" + v.toStdString() + "'");
    return x;
}

Setup buildSetup(const QCommandLineParser &parser, bool multipleSeeds)
{
    Setup s;
    const bool hasScenario = parser.isSet(QStringLiteral("scenario"));
    const QStringList traceFiles = parser.values(QStringLiteral("trace"));
    if (hasScenario && !traceFiles.isEmpty())
        throw Error("give either --scenario or --trace, not both");
    if (!multipleSeeds && traceFiles.size() > 1)
        throw Error("--trace: give one trace file");
    s.scenarioName = hasScenario ? parser.value(QStringLiteral("scenario")).toStdString()
                                 : std::string(traceFiles.isEmpty() ? "dl2-reference" : "");
    s.scenario = scenarioByName(s.scenarioName.empty() ? "dl2-reference" : s.scenarioName);
    s.cluster = s.scenario.cluster;
    s.simulation = s.scenario.simulation;

    s.profiles = profilesFromOptions(parser);

    if (parser.isSet(QStringLiteral("nodes")))
        s.cluster.nodes = parsePositiveInt(parser, QStringLiteral("nodes"), 1, 1'000'000);
    if (parser.isSet(QStringLiteral("placement"))) {
        const QString rule = parser.value(QStringLiteral("placement"));
        if (rule == QStringLiteral("least-loaded"))
            s.simulation.placement = PlacementRule::LeastLoaded;
        else if (rule == QStringLiteral("first-fit"))
            s.simulation.placement = PlacementRule::FirstFit;
        else
            throw Error("--placement: expected least-loaded or first-fit, got '" + rule.toStdString() + "'");
    }
    if (parser.isSet(QStringLiteral("resize-cost")))
        s.simulation.resizeCostSeconds = parseDouble(parser, QStringLiteral("resize-cost"), 0, 1e6);
    if (parser.isSet(QStringLiteral("speed-noise")))
        s.simulation.speedNoise = parseDouble(parser, QStringLiteral("speed-noise"), 0, 0.99);
    if (parser.isSet(QStringLiteral("max-slots")))
        s.simulation.maxSlots = parsePositiveInt(parser, QStringLiteral("max-slots"), 1, 10'000'000);
    if (parser.isSet(QStringLiteral("threads")))
        s.threads = parsePositiveInt(parser, QStringLiteral("threads"), 1, 256);
    s.schedulerConfig.checkpoint = parser.value(QStringLiteral("checkpoint")).toStdString();
    s.schedulerConfig.scenario = s.scenario.name;
    if (parser.isSet(QStringLiteral("decode"))) {
        s.schedulerConfig.decode = parser.value(QStringLiteral("decode")).toStdString();
        if (s.schedulerConfig.decode != "greedy" && s.schedulerConfig.decode != "sample")
            throw Error("--decode: expected greedy or sample, got '" + s.schedulerConfig.decode + "'");
    }
    // Measured speeds (the default): learned policies pick the policy trained on them.
    s.schedulerConfig.measuredSpeeds = speedModelFromOptions(parser) == SpeedModelChoice::Measured;

    if (!traceFiles.isEmpty()) {
        for (const QString &f : traceFiles) {
            Trace t = Trace::load(f.toStdString());
            t.validate(s.profiles, f.toStdString());
            s.traces.push_back(std::move(t));
            s.seeds.push_back(0);
        }
    } else {
        if (multipleSeeds && parser.isSet(QStringLiteral("seeds")) && parser.isSet(QStringLiteral("seed")))
            throw Error("give either --seeds or --seed");
        std::vector<std::uint64_t> seeds{1};
        if (multipleSeeds)
            seeds = parseSeeds(parser.isSet(QStringLiteral("seeds")) ? parser.value(QStringLiteral("seeds"))
                                                                     : QStringLiteral("1-10"));
        if (parser.isSet(QStringLiteral("seed")))
            seeds = {static_cast<std::uint64_t>(parsePositiveInt(parser, QStringLiteral("seed"), 0, 2'000'000'000))};
        for (auto seed : seeds) {
            s.traces.push_back(s.scenario.trace(s.profiles, seed));
            s.seeds.push_back(seed);
        }
    }
    return s;
}

ExperimentSetup experimentSetup(const Setup &setup, std::vector<std::string> policies)
{
    ExperimentSetup exp;
    exp.cluster = setup.cluster;
    exp.profiles = setup.profiles;
    exp.simulation = setup.simulation;
    exp.traces = setup.traces;
    exp.seeds = setup.seeds;
    exp.policies = std::move(policies);
    exp.schedulerConfig = setup.schedulerConfig;
    exp.threads = setup.threads;
    return exp;
}

QJsonArray runsToJson(const std::vector<ExperimentRun> &runs)
{
    QJsonArray out;
    for (const auto &run : runs) {
        QJsonObject o = toJson(run.result);
        o[QStringLiteral("seed")] = static_cast<qint64>(run.seed);
        out.append(o);
    }
    return out;
}

QJsonObject toJson(const RunResult &r)
{
    QJsonObject o;
    o[QStringLiteral("policy")] = QString::fromStdString(r.policy);
    o[QStringLiteral("trace")] = QString::fromStdString(r.traceName);
    o[QStringLiteral("jobs")] = r.jobs;
    o[QStringLiteral("completed")] = r.completed;
    o[QStringLiteral("slots")] = r.slotCount;
    o[QStringLiteral("avg_jct_slots")] = r.avgJct;
    o[QStringLiteral("makespan_slots")] = r.makespan;
    o[QStringLiteral("avg_reward")] = r.avgReward;
    o[QStringLiteral("lower_bound_avg_jct_slots")] = r.lowerBoundAvgJct;
    o[QStringLiteral("ratio_to_lower_bound")] = r.lowerBoundAvgJct > 0 ? r.avgJct / r.lowerBoundAvgJct : 0.0;
    o[QStringLiteral("wall_seconds")] = r.wallSeconds;
    return o;
}

QJsonObject toJson(const PolicySummary &s)
{
    QJsonObject o;
    o[QStringLiteral("runs")] = s.runs;
    o[QStringLiteral("mean_avg_jct_slots")] = s.meanAvgJct;
    o[QStringLiteral("std_avg_jct_slots")] = s.stdAvgJct;
    o[QStringLiteral("min_avg_jct_slots")] = s.minAvgJct;
    o[QStringLiteral("max_avg_jct_slots")] = s.maxAvgJct;
    o[QStringLiteral("mean_makespan_slots")] = s.meanMakespan;
    o[QStringLiteral("mean_avg_reward")] = s.meanAvgReward;
    o[QStringLiteral("mean_lower_bound_avg_jct_slots")] = s.meanLowerBound;
    o[QStringLiteral("ratio_to_lower_bound")] = s.ratioToLowerBound;
    o[QStringLiteral("ratio_to_drf")] = s.ratioToDrf;
    o[QStringLiteral("mean_completed")] = s.meanCompleted;
    return o;
}

void printJson(const QJsonObject &object)
{
    const QByteArray text = QJsonDocument(object).toJson(QJsonDocument::Indented);
    std::fwrite(text.constData(), 1, static_cast<size_t>(text.size()), stdout);
    std::fflush(stdout);
}

void printComparisonTable(const std::vector<PolicySummary> &summary, const std::string &title)
{
    if (!title.empty())
        std::printf("%s\n", title.c_str());
    std::printf("%-16s %5s %17s %10s %10s %8s %8s %6s\n", "policy", "runs", "avg JCT (slots)",
                "min", "max", "makespan", "vs LB", "vs DRF");
    for (const auto &s : summary) {
        char drf[16] = "-";
        if (s.ratioToDrf > 0)
            std::snprintf(drf, sizeof drf, "%.3f", s.ratioToDrf);
        std::printf("%-16s %5d %9.3f +- %5.3f %10.3f %10.3f %8.2f %8.3f %6s\n", s.policy.c_str(),
                    s.runs, s.meanAvgJct, s.stdAvgJct, s.minAvgJct, s.maxAvgJct, s.meanMakespan,
                    s.ratioToLowerBound, drf);
    }
    if (!summary.empty())
        std::printf("%-16s %5s %9.3f\n", "lower bound", "", summary.front().meanLowerBound);
    std::printf("(+- is the sample standard deviation over runs; vs LB = mean of avg JCT / lower "
                "bound; vs DRF = mean avg JCT / DRF's)\n");
    std::fflush(stdout);
}

bool parseOrExit(QCommandLineParser &parser, const QStringList &args, int &exitCode)
{
    if (!parser.parse(args)) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(args.value(0)), qPrintable(parser.errorText()));
        exitCode = kExitBadInput;
        return false;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        // Qt names the executable's path; show the sub-command the user typed instead.
        QString help = parser.helpText();
        help.replace(QCoreApplication::arguments().constFirst(), args.value(0));
        std::fputs(qPrintable(help), stdout);
        exitCode = 0;
        return false;
    }
    return true;
}

int guarded(const char *command, const std::function<int()> &body)
{
    try {
        return body();
    } catch (const Error &e) {
        std::fprintf(stderr, "dl2 %s: %s\n", command, e.what());
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "dl2 %s: out of memory (are the sizes absurd?)\n", command);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "dl2 %s: %s\n", command, e.what());
    }
    return kExitBadInput;
}

} // namespace dl2::cli
