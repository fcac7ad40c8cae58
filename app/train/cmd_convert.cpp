// dl2 train convert: rewrites a checkpoint of format version 1 (weights inside a libtorch
// archive) as version 2 (weights as Protobuf), which every build reads without libtorch.
#include "command.h"
#include "common.h"

#include "checkpoint.h"
#include "error.h"
#include "fileio.h"

#include <cstdio>

namespace dl2::cli {

namespace {

int runConvert(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Rewrite a policy checkpoint in the current format (version 2: weights as Protobuf, "
        "readable without libtorch). The optimizer state is kept."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("checkpoint"), QStringLiteral("Checkpoint to read."));
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                      QStringLiteral("Checkpoint to write."), QStringLiteral("CKPT")});
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("train convert", [&] {
        if (parser.positionalArguments().size() != 1)
            throw Error("give one checkpoint to convert");
        if (!parser.isSet(QStringLiteral("output")))
            throw Error("-o CKPT is required");
        const std::string in = parser.positionalArguments().constFirst().toStdString();
        const std::string out = parser.value(QStringLiteral("output")).toStdString();
        const Checkpoint c = readCheckpoint(in);
        std::string optimizer;
        if (c.hasOptimizer)
            optimizer = c.archive; // a version-1 archive holds the Adam state under "optimizer" too
        writeFileAtomically(out, encodeCheckpoint(c.spec, c.info, NetworkArchive{*c.parameters, optimizer},
                                                  c.hasOptimizer));
        std::printf("%s: %s policy, %zu parameters, format version %u%s%s\n", out.c_str(),
                    toString(c.spec.kind), c.parameters->size(), kCheckpointFormatVersion,
                    c.hasOptimizer ? ", with the optimizer state" : "",
                    c.valueOmitted ? ", the untrained value network left out" : "");
        return 0;
    });
}

} // namespace

static CommandRegistration convertRegistration{
    {"convert", "rewrite a checkpoint in the current format", runConvert}};

} // namespace dl2::cli
