// Trace import throughput and peak memory: writes a synthetic Alibaba PAI 2020 trace in the
// published layout (pai_job_table + pai_task_table + pai_machine_spec, no headers; 1,000,000
// jobs by default, about 1.25 tasks each, the publisher's mix of states, zero times and
// CPU-only tasks), then times `dl2 trace-import` on it as a whole process (its peak resident
// memory from the kernel), once plain and once gzip-compressed as published. Figures only.
//   bench_core_import [--jobs N] [--json FILE] [--keep DIR [--reuse]]
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

struct Rng
{
    std::uint64_t s;
    std::uint64_t next()
    {
        s += 0x9E3779B97F4A7C15ULL;
        std::uint64_t z = s;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

std::string hex(Rng &rng, int digits)
{
    static const char *kDigits = "0123456789abcdef";
    std::string out;
    while (static_cast<int>(out.size()) < digits) {
        std::uint64_t v = rng.next();
        for (int i = 0; i < 16 && static_cast<int>(out.size()) < digits; ++i, v >>= 4)
            out += kDigits[v & 15];
    }
    return out;
}

// The three tables; returns the bytes written.
long long writePai(const QString &dir, long long jobs)
{
    Rng rng{20200701};
    std::FILE *jobTable = std::fopen(qPrintable(dir + QStringLiteral("/pai_job_table.csv")), "w");
    std::FILE *taskTable = std::fopen(qPrintable(dir + QStringLiteral("/pai_task_table.csv")), "w");
    std::FILE *spec = std::fopen(qPrintable(dir + QStringLiteral("/pai_machine_spec.csv")), "w");
    if (!jobTable || !taskTable || !spec)
        qFatal("cannot write the trace");
    std::vector<std::string> users;
    for (int i = 0; i < 1300; ++i)
        users.push_back(hex(rng, 12));
    const char *gpuTypes[] = {"V100", "V100M32", "P100", "T4", "MISC"};
    const double planGpus[] = {25, 50, 100, 100, 100, 200, 400, 800};
    double submit = 4'500'000;
    for (long long j = 0; j < jobs; ++j) {
        submit += rng.uniform() * 10.0; // ~5 s between submissions: 1 M jobs over two months
        const std::string name = hex(rng, 24);
        const double p = rng.uniform();
        const char *status = p < 0.72 ? "Terminated" : p < 0.89 ? "Failed" : p < 0.97 ? "Running" : "Waiting";
        const double duration = 30 + rng.uniform() * rng.uniform() * 20000;
        const double start = submit + rng.uniform() * 600;
        const bool ended = status[0] == 'T' || status[0] == 'F';
        std::fprintf(jobTable, "%s,%s,%s,%s,%.1f,%.1f\n", name.c_str(), hex(rng, 64).c_str(),
                     users[rng.next() % users.size()].c_str(), status, submit,
                     ended ? start + duration + 5 : 0.0);
        const double shape = rng.uniform();
        const int tasks = shape < 0.85 ? 1 : shape < 0.95 ? 2 : 3;
        for (int t = 0; t < tasks; ++t) {
            const char *task = t == 0 ? (shape < 0.85 ? "tensorflow" : "worker") : t == 1 ? "ps" : "evaluator";
            const int instances = t == 0 ? 1 + static_cast<int>(rng.next() % (shape < 0.85 ? 1 : 8)) : 1 + static_cast<int>(rng.next() % 4);
            const bool cpu = t > 0 || rng.uniform() < 0.05;
            const bool neverStarted = rng.uniform() < 0.02;
            const double taskStart = neverStarted ? 0.0 : start + t;
            const double taskEnd = neverStarted || !ended ? 0.0 : start + duration - t;
            char gpu[16] = "";
            if (!cpu)
                std::snprintf(gpu, sizeof gpu, "%.1f", planGpus[rng.next() % 8]);
            std::fprintf(taskTable, "%s,%s,%d,%s,%.1f,%.1f,%.1f,%.6f,%s,%s\n", name.c_str(), task,
                         instances, status, taskStart, taskEnd, 600.0, 29.296875, gpu,
                         cpu ? "" : gpuTypes[rng.next() % 5]);
        }
    }
    for (int m = 0; m < 1800; ++m)
        std::fprintf(spec, "%s,%s,%d,512,%d\n", hex(rng, 24).c_str(), gpuTypes[m % 4], m % 10 < 6 ? 96 : 64,
                     m % 10 < 6 ? 8 : 2);
    const long long bytes = std::ftell(jobTable) + std::ftell(taskTable) + std::ftell(spec);
    std::fclose(jobTable);
    std::fclose(taskTable);
    std::fclose(spec);
    return bytes;
}

struct Measured
{
    double seconds = 0;
    double cpuSeconds = 0; // user + system of the process (the wall time includes waiting for a CPU)
    double peakMb = 0;
    int exitCode = -1;
    std::string firstLines;
};

// Runs a process and reads its own peak RSS (wait4's rusage covers that child alone).
Measured run(const std::vector<std::string> &argv)
{
    QElapsedTimer timer;
    timer.start();
    int pipefd[2];
    if (pipe(pipefd) != 0)
        qFatal("pipe");
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 1);
        close(pipefd[0]);
        std::vector<char *> args;
        for (const auto &a : argv)
            args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    close(pipefd[1]);
    Measured m;
    char buffer[4096];
    ssize_t n;
    while ((n = read(pipefd[0], buffer, sizeof buffer)) > 0)
        m.firstLines.append(buffer, static_cast<size_t>(n));
    close(pipefd[0]);
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    m.seconds = timer.nsecsElapsed() / 1e9;
    m.peakMb = usage.ru_maxrss / 1024.0;
    m.cpuSeconds = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
                   usage.ru_stime.tv_usec / 1e6;
    m.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return m;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    auto value = [&](const char *name) {
        const auto at = args.indexOf(QLatin1String(name));
        return at >= 0 ? args.value(at + 1) : QString();
    };
    const long long jobs = value("--jobs").isEmpty() ? 1'000'000 : value("--jobs").toLongLong();
    const bool reuse = args.contains(QStringLiteral("--reuse")); // tables already in --keep DIR
    QTemporaryDir scratch;
    const QString dir = value("--keep").isEmpty() ? scratch.path() : value("--keep");
    QDir().mkpath(dir);

    QElapsedTimer timer;
    timer.start();
    if (reuse)
        for (const char *table : {"pai_job_table.csv", "pai_task_table.csv", "pai_machine_spec.csv"})
            run({"/bin/gzip", "-d", "-f", QString(dir + QLatin1Char('/') + QLatin1String(table) + QStringLiteral(".gz")).toStdString()});
    const long long bytes = reuse ? QFileInfo(dir + QStringLiteral("/pai_task_table.csv")).size() +
                                        QFileInfo(dir + QStringLiteral("/pai_job_table.csv")).size()
                                  : writePai(dir, jobs);
    std::printf("%s %lld PAI jobs (%.0f MB of tables) in %.1f s in %s\n", reuse ? "reused" : "wrote", jobs, bytes / 1e6,
                timer.nsecsElapsed() / 1e9, qPrintable(dir));

    const std::string cli = DL2_CLI;
    const std::string task = QString(dir + QStringLiteral("/pai_task_table.csv")).toStdString();
    const std::string out = QString(dir + QStringLiteral("/imported.pb")).toStdString();
    QJsonObject root;
    root[QStringLiteral("jobs")] = static_cast<double>(jobs);
    root[QStringLiteral("input_mb")] = bytes / 1e6;
    std::printf("%-28s %10s %10s %12s %14s\n", "dl2 trace-import", "wall s", "CPU s", "peak MB",
                "jobs/CPU s");
    auto report = [&](const char *label, const char *key, const Measured &m) {
        std::printf("%-28s %10.2f %10.2f %12.0f %14.0f%s\n", label, m.seconds, m.cpuSeconds, m.peakMb,
                    jobs / m.cpuSeconds, m.exitCode == 0 ? "" : "  (failed)");
        QJsonObject o;
        o[QStringLiteral("seconds")] = m.seconds;
        o[QStringLiteral("cpu_seconds")] = m.cpuSeconds;
        o[QStringLiteral("peak_rss_mb")] = m.peakMb;
        o[QStringLiteral("jobs_per_cpu_second")] = jobs / m.cpuSeconds;
        o[QStringLiteral("exit_code")] = m.exitCode;
        root[QLatin1String(key)] = o;
    };
    const Measured dry = run({cli, "trace-import", "--format", "alibaba", task, "--dry-run"});
    report("plain, report only", "plain_report_only", dry);
    report("plain, -o imported.pb", "plain_write_pb", run({cli, "trace-import", "--format", "alibaba", task, "-o", out}));
    for (const char *table : {"pai_job_table.csv", "pai_task_table.csv", "pai_machine_spec.csv"}) {
        const std::string path = QString(dir + QLatin1Char('/') + QLatin1String(table)).toStdString();
        if (run({"/bin/gzip", "-f", "-1", path}).exitCode != 0)
            qFatal("gzip failed");
    }
    report("gzip, -o imported.pb", "gzip_write_pb", run({cli, "trace-import", "--format", "alibaba", task + ".gz", "-o", out}));
    std::printf("\n%s", dry.firstLines.c_str());

    const QString json = value("--json");
    if (!json.isEmpty()) {
        QFile f(json);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(json));
        f.write(QJsonDocument(root).toJson());
    }
    return 0;
}
