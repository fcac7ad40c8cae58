// bench_soak [--minutes M] [--seed N] [--json FILE] [--keep DIR]
// Soak of the live path on loopback: a real dl2-agent (simulated backend, scenario dl2-burst:
// 10,000 jobs arrive per slot, so arrival slots carry 10,000+ decisions) and real `dl2
// operate` runs (policy drf, automatic gate, audit log) for M minutes (default 10), while a
// chaos loop every 3-10 s (random, seeded) does one of:
//  - SIGKILL the agent and restart it on the same port (it resumes from its journal);
//  - SIGKILL the operator and restart it (it resumes from its audit log);
//  - fill the disk of the audit log for 2-6 s (`dl2 operate --debug-audit-full-file`: an SQLite
//    VFS fails every write of the log with SQLITE_FULL, as ENOSPC does, while a flag file
//    exists; the operator must stop approving and hold what it cannot record).
// The operator runs in batches of --slots 6 (each exit is a normal restart too); when the
// cluster is done the agent and the log start over (a new epoch). At the end the chaos stops,
// the running batch finishes, and each epoch is checked: the audit log's PRAGMA
// integrity_check, and against the agent's own record (GetApplied): lost (approved in the log,
// unknown to the agent), duplicated (applied more than once), unacknowledged (approved, never
// acknowledged), unknown to the log, and "acknowledged exactly once" (every approved decision
// acknowledged in the log and applied exactly once by the agent). Prints figures and writes
// JSON; exits 1 when a check fails. Not a test (minutes long); loopback only, bounded in time
// (M minutes of chaos + at most 5 minutes to drain).
#include "grpcconnector.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

const char *const kToken = "soak-token";

struct Options
{
    double minutes = 10.0;
    unsigned seed = 1;
    QString json;
    QString keep;
};

