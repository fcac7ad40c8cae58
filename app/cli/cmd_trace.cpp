// dl2 trace generate | convert | info
#include "command.h"
#include "common.h"

#include "error.h"
#include "modelprofile.h"
#include "tracegenerator.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace dl2::cli {

namespace {

TraceFormat formatOption(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("format")))
        return TraceFormat::Auto;
    const QString f = parser.value(QStringLiteral("format"));
    if (f == QStringLiteral("csv"))
        return TraceFormat::Csv;
    if (f == QStringLiteral("binary") || f == QStringLiteral("pb"))
        return TraceFormat::Binary;
    if (f == QStringLiteral("text") || f == QStringLiteral("textproto"))
        return TraceFormat::Text;
    throw Error("--format: expected csv, binary or text, got '" + f.toStdString() + "'");
}

ProfileSet profilesOption(const QCommandLineParser &parser)
{
    return parser.isSet(QStringLiteral("profiles"))
               ? ProfileSet::loadText(parser.value(QStringLiteral("profiles")).toStdString())
               : ProfileSet::reference();
}

void addCommon(QCommandLineParser &parser)
{
    parser.addHelpOption();
    parser.addOption({QStringLiteral("profiles"),
                      QStringLiteral("Model profiles (text dl2.pb.ProfileSet) instead of the built-in ones."),
                      QStringLiteral("FILE")});
}

