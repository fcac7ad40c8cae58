// Commands that live in companion executables, so that `dl2` itself loads only Qt Core,
// Protobuf and our libraries and starts at once:
//   dl2 train ...                    -> dl2-train ...  (the one executable that loads libtorch)
//   dl2 operate|audit|kube-apply ... -> dl2-ops <command> ...  (gRPC, Qt SQL and Qt Network)
// dl2 replaces itself with the companion (execv: same process id, same exit code, signals
// reach it directly), found next to dl2 (build tree, installation), else on PATH.
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

QString companionPath(const QString &name)
{
    const QString beside = QCoreApplication::applicationDirPath() + QLatin1Char('/') + name;
    if (QFileInfo(beside).isExecutable())
        return beside;
    return QStandardPaths::findExecutable(name);
}

// args[0] is "dl2 <command>"; the companion gets `prefix` and then args[1...].
int runCompanion(const char *name, const QStringList &prefix, const QStringList &args)
{
    const QString exe = companionPath(QString::fromLatin1(name));
    if (exe.isEmpty()) {
        std::fprintf(stderr, "%s: %s not found next to %s or on PATH (it is built and installed "
                             "with dl2)\n",
                     qPrintable(args.value(0)), name,
                     qPrintable(QCoreApplication::applicationFilePath()));
        return kExitBadInput;
    }
    std::vector<std::string> storage{exe.toStdString()};
    for (const QString &p : prefix)
        storage.push_back(p.toStdString());
    for (qsizetype i = 1; i < args.size(); ++i)
        storage.push_back(args[i].toStdString());
    std::vector<char *> argv;
    for (auto &s : storage)
        argv.push_back(s.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    ::execv(argv[0], argv.data());
    std::fprintf(stderr, "%s: cannot run %s: %s\n", qPrintable(args.value(0)), argv[0],
                 std::strerror(errno));
    return kExitBadInput;
}

} // namespace

#ifdef DL2_HAVE_TRAIN
static CommandRegistration train{
    {"train", "train the learned scheduler (sl: imitate a teacher, rl: reinforcement learning)",
     [](const QStringList &args) { return runCompanion("dl2-train", {}, args); }}};
#endif

#ifdef DL2_HAVE_OPS
static CommandRegistration operate{
    {"operate", "run a policy against a cluster agent through the decision gate",
     [](const QStringList &args) { return runCompanion("dl2-ops", {QStringLiteral("operate")}, args); }}};
static CommandRegistration audit{
    {"audit", "list or export an operate audit log",
     [](const QStringList &args) { return runCompanion("dl2-ops", {QStringLiteral("audit")}, args); }}};
static CommandRegistration kubeApply{
    {"kube-apply", "apply approved decisions to Kubernetes (PyTorchJob, Volcano)",
     [](const QStringList &args) { return runCompanion("dl2-ops", {QStringLiteral("kube-apply")}, args); }}};
#endif

} // namespace dl2::cli
