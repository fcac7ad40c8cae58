// dl2 trace-import: a public cluster trace (Philly, Alibaba PAI 2020, Helios) -> a DL2 trace
#include "command.h"
#include "common.h"

#include "error.h"
#include "modelprofile.h"
#include "speed/measurements.h"
#include "traceimport.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace dl2::cli {

namespace {

const char *kDescription =
    "Import a public cluster trace as a DL2 trace, read as published: plain, gzip (.gz),\n"
    "tar (.tar.gz) or zip, with or without a byte-order mark, LF or CRLF line ends.\n"
    "  philly   FILE = cluster_job_log (JSON array) or the trace-data tarball holding it.\n"
    "           Pass jobs kept; Killed -> killed, Failed -> failed, others -> unknown-state.\n"
    "           Duration (--philly-duration): span = last attempt's end - first attempt's\n"
    "           start (default; the publisher's notebook), last-attempt, or sum of attempts.\n"
    "           GPUs = attempt 0's (the first attempt that lists any; last-attempt: its own).\n"
    "           Attempt times missing, \"None\" or null do not count.\n"
    "  alibaba  FILE = pai_task_table (.csv or .tar.gz); pai_job_table is taken from the same\n"
    "           folder or archive (or --job-table). Terminated jobs kept; Failed -> failed,\n"
    "           Running/Waiting -> unfinished, any other status -> unknown-state. Times of 0\n"
    "           (or empty) mean not started / not ended (the publisher's analysis) and are\n"
    "           left out; a job start_time (its submission) of 0 -> no-submit-time; a job\n"
    "           whose tasks never ran -> no-duration. GPUs = sum over tasks of\n"
    "           inst_num * plan_gpu / 100; duration = latest task end - earliest task start;\n"
    "           queueing delay = earliest task start - the job's start_time (its submission).\n"
    "  helios   FILE = cluster_log.csv (with header), or the zip holding data/<Cluster>/...\n"
    "           (choose the cluster with --member Venus/cluster_log.csv). COMPLETED kept;\n"
    "           CANCELLED, FAILED, TIMEOUT, NODE_FAIL, SUSPENDED filtered by that name,\n"
    "           RUNNING/PENDING/REQUEUED/PREEMPTED -> unfinished, any other state ->\n"
    "           unknown-state. Duration = the duration column, else end_time - start_time\n"
    "           (none: no-duration); queueing delay = the queue column, else start_time -\n"
    "           submit_time (a start before the submission counts as 0, counted).\n"
    "Every filtered job is counted per reason; CPU-only jobs (0 GPUs) are filtered unless\n"
    "--keep-cpu-jobs. A malformed record stops the import naming file:line (JSON: the job),\n"
    "or is counted and skipped with --skip-malformed (also a truncated last line).\n"
    "Mapping to a DL2 job:\n"
    "  arrival slot = floor((submit - origin) / --slot-seconds); origin = --time-origin, else\n"
    "    --from, else the earliest kept submission; --from/--to keep submissions in [from, to).\n"
    "  workers = GPUs rounded up (>= 1); PS by --ps-rule: auto = the PAI job's ps instances\n"
    "    when it has ps tasks, else one per worker; per-worker; one. No cap unless --max-workers\n"
    "    / --max-ps (capped jobs are counted).\n"
    "  model by --model-rule:\n"
    "    by-size  0 GPUs -> cnn-text-classification|dssm, <= 2 -> resnext-110|seq2seq|wlm,\n"
    "             > 2 -> inception-bn|resnet-50|vgg-16 (member drawn with --seed and the job\n"
    "             id, so it does not depend on the other jobs kept)\n"
    "    sample   uniform over all profiles (--seed and the job id)\n"
    "    a model with no speed at the job's observed allocation (0, or below 1e-6 x that\n"
    "    model's best speed: the measured table's failed points, e.g. vgg-16 at 4 PSs and 8\n"
    "    workers) is drawn again among the others (counted); none: filtered (no-speed).\n"
    "  epochs = observed duration x speed(PS, workers) / steps per epoch, so the job alone at\n"
    "    its observed allocation runs for its observed duration (fewer than 1e-9 epochs:\n"
    "    filtered, too-short). The speeds are those the\n"
    "    trace will be simulated with, chosen as in `dl2 simulate`: the built-in measured\n"
    "    table by default, --speed-table FILE, --speed-model optimus, --profiles FILE.\n"
    "The trace keeps what the source says (source id, user, VC, status, requested GPUs, submit\n"
    "time, queueing delay, observed duration and allocation), its slot length and time origin,\n"
    "and the cluster where the source implies it, in nodes of one size:\n"
    "  Philly   cluster_machine_list: nodes of the most common machine size, as many as keep\n"
    "           the list's total GPUs; without it, one node per machine the attempts name,\n"
    "           of the most common size seen (a machine's size = its largest GPU index used\n"
    "           + 1, a lower bound).\n"
    "  PAI      pai_machine_spec: the most common GPU machine size (and its CPUs), as many\n"
    "           nodes as keep the total GPUs.\n"
    "  Helios   8-GPU nodes (HeliosData README), as many as hold the largest day of\n"
    "           cluster_gpu_number.csv, else the peak of GPUs in use at once in the log.\n"
    "  CPUs 4 per GPU where the source does not say.\n"
    "`dl2 simulate` uses them unless told otherwise; `--policy observed` replays the history.";

std::string withCommas(long long n)
{
    const std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out = n < 0 ? "-" : "";
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

void printCounts(const char *label, const std::map<std::string, int> &counts)
{
    int total = 0;
    for (const auto &[reason, count] : counts)
        total += count;
    std::printf("%-12s %s", label, withCommas(total).c_str());
    const char *separator = ": ";
    for (const auto &[reason, count] : counts) {
        std::printf("%s%s %s", separator, reason.empty() ? "(none)" : reason.c_str(),
                    withCommas(count).c_str());
        separator = ", ";
    }
    std::printf("\n");
}

void printReport(const ImportResult &result, const ImportOptions &options, ImportFormat format,
                 const std::string &out)
{
    const ImportReport &r = result.report;
    const Trace &trace = result.trace;
    std::printf("read         %s (%s)", r.inputs.empty() ? "?" : r.inputs.front().c_str(),
                toString(format));
    for (size_t i = 1; i < r.inputs.size(); ++i)
        std::printf(" + %s", r.inputs[i].c_str());
    std::printf(", %s job records\n", withCommas(r.records).c_str());
    std::printf("kept         %s jobs%s%s\n", withCommas(r.kept).c_str(), out.empty() ? "" : " -> ",
                out.c_str());
    printCounts("filtered", r.filtered);
    std::printf("malformed    %s skipped\n", withCommas(r.malformed).c_str());
    for (const auto &example : r.malformedExamples)
        std::printf("               e.g. %s\n", example.c_str());
    for (const auto &note : r.notes)
        std::printf("note         %s\n", note.c_str());
    for (const auto &warning : r.warnings)
        std::fprintf(stderr, "dl2 trace-import: warning: %s\n", warning.c_str());
    // PAI times are seconds shifted by an undisclosed constant: no calendar date to show.
    const std::string origin = format == ImportFormat::Alibaba
                                   ? std::string()
                                   : formatTraceTime(r.timeOrigin) + " = ";
    if (r.kept > 0) {
        std::printf("arrivals     slots %d..%d (%g s per slot, slot 0 = %s%.0f s)\n", r.firstSlot,
                    r.lastSlot, options.slotSeconds, origin.c_str(), r.timeOrigin);
        int maxWorkers = 0, maxPs = 0;
        for (const auto &j : trace.jobs) {
            maxWorkers = std::max(maxWorkers, j.source.workers);
            maxPs = std::max(maxPs, j.source.ps);
        }
        std::printf("allocation   up to %d workers and %d PS (PS rule %s%s)\n", maxWorkers, maxPs,
                    toString(options.psRule),
                    options.maxWorkers > 0 || options.maxPs > 0 ? ", capped" : ", no cap");
    }
    if (trace.cluster)
        std::printf("cluster      %s nodes x %d GPUs, %d CPUs (%s)\n",
                    withCommas(trace.cluster->nodes).c_str(), trace.cluster->gpusPerNode,
                    trace.cluster->cpusPerNode, trace.cluster->basis.c_str());
    else
        std::printf("cluster      not implied by the source (simulate uses its --nodes / scenario)\n");
    std::map<std::string, int> perModel;
    for (const auto &job : trace.jobs)
        ++perModel[job.model];
    std::printf("models       %s, seed %llu", toString(options.modelRule),
                static_cast<unsigned long long>(options.seed));
    const char *separator = ": ";
    for (const auto &[model, count] : perModel) {
        std::printf("%s%s %s", separator, model.c_str(), withCommas(count).c_str());
        separator = ", ";
    }
    std::printf("\n");
}

void addOptions(QCommandLineParser &parser)
{
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("The trace file to import."));
    parser.addOption({QStringLiteral("format"), QStringLiteral("philly, alibaba or helios."), QStringLiteral("F")});
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("Output trace (.csv, .pb, .textproto)."), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("dry-run"), QStringLiteral("Print the report without writing a trace.")});
    parser.addOption({QStringLiteral("slot-seconds"), QStringLiteral("Slot length in seconds (default 1200); recorded in the trace."), QStringLiteral("S"), QStringLiteral("1200")});
    parser.addOption({QStringLiteral("time-origin"), QStringLiteral("Time of slot 0: \"YYYY-MM-DD HH:MM:SS\" or seconds on the trace's clock (default: --from, else the earliest kept submission)."), QStringLiteral("T")});
    parser.addOption({QStringLiteral("from"), QStringLiteral("Keep jobs submitted at or after T (\"YYYY-MM-DD HH:MM:SS\" or seconds)."), QStringLiteral("T")});
    parser.addOption({QStringLiteral("to"), QStringLiteral("Keep jobs submitted before T."), QStringLiteral("T")});
    parser.addOption({QStringLiteral("max-jobs"), QStringLiteral("Keep only the first N jobs by submission."), QStringLiteral("N")});
    parser.addOption({QStringLiteral("philly-duration"), QStringLiteral("philly: span (default), last-attempt or sum."), QStringLiteral("RULE"), QStringLiteral("span")});
    parser.addOption({QStringLiteral("keep-cpu-jobs"), QStringLiteral("Keep CPU-only jobs (as one-worker jobs) instead of filtering them.")});
    parser.addOption({QStringLiteral("ps-rule"), QStringLiteral("auto (default), per-worker or one."), QStringLiteral("RULE"), QStringLiteral("auto")});
    parser.addOption({QStringLiteral("max-workers"), QStringLiteral("Cap the observed workers at N (default: no cap)."), QStringLiteral("N")});
    parser.addOption({QStringLiteral("max-ps"), QStringLiteral("Cap the observed PSs at N (default: no cap)."), QStringLiteral("N")});
    parser.addOption({QStringLiteral("model-rule"), QStringLiteral("by-size (default) or sample."), QStringLiteral("RULE"), QStringLiteral("by-size")});
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed of the model choice (default 1)."), QStringLiteral("N"), QStringLiteral("1")});
    parser.addOption({QStringLiteral("skip-malformed"), QStringLiteral("Count malformed records (and a truncated end) instead of stopping at the first.")});
    parser.addOption({QStringLiteral("member"), QStringLiteral("The file to read inside an archive (its path or name, e.g. Venus/cluster_log.csv)."), QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("job-table"), QStringLiteral("alibaba: the pai_job_table (CSV or compressed)."), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("machines"), QStringLiteral("The machines: philly cluster_machine_list, alibaba pai_machine_spec, helios cluster_gpu_number.csv (default: looked for next to FILE)."), QStringLiteral("FILE")});
    addSpeedOptions(parser);
}

