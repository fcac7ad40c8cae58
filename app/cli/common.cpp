#include "common.h"

#include "command.h"
#include "error.h"
#include "fitspeed.h"
#include "speed/measurements.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
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
    parser.addOption({QStringLiteral("nodes"),
                      QStringLiteral("Override the number of nodes (default: the trace's cluster, "
                                     "else the scenario's)."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("gpus-per-node"),
                      QStringLiteral("Override the GPUs of a node (1 GPU = 4 GPU slots)."), QStringLiteral("N")});
    parser.addOption({QStringLiteral("cpus-per-node"),
                      QStringLiteral("Override the CPUs (CPU slots) of a node."), QStringLiteral("N")});
    parser.addOption({QStringLiteral("slot-seconds"),
                      QStringLiteral("Slot length (default: the trace's, else 1200). An imported trace "
                                     "re-derives its arrival slots from the submission times."),
                      QStringLiteral("S")});
    parser.addOption({QStringLiteral("max-workers"),
                      QStringLiteral("Cap on a job's workers (default: 16, or the trace's largest "
                                     "observed allocation if larger)."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("max-ps"),
                      QStringLiteral("Cap on a job's PSs (default as --max-workers)."), QStringLiteral("N")});
    addSpeedOptions(parser);
    parser.addOption({QStringLiteral("placement"),
                      QStringLiteral("least-loaded (reference) or first-fit."), QStringLiteral("RULE")});
    parser.addOption({QStringLiteral("resize-cost"),
                      QStringLiteral("Seconds of training lost per task added or removed (default 0)."),
                      QStringLiteral("SECONDS")});
    parser.addOption({QStringLiteral("speed-noise"),
                      QStringLiteral("Multiplicative speed noise, uniform +-X (default 0)."),
                      QStringLiteral("X")});
    parser.addOption({QStringLiteral("max-slots"),
                      QStringLiteral("Stop after N slots (default: run until every job finishes; a "
                                     "run that stops early is reported as truncated)."),
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

namespace {

std::string formatPlain(double seconds)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", seconds);
    return buffer;
}

std::string describe(const ClusterSpec &c)
{
    return std::to_string(c.nodes) + " nodes x " + formatPlain(c.capacity[1] / 4.0) + " GPUs, " +
           std::to_string(c.capacity[0]) + " CPUs";
}

// --nodes, --gpus-per-node, --cpus-per-node, --slot-seconds, --max-workers, --max-ps over
// whatever the scenario or the traces gave.
void applyOverrides(Setup &s, const QCommandLineParser &parser)
{
    bool changed = false;
    if (parser.isSet(QStringLiteral("nodes"))) {
        s.cluster.nodes = parsePositiveInt(parser, QStringLiteral("nodes"), 1, 1'000'000);
        changed = true;
    }
    if (parser.isSet(QStringLiteral("gpus-per-node"))) {
        s.cluster.capacity[1] = 4 * parsePositiveInt(parser, QStringLiteral("gpus-per-node"), 0, 16);
        changed = true;
    }
    if (parser.isSet(QStringLiteral("cpus-per-node"))) {
        s.cluster.capacity[0] = parsePositiveInt(parser, QStringLiteral("cpus-per-node"), 0, 512);
        changed = true;
    }
    if (changed)
        s.clusterSource += " with options";
    if (parser.isSet(QStringLiteral("slot-seconds")))
        s.simulation.slotSeconds = parseDouble(parser, QStringLiteral("slot-seconds"), 1e-3, 1e7);
    if (parser.isSet(QStringLiteral("max-workers")))
        s.simulation.maxWorkers = parsePositiveInt(parser, QStringLiteral("max-workers"), 1, 4096);
    if (parser.isSet(QStringLiteral("max-ps")))
        s.simulation.maxPs = parsePositiveInt(parser, QStringLiteral("max-ps"), 1, 4096);
}

// Trace files: their slot length, cluster and largest observed allocation, unless overridden.
void applyTraceSetup(Setup &s, const QCommandLineParser &parser)
{
    const bool slotGiven = parser.isSet(QStringLiteral("slot-seconds"));
    std::optional<double> slot;
    std::optional<TraceCluster> cluster;
    int workers = 0, ps = 0;
    for (const auto &t : s.traces) {
        if (t.slotSeconds && !slotGiven) {
            if (slot && *slot != *t.slotSeconds)
                throw Error("the traces were made for different slot lengths (" +
                            formatPlain(*slot) + " s, " + formatPlain(*t.slotSeconds) +
                            " s): give --slot-seconds");
            slot = t.slotSeconds;
        }
        if (t.cluster) {
            if (cluster && !(cluster->nodes == t.cluster->nodes &&
                             cluster->gpusPerNode == t.cluster->gpusPerNode &&
                             cluster->cpusPerNode == t.cluster->cpusPerNode) &&
                !(parser.isSet(QStringLiteral("nodes")) && parser.isSet(QStringLiteral("gpus-per-node")) &&
                  parser.isSet(QStringLiteral("cpus-per-node"))))
                throw Error("the traces ran on different clusters: give --nodes, --gpus-per-node "
                            "and --cpus-per-node");
            cluster = t.cluster;
        }
        workers = std::max(workers, t.maxObservedWorkers());
        ps = std::max(ps, t.maxObservedPs());
    }
    if (slot)
        s.simulation.slotSeconds = *slot;
    if (cluster) {
        s.cluster = clusterSpecOf(*cluster);
        s.clusterSource = "trace (" + cluster->basis + ")";
    }
    const int defaultWorkers = s.simulation.maxWorkers, defaultPs = s.simulation.maxPs;
    s.simulation.maxWorkers = std::max(s.simulation.maxWorkers, workers);
    s.simulation.maxPs = std::max(s.simulation.maxPs, ps);
    applyOverrides(s, parser);
    const bool imported = std::any_of(s.traces.begin(), s.traces.end(),
                                      [](const Trace &t) { return !t.source.empty(); });
    if (cluster || imported)
        s.notes.push_back("cluster " + describe(s.cluster) + " from the " + s.clusterSource +
                          (cluster ? "" : " (the trace does not say its cluster)"));
    if (!parser.isSet(QStringLiteral("max-workers")) && s.simulation.maxWorkers > defaultWorkers)
        s.notes.push_back("worker cap raised from " + std::to_string(defaultWorkers) + " to " +
                          std::to_string(s.simulation.maxWorkers) +
                          ", the trace's largest observed allocation (--max-workers to change)");
    if (!parser.isSet(QStringLiteral("max-ps")) && s.simulation.maxPs > defaultPs)
        s.notes.push_back("PS cap raised from " + std::to_string(defaultPs) + " to " +
                          std::to_string(s.simulation.maxPs) + " (--max-ps to change)");
    if (slotGiven) {
        const double seconds = s.simulation.slotSeconds;
        for (auto &t : s.traces) {
            if (!t.slotSeconds || *t.slotSeconds == seconds)
                continue;
            const double made = *t.slotSeconds;
            if (t.rescaleArrivals(seconds))
                s.notes.push_back(t.name + ": arrival slots re-derived from the submission times for " +
                                  formatPlain(seconds) + "-s slots (made for " + formatPlain(made) + " s)");
            else
                s.notes.push_back(t.name + ": made for " + formatPlain(made) + "-s slots and has no "
                                  "submission times: its arrivals keep their slots, so they come " +
                                  formatPlain(made / seconds) + " x as fast as in the trace");
        }
    }
}

} // namespace

void printNotes(const char *command, const Setup &setup)
{
    for (const auto &note : setup.notes)
        std::fprintf(stderr, "dl2 %s: note: %s\n", command, note.c_str());
}

QJsonObject setupToJson(const Setup &setup)
{
    QJsonObject o;
    o[QStringLiteral("nodes")] = setup.cluster.nodes;
    o[QStringLiteral("gpus_per_node")] = setup.cluster.capacity[1] / 4.0;
    o[QStringLiteral("cpus_per_node")] = setup.cluster.capacity[0];
    o[QStringLiteral("cluster_source")] = QString::fromStdString(setup.clusterSource);
    o[QStringLiteral("slot_seconds")] = setup.simulation.slotSeconds;
    o[QStringLiteral("max_workers")] = setup.simulation.maxWorkers;
    o[QStringLiteral("max_ps")] = setup.simulation.maxPs;
    o[QStringLiteral("max_slots")] = setup.simulation.maxSlots;
    return o;
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
    // Runs go to completion unless told otherwise (the scenario's limit is for training).
    s.simulation.maxSlots = parser.isSet(QStringLiteral("max-slots"))
                                ? parsePositiveInt(parser, QStringLiteral("max-slots"), 1, 10'000'000)
                                : 0;
    if (parser.isSet(QStringLiteral("threads")))
        s.threads = parsePositiveInt(parser, QStringLiteral("threads"), 1, 256);
    s.schedulerConfig.checkpoint = parser.value(QStringLiteral("checkpoint")).toStdString();
    // A trace file brings no scenario (the cluster falls back to dl2-reference's): learned
    // policies then take the shipped policy for trace files, as `dl2 evaluate --trace` does.
    s.schedulerConfig.scenario = s.scenarioName;
    if (parser.isSet(QStringLiteral("decode"))) {
        s.schedulerConfig.decode = parser.value(QStringLiteral("decode")).toStdString();
        if (s.schedulerConfig.decode != "greedy" && s.schedulerConfig.decode != "sample")
            throw Error("--decode: expected greedy or sample, got '" + s.schedulerConfig.decode + "'");
    }
    // Measured speeds (the default): learned policies pick the policy trained on them.
    s.schedulerConfig.measuredSpeeds = speedModelFromOptions(parser) == SpeedModelChoice::Measured;

    s.clusterSource = "scenario " + s.scenario.name;
    if (!traceFiles.isEmpty()) {
        for (const QString &f : traceFiles) {
            Trace t = Trace::load(f.toStdString());
            t.validate(s.profiles, f.toStdString());
            s.traces.push_back(std::move(t));
            s.seeds.push_back(0);
        }
        applyTraceSetup(s, parser);
    } else {
        applyOverrides(s, parser);
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
    o[QStringLiteral("truncated")] = r.truncated;
    o[QStringLiteral("stop_reason")] = QString::fromStdString(r.stopReason);
    o[QStringLiteral("unfinished")] = r.unfinished;
    o[QStringLiteral("not_arrived")] = r.notArrived;
    // Jobs the policy could never place (observed: larger than the cluster), by trace job id.
    o[QStringLiteral("never_fit")] = static_cast<int>(r.neverFit.size());
    if (!r.neverFit.empty()) {
        QJsonArray ids;
        for (const int id : r.neverFit)
            ids.append(id);
        o[QStringLiteral("never_fit_jobs")] = ids;
    }
    o[QStringLiteral("avg_jct_slots")] = r.avgJct;
    // Truncated: unfinished jobs count with their time so far, jobs not arrived not at all.
    o[QStringLiteral("avg_jct_censored")] = r.truncated;
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

void printComparisonTable(const std::vector<PolicySummary> &summary, const std::string &title,
                          const std::map<std::string, int> &truncated)
{
    if (!title.empty())
        std::printf("%s\n", title.c_str());
    std::printf("%-16s %5s %17s %10s %10s %8s %8s %6s\n", "policy", "runs", "avg JCT (slots)",
                "min", "max", "makespan", "vs LB", "vs DRF");
    for (const auto &s : summary) {
        char drf[16] = "-";
        if (s.ratioToDrf > 0)
            std::snprintf(drf, sizeof drf, "%.3f", s.ratioToDrf);
        const std::string label = s.policy + (truncated.count(s.policy) ? "*" : "");
        std::printf("%-16s %5d %9.3f +- %5.3f %10.3f %10.3f %8.2f %8.3f %6s\n", label.c_str(),
                    s.runs, s.meanAvgJct, s.stdAvgJct, s.minAvgJct, s.maxAvgJct, s.meanMakespan,
                    s.ratioToLowerBound, drf);
    }
    if (!summary.empty())
        std::printf("%-16s %5s %9.3f\n", "lower bound", "", summary.front().meanLowerBound);
    std::printf("(+- is the sample standard deviation over runs; vs LB = mean of avg JCT / lower "
                "bound; vs DRF = mean avg JCT / DRF's)\n");
    if (!truncated.empty()) {
        std::string which;
        for (const auto &s : summary)
            if (const auto it = truncated.find(s.policy); it != truncated.end())
                which += (which.empty() ? "" : ", ") + s.policy + " " + std::to_string(it->second) +
                         " of " + std::to_string(s.runs);
        std::printf("* TRUNCATED runs (stopped before every job finished): %s; their average JCTs "
                    "are censored (unfinished jobs counted up to the stop), the true ones are "
                    "higher\n",
                    which.c_str());
    }
    std::fflush(stdout);
}

void addByModelOption(QCommandLineParser &parser)
{
    parser.addOption({opt("by-model"),
                      opt("Also break the average JCT down by job type (model): each type's mean JCT "
                          "per policy and its part of every policy's average (JSON: \"by_model\"). "
                          "Needs runs in which every job finished.")});
}

void printModelBreakdown(const std::vector<ModelBreakdown> &models, const std::vector<std::string> &policies)
{
    size_t nameWidth = 5; // "model"
    for (const auto &m : models)
        nameWidth = std::max(nameWidth, m.model.size());
    std::vector<int> widths;
    for (const auto &p : policies)
        widths.push_back(std::max(10, int(p.size())));
    const auto header = [&] {
        std::printf("%-*s %6s %11s", int(nameWidth), "model", "jobs", "lower bound");
        for (size_t p = 0; p < policies.size(); ++p)
            std::printf(" %*s", widths[p], policies[p].c_str());
        std::printf("\n");
    };
    std::printf("\nBy model: mean JCT (slots) of each type's jobs over all traces\n");
    header();
    for (const auto &m : models) {
        std::printf("%-*s %6d %11.2f", int(nameWidth), m.model.c_str(), m.jobs, m.lowerBound);
        for (size_t p = 0; p < policies.size(); ++p)
            std::printf(" %*.2f", widths[p], m.meanJct[p]);
        std::printf("\n");
    }
    std::printf("\nPart of the average JCT: a type's JCTs summed / all jobs. A policy's parts add up to its\n"
                "average, so the differences between two columns say where one policy gains on another.\n");
    header();
    const ModelBreakdown all = allModels(models);
    for (const auto &m : models) {
        std::printf("%-*s %6d %11.2f", int(nameWidth), m.model.c_str(), m.jobs,
                    m.lowerBound * m.jobs / all.jobs);
        for (size_t p = 0; p < policies.size(); ++p)
            std::printf(" %*.2f", widths[p], m.part[p]);
        std::printf("\n");
    }
    std::printf("%-*s %6d %11.2f", int(nameWidth), all.model.c_str(), all.jobs, all.lowerBound);
    for (size_t p = 0; p < policies.size(); ++p)
        std::printf(" %*.2f", widths[p], all.part[p]);
    std::printf("\n");
    std::fflush(stdout);
}

QJsonObject modelBreakdownToJson(const std::vector<ModelBreakdown> &models,
                                 const std::vector<std::string> &policies)
{
    QJsonObject out;
    for (const auto &m : models) {
        QJsonObject meanJct, part;
        for (size_t p = 0; p < policies.size(); ++p) {
            meanJct[QString::fromStdString(policies[p])] = m.meanJct[p];
            part[QString::fromStdString(policies[p])] = m.part[p];
        }
        QJsonObject o;
        o[opt("jobs")] = m.jobs;
        o[opt("lower_bound")] = m.lowerBound;
        o[opt("mean_jct")] = meanJct;
        o[opt("part_of_avg_jct")] = part;
        out[QString::fromStdString(m.model)] = o;
    }
    return out;
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