void sleepMs(int ms)
{
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

bool running(QProcess &p)
{
    p.waitForFinished(0); // lets QProcess notice an exit without an event loop
    return p.state() != QProcess::NotRunning;
}

struct Counters
{
    int agentKills = 0, operatorKills = 0, diskFullEpisodes = 0;
    int operatorRuns = 0, operatorRunsOk = 0, operatorErrors = 0, disagreements = 0;
    int resent = 0;
    double diskFullSeconds = 0.0;
    std::vector<double> latencyP50, latencyP99;
};

struct EpochResult
{
    QString dir;
    int slotCount = 0;
    int approved = 0, acknowledged = 0, lost = 0, duplicated = 0, unacknowledged = 0,
        unknownToAudit = 0, notExactlyOnce = 0, agentApplied = 0;
    int maxDecisionsPerSlot = 0, burstSlots = 0;
    int auditStops = 0, auditResumes = 0; // the operator's notices in operate.log
    QString integrity;
    bool done = false;
};

class Epoch
{
public:
    Epoch(const QString &dir, const QString &agentPath, const QString &cliPath, Counters &counters)
        : m_dir(dir), m_agentPath(agentPath), m_cliPath(cliPath), m_c(counters)
    {
        QDir().mkpath(dir + QStringLiteral("/state"));
        {
            QFile token(dir + QStringLiteral("/token"));
            token.open(QIODevice::WriteOnly);
            token.write(kToken);
        }
        m_flag = dir + QStringLiteral("/disk-full");
        startAgent();
    }
    ~Epoch()
    {
        for (QProcess *p : {&m_operator, &m_agent})
            if (running(*p)) {
                p->terminate();
                if (!p->waitForFinished(5000))
                    p->kill();
                p->waitForFinished(5000);
            }
    }

    void startAgent()
    {
        m_agent.setProgram(m_agentPath);
        m_agent.setArguments({QStringLiteral("--backend"), QStringLiteral("sim"),
                              QStringLiteral("--scenario"), QStringLiteral("dl2-burst"),
                              QStringLiteral("--listen"),
                              QStringLiteral("127.0.0.1:%1").arg(m_port),
                              QStringLiteral("--token-file"), m_dir + QStringLiteral("/token"),
                              QStringLiteral("--state-dir"), m_dir + QStringLiteral("/state")});
        m_agent.setProcessChannelMode(QProcess::MergedChannels);
        for (int attempt = 0; attempt < 20; ++attempt) {
            m_agent.start();
            QByteArray out;
            const auto until = Clock::now() + 120s; // a restart replays the journal first
            while (Clock::now() < until && !out.contains("listening on") && running(m_agent))
                if (m_agent.waitForReadyRead(200))
                    out += m_agent.readAll();
            if (out.contains("listening on") && !out.endsWith('\n'))
                m_agent.waitForReadyRead(1000);
            out += m_agent.readAll();
            const int at = out.indexOf("listening on 127.0.0.1:");
            if (at >= 0) {
                m_port = out.mid(at + 23).split(' ').front().toInt();
                return;
            }
            std::fprintf(stderr, "soak: agent did not start (%s), retrying\n",
                         out.trimmed().constData());
            m_agent.kill();
            m_agent.waitForFinished(5000);
            sleepMs(500); // the port may still be held
        }
        throw std::runtime_error("the agent does not start");
    }

    void killAgent()
    {
        if (!running(m_agent))
            return;
        ::kill(static_cast<pid_t>(m_agent.processId()), SIGKILL);
        m_agent.waitForFinished(5000);
        ++m_c.agentKills;
        sleepMs(300);
        startAgent();
    }

    void killOperator()
    {
        if (!running(m_operator))
            return;
        ::kill(static_cast<pid_t>(m_operator.processId()), SIGKILL);
        m_operator.waitForFinished(5000);
        ++m_c.operatorKills;
        m_operatorActive = false;
    }

    void diskFull(bool on)
    {
        QFile flag(m_flag);
        if (on) {
            flag.open(QIODevice::WriteOnly);
            m_fullSince = Clock::now();
            ++m_c.diskFullEpisodes;
        } else if (flag.exists()) {
            flag.remove();
            m_c.diskFullSeconds +=
                std::chrono::duration<double>(Clock::now() - m_fullSince).count();
        }
    }
    bool diskIsFull() const { return QFile::exists(m_flag); }

    // Keeps an operator batch running; false once the cluster is done.
    bool step()
    {
        if (!running(m_agent)) {
            std::fprintf(stderr, "soak: the agent exited by itself: %s\n",
                         m_agent.readAll().constData());
            startAgent();
        }
        m_agent.readAll(); // drain
        if (m_operatorActive && running(m_operator))
            return true;
        if (m_operatorActive)
            finishedRun();
        if (m_done)
            return false;
        startOperator();
        return true;
    }

    // Lets the running batch end by itself (no chaos any more).
    void drain(std::chrono::seconds limit)
    {
        diskFull(false);
        const auto until = Clock::now() + limit;
        while (m_operatorActive && running(m_operator) && Clock::now() < until)
            sleepMs(200);
        if (m_operatorActive && running(m_operator)) {
            std::fprintf(stderr, "soak: the last batch did not finish in %lld s\n",
                         static_cast<long long>(limit.count()));
            killOperator();
        } else if (m_operatorActive) {
            finishedRun();
        }
        // One last run that only resumes: re-sends whatever a kill or a full disk left
        // unacknowledged.
        if (!m_done) {
            startOperator(1);
            while (running(m_operator) && Clock::now() < until + 120s)
                sleepMs(200);
            finishedRun();
        }
    }

    EpochResult check();
    bool done() const { return m_done; }

private:
    void startOperator(int batch = 6)
    {
        m_operator.setProgram(m_cliPath);
        m_operator.setArguments({QStringLiteral("operate"),
                                 QStringLiteral("--agent"),
                                 QStringLiteral("127.0.0.1:%1").arg(m_port),
                                 QStringLiteral("--token-file"),
                                 m_dir + QStringLiteral("/token"),
                                 QStringLiteral("--policy"),
                                 QStringLiteral("drf"),
                                 QStringLiteral("--slots"),
                                 QString::number(batch),
                                 QStringLiteral("--audit"),
                                 m_dir + QStringLiteral("/audit.db"),
                                 QStringLiteral("--json"),
                                 QStringLiteral("--deadline-ms"),
                                 QStringLiteral("120000"),
                                 QStringLiteral("--retry-seconds"),
                                 QStringLiteral("600"),
                                 QStringLiteral("--audit-wait-seconds"),
                                 QStringLiteral("600"),
                                 QStringLiteral("--debug-audit-full-file"),
                                 m_flag});
        m_operator.setStandardOutputFile(m_dir + QStringLiteral("/operate.json"));
        m_operator.setStandardErrorFile(m_dir + QStringLiteral("/operate.log"), QIODevice::Append);
        m_operator.start();
        m_operatorActive = true;
        ++m_c.operatorRuns;
    }

    void finishedRun()
    {
        m_operatorActive = false;
        QFile f(m_dir + QStringLiteral("/operate.json"));
        f.open(QIODevice::ReadOnly);
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        if (m_operator.exitStatus() != QProcess::NormalExit)
            return;
        if (m_operator.exitCode() == 1)
            ++m_c.disagreements;
        else if (m_operator.exitCode() != 0)
            ++m_c.operatorErrors;
        if (o.isEmpty())
            return;
        ++m_c.operatorRunsOk;
        m_done = o.value(QStringLiteral("done")).toBool();
        m_slots = o.value(QStringLiteral("end_slot")).toInt();
        m_c.resent += o.value(QStringLiteral("resent")).toInt();
        if (o.value(QStringLiteral("applied")).toInt() > 0) {
            m_c.latencyP50.push_back(o.value(QStringLiteral("latency_ms_p50")).toDouble());
            m_c.latencyP99.push_back(o.value(QStringLiteral("latency_ms_p99")).toDouble());
        }
    }

    QString m_dir, m_agentPath, m_cliPath, m_flag;
    Counters &m_c;
    QProcess m_agent, m_operator;
    int m_port = 0;
    bool m_operatorActive = false, m_done = false;
    int m_slots = 0;
    Clock::time_point m_fullSince;
};

EpochResult Epoch::check()
{
    EpochResult r;
    r.dir = m_dir;
    r.slotCount = m_slots;
    r.done = m_done;
    // The agent's record.
    dl2::GrpcConnectorOptions o;
    o.address = "127.0.0.1:" + std::to_string(m_port);
    o.token = kToken;
    o.deadline = 120s;
    dl2::GrpcConnector agent(o);
    std::map<std::string, dl2::AppliedRecord> applied;
    for (auto &a : agent.appliedRecord())
        applied[a.decisionId] = a;
    r.agentApplied = static_cast<int>(applied.size());

    // The audit log, read directly.
    const QString name = QStringLiteral("soak-check-") + m_dir;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(m_dir + QStringLiteral("/audit.db"));
        db.open();
        QSqlQuery q(db);
        q.exec(QStringLiteral("PRAGMA integrity_check"));
        while (q.next())
            r.integrity +=
                (r.integrity.isEmpty() ? QString() : QStringLiteral("; ")) + q.value(0).toString();
        q.exec(QStringLiteral("SELECT value FROM meta WHERE key = 'run_id'"));
        const std::string prefix = (q.next() ? q.value(0).toString().toStdString() : "?") + "/";
        std::set<std::string> approvedHere;
        q.exec(QStringLiteral("SELECT id, state, ack FROM decisions"));
        while (q.next()) {
            const std::string id = q.value(0).toString().toStdString();
            const QString state = q.value(1).toString(), ack = q.value(2).toString();
            const bool approved =
                state == QLatin1String("committed") || state == QLatin1String("sent") ||
                (state == QLatin1String("acknowledged") && ack != QLatin1String("invalid"));
            if (!approved)
                continue;
            ++r.approved;
            approvedHere.insert(id);
            const auto it = applied.find(id);
            if (it == applied.end())
                ++r.lost;
            if (state != QLatin1String("acknowledged"))
                ++r.unacknowledged;
            else
                ++r.acknowledged;
            if (state != QLatin1String("acknowledged") || it == applied.end() ||
                it->second.applyCount != 1)
                ++r.notExactlyOnce;
        }
        for (const auto &[id, a] : applied) {
            if (a.applyCount > 1)
                ++r.duplicated;
            if (id.rfind(prefix, 0) == 0 && !approvedHere.count(id))
                ++r.unknownToAudit;
        }
        q.exec(QStringLiteral("SELECT slot, COUNT(*) FROM decisions WHERE state IN ('committed', "
                              "'sent', 'acknowledged') GROUP BY slot"));
        while (q.next()) {
            r.maxDecisionsPerSlot = std::max(r.maxDecisionsPerSlot, q.value(1).toInt());
            r.burstSlots += q.value(1).toInt() >= 10'000;
        }
    }
    QSqlDatabase::removeDatabase(name);
    // What the operator said about the full disk (killed runs print no summary).
    QFile log(m_dir + QStringLiteral("/operate.log"));
    if (log.open(QIODevice::ReadOnly)) {
        const QByteArray text = log.readAll();
        r.auditStops = text.count("approving nothing until the audit log takes writes");
        r.auditResumes = text.count("takes writes again");
    }
    return r;
}

