// dl2 trace-import: a public cluster trace (Philly, Alibaba PAI 2020, Helios) -> a DL2 trace
#include "command.h"
#include "common.h"

#include "error.h"
#include "modelprofile.h"
#include "speed/measurements.h"
#include "traceimport.h"

#include <cstdio>
#include <map>

namespace dl2::cli {

namespace {

void printReport(const ImportResult &result, const ImportOptions &options, ImportFormat format,
                 const std::string &out)
{
    const ImportReport &r = result.report;
    std::printf("read         %s (%s)", r.inputs.front().c_str(), toString(format));
    for (size_t i = 1; i < r.inputs.size(); ++i)
        std::printf(" + %s", r.inputs[i].c_str());
    std::printf(", %d job records\n", r.records);
    std::printf("kept         %d jobs%s%s\n", r.kept, out.empty() ? "" : " -> ", out.c_str());
    int filtered = 0;
    for (const auto &[reason, count] : r.filtered)
        filtered += count;
    std::printf("filtered     %d", filtered);
    const char *separator = ": ";
    for (const auto &[reason, count] : r.filtered) {
        std::printf("%s%s %d", separator, reason.c_str(), count);
        separator = ", ";
    }
    std::printf("\nmalformed    %d skipped\n", r.malformed);
    for (const auto &example : r.malformedExamples)
        std::printf("               e.g. %s\n", example.c_str());
    // PAI times are seconds shifted by an undisclosed constant: no calendar date to show.
    const std::string origin = format == ImportFormat::Alibaba
                                   ? std::string()
                                   : formatTraceTime(r.timeOrigin) + " = ";
    if (r.kept > 0)
        std::printf("arrivals     slots %d..%d (%g s per slot, slot 0 = %s%.0f s)\n", r.firstSlot,
                    r.lastSlot, options.slotSeconds, origin.c_str(), r.timeOrigin);
    std::map<std::string, int> perModel;
    for (const auto &job : result.trace.jobs)
        ++perModel[job.model];
    std::printf("models       %s, seed %llu", toString(options.modelRule),
                static_cast<unsigned long long>(options.seed));
    separator = ": ";
    for (const auto &[model, count] : perModel) {
        std::printf("%s%s %d", separator, model.c_str(), count);
        separator = ", ";
    }
    std::printf("\n");
}

int runImport(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Import a public cluster trace as a DL2 trace.\n"
        "  philly   FILE = cluster_job_log (JSON array)\n"
        "  alibaba  FILE = pai_task_table.csv; pai_job_table.csv is taken from the same folder\n"
        "           (or --job-table); only Terminated jobs are kept; GPUs = inst_num*plan_gpu/100\n"
        "  helios   FILE = cluster_log.csv (with header); only COMPLETED jobs are kept\n"
        "Mapping: arrival slot = (submit - origin) / slot seconds; allocation: workers = GPUs\n"
        "rounded up (>= 1), PS = workers, both capped at 16; model by --model-rule:\n"
        "  by-size  0 GPUs -> cnn-text-classification|dssm, <= 2 -> resnext-110|seq2seq|wlm,\n"
        "           > 2 -> inception-bn|resnet-50|vgg-16 (member drawn with --seed\n"
        "           and the job id, so it does not depend on the other jobs kept)\n"
        "  sample   uniform over all profiles (--seed and the job id)\n"
        "epochs = observed duration x speed(PS, workers) / steps per epoch, so the job alone at\n"
        "its observed allocation runs for its observed duration. Unsuccessful jobs and jobs\n"
        "without a duration are filtered and counted per reason. The speeds are those the trace\n"
        "will be simulated with, chosen as in `dl2 simulate`: the built-in measured table by\n"
        "default, --speed-table FILE, --speed-model optimus, --profiles FILE."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("The trace file to import."));
    parser.addOption({QStringLiteral("format"), QStringLiteral("philly, alibaba or helios."), QStringLiteral("F")});
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("Output trace (.csv, .pb, .textproto)."), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("slot-seconds"), QStringLiteral("Slot length in seconds (default 1200)."), QStringLiteral("S"), QStringLiteral("1200")});
    parser.addOption({QStringLiteral("time-origin"), QStringLiteral("Time of slot 0: \"YYYY-MM-DD HH:MM:SS\" or seconds on the trace's clock (default: the earliest kept submission)."), QStringLiteral("T")});
    parser.addOption({QStringLiteral("max-jobs"), QStringLiteral("Keep only the first N jobs by submission."), QStringLiteral("N")});
    parser.addOption({QStringLiteral("model-rule"), QStringLiteral("by-size (default) or sample."), QStringLiteral("RULE"), QStringLiteral("by-size")});
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed of the model choice (default 1)."), QStringLiteral("N"), QStringLiteral("1")});
    parser.addOption({QStringLiteral("skip-malformed"), QStringLiteral("Count malformed records instead of stopping at the first.")});
    parser.addOption({QStringLiteral("job-table"), QStringLiteral("alibaba: the pai_job_table CSV."), QStringLiteral("FILE")});
    addSpeedOptions(parser);
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("trace-import", [&] {
        if (parser.positionalArguments().size() != 1)
            throw Error("expected one trace file");
        if (!parser.isSet(QStringLiteral("format")))
            throw Error("--format philly|alibaba|helios is required");
        if (!parser.isSet(QStringLiteral("output")))
            throw Error("-o FILE is required");
        const ImportFormat format = importFormatFromString(parser.value(QStringLiteral("format")).toStdString());
        const ProfileSet profiles = profilesFromOptions(parser);
        ImportOptions options;
        options.profiles = &profiles;
        options.slotSeconds = parseDouble(parser, QStringLiteral("slot-seconds"), 1e-3, 1e9);
        if (parser.isSet(QStringLiteral("time-origin"))) {
            const QString text = parser.value(QStringLiteral("time-origin"));
            options.timeOrigin = parseTraceTime(text.toStdString());
            if (!options.timeOrigin)
                throw Error("--time-origin: expected \"YYYY-MM-DD HH:MM:SS\" or seconds, got '" +
                            text.toStdString() + "'");
        }
        if (parser.isSet(QStringLiteral("max-jobs")))
            options.maxJobs = parsePositiveInt(parser, QStringLiteral("max-jobs"), 1, 10'000'000);
        options.modelRule = modelRuleFromString(parser.value(QStringLiteral("model-rule")).toStdString());
        options.seed = static_cast<std::uint64_t>(parsePositiveInt(parser, QStringLiteral("seed"), 0, 2'000'000'000));
        options.skipMalformed = parser.isSet(QStringLiteral("skip-malformed"));
        options.alibabaJobTable = parser.value(QStringLiteral("job-table")).toStdString();
        if (!options.alibabaJobTable.empty() && format != ImportFormat::Alibaba)
            throw Error("--job-table applies to --format alibaba only");

        const std::string in = parser.positionalArguments().first().toStdString();
        const std::string out = parser.value(QStringLiteral("output")).toStdString();
        const ImportResult result = importTrace(in, format, options);
        if (result.trace.jobs.empty()) {
            printReport(result, options, format, {});
            throw Error(in + ": no job survived the filters; nothing written");
        }
        result.trace.validate(profiles, out);
        result.trace.save(out);
        printReport(result, options, format, out);
        return 0;
    });
}

} // namespace

static CommandRegistration registration{
    {"trace-import", "import a Philly, Alibaba PAI or Helios trace as a DL2 trace", runImport}};

} // namespace dl2::cli
