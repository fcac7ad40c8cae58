// Start-up cost of the executables, whole process as a user pays it: each command is run
// --runs times (default 10) one after another and the median, min and max wall time are
// printed, with the median CPU time (user + system) of the process, which is what the wall
// time would be on an idle machine (written as JSON with --json FILE). No assertions.
//   dl2 --version
//   dl2 simulate --scenario dl2-reference --policy drf         (the simulation itself ~10 ms)
//   dl2 simulate --scenario dl2-reference --policy dl2-plus --json
//   dl2-console --exit-after-first-frame                       (start to first painted frame,
//                                                              offscreen, fresh settings)
// The executables default to the ones built with this benchmark; --dl2 PATH and
// --console PATH measure others (e.g. an older build, for before/after figures).
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QFile>
#include <QTemporaryDir>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <spawn.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace {

struct Command
{
    std::string name;
    std::vector<std::string> argv;
    std::vector<std::string> env; // extra NAME=VALUE entries
};

struct Timing
{
    double wall = -1.0; // seconds; negative when the run failed
    double cpu = 0.0;   // user + system seconds of the process (what an idle machine's wall is)
};

// One run, stdout and stderr to /dev/null.
Timing runOnce(const Command &c)
{
    std::vector<std::string> envStorage;
    for (char **e = environ; *e; ++e)
        envStorage.emplace_back(*e);
    for (const auto &e : c.env)
        envStorage.push_back(e);
    std::vector<char *> envp, argv;
    for (auto &e : envStorage)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = c.argv;
    for (auto &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        return {};
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return {};
    auto seconds = [](const timeval &t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
    return {s, seconds(usage.ru_utime) + seconds(usage.ru_stime)};
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    auto value = [&](const char *name, const QString &fallback) {
        const qsizetype at = args.indexOf(QString::fromLatin1(name));
        return at >= 0 && at + 1 < args.size() ? args[at + 1] : fallback;
    };
    const int runs = std::max(1, value("--runs", QStringLiteral("10")).toInt());
    const std::string dl2 = value("--dl2", QStringLiteral(DL2_CLI)).toStdString();
    const std::string console = value("--console", QStringLiteral(DL2_CONSOLE)).toStdString();
    const QString jsonPath = value("--json", QString());

    QTemporaryDir home; // a fresh user: no console settings, no caches
    const std::string config = "XDG_CONFIG_HOME=" + home.filePath(QStringLiteral("config")).toStdString();
    const std::string data = "XDG_DATA_HOME=" + home.filePath(QStringLiteral("data")).toStdString();
    std::vector<Command> commands{
        {"dl2 --version", {dl2, "--version"}, {}},
        {"dl2 simulate --scenario dl2-reference --policy drf",
         {dl2, "simulate", "--scenario", "dl2-reference", "--policy", "drf"}, {}},
        {"dl2 simulate --scenario dl2-reference --policy dl2-plus --json",
         {dl2, "simulate", "--scenario", "dl2-reference", "--policy", "dl2-plus", "--json"}, {}},
    };
    if (!console.empty())
        commands.push_back({"dl2-console start to first painted frame (offscreen)",
                            {console, "--exit-after-first-frame"},
                            {"QT_QPA_PLATFORM=offscreen", config, data}});

    std::printf("start-up, whole process, %d runs each: wall median / min / max, and the median "
                "CPU time (user + system) in ms\n", runs);
    QJsonArray out;
    for (const Command &c : commands) {
        runOnce(c); // warm the page cache once, as a user's second start would be
        std::vector<double> walls, cpus;
        bool failed = false;
        for (int i = 0; i < runs && !failed; ++i) {
            const Timing t = runOnce(c);
            failed = t.wall < 0;
            walls.push_back(t.wall);
            cpus.push_back(t.cpu);
        }
        if (failed) {
            std::printf("%-62s FAILED (%s)\n", c.name.c_str(), c.argv[0].c_str());
            continue;
        }
        std::sort(walls.begin(), walls.end());
        std::printf("%-62s %7.1f %7.1f %7.1f   cpu %7.1f\n", c.name.c_str(), 1e3 * median(walls),
                    1e3 * walls.front(), 1e3 * walls.back(), 1e3 * median(cpus));
        QJsonObject o;
        o[QStringLiteral("command")] = QString::fromStdString(c.name);
        o[QStringLiteral("median_ms")] = 1e3 * median(walls);
        o[QStringLiteral("min_ms")] = 1e3 * walls.front();
        o[QStringLiteral("max_ms")] = 1e3 * walls.back();
        o[QStringLiteral("median_cpu_ms")] = 1e3 * median(cpus);
        o[QStringLiteral("runs")] = runs;
        out.append(o);
    }
    if (!jsonPath.isEmpty()) {
        QFile file(jsonPath);
        if (!file.open(QIODevice::WriteOnly) ||
            file.write(QJsonDocument(QJsonObject{{QStringLiteral("startup"), out}}).toJson()) < 0) {
            std::fprintf(stderr, "bench_startup: cannot write %s\n", qPrintable(jsonPath));
            return 2;
        }
    }
    return 0;
}
