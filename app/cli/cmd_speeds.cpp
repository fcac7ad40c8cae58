// dl2 speeds derive | show: the measured speed table. `derive` turns the DL2 authors'
// measurement file into our table (model,ps,workers,speed: the summed per-worker speed of
// every measured configuration, failed all-zero ones kept) — how resources/speeds/ was made;
// `show` prints what a speed model gives over the (p, w) grid.
#include "command.h"
#include "common.h"

#include "error.h"
#include "fileio.h"
#include "speed/measurements.h"

#include <QFileInfo>

#include <algorithm>
#include <cstdio>

namespace dl2::cli {

namespace {

int runDerive(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(opt(
        "Derive the measured speed table from a measurement file in the DL2 authors' format (one "
        "Python tuple per line: model, sync mode, total batch, PSs, workers, per-worker speeds, "
        "PS and worker CPU): one CSV row model,ps,workers,speed per line, speed = the sum of the "
        "per-worker speeds (steps/s), in file order, failed all-zero measurements kept, each "
        "speed written so that it reads back as the same double. This is how "
        "resources/speeds/dl2-testbed-speeds.csv was made."));
    parser.addHelpOption();
    parser.addPositionalArgument(opt("measurements"), opt("The DL2 measurement file."));
    parser.addOption({{opt("o"), opt("output")}, opt("CSV to write (default: standard output)."), opt("FILE")});
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("speeds derive", [&] {
        if (parser.positionalArguments().size() != 1)
            throw Error("expected one measurement file");
        const std::string in = parser.positionalArguments().constFirst().toStdString();
        const auto samples = readDl2Measurements(in);
        const std::string name = QFileInfo(QString::fromStdString(in)).fileName().toStdString();
        int failed = 0;
        for (const auto &s : samples)
            failed += s.speed == 0.0;
        std::string command = "dl2 speeds derive " + name;
        if (parser.isSet(opt("output")))
            command += " -o " + QFileInfo(parser.value(opt("output"))).fileName().toStdString();
        const std::string csv = measurementsToCsv(
            samples, {"Measured training speed of every configuration in " + name + ":",
                      "speed = steps/s summed over the workers (the DL2 simulator's f(p, w)).",
                      std::to_string(samples.size()) + " configurations of " +
                          std::to_string(measuredModels(samples).size()) + " models, " +
                          std::to_string(failed) + " failed (all-zero) measurements kept.",
                      "Derived by: " + command});
        if (!parser.isSet(opt("output"))) {
            std::fwrite(csv.data(), 1, csv.size(), stdout);
            return 0;
        }
        const std::string out = parser.value(opt("output")).toStdString();
        writeFileAtomically(out, csv);
        std::fprintf(stderr, "%s: %zu configurations, %d failed (kept)\n", out.c_str(), samples.size(),
                     failed);
        return 0;
    });
}

int runShow(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(opt(
        "Print a speed model over the (PS, workers) grid: for each model its measured points and "
        "best setting within the caps, and with --model the grid of f(p, w) in steps/s. The "
        "speed options are those of `dl2 simulate`."));
    parser.addHelpOption();
    addSpeedOptions(parser);
    parser.addOption({opt("model"), opt("Print the grid of this model."), opt("NAME")});
    parser.addOption({opt("max"), opt("Largest PS and worker count shown (default 16)."), opt("N"), opt("16")});
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("speeds show", [&] {
        const ProfileSet profiles = profilesFromOptions(parser);
        const int max = parsePositiveInt(parser, opt("max"), 1, 64);
        const std::vector<SpeedSample> &table =
            parser.isSet(opt("speed-table")) ? loadMeasurements(parser.value(opt("speed-table")).toStdString())
                                             : builtinMeasurements();
        std::printf("speed model: %s\n", speedModelFromOptions(parser) == SpeedModelChoice::Measured
                                             ? "measured table, exact linear RBF"
                                             : "fitted Optimus model");
        if (!parser.isSet(opt("model"))) {
            std::printf("%-24s %9s %7s %18s\n", "model", "measured", "failed", "best (p, w) <= max");
            for (const auto &p : profiles.all()) {
                int n = 0, failed = 0;
                for (const auto &s : table)
                    if (s.model == p.name) {
                        ++n;
                        failed += s.speed == 0.0;
                    }
                int bp = 1, bw = 1;
                for (int ps = 1; ps <= max; ++ps)
                    for (int w = 1; w <= max; ++w)
                        if (p.speed->speed(ps, w) > p.speed->speed(bp, bw)) {
                            bp = ps;
                            bw = w;
                        }
                std::printf("%-24s %9d %7d   (%2d, %2d) %8.3f\n", p.name.c_str(), n, failed, bp, bw,
                            p.speed->speed(bp, bw));
            }
            return 0;
        }
        const std::string name = parser.value(opt("model")).toStdString();
        const auto index = profiles.indexOf(name);
        if (!index)
            throw Error("--model: unknown model '" + name + "'");
        const SpeedModel &model = *profiles[*index].speed;
        std::printf("%s: f(p, w) in steps/s, rows p = PSs, columns w = workers\n%4s", name.c_str(), "p\\w");
        for (int w = 1; w <= max; ++w)
            std::printf(" %7d", w);
        std::printf("\n");
        for (int ps = 1; ps <= max; ++ps) {
            std::printf("%4d", ps);
            for (int w = 1; w <= max; ++w)
                std::printf(" %7.3f", model.speed(ps, w));
            std::printf("\n");
        }
        return 0;
    });
}

int runSpeeds(const QStringList &args)
{
    const QString sub = args.value(1);
    if (sub != opt("derive") && sub != opt("show")) {
        std::fprintf(sub.isEmpty() || sub.startsWith(QLatin1Char('-')) ? stdout : stderr,
                     "Usage: dl2 speeds derive DL2-MEASUREMENTS [-o FILE.csv]\n"
                     "       dl2 speeds show [--model NAME] [--speed-model rbf|optimus] [--speed-table FILE]\n");
        return sub == opt("--help") || sub == opt("-h") ? 0 : kExitBadInput;
    }
    QStringList rest = args.mid(1);
    rest[0] = args[0] + QLatin1Char(' ') + sub;
    return sub == opt("derive") ? runDerive(rest) : runShow(rest);
}

} // namespace

static CommandRegistration speedsRegistration{
    {"speeds", "derive the measured speed table; show a speed model over (PS, workers)", runSpeeds}};

} // namespace dl2::cli
