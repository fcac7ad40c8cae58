#pragma once
// What every sub-command shares: the scenario / trace / cluster / speed options, building
// the simulation setup from them, JSON and table output, and the error convention
// (one line "dl2 <cmd>: <what and where>" on stderr, exit code 2).

#include "experiment.h"
#include "scenario.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>

#include <optional>
#include <map>
#include <string>
#include <vector>

namespace dl2::cli {

inline constexpr int kExitBadInput = 2;

// Options shared by simulate, compare, evaluate: --scenario, --seed/--seeds, --trace,
// --nodes, --gpus-per-node, --cpus-per-node, --slot-seconds, --max-workers, --max-ps,
// --speed-table, --speed-model, --placement, --resize-cost, --speed-noise, --max-slots,
// --checkpoint, --threads.
void addSetupOptions(QCommandLineParser &parser, bool multipleSeeds);

struct Setup
{
    std::string scenarioName;      // empty when traces come from files
    Scenario scenario;             // the scenario (or dl2-reference defaults for files)
    ClusterSpec cluster;
    ProfileSet profiles;
    SimulationOptions simulation;
    std::vector<Trace> traces;
    std::vector<std::uint64_t> seeds;
    SchedulerConfig schedulerConfig;
    int threads = 0;
    std::string clusterSource; // where the cluster came from: the scenario, the trace, options
    std::vector<std::string> notes; // what was taken from the traces or changed, for stderr
};

// Prints the setup's notes on stderr as "dl2 <cmd>: note: ...".
void printNotes(const char *command, const Setup &setup);
// The setup's cluster, slot length and caps as JSON (simulate/compare --json).
QJsonObject setupToJson(const Setup &setup);

// --speed-table, --speed-model, --profiles (part of addSetupOptions; train adds them alone).
void addSpeedOptions(QCommandLineParser &parser);
// --speed-model (default: the measured table, SpeedModelChoice::Measured).
SpeedModelChoice speedModelFromOptions(const QCommandLineParser &parser);
// The profiles those options select (default: ProfileSet::reference(), measured speeds).
ProfileSet profilesFromOptions(const QCommandLineParser &parser);

// Throws dl2::Error with a one-line message on bad input.
Setup buildSetup(const QCommandLineParser &parser, bool multipleSeeds);
std::vector<std::uint64_t> parseSeeds(const QString &text); // "1-10", "3", "1,4,7"
std::vector<std::string> parseList(const QString &text);
int parsePositiveInt(const QCommandLineParser &parser, const QString &name, int min, int max);
double parseDouble(const QCommandLineParser &parser, const QString &name, double min, double max);

// The experiment (policies x the setup's traces) that compare and evaluate run.
ExperimentSetup experimentSetup(const Setup &setup, std::vector<std::string> policies);

QJsonObject toJson(const RunResult &result);
// The "runs" array of compare/evaluate --json: one simulate object per run, plus its seed.
QJsonArray runsToJson(const std::vector<ExperimentRun> &runs);
QJsonObject toJson(const PolicySummary &summary);
void printJson(const QJsonObject &object);
// An option or JSON key name from a literal (QT_NO_CAST_FROM_ASCII).
inline QString opt(const char *name) { return QString::fromLatin1(name); }
// `truncated`: per policy, how many of its runs stopped before every job finished (compare
// --allow-truncated); those policies are marked '*' with a footnote.
void printComparisonTable(const std::vector<PolicySummary> &summary, const std::string &title,
                          const std::map<std::string, int> &truncated = {});
// --by-model of compare and evaluate: the mean JCT of each job type (model) per policy, then
// each type's part of every policy's average JCT; as JSON, "by_model" keyed by model.
void addByModelOption(QCommandLineParser &parser);
void printModelBreakdown(const std::vector<ModelBreakdown> &models, const std::vector<std::string> &policies);
QJsonObject modelBreakdownToJson(const std::vector<ModelBreakdown> &models,
                                 const std::vector<std::string> &policies);

// Parses args; prints help/errors. Returns false if the command should exit (exitCode set).
bool parseOrExit(QCommandLineParser &parser, const QStringList &args, int &exitCode);
// Runs `body`, turning dl2::Error and std::exception into "dl2 <cmd>: message" + exit 2.
int guarded(const char *command, const std::function<int()> &body);

} // namespace dl2::cli
