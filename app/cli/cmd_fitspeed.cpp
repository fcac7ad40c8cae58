// dl2 fit-speed: fit the Optimus speed model to measurements and write model profiles.
#include "command.h"
#include "common.h"

#include "error.h"
#include "fileio.h"
#include "fitspeed.h"
#include "speed/measurements.h"

#include <cstdio>

namespace dl2::cli {

namespace {

int runFitSpeed(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Fit the Optimus parametric speed model (non-negative least squares) to measured speeds "
        "(DL2 tuple format or CSV model,ps,workers,speed) and write text-format model profiles. "
        "Failed all-zero measurements are dropped from the fit and counted."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("measurements"), QStringLiteral("Measurement file."));
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                      QStringLiteral("Profiles file to write (text dl2.pb.ProfileSet)."), QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("profiles"),
                      QStringLiteral("Base profiles (demands, steps per epoch); default the built-in ones."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("form"), QStringLiteral("sync (default) or async."), QStringLiteral("FORM"),
                      QStringLiteral("sync")});
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("fit-speed", [&] {
        if (parser.positionalArguments().size() != 1)
            throw Error("expected one measurement file");
        const QString formName = parser.value(QStringLiteral("form"));
        if (formName != QStringLiteral("sync") && formName != QStringLiteral("async"))
            throw Error("--form: expected sync or async, got '" + formName.toStdString() + "'");
        const std::string in = parser.positionalArguments().first().toStdString();
        const ProfileSet base = parser.isSet(QStringLiteral("profiles"))
                                    ? ProfileSet::loadText(parser.value(QStringLiteral("profiles")).toStdString())
                                    : ProfileSet::reference();
        const auto samples = loadMeasurements(in);
        const auto result = fitProfiles(samples, base, in,
                                        formName == QStringLiteral("sync") ? OptimusForm::Sync : OptimusForm::Async);
        std::fputs(result.report().c_str(), stdout);
        if (parser.isSet(QStringLiteral("output"))) {
            const std::string out = parser.value(QStringLiteral("output")).toStdString();
            std::string command = "dl2 fit-speed";
            for (const QString &a : args.mid(1))
                command += ' ' + a.toStdString();
            writeFileAtomically(out, result.toText(command));
            std::printf("wrote %s\n", out.c_str());
        }
        return 0;
    });
}

} // namespace

static CommandRegistration fitspeedRegistration{
    {"fit-speed", "fit speed models to measurements, write profiles", runFitSpeed}};

} // namespace dl2::cli
