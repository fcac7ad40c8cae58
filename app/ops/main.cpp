// `dl2-ops`: the cluster-operations half of the `dl2` command line (operate, audit,
// kube-apply), which needs gRPC, Qt SQL and Qt Network. `dl2 operate ARGS` runs
// `dl2-ops operate ARGS`, so every other `dl2` command starts without those libraries.
#include "command.h"
#include "scheduler.h"
#ifdef DL2_HAVE_LEARNING
#include "registerpolicies.h"
#endif

#include <QCoreApplication>

#include <algorithm>
#include <cstdio>
#include <cstring>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("dl2"));
    QCoreApplication::setApplicationVersion(QStringLiteral(DL2_VERSION));
    dl2::registerBaselines();
#ifdef DL2_HAVE_LEARNING
    dl2::registerLearnedPolicies(); // operate --policy dl2|dl2-plus
#endif

    const QStringList args = QCoreApplication::arguments();
    if (args.size() >= 2 && (args[1] == QStringLiteral("--version") || args[1] == QStringLiteral("-v"))) {
        std::printf("dl2-ops %s\n", DL2_VERSION);
        return 0;
    }
    auto sorted = dl2::cli::commands();
    std::sort(sorted.begin(), sorted.end(),
              [](const auto &a, const auto &b) { return std::strcmp(a.name, b.name) < 0; });
    if (args.size() < 2 || args[1] == QStringLiteral("--help") || args[1] == QStringLiteral("-h")) {
        std::printf("Usage: dl2 <command> [options]   (run by dl2 for these commands)\n\nCommands:\n");
        for (const auto &c : sorted)
            std::printf("  %-14s %s\n", c.name, c.summary);
        return args.size() < 2 ? 2 : 0;
    }
    for (const auto &c : sorted) {
        if (args[1] == QLatin1String(c.name)) {
            QStringList sub = args.mid(1);
            sub[0] = QStringLiteral("dl2 ") + sub[0];
            return c.run(sub);
        }
    }
    std::fprintf(stderr, "dl2-ops: unknown command '%s'\n", qPrintable(args[1]));
    return 2;
}