std::optional<double> timeOption(const QCommandLineParser &parser, const QString &name)
{
    if (!parser.isSet(name))
        return std::nullopt;
    const QString text = parser.value(name);
    const auto t = parseTraceTime(text.toStdString());
    if (!t)
        throw Error("--" + name.toStdString() + ": expected \"YYYY-MM-DD HH:MM:SS\" or seconds, got '" +
                    text.toStdString() + "'");
    return t;
}

ImportOptions importOptions(const QCommandLineParser &parser, ImportFormat format)
{
    ImportOptions options;
    options.slotSeconds = parseDouble(parser, QStringLiteral("slot-seconds"), 1e-3, 1e7);
    options.timeOrigin = timeOption(parser, QStringLiteral("time-origin"));
    options.from = timeOption(parser, QStringLiteral("from"));
    options.to = timeOption(parser, QStringLiteral("to"));
    if (parser.isSet(QStringLiteral("max-jobs")))
        options.maxJobs = parsePositiveInt(parser, QStringLiteral("max-jobs"), 1, 10'000'000);
    if (parser.isSet(QStringLiteral("max-workers")))
        options.maxWorkers = parsePositiveInt(parser, QStringLiteral("max-workers"), 1, 4096);
    if (parser.isSet(QStringLiteral("max-ps")))
        options.maxPs = parsePositiveInt(parser, QStringLiteral("max-ps"), 1, 4096);
    options.modelRule = modelRuleFromString(parser.value(QStringLiteral("model-rule")).toStdString());
    options.psRule = psRuleFromString(parser.value(QStringLiteral("ps-rule")).toStdString());
    options.phillyDuration =
        phillyDurationFromString(parser.value(QStringLiteral("philly-duration")).toStdString());
    if (parser.isSet(QStringLiteral("philly-duration")) && format != ImportFormat::Philly)
        throw Error("--philly-duration applies to --format philly only");
    options.seed = static_cast<std::uint64_t>(parsePositiveInt(parser, QStringLiteral("seed"), 0, 2'000'000'000));
    options.skipMalformed = parser.isSet(QStringLiteral("skip-malformed"));
    options.keepCpuJobs = parser.isSet(QStringLiteral("keep-cpu-jobs"));
    options.member = parser.value(QStringLiteral("member")).toStdString();
    options.machines = parser.value(QStringLiteral("machines")).toStdString();
    options.alibabaJobTable = parser.value(QStringLiteral("job-table")).toStdString();
    if (!options.alibabaJobTable.empty() && format != ImportFormat::Alibaba)
        throw Error("--job-table applies to --format alibaba only");
    return options;
}

int runImport(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QString::fromUtf8(kDescription));
    parser.addHelpOption();
    addOptions(parser);
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("trace-import", [&] {
        if (parser.positionalArguments().size() != 1)
            throw Error("expected one trace file");
        if (!parser.isSet(QStringLiteral("format")))
            throw Error("--format philly|alibaba|helios is required");
        const bool dryRun = parser.isSet(QStringLiteral("dry-run"));
        if (!parser.isSet(QStringLiteral("output")) && !dryRun)
            throw Error("-o FILE is required (or --dry-run)");
        const ImportFormat format = importFormatFromString(parser.value(QStringLiteral("format")).toStdString());
        const ProfileSet profiles = profilesFromOptions(parser);
        ImportOptions options = importOptions(parser, format);
        options.profiles = &profiles;

        const std::string in = parser.positionalArguments().first().toStdString();
        const std::string out = dryRun ? std::string() : parser.value(QStringLiteral("output")).toStdString();
        const ImportResult result = importTrace(in, format, options);
        if (result.trace.jobs.empty()) {
            printReport(result, options, format, {});
            throw Error(in + ": no job survived the filters; nothing written");
        }
        result.trace.validate(profiles, out.empty() ? in : out);
        if (!out.empty())
            result.trace.save(out);
        printReport(result, options, format, out);
        return 0;
    });
}

} // namespace

static CommandRegistration importRegistration{
    {"trace-import", "import a Philly, Alibaba PAI or Helios trace as a DL2 trace", runImport}};

} // namespace dl2::cli
