// `dl2-train`: the training half of the `dl2` command line and the only executable that loads
// libtorch. `dl2 train ARGS` runs `dl2-train ARGS` (same options, same exit codes), so every
// other `dl2` command starts without the ~340 shared libraries libtorch brings.
#include "command.h"
#include "learner.h"
#include "registerpolicies.h"
#include "scheduler.h"

#include <QCoreApplication>

#include <csignal>
#include <cstdio>

int main(int argc, char **argv)
{
    // A write to a peer that went away (a rank stopped with SIGSTOP and continued, a dropped
    // connection) must fail as an error the run reports, not kill the process silently.
    std::signal(SIGPIPE, SIG_IGN);
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("dl2-train"));
    QCoreApplication::setApplicationVersion(QStringLiteral(DL2_VERSION));
    dl2::registerBaselines();
    dl2::registerLearnedPolicies();
    dl2::enableLegacyCheckpoints(); // format-version-1 files: only libtorch reads their weights

    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 2 || args[1] == QStringLiteral("--help") || args[1] == QStringLiteral("-h")) {
        std::printf("Usage: dl2 train sl|rl [options]     (dl2 train sl --help)\n"
                    "       dl2 train convert OLD.dl2ckpt -o NEW.dl2ckpt\n\n"
                    "Train the learned scheduler: sl imitates a teacher scheduler, rl improves a\n"
                    "policy by reinforcement learning (actor-critic or evolution strategies);\n"
                    "convert rewrites a checkpoint of format version 1 in the current format.\n");
        return args.size() < 2 ? 2 : 0;
    }
    if (args[1] == QStringLiteral("--version") || args[1] == QStringLiteral("-v")) {
        std::printf("dl2-train %s\n", DL2_VERSION);
        return 0;
    }
    // "dl2-train convert ..." runs the convert command, "dl2-train operate ..." the operating
    // loop with online learning (dl2 operate --learn); anything else is "dl2 train ...".
    // "dl2-train online-learner ..." is the console's learner (its Learn toggle).
    if (args[1] == QStringLiteral("operate") || args[1] == QStringLiteral("online-learner")) {
        for (const auto &c : dl2::cli::commands())
            if (QLatin1String(c.name) == args[1]) {
                QStringList sub = args.mid(1);
                sub[0] = args[1] == QStringLiteral("operate") ? QStringLiteral("dl2 operate")
                                                              : QStringLiteral("dl2-train ") + args[1];
                return c.run(sub);
            }
    }
    const QString name = args[1] == QStringLiteral("convert") ? args[1] : QStringLiteral("train");
    for (const auto &c : dl2::cli::commands()) {
        if (name == QLatin1String(c.name)) {
            QStringList sub = name == QStringLiteral("train") ? args : args.mid(1);
            sub[0] = QStringLiteral("dl2 train");
            if (name != QStringLiteral("train"))
                sub[0] += QLatin1Char(' ') + name;
            return c.run(sub);
        }
    }
    std::fprintf(stderr, "dl2-train: built without its train command\n");
    return 2;
}
