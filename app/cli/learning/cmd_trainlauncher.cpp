// dl2 train: runs `dl2-train` (the one executable that links libtorch) with the same
// arguments, replacing this process, so `dl2` itself never loads libtorch.
#include "command.h"
#include "common.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QStandardPaths>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace dl2::cli {

namespace {

// dl2-train next to this executable (build tree and installation), else on PATH.
QString trainExecutable()
{
    const QString beside = QCoreApplication::applicationDirPath() + QStringLiteral("/dl2-train");
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(QStringLiteral("dl2-train"));
}

int runTrain(const QStringList &args)
{
    const QString exe = trainExecutable();
    if (exe.isEmpty()) {
        std::fprintf(stderr, "dl2 train: dl2-train not found next to %s or on PATH (it is built "
                             "with the learning library and installed beside dl2)\n",
                     qPrintable(QCoreApplication::applicationFilePath()));
        return kExitBadInput;
    }
    std::vector<std::string> storage;
    storage.push_back(exe.toStdString());
    for (qsizetype i = 1; i < args.size(); ++i)
        storage.push_back(args[i].toStdString());
    std::vector<char *> argv;
    for (auto &s : storage)
        argv.push_back(s.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    ::execv(argv[0], argv.data());
    std::fprintf(stderr, "dl2 train: cannot run %s: %s\n", argv[0], std::strerror(errno));
    return kExitBadInput;
}

} // namespace

static CommandRegistration registration{
    {"train", "train the learned scheduler (sl: imitate a teacher, rl: reinforcement learning)", runTrain}};

} // namespace dl2::cli
