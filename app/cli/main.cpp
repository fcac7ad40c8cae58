// `dl2`: the scriptable front-end of the scheduling core.
#include "command.h"
#include "scheduler.h"

#ifdef DL2_HAVE_LEARNING
#include "registerpolicies.h"
#endif

#include <QCoreApplication>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace {

void printUsage()
{
    std::printf("Usage: dl2 <command> [options]   (dl2 <command> --help for its options)\n\n"
                "Simulate, compare and train schedulers for deep-learning clusters.\n\nCommands:\n");
    auto sorted = dl2::cli::commands(); // registration order is link order: sort for people
    std::sort(sorted.begin(), sorted.end(),
              [](const auto &a, const auto &b) { return std::strcmp(a.name, b.name) < 0; });
    for (const auto &c : sorted)
        std::printf("  %-14s %s\n", c.name, c.summary);
    std::printf("\n  --version      print the version\n  --help         this text\n");
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("dl2"));
    QCoreApplication::setApplicationVersion(QStringLiteral(DL2_VERSION));
    dl2::registerBaselines();
#ifdef DL2_HAVE_LEARNING
    dl2::registerLearnedPolicies();
#endif

    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 2 || args[1] == QStringLiteral("--help") || args[1] == QStringLiteral("-h") ||
        args[1] == QStringLiteral("help")) {
        printUsage();
        return args.size() < 2 ? 2 : 0;
    }
    if (args[1] == QStringLiteral("--version") || args[1] == QStringLiteral("-v")) {
        std::printf("dl2 %s\n", DL2_VERSION);
        return 0;
    }
    for (const auto &c : dl2::cli::commands()) {
        if (args[1] == QLatin1String(c.name)) {
            QStringList sub = args.mid(1);
            sub[0] = QStringLiteral("dl2 ") + sub[0];
            return c.run(sub);
        }
    }
    std::fprintf(stderr, "dl2: unknown command '%s' (dl2 --help lists them)\n", qPrintable(args[1]));
    return 2;
}