double mean(const std::vector<double> &v)
{
    double s = 0;
    for (double x : v)
        s += x;
    return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

} // namespace

int main(int argc, char **argv)
try {
    QCoreApplication app(argc, argv);
    Options opt;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> QString {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "bench_soak: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return QString::fromLocal8Bit(argv[++i]);
        };
        if (a == "--minutes")
            opt.minutes = value().toDouble();
        else if (a == "--seed")
            opt.seed = value().toUInt();
        else if (a == "--json")
            opt.json = value();
        else if (a == "--keep")
            opt.keep = value();
        else {
            std::fprintf(stderr,
                         "usage: bench_soak [--minutes M] [--seed N] [--json FILE] [--keep DIR]\n");
            return 2;
        }
    }
    if (!(opt.minutes > 0) || opt.minutes > 24 * 60) {
        std::fprintf(stderr, "bench_soak: --minutes must be in (0, 1440]\n");
        return 2;
    }
    const QString agentPath = qEnvironmentVariable("DL2_AGENT", QStringLiteral(DL2_AGENT_PATH));
    const QString cliPath = qEnvironmentVariable("DL2_CLI", QStringLiteral(DL2_CLI_PATH));
    QTemporaryDir tmp;
    const QString root = opt.keep.isEmpty() ? tmp.path() : opt.keep;
    QDir().mkpath(root);

    std::mt19937 rng(opt.seed);
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Counters counters;
    std::vector<EpochResult> results;
    const auto start = Clock::now();
    const auto end = start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double, std::ratio<60>>(opt.minutes));
    std::printf("soak: %.1f minutes, seed %u, in %s\n", opt.minutes, opt.seed, qPrintable(root));
    std::fflush(stdout);
    for (int e = 0; Clock::now() < end; ++e) {
        Epoch epoch(root + QStringLiteral("/epoch-%1").arg(e), agentPath, cliPath, counters);
        auto nextChaos = Clock::now() + std::chrono::milliseconds(uniform(3000, 10'000));
        Clock::time_point fullUntil{};
        while (Clock::now() < end) {
            if (!epoch.step())
                break;
            if (epoch.diskIsFull() && Clock::now() >= fullUntil)
                epoch.diskFull(false);
            if (Clock::now() >= nextChaos) {
                switch (uniform(0, 2)) {
                case 0:
                    epoch.killAgent();
                    break;
                case 1:
                    epoch.killOperator();
                    break;
                default:
                    if (!epoch.diskIsFull()) {
                        epoch.diskFull(true);
                        fullUntil = Clock::now() + std::chrono::milliseconds(uniform(2000, 6000));
                    }
                }
                nextChaos = Clock::now() + std::chrono::milliseconds(uniform(3000, 10'000));
            }
            sleepMs(100);
        }
        epoch.drain(300s);
        results.push_back(epoch.check());
        const EpochResult &r = results.back();
        std::printf("soak: epoch %d: %d slots%s, %d approved, max %d decisions in a slot, "
                    "lost %d, duplicated %d, unacknowledged %d, not exactly once %d, "
                    "integrity %s\n",
                    e, r.slotCount, r.done ? " (cluster done)" : "", r.approved,
                    r.maxDecisionsPerSlot, r.lost, r.duplicated, r.unacknowledged, r.notExactlyOnce,
                    qPrintable(r.integrity));
        std::fflush(stdout);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();

    int approved = 0, lost = 0, duplicated = 0, unacknowledged = 0, unknown = 0, once = 0,
        slotCount = 0, maxPerSlot = 0, bursts = 0, auditStops = 0, auditResumes = 0;
    bool integrityOk = true;
    QJsonArray epochs;
    for (const auto &r : results) {
        approved += r.approved;
        lost += r.lost;
        duplicated += r.duplicated;
        unacknowledged += r.unacknowledged;
        unknown += r.unknownToAudit;
        once += r.notExactlyOnce;
        slotCount += r.slotCount;
        maxPerSlot = std::max(maxPerSlot, r.maxDecisionsPerSlot);
        bursts += r.burstSlots;
        auditStops += r.auditStops;
        auditResumes += r.auditResumes;
        integrityOk &= r.integrity == QLatin1String("ok");
        epochs.append(
            QJsonObject{{QStringLiteral("slots"), r.slotCount},
                        {QStringLiteral("done"), r.done},
                        {QStringLiteral("approved"), r.approved},
                        {QStringLiteral("agent_applied"), r.agentApplied},
                        {QStringLiteral("lost"), r.lost},
                        {QStringLiteral("duplicated"), r.duplicated},
                        {QStringLiteral("unacknowledged"), r.unacknowledged},
                        {QStringLiteral("unknown_to_audit"), r.unknownToAudit},
                        {QStringLiteral("not_acknowledged_exactly_once"), r.notExactlyOnce},
                        {QStringLiteral("max_decisions_per_slot"), r.maxDecisionsPerSlot},
                        {QStringLiteral("integrity_check"), r.integrity}});
    }
    const bool ok = lost == 0 && duplicated == 0 && unacknowledged == 0 && unknown == 0 &&
                    once == 0 && integrityOk && counters.disagreements == 0;
    std::printf(
        "soak: %.0f s, %zu epochs, %d slots, %d decisions approved (max %d in one slot, %d slots "
        "with >= 10,000), %d agent SIGKILLs, %d operator SIGKILLs, %d full-disk episodes "
        "(%.0f s; the operator stopped approving %d times, resumed %d times), %d operator runs "
        "(%d errors), %d "
        "decisions re-sent, latency p50 %.1f ms / p99 %.1f ms (mean over runs); lost %d, "
        "duplicated %d, unacknowledged %d, unknown to the log %d, not acknowledged exactly once "
        "%d, integrity_check %s -> %s\n",
        seconds, results.size(), slotCount, approved, maxPerSlot, bursts, counters.agentKills,
        counters.operatorKills, counters.diskFullEpisodes, counters.diskFullSeconds, auditStops,
        auditResumes, counters.operatorRuns, counters.operatorErrors, counters.resent,
        mean(counters.latencyP50), mean(counters.latencyP99), lost, duplicated, unacknowledged,
        unknown, once, integrityOk ? "ok" : "FAILED", ok ? "PASS" : "FAIL");
    if (!opt.json.isEmpty()) {
        const QJsonObject out{{QStringLiteral("minutes"), opt.minutes},
                              {QStringLiteral("seed"), static_cast<int>(opt.seed)},
                              {QStringLiteral("seconds"), seconds},
                              {QStringLiteral("epochs"), epochs},
                              {QStringLiteral("slots"), slotCount},
                              {QStringLiteral("approved"), approved},
                              {QStringLiteral("max_decisions_per_slot"), maxPerSlot},
                              {QStringLiteral("slots_with_10k_decisions"), bursts},
                              {QStringLiteral("agent_kills"), counters.agentKills},
                              {QStringLiteral("operator_kills"), counters.operatorKills},
                              {QStringLiteral("disk_full_episodes"), counters.diskFullEpisodes},
                              {QStringLiteral("disk_full_seconds"), counters.diskFullSeconds},
                              {QStringLiteral("operator_audit_stops"), auditStops},
                              {QStringLiteral("operator_audit_resumes"), auditResumes},
                              {QStringLiteral("operator_runs"), counters.operatorRuns},
                              {QStringLiteral("operator_errors"), counters.operatorErrors},
                              {QStringLiteral("resent"), counters.resent},
                              {QStringLiteral("latency_ms_p50_mean"), mean(counters.latencyP50)},
                              {QStringLiteral("latency_ms_p99_mean"), mean(counters.latencyP99)},
                              {QStringLiteral("lost"), lost},
                              {QStringLiteral("duplicated"), duplicated},
                              {QStringLiteral("unacknowledged"), unacknowledged},
                              {QStringLiteral("unknown_to_audit"), unknown},
                              {QStringLiteral("not_acknowledged_exactly_once"), once},
                              {QStringLiteral("integrity_check_ok"), integrityOk},
                              {QStringLiteral("pass"), ok}};
        QFile f(opt.json);
        if (f.open(QIODevice::WriteOnly))
            f.write(QJsonDocument(out).toJson());
    }
    return ok ? 0 : 1;
} catch (const std::exception &e) {
    std::fprintf(stderr, "bench_soak: %s\n", e.what());
    return 2;
}