int generate(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Generate a seeded trace: from a scenario (--scenario NAME) or from explicit generator "
        "options. Deterministic across runs and machines."));
    addCommon(parser);
    parser.addOption({QStringLiteral("scenario"), QStringLiteral("Start from this scenario's generator."), QStringLiteral("NAME")});
    parser.addOption({QStringLiteral("seed"), QStringLiteral("Seed (default 1)."), QStringLiteral("N"), QStringLiteral("1")});
    parser.addOption({QStringLiteral("pattern"), QStringLiteral("Arrivals: google, poisson or uniform."), QStringLiteral("P")});
    parser.addOption({QStringLiteral("jobs"), QStringLiteral("Number of jobs."), QStringLiteral("N")});
    parser.addOption({QStringLiteral("cap"), QStringLiteral("Arrivals per slot (cap; Poisson mean)."), QStringLiteral("N")});
    parser.addOption({QStringLiteral("max-epochs"), QStringLiteral("Epochs = profile fraction x this (default 30000)."), QStringLiteral("X")});
    parser.addOption({QStringLiteral("epoch-jitter"), QStringLiteral("Relative +- jitter of total epochs."), QStringLiteral("X")});
    parser.addOption({QStringLiteral("estimate-error"), QStringLiteral("Relative +- error of the epochs the scheduler is told."), QStringLiteral("X")});
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("Output file (.csv, .pb, .textproto)."), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("format"), QStringLiteral("csv, binary or text (default: from the extension)."), QStringLiteral("F")});
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("trace generate", [&] {
        if (!parser.isSet(QStringLiteral("output")))
            throw Error("-o FILE is required");
        const ProfileSet profiles = profilesOption(parser);
        GeneratorOptions g = scenarioByName(parser.isSet(QStringLiteral("scenario"))
                                                ? parser.value(QStringLiteral("scenario")).toStdString()
                                                : "dl2-reference")
                                 .generator;
        g.seed = static_cast<std::uint64_t>(parsePositiveInt(parser, QStringLiteral("seed"), 0, 2'000'000'000));
        if (parser.isSet(QStringLiteral("pattern")))
            g.pattern = arrivalPatternFromString(parser.value(QStringLiteral("pattern")).toStdString());
        if (parser.isSet(QStringLiteral("jobs")))
            g.jobs = parsePositiveInt(parser, QStringLiteral("jobs"), 1, 10'000'000);
        if (parser.isSet(QStringLiteral("cap")))
            g.cap = parsePositiveInt(parser, QStringLiteral("cap"), 1, 1'000'000);
        if (parser.isSet(QStringLiteral("max-epochs")))
            g.maxEpochs = parseDouble(parser, QStringLiteral("max-epochs"), 1e-9, 1e12);
        if (parser.isSet(QStringLiteral("epoch-jitter")))
            g.epochJitter = parseDouble(parser, QStringLiteral("epoch-jitter"), 0, 0.99);
        if (parser.isSet(QStringLiteral("estimate-error")))
            g.estimateError = parseDouble(parser, QStringLiteral("estimate-error"), 0, 0.99);
        const Trace t = generateTrace(profiles, g);
        const std::string out = parser.value(QStringLiteral("output")).toStdString();
        t.save(out, formatOption(parser));
        std::printf("wrote %zu jobs (arrivals in slots 0..%d) to %s\n", t.jobs.size(), t.lastArrival(), out.c_str());
        return 0;
    });
}

int convert(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Convert a trace between CSV, binary and text Protobuf."));
    addCommon(parser);
    parser.addPositionalArgument(QStringLiteral("input"), QStringLiteral("Trace file to read."));
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")}, QStringLiteral("Output file."), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("format"), QStringLiteral("Output format: csv, binary or text (default: from the extension)."), QStringLiteral("F")});
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("trace convert", [&] {
        if (parser.positionalArguments().size() != 1)
            throw Error("expected one input trace file");
        if (!parser.isSet(QStringLiteral("output")))
            throw Error("-o FILE is required");
        const std::string in = parser.positionalArguments().first().toStdString();
        const Trace t = Trace::load(in);
        t.validate(profilesOption(parser), in);
        const std::string out = parser.value(QStringLiteral("output")).toStdString();
        t.save(out, formatOption(parser));
        std::printf("wrote %zu jobs to %s\n", t.jobs.size(), out.c_str());
        return 0;
    });
}

int info(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Summarise a trace: jobs per model, arrivals, epochs."));
    addCommon(parser);
    parser.addPositionalArgument(QStringLiteral("trace"), QStringLiteral("Trace file."));
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("trace info", [&] {
        if (parser.positionalArguments().size() != 1)
            throw Error("expected one trace file");
        const std::string in = parser.positionalArguments().first().toStdString();
        const Trace t = Trace::load(in);
        t.validate(profilesOption(parser), in);
        std::map<std::string, std::pair<int, double>> perModel;
        int estimated = 0;
        for (const auto &j : t.jobs) {
            auto &e = perModel[j.model];
            ++e.first;
            e.second += j.epochs;
            estimated += j.estimatedEpochs.has_value();
        }
        std::printf("trace        %s\njobs         %zu\narrivals     slots %d..%d\nestimates    %d jobs carry an epoch estimate\n\n",
                    t.name.c_str(), t.jobs.size(),
                    std::min_element(t.jobs.begin(), t.jobs.end(), [](auto &a, auto &b) { return a.arrivalSlot < b.arrivalSlot; })->arrivalSlot,
                    t.lastArrival(), estimated);
        std::printf("%-26s %6s %14s\n", "model", "jobs", "mean epochs");
        for (const auto &[model, e] : perModel)
            std::printf("%-26s %6d %14.1f\n", model.c_str(), e.first, e.second / e.first);
        return 0;
    });
}

int runTrace(const QStringList &args)
{
    const QString sub = args.value(1);
    QStringList rest = args.mid(1);
    if (!rest.isEmpty())
        rest[0] = args[0] + QLatin1Char(' ') + sub;
    if (sub == QStringLiteral("generate"))
        return generate(rest);
    if (sub == QStringLiteral("convert"))
        return convert(rest);
    if (sub == QStringLiteral("info"))
        return info(rest);
    if (sub == QStringLiteral("--help") || sub == QStringLiteral("-h")) {
        std::printf("Usage: dl2 trace generate|convert|info [options]  (each takes --help)\n");
        return 0;
    }
    std::fprintf(stderr, "dl2 trace: expected generate, convert or info%s\n",
                 sub.isEmpty() ? "" : qPrintable(QStringLiteral(", got '") + sub + QLatin1Char('\'')));
    return kExitBadInput;
}

} // namespace

static CommandRegistration traceRegistration{
    {"trace", "generate, convert or summarise traces", runTrace}};

} // namespace dl2::cli
