// Public-trace importers (Philly, Alibaba PAI 2020, Helios) on small real-format fixtures
// (tests/data/traces) and inline variants with the formats' documented defects: what is kept
// and what the source said about it, filters counted by reason, the publishers' conventions
// (Philly attempts, PAI zero times, Helios states), published packagings, the cluster the
// source implies, epochs that reproduce the observed durations, malformed records by place.
#include "archivewriter.h"
#include "error.h"
#include "modelprofile.h"
#include "scheduler.h"
#include "simulator.h"
#include "traceimport.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <set>

using namespace dl2;
using testarchive::Kind;

namespace {

const QString kTraces = QStringLiteral(DL2_TEST_TRACES);

std::string write(const QTemporaryDir &dir, const QString &name, const QByteArray &content)
{
    const QString path = dir.filePath(name);
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write fixture");
    f.write(content);
    return path.toStdString();
}

QByteArray fixture(const QString &name)
{
    return testarchive::readAll(kTraces + QLatin1Char('/') + name);
}

std::string fixturePath(ImportFormat format)
{
    switch (format) {
    case ImportFormat::Philly:
        return QString(kTraces + QStringLiteral("/philly/cluster_job_log")).toStdString();
    case ImportFormat::Alibaba:
        return QString(kTraces + QStringLiteral("/pai/pai_task_table.csv")).toStdString();
    case ImportFormat::Helios:
        return QString(kTraces + QStringLiteral("/helios/cluster_log.csv")).toStdString();
    }
    return {};
}

ImportResult importFixture(ImportFormat format, const ImportOptions &options = {})
{
    return importTrace(fixturePath(format), format, options);
}

QString errorOf(const std::function<void()> &f)
{
    try {
        f();
    } catch (const Error &e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

QStringList filteredList(const ImportReport &r)
{
    QStringList got;
    for (const auto &[reason, count] : r.filtered)
        got << QString::fromStdString(reason) + QLatin1Char('=') + QString::number(count);
    return got;
}

// Gives every active job exactly (ps, workers) each slot.
class FixedAllocation final : public Scheduler
{
public:
    FixedAllocation(int ps, int workers) : m_ps(ps), m_workers(workers) {}
    std::string name() const override { return "fixed"; }
    void schedule(SlotContext &context) override
    {
        for (int i : context.activeJobs()) {
            for (int k = 0; k < m_ps; ++k)
                failedAdds += context.add(i, TaskKind::Ps) != AddResult::Ok;
            for (int k = 0; k < m_workers; ++k)
                failedAdds += context.add(i, TaskKind::Worker) != AddResult::Ok;
        }
    }
    int failedAdds = 0;

private:
    int m_ps;
    int m_workers;
};

void addFormatRows()
{
    QTest::addColumn<int>("format");
    QTest::newRow("philly") << int(ImportFormat::Philly);
    QTest::newRow("alibaba") << int(ImportFormat::Alibaba);
    QTest::newRow("helios") << int(ImportFormat::Helios);
}

} // namespace

class TestTraceImport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // What each fixture keeps, what the source said about it, and the counts by reason.
    void keepsSuccessesWithTheirSource_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<QStringList>("ids");
        QTest::addColumn<QList<int>>("arrivalSlots");
        QTest::addColumn<QList<double>>("gpus");
        QTest::addColumn<QList<double>>("durations");
        QTest::addColumn<QList<double>>("queues");
        QTest::addColumn<QList<int>>("ps");
        QTest::addColumn<int>("records");
        QTest::addColumn<QStringList>("filtered"); // "reason=count"
        // Philly: 10213's five attempts span 02:00:00..05:40:13 with attempt 0's 8 GPUs;
        // 10244's attempt 0 never ran ("None"), its GPUs are attempt 1's; 10260 started 2 s
        // before its submission (queue 0).
        QTest::newRow("philly") << int(ImportFormat::Philly)
            << QStringList{QStringLiteral("application_1506638472019_10190"), QStringLiteral("application_1506638472019_10213"),
                           QStringLiteral("application_1506638472019_10244"), QStringLiteral("application_1506638472019_10260")}
            << QList<int>{0, 1, 3, 7} << QList<double>{1, 8, 16, 2} << QList<double>{320, 13213, 3600, 1800}
            << QList<double>{11, 90, 1200, 0} << QList<int>{1, 8, 16, 2} << 8
            << QStringList{QStringLiteral("failed=1"), QStringLiteral("killed=1"), QStringLiteral("no-attempts=1"),
                           QStringLiteral("no-duration=1")};
        // PAI: 4f05's evaluator never started (start_time 0) and is left out (520 s, not
        // 4,551,410 s); 6a3b has 2 ps instances; 3d4e's second worker never ended (end_time 0).
        QTest::newRow("alibaba") << int(ImportFormat::Alibaba)
            << QStringList{QStringLiteral("4f057009a5d481acec67b088"), QStringLiteral("6a3b9f0e2c1d4a5b8e7f9c0d"),
                           QStringLiteral("b7c8d9e0f1a2b3c4d5e6f7a8"), QStringLiteral("f0a1b2c3d4e5f6a7b8c9d0e1"),
                           QStringLiteral("3d4e5f6a7b8c9d0e1f2a3b4c")}
            << QList<int>{0, 0, 1, 2, 3} << QList<double>{0.5, 4, 16, 0.25, 2} << QList<double>{520, 6960, 3500, 670, 3550}
            << QList<double>{20, 290, 60, 10, 0} << QList<int>{1, 2, 16, 1, 2} << 11
            << QStringList{QStringLiteral("cpu-only=1"), QStringLiteral("failed=1"), QStringLiteral("no-duration=1"),
                           QStringLiteral("no-submit-time=1"), QStringLiteral("unfinished=2")};
        // Helios: every documented state counted, the 128-GPU job kept whole (no cap).
        QTest::newRow("helios") << int(ImportFormat::Helios)
            << QStringList{QStringLiteral("1b2a3c4d"), QStringLiteral("93a4b5c6"), QStringLiteral("a4b5c6d7")}
            << QList<int>{0, 3, 5} << QList<double>{8, 128, 2} << QList<double>{7200, 7200, 3600}
            << QList<double>{300, 1200, 900} << QList<int>{8, 128, 2} << 11
            << QStringList{QStringLiteral("cancelled=1"), QStringLiteral("cpu-only=1"), QStringLiteral("failed=1"),
                           QStringLiteral("no-duration=1"), QStringLiteral("node-fail=1"), QStringLiteral("suspended=1"),
                           QStringLiteral("timeout=1"), QStringLiteral("unfinished=1")};
    }
    void keepsSuccessesWithTheirSource()
    {
        QFETCH(int, format);
        QFETCH(QStringList, ids);
        QFETCH(QList<int>, arrivalSlots);
        QFETCH(QList<double>, gpus);
        QFETCH(QList<double>, durations);
        QFETCH(QList<double>, queues);
        QFETCH(QList<int>, ps);
        QFETCH(int, records);
        QFETCH(QStringList, filtered);
        const ImportResult r = importFixture(ImportFormat(format));
        QCOMPARE(r.trace.jobs.size(), size_t(ids.size()));
        for (qsizetype i = 0; i < ids.size(); ++i) {
            const JobSpec &job = r.trace.jobs[size_t(i)];
            const JobSource &s = job.source;
            QCOMPARE(QString::fromStdString(s.id), ids[i]);
            QCOMPARE(job.id, int(i) + 1);
            QCOMPARE(job.arrivalSlot, arrivalSlots[i]);
            QCOMPARE(s.gpus, std::optional<double>(gpus[i]));
            QCOMPARE(s.durationSeconds, std::optional<double>(durations[i]));
            QCOMPARE(s.queueSeconds, std::optional<double>(queues[i]));
            QCOMPARE(s.workers, std::max(1, int(std::ceil(gpus[i]))));
            QCOMPARE(s.ps, ps[i]);
            QVERIFY(!s.user.empty() && !s.status.empty() && s.submitTime);
            QVERIFY(!job.estimatedEpochs);
        }
        QCOMPARE(r.report.records, records);
        QCOMPARE(r.report.kept, int(ids.size()));
        QCOMPARE(r.report.malformed, 0);
        QCOMPARE(filteredList(r.report), filtered);
        QCOMPARE(r.report.firstSlot, arrivalSlots.front());
        QCOMPARE(r.report.lastSlot, arrivalSlots.back());
        QCOMPARE(r.trace.slotSeconds, std::optional<double>(1200));
        QCOMPARE(r.trace.timeOrigin, std::optional<double>(r.report.timeOrigin));
        QCOMPARE(*r.trace.jobs.front().source.submitTime, r.report.timeOrigin);
        r.trace.validate(ProfileSet::reference(), "imported");
    }

    void sourceFieldsByFormat()
    {
        const ImportResult philly = importFixture(ImportFormat::Philly);
        QCOMPARE(philly.trace.jobs[1].source.user, std::string("7f3e01"));
        QCOMPARE(philly.trace.jobs[1].source.vc, std::string("b436b2"));
        QCOMPARE(philly.trace.jobs[1].source.status, std::string("Pass"));
        QCOMPARE(philly.report.counts.at("multi-attempt-jobs"), 2LL);
        QCOMPARE(philly.report.counts.at("start-before-submit"), 1LL);
        const ImportResult pai = importFixture(ImportFormat::Alibaba);
        QCOMPARE(pai.trace.jobs[0].source.user, std::string("58540f191766"));
        QCOMPARE(pai.trace.jobs[0].source.status, std::string("Terminated"));
        QVERIFY(pai.trace.jobs[0].source.vc.empty()); // PAI has no VC
        QCOMPARE(pai.report.counts.at("tasks-not-started"), 1LL);
        QCOMPARE(pai.report.counts.at("tasks-not-ended"), 3LL);
        QCOMPARE(pai.report.counts.at("jobs-only-in-task-table"), 1LL);
        QCOMPARE(pai.report.keptStatus.at("Terminated"), 5);
        const ImportResult helios = importFixture(ImportFormat::Helios);
        QCOMPARE(helios.trace.jobs[1].source.vc, std::string("vc6YE"));
        QCOMPARE(helios.trace.jobs[1].source.user, std::string("ue2f5"));
        QCOMPARE(helios.trace.jobs[1].source.status, std::string("COMPLETED"));
    }

    // --philly-duration: span (the notebook), the last attempt, or the sum of attempts.
    void phillyDurationRules_data()
    {
        QTest::addColumn<int>("rule");
        QTest::addColumn<double>("duration");
        QTest::addColumn<double>("gpus");
        QTest::newRow("span") << int(PhillyDuration::Span) << 13213.0 << 8.0;
        QTest::newRow("last-attempt") << int(PhillyDuration::LastAttempt) << 13.0 << 4.0;
        QTest::newRow("sum") << int(PhillyDuration::Sum) << 11473.0 << 8.0;
    }
    void phillyDurationRules()
    {
        QFETCH(int, rule);
        QFETCH(double, duration);
        QFETCH(double, gpus);
        ImportOptions options;
        options.phillyDuration = PhillyDuration(rule);
        const ImportResult r = importFixture(ImportFormat::Philly, options);
        const JobSpec &job = r.trace.jobs[1];
        QCOMPARE(job.source.id, std::string("application_1506638472019_10213"));
        QCOMPARE(*job.source.durationSeconds, duration);
        QCOMPARE(*job.source.gpus, gpus);
        QCOMPARE(phillyDurationFromString(toString(PhillyDuration(rule))), PhillyDuration(rule));
        // Single-attempt jobs are the same under every rule.
        QCOMPARE(*r.trace.jobs[0].source.durationSeconds, 320.0);
    }

    void heliosStatesNeverAbort()
    {
        QTemporaryDir dir;
        QByteArray log = fixture(QStringLiteral("helios/cluster_log.csv"));
        log += "c6d7e8f9,ug4b7,vcHvQ,1,6,1,PENDING,2020-04-01 03:00:00,,,,\n"
               "d7e8f9a0,ug4b7,vcHvQ,1,6,1,OUT_OF_MEMORY,2020-04-01 03:10:00,2020-04-01 03:10:00,2020-04-01 03:20:00,600,0\n";
        const ImportResult r = importTrace(write(dir, QStringLiteral("cluster_log.csv"), log), ImportFormat::Helios, {});
        QCOMPARE(r.report.malformed, 0);
        QCOMPARE(r.report.filtered.at("unfinished"), 2); // RUNNING, PENDING
        QCOMPARE(r.report.filtered.at("suspended"), 1);
        QCOMPARE(r.report.filtered.at("unknown-state"), 1);
        QVERIFY(std::any_of(r.report.notes.begin(), r.report.notes.end(),
                            [](const std::string &n) { return n.find("OUT_OF_MEMORY 1") != std::string::npos; }));
    }

    void paiZeroTimesAreMissing()
    {
        // The publisher's convention: a start_time of 0 never started, an end_time of 0 never ended.
        QTemporaryDir dir;
        write(dir, QStringLiteral("pai_job_table.csv"), "j1,i,u,Terminated,100.0,700.0\nj2,i,u,Terminated,200.0,900.0\n");
        const std::string tasks = write(dir, QStringLiteral("pai_task_table.csv"),
                                        "j1,worker,1,Terminated,110.0,630.0,600,29.3,100,V100\n"
                                        "j1,evaluator,1,Terminated,0.0,4551410.0,600,29.3,,\n"
                                        "j2,worker,1,Terminated,250.0,0.0,600,29.3,100,V100\n");
        const ImportResult r = importTrace(tasks, ImportFormat::Alibaba, {});
        QCOMPARE(r.trace.jobs.size(), size_t(1));
        QCOMPARE(*r.trace.jobs[0].source.durationSeconds, 520.0);
        QCOMPARE(r.report.filtered.at("no-duration"), 1);
    }

    void cpuOnlyJobsDroppedUnlessKept()
    {
        ImportOptions options;
        options.keepCpuJobs = true;
        const ImportResult kept = importFixture(ImportFormat::Helios, options);
        QCOMPARE(kept.trace.jobs.size(), size_t(4));
        QCOMPARE(kept.report.filtered.count("cpu-only"), size_t(0));
        const JobSpec &cpu = kept.trace.jobs[1];
        QCOMPARE(cpu.source.id, std::string("2c3b4d5e"));
        QCOMPARE(cpu.source.gpus, std::optional<double>(0));
        QCOMPARE(cpu.source.workers, 1);
        QVERIFY(cpu.model == "cnn-text-classification" || cpu.model == "dssm");
        QCOMPARE(importFixture(ImportFormat::Helios).report.filtered.at("cpu-only"), 1);
    }

    void windowOriginAndMaxJobs()
    {
        ImportOptions options;
        options.from = parseTraceTime("2017-10-03 02:00:00");
        options.to = parseTraceTime("2017-10-03 04:00:00");
        ImportResult r = importFixture(ImportFormat::Philly, options);
        QCOMPARE(r.trace.jobs.size(), size_t(1)); // 10244 at 02:40; 10260 at 04:00 is after
        QCOMPARE(r.report.filtered.at("before-from"), 2);
        QCOMPARE(r.report.filtered.at("after-to"), 1);
        QCOMPARE(formatTraceTime(r.report.timeOrigin), std::string("2017-10-03 02:00:00")); // --from
        QCOMPARE(r.trace.jobs[0].arrivalSlot, 2);                                          // 40 min

        options = {};
        options.slotSeconds = 600;
        r = importFixture(ImportFormat::Helios, options);
        QCOMPARE(r.trace.jobs[1].arrivalSlot, 7);  // 4788 s
        QCOMPARE(r.trace.jobs[2].arrivalSlot, 10); // 6288 s
        QCOMPARE(r.trace.slotSeconds, std::optional<double>(600));
        options.timeOrigin = parseTraceTime("2020-04-01 00:20:00");
        r = importFixture(ImportFormat::Helios, options);
        QCOMPARE(r.trace.jobs.size(), size_t(2));
        QCOMPARE(r.report.filtered.at("before-origin"), 1);
        QCOMPARE(r.trace.jobs[0].arrivalSlot, 6); // 01:20:00 is 3600 s after the origin

        options = {};
        options.maxJobs = 2;
        r = importFixture(ImportFormat::Alibaba, options);
        QCOMPARE(r.trace.jobs.size(), size_t(2));
        QCOMPARE(r.trace.jobs[1].source.id, std::string("6a3b9f0e2c1d4a5b8e7f9c0d"));
        QCOMPARE(r.report.filtered.at("over-max-jobs"), 3);
        options.from = 10.0;
        options.to = 5.0;
        QVERIFY(errorOf([&] { importFixture(ImportFormat::Alibaba, options); }).contains(QStringLiteral("--from must be before --to")));
    }

    void capsAndPsRules()
    {
        ImportOptions options;
        options.maxWorkers = 16;
        ImportResult r = importFixture(ImportFormat::Helios, options);
        QCOMPARE(r.trace.jobs[1].source.workers, 16);
        QCOMPARE(r.trace.jobs[1].source.gpus, std::optional<double>(128)); // what was requested stays
        QCOMPARE(r.report.counts.at("capped-workers"), 1LL);
        options = {};
        options.psRule = PsRule::One;
        r = importFixture(ImportFormat::Alibaba, options);
        for (const auto &j : r.trace.jobs)
            QCOMPARE(j.source.ps, 1);
        options.psRule = PsRule::PerWorker;
        r = importFixture(ImportFormat::Alibaba, options);
        QCOMPARE(r.trace.jobs[1].source.ps, 4); // 4 workers, although the job had 2 ps instances
        options.maxPs = 3;
        r = importFixture(ImportFormat::Alibaba, options);
        QCOMPARE(r.trace.jobs[2].source.ps, 3);
    }

    void observedAllocationRule_data()
    {
        QTest::addColumn<double>("gpus");
        QTest::addColumn<int>("cap");
        QTest::addColumn<int>("rule");
        QTest::addColumn<int>("sourcePs");
        QTest::addColumn<int>("ps");
        QTest::addColumn<int>("workers");
        const int autoRule = int(PsRule::Auto), one = int(PsRule::One), perWorker = int(PsRule::PerWorker);
        QTest::newRow("cpu-only") << 0.0 << 0 << autoRule << 0 << 1 << 1;
        QTest::newRow("quarter gpu") << 0.25 << 0 << autoRule << 0 << 1 << 1;
        QTest::newRow("1.5 rounds up") << 1.5 << 0 << autoRule << 0 << 2 << 2;
        QTest::newRow("3 x 33%") << 0.99 << 0 << autoRule << 0 << 1 << 1;
        QTest::newRow("no cap by default") << 128.0 << 0 << autoRule << 0 << 128 << 128;
        QTest::newRow("capped") << 64.0 << 16 << autoRule << 0 << 16 << 16;
        QTest::newRow("source ps") << 8.0 << 0 << autoRule << 2 << 2 << 8;
        QTest::newRow("source ps capped") << 8.0 << 1 << autoRule << 2 << 1 << 1;
        QTest::newRow("one") << 8.0 << 0 << one << 2 << 1 << 8;
        QTest::newRow("per-worker ignores source") << 8.0 << 0 << perWorker << 2 << 8 << 8;
    }
    void observedAllocationRule()
    {
        QFETCH(double, gpus);
        QFETCH(int, cap);
        QFETCH(int, rule);
        QFETCH(int, sourcePs);
        QFETCH(int, ps);
        QFETCH(int, workers);
        const TaskCounts a = observedAllocation(gpus, cap, cap, PsRule(rule), sourcePs);
        QCOMPARE(a.ps, ps);
        QCOMPARE(a.workers, workers);
    }

    // The import rule: the job alone at its observed allocation runs its observed duration.
    void epochsReproduceObservedDurations_data() { addFormatRows(); }
    void epochsReproduceObservedDurations()
    {
        QFETCH(int, format);
        const ProfileSet profiles = ProfileSet::reference();
        for (const ModelRule rule : {ModelRule::BySize, ModelRule::Sample}) {
            ImportOptions options;
            options.modelRule = rule;
            options.slotSeconds = 900;
            const ImportResult r = importFixture(ImportFormat(format), options);
            QVERIFY(!r.trace.jobs.empty());
            for (const JobSpec &spec : r.trace.jobs) {
                const JobSource &job = spec.source;
                Trace alone;
                alone.name = "alone";
                alone.jobs = {spec};
                alone.jobs[0].arrivalSlot = 3;
                SimulationOptions sim;
                sim.slotSeconds = options.slotSeconds;
                sim.maxWorkers = sim.maxPs = 128;
                Simulator simulator(ClusterSpec{300, {8, 8}}, profiles, alone, sim);
                FixedAllocation policy(job.ps, job.workers);
                const RunResult run = runSimulation(simulator, policy);
                QCOMPARE(policy.failedAdds, 0);
                QCOMPARE(run.completed, 1);
                const double seconds = run.jcts[0] * sim.slotSeconds;
                QVERIFY2(std::abs(seconds - *job.durationSeconds) <= 1e-6 * *job.durationSeconds,
                         qPrintable(QStringLiteral("%1: %2 s simulated, %3 s observed")
                                        .arg(QString::fromStdString(job.id))
                                        .arg(seconds).arg(*job.durationSeconds)));
            }
        }
    }

    void bySizeRuleMapsGpuClasses_data() { addFormatRows(); }
    void bySizeRuleMapsGpuClasses()
    {
        QFETCH(int, format);
        const std::set<std::string> cpu{"cnn-text-classification", "dssm"};
        const std::set<std::string> small{"resnext-110", "seq2seq", "wlm"};
        const std::set<std::string> large{"inception-bn", "resnet-50", "vgg-16"};
        for (std::uint64_t seed = 1; seed <= 8; ++seed) {
            ImportOptions options;
            options.seed = seed;
            options.keepCpuJobs = true;
            const ImportResult r = importFixture(ImportFormat(format), options);
            for (const JobSpec &job : r.trace.jobs) {
                const double g = *job.source.gpus;
                const auto &cls = g == 0 ? cpu : g <= 2 ? small : large;
                QVERIFY2(cls.count(job.model), job.model.c_str());
            }
        }
    }

    void modelChoiceIsSeeded()
    {
        ImportOptions options;
        options.modelRule = ModelRule::Sample;
        options.seed = 5;
        const Trace a = importFixture(ImportFormat::Helios, options).trace;
        QVERIFY(a.jobs == importFixture(ImportFormat::Helios, options).trace.jobs);
        // A job keeps its model when other jobs are cut away.
        const ImportResult all = importFixture(ImportFormat::Philly, options);
        options.timeOrigin = all.trace.jobs[1].source.submitTime;
        const ImportResult later = importFixture(ImportFormat::Philly, options);
        QCOMPARE(later.trace.jobs.size(), all.trace.jobs.size() - 1);
        for (size_t i = 0; i < later.trace.jobs.size(); ++i)
            QCOMPARE(later.trace.jobs[i].model, all.trace.jobs[i + 1].model);
        options.timeOrigin.reset();
        // Over many seeds, sample reaches models outside the by-size class of a job.
        std::set<std::string> models;
        for (options.seed = 1; options.seed <= 100; ++options.seed)
            models.insert(importFixture(ImportFormat::Helios, options).trace.jobs[0].model);
        QCOMPARE(models.size(), size_t(8));
    }

    // The cluster each source implies, and where the figures come from.
    void clusterFromTheSource_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<bool>("withMachines"); // the machine table next to the trace
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("cpus");
        QTest::addColumn<QString>("basis");
        // 5 x 8 + 2 x 2 GPUs = 44 GPUs -> 6 nodes of 8.
        QTest::newRow("philly machine list") << int(ImportFormat::Philly) << true << 6 << 8 << 32
                                             << QStringLiteral("cluster_machine_list: 7 GPU machines of 5 x 8, 2 x 2 GPUs");
        // m101..m106 and m182 named in the attempts, sized by the largest index used: 8 is the
        // most common (m101, m103, m106); one node each.
        QTest::newRow("philly attempts") << int(ImportFormat::Philly) << false << 7 << 8 << 32
                                         << QStringLiteral("machines named in the attempts");
        // 3 x 8 + 2 x 2 = 28 GPUs -> 4 nodes of 8 with 96 CPUs (the 8-GPU machines').
        QTest::newRow("pai machine spec") << int(ImportFormat::Alibaba) << true << 4 << 8 << 96
                                          << QStringLiteral("pai_machine_spec.csv: 5 GPU machines of 3 x 8, 2 x 2 GPUs");
        // At most 520 + 64 + 160 = 744 GPUs a day -> 93 nodes of 8.
        QTest::newRow("helios gpu numbers") << int(ImportFormat::Helios) << true << 93 << 8 << 32
                                            << QStringLiteral("cluster_gpu_number.csv: at most 744 GPUs");
        // Peak in use: 8 + 2 + 128 + 2 = 140 GPUs at 02:00 -> 18 nodes.
        QTest::newRow("helios peak") << int(ImportFormat::Helios) << false << 18 << 8 << 32
                                     << QStringLiteral("estimated: at most 140 GPUs in use at once");
    }
    void clusterFromTheSource()
    {
        QFETCH(int, format);
        QFETCH(bool, withMachines);
        QFETCH(int, nodes);
        QFETCH(int, gpus);
        QFETCH(int, cpus);
        QFETCH(QString, basis);
        QTemporaryDir dir;
        const QString folder = QFileInfo(QString::fromStdString(fixturePath(ImportFormat(format)))).absolutePath();
        const auto files = QDir(folder).entryList(QDir::Files);
        std::string main;
        for (const QString &f : files) {
            const bool machineTable = f.contains(QLatin1String("machine")) || f.contains(QLatin1String("gpu_number"));
            if (machineTable && !withMachines)
                continue;
            const std::string path = write(dir, f, testarchive::readAll(folder + QLatin1Char('/') + f));
            if (path.find(baseName(fixturePath(ImportFormat(format)))) != std::string::npos)
                main = path;
        }
        const ImportResult r = importTrace(main, ImportFormat(format), {});
        QVERIFY(r.trace.cluster.has_value());
        QCOMPARE(r.trace.cluster->nodes, nodes);
        QCOMPARE(r.trace.cluster->gpusPerNode, gpus);
        QCOMPARE(r.trace.cluster->cpusPerNode, cpus);
        QVERIFY2(QString::fromStdString(r.trace.cluster->basis).contains(basis), r.trace.cluster->basis.c_str());
        QCOMPARE(clusterSpecOf(*r.trace.cluster), (ClusterSpec{nodes, {cpus, 4 * gpus}}));
    }

    // Each format as its publisher ships it: compressed, archived, with a BOM, with CRLF.
    void publishedPackagings_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<int>("packaging"); // -1: plain with BOM and CRLF
        QTest::addColumn<QString>("member");
        for (const int f : {int(ImportFormat::Philly), int(ImportFormat::Alibaba), int(ImportFormat::Helios)}) {
            const char *name = toString(ImportFormat(f));
            QTest::newRow(qPrintable(QStringLiteral("%1 bom+crlf").arg(QLatin1String(name)))) << f << -1 << QString();
            QTest::newRow(qPrintable(QStringLiteral("%1 gz").arg(QLatin1String(name)))) << f << int(Kind::Gzip) << QString();
            QTest::newRow(qPrintable(QStringLiteral("%1 tar.gz").arg(QLatin1String(name)))) << f << int(Kind::TarGz) << QString();
            QTest::newRow(qPrintable(QStringLiteral("%1 zip").arg(QLatin1String(name)))) << f << int(Kind::Zip) << QString();
        }
        // The Helios zip holds every cluster: one is chosen.
        QTest::newRow("helios zip, two clusters") << int(ImportFormat::Helios) << int(Kind::Zip) << QStringLiteral("Venus/cluster_log.csv");
    }
    void publishedPackagings()
    {
        QFETCH(int, format);
        QFETCH(int, packaging);
        QFETCH(QString, member);
        const ImportResult expected = importFixture(ImportFormat(format));
        const QString folder = QFileInfo(QString::fromStdString(fixturePath(ImportFormat(format)))).absolutePath();
        QTemporaryDir dir;
        ImportOptions options;
        options.member = member.toStdString();
        std::string path;
        testarchive::Members members;
        for (const QString &f : QDir(folder).entryList(QDir::Files)) {
            QByteArray content = testarchive::readAll(folder + QLatin1Char('/') + f);
            if (packaging < 0) {
                content.replace("\n", "\r\n");
                content.prepend("\xef\xbb\xbf");
                const std::string p = write(dir, f, content);
                if (p.find(baseName(fixturePath(ImportFormat(format)))) != std::string::npos)
                    path = p;
            } else if (Kind(packaging) == Kind::Gzip || Kind(packaging) == Kind::TarGz) {
                // Each table its own file, as PAI and Philly publish them.
                const QString suffix = Kind(packaging) == Kind::Gzip ? QStringLiteral(".gz") : QStringLiteral(".tar.gz");
                const QString base = Kind(packaging) == Kind::Gzip ? f : QFileInfo(f).completeBaseName() + suffix;
                const std::string p = write(dir, Kind(packaging) == Kind::Gzip ? f + suffix : base,
                                            testarchive::pack(Kind(packaging), {{"trace-data/" + f.toStdString(), content}}));
                const QString stem = QFileInfo(QString::fromStdString(fixturePath(ImportFormat(format)))).completeBaseName();
                if (p.find(stem.toStdString()) != std::string::npos)
                    path = p;
            } else {
                members.push_back({"data/Venus/" + f.toStdString(), content});
                if (!member.isEmpty())
                    members.push_back({"data/Earth/" + f.toStdString(), QByteArray("garbage\n")});
            }
        }
        if (!members.empty())
            path = write(dir, QStringLiteral("trace.zip"), testarchive::pack(Kind::Zip, members));
        QVERIFY(!path.empty());
        const ImportResult r = importTrace(path, ImportFormat(format), options);
        QCOMPARE(r.report.malformed, 0);
        QCOMPARE(r.report.records, expected.report.records);
        QCOMPARE(filteredList(r.report), filteredList(expected.report));
        QCOMPARE(r.trace.jobs.size(), expected.trace.jobs.size());
        for (size_t i = 0; i < r.trace.jobs.size(); ++i)
            QVERIFY2(r.trace.jobs[i] == expected.trace.jobs[i], r.trace.jobs[i].source.id.c_str());
        // The machine tables come from the same archive or folder.
        QVERIFY(r.trace.cluster && expected.trace.cluster);
        QCOMPARE(clusterSpecOf(*r.trace.cluster), clusterSpecOf(*expected.trace.cluster));
        QCOMPARE(r.report.inputs.size(), expected.report.inputs.size());
    }

    void truncatedLastLineIsNamed_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<QString>("expected");
        QTest::newRow("philly") << int(ImportFormat::Philly) << QStringLiteral("cluster_job_log:8: job[7]: the file ends inside this job");
        QTest::newRow("alibaba") << int(ImportFormat::Alibaba) << QStringLiteral("pai_task_table.csv:14: the file ends inside this line (5 of 10 columns)");
        QTest::newRow("helios") << int(ImportFormat::Helios) << QStringLiteral("cluster_log.csv:12: the file ends inside this line (8 of 12 columns)");
    }
    void truncatedLastLineIsNamed()
    {
        QFETCH(int, format);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString folder = QFileInfo(QString::fromStdString(fixturePath(ImportFormat(format)))).absolutePath();
        std::string path;
        for (const QString &f : QDir(folder).entryList(QDir::Files)) {
            QByteArray content = testarchive::readAll(folder + QLatin1Char('/') + f);
            if (fixturePath(ImportFormat(format)).find(f.toStdString()) != std::string::npos) {
                // Cut in the middle of the last record, as an interrupted download does.
                const qsizetype lastLine = content.lastIndexOf('\n', content.size() - 2) + 1;
                qsizetype cut = lastLine + 200; // Philly: inside the last job
                if (ImportFormat(format) != ImportFormat::Philly) {
                    // Before the 5th (PAI) or 8th (Helios) comma: 5 or 8 columns are left.
                    cut = lastLine;
                    for (int commas = ImportFormat(format) == ImportFormat::Alibaba ? 5 : 8; commas > 0; --commas)
                        cut = content.indexOf(',', cut + 1);
                }
                content.truncate(cut);
                path = write(dir, f, content);
            } else {
                write(dir, f, content);
            }
        }
        const QString error = errorOf([&] { importTrace(path, ImportFormat(format), {}); });
        QVERIFY2(error.contains(expected), qPrintable(error));
        ImportOptions skip;
        skip.skipMalformed = true;
        const ImportResult r = importTrace(path, ImportFormat(format), skip);
        const ImportResult whole = importFixture(ImportFormat(format));
        QCOMPARE(r.report.malformed, 1);
        QVERIFY(QString::fromStdString(r.report.malformedExamples.at(0)).contains(expected));
        QCOMPARE(r.report.records, whole.report.records); // a malformed job record still counts
        QVERIFY(r.trace.jobs.size() + 1 >= whole.trace.jobs.size());
    }

    // A Philly log cut right after a job's ',' names the place and the truncation, and
    // --skip-malformed does not count a phantom job record there.
    void phillyCutAfterAComma()
    {
        const QByteArray job = R"({"jobid": "a", "status": "Pass", "submitted_time": "2017-10-03 08:00:00", "attempts": [{"start_time": "2017-10-03 08:00:10", "end_time": "2017-10-03 09:00:10", "detail": [{"ip": "m1", "gpus": ["gpu0"]}]}]})";
        for (const QByteArray &tail : {QByteArray(","), QByteArray(",\n"), QByteArray(",\n  ")}) {
            QTemporaryDir dir;
            const std::string path = write(dir, QStringLiteral("in.json"), "[\n" + job + ",\n" + job + tail);
            const QString error = errorOf([&] { importTrace(path, ImportFormat::Philly, {}); });
            QVERIFY2(error.contains(QStringLiteral("in.json:3: the file ends after job[1] and its ','")) &&
                         error.contains(QStringLiteral("truncated")),
                     qPrintable(error));
            ImportOptions skip;
            skip.skipMalformed = true;
            const ImportResult r = importTrace(path, ImportFormat::Philly, skip);
            QCOMPARE(r.report.records, 2); // the two whole jobs, no phantom third
            QCOMPARE(r.report.kept, 2);
            QCOMPARE(r.report.malformed, 1);
        }
    }

    // A CSV whose last line has every column but no line end may have been cut at a column
    // boundary: it is read, with a warning naming file:line.
    void csvWithoutFinalLineEndIsWarned()
    {
        const QByteArray log = fixture(QStringLiteral("helios/cluster_log.csv"));
        QVERIFY(log.endsWith('\n'));
        QTemporaryDir dir;
        const std::string whole = write(dir, QStringLiteral("cluster_log.csv"), log);
        QVERIFY(importTrace(whole, ImportFormat::Helios, {}).report.warnings.empty());
        QTemporaryDir cutDir;
        const std::string cut = write(cutDir, QStringLiteral("cluster_log.csv"), log.chopped(1));
        const ImportResult r = importTrace(cut, ImportFormat::Helios, {});
        const int lines = int(log.count('\n'));
        QCOMPARE(r.report.warnings.size(), size_t(1));
        const QString warning = QString::fromStdString(r.report.warnings.front());
        QVERIFY2(warning.contains(QStringLiteral("cluster_log.csv:%1: the last line has no line end").arg(lines)),
                 qPrintable(warning));
        QVERIFY(std::find(r.report.notes.begin(), r.report.notes.end(), r.report.warnings.front()) != r.report.notes.end());
        QCOMPARE(r.report.records, importTrace(whole, ImportFormat::Helios, {}).report.records);
        // The same for PAI's two tables.
        QTemporaryDir pai;
        write(pai, QStringLiteral("pai_job_table.csv"), fixture(QStringLiteral("pai/pai_job_table.csv")).chopped(1));
        const std::string tasks = write(pai, QStringLiteral("pai_task_table.csv"), fixture(QStringLiteral("pai/pai_task_table.csv")));
        const ImportResult p = importTrace(tasks, ImportFormat::Alibaba, {});
        QCOMPARE(p.report.warnings.size(), size_t(1));
        QVERIFY2(QString::fromStdString(p.report.warnings.front()).contains(QStringLiteral("pai_job_table.csv:")),
                 p.report.warnings.front().c_str());
    }

    void bomDoesNotLoseTheFirstRecord()
    {
        QTemporaryDir dir;
        write(dir, QStringLiteral("pai_job_table.csv"), "\xef\xbb\xbf" + fixture(QStringLiteral("pai/pai_job_table.csv")));
        const std::string tasks = write(dir, QStringLiteral("pai_task_table.csv"),
                                        "\xef\xbb\xbf" + fixture(QStringLiteral("pai/pai_task_table.csv")));
        const ImportResult r = importTrace(tasks, ImportFormat::Alibaba, {});
        QCOMPARE(r.trace.jobs.front().source.id, std::string("4f057009a5d481acec67b088"));
        QCOMPARE(r.report.records, 11);
    }

    // A model drawn for a job that has no speed at the job's observed allocation (the measured
    // table: inception-bn at 1 PS / 5 workers) is drawn again among the others of its class,
    // counted; the import goes on (it used to stop the whole import at the first such job).
    void modelWithoutSpeedIsRedrawn()
    {
        const ProfileSet profiles = ProfileSet::reference();
        const auto inception = profiles.indexOf("inception-bn");
        QVERIFY(inception);
        QVERIFY2(!(profiles[*inception].speed->speed(1, 5) > 0),
                 "the measured table now has inception-bn at 1 PS / 5 workers: pick another point");
        QTemporaryDir dir;
        QByteArray jobs, tasks;
        constexpr int kJobs = 30;
        for (int j = 0; j < kJobs; ++j) {
            const QByteArray name = "job" + QByteArray::number(j);
            const QByteArray start = QByteArray::number(1000 + 100 * j) + ".0";
            const QByteArray end = QByteArray::number(5000 + 100 * j) + ".0";
            jobs += name + ",inst" + QByteArray::number(j) + ",user1,Terminated," + start + "," + end + "\n";
            tasks += name + ",ps,1,Terminated," + start + "," + end + ",400.0,10.0,,\n";
            tasks += name + ",worker,5,Terminated," + start + "," + end + ",600.0,20.0,100.0,V100\n";
        }
        write(dir, QStringLiteral("pai_job_table.csv"), jobs);
        const std::string path = write(dir, QStringLiteral("pai_task_table.csv"), tasks);
        ImportOptions options;
        options.profiles = &profiles;
        const ImportResult r = importTrace(path, ImportFormat::Alibaba, options);
        QCOMPARE(r.report.kept, kJobs);
        QCOMPARE(int(r.trace.jobs.size()), kJobs);
        QVERIFY(r.report.counts.count("model-redrawn"));
        const long long redrawn = r.report.counts.at("model-redrawn");
        QVERIFY(redrawn > 0 && redrawn < kJobs); // some drew inception-bn first, not all
        for (const JobSpec &job : r.trace.jobs) {
            QVERIFY(job.model == "resnet-50" || job.model == "vgg-16");
            QCOMPARE(job.source.workers, 5);
            QCOMPARE(job.source.ps, 1);
            QVERIFY(job.epochs > 0);
        }
        QVERIFY(!r.report.filtered.count("no-speed"));
    }

    // The measured table keeps failed measurements (vgg-16 at 4 PSs / 8 workers: every worker
    // reported 0), which the exact RBF returns as ~1e-16, not 0. Such a "speed" made jobs of
    // ~5e-13 epochs (instant). It counts as no speed: the model is drawn again, and a job no
    // model can run is filtered (no-speed).
    void failedMeasurementIsNoSpeed()
    {
        const ProfileSet profiles = ProfileSet::reference();
        const auto vgg = profiles.indexOf("vgg-16");
        QVERIFY(vgg);
        const SpeedModel &model = *profiles[*vgg].speed;
        const double failed = model.speed(4, 8), best = bestSpeed(model);
        QVERIFY2(failed != 0.0 && std::abs(failed) < 1e-9 * best,
                 "the measured table no longer has vgg-16 failed at 4 PSs / 8 workers: pick another point");
        QVERIFY(!isUsableSpeed(failed, best));
        QVERIFY(isUsableSpeed(model.speed(4, 7), best)); // its neighbour is a real speed
        QTemporaryDir dir;
        QByteArray jobs, tasks;
        constexpr int kJobs = 40;
        for (int j = 0; j < kJobs; ++j) {
            const QByteArray name = "job" + QByteArray::number(j);
            const QByteArray start = QByteArray::number(1000 + 100 * j) + ".0";
            const QByteArray end = QByteArray::number(5000 + 100 * j) + ".0";
            jobs += name + ",inst" + QByteArray::number(j) + ",user1,Terminated," + start + "," + end + "\n";
            tasks += name + ",ps,4,Terminated," + start + "," + end + ",400.0,10.0,,\n";
            tasks += name + ",worker,8,Terminated," + start + "," + end + ",600.0,20.0,100.0,V100\n";
        }
        write(dir, QStringLiteral("pai_job_table.csv"), jobs);
        const std::string path = write(dir, QStringLiteral("pai_task_table.csv"), tasks);
        ImportOptions options;
        options.profiles = &profiles;
        const ImportResult r = importTrace(path, ImportFormat::Alibaba, options);
        QCOMPARE(r.report.kept, kJobs);
        const long long redrawn = r.report.counts.count("model-redrawn") ? r.report.counts.at("model-redrawn") : 0;
        QVERIFY(redrawn > 0 && redrawn < kJobs); // some drew vgg-16 first, not all
        for (const JobSpec &job : r.trace.jobs) {
            QVERIFY2(job.model != "vgg-16", job.source.id.c_str());
            QCOMPARE(job.source.workers, 8);
            QCOMPARE(job.source.ps, 4);
            // 4000 s at a real speed (> 1 step/s) of epochs of at most 780 steps.
            QVERIFY2(job.epochs > 4000.0 / 780, qPrintable(QString::number(job.epochs)));
        }
        r.trace.validate(profiles, "imported");

        // vgg-16 alone (rule sample over one profile): no model can run these jobs.
        const ProfileSet vggOnly(std::vector<ModelProfile>{profiles[*vgg]});
        options.profiles = &vggOnly;
        options.modelRule = ModelRule::Sample;
        const ImportResult none = importTrace(path, ImportFormat::Alibaba, options);
        QCOMPARE(none.report.kept, 0);
        QCOMPARE(none.report.filtered.at("no-speed"), kJobs);
    }

    void alibabaJobTableOption()
    {
        QTemporaryDir dir;
        ImportOptions options;
        options.alibabaJobTable = write(dir, QStringLiteral("jobs-elsewhere.csv"), fixture(QStringLiteral("pai/pai_job_table.csv")));
        const std::string tasks = write(dir, QStringLiteral("tasks.csv"), fixture(QStringLiteral("pai/pai_task_table.csv")));
        const ImportResult r = importTrace(tasks, ImportFormat::Alibaba, options);
        QCOMPARE(r.trace.jobs.size(), size_t(5));
        QCOMPARE(r.report.inputs.size(), size_t(2));
        QVERIFY(!r.trace.cluster); // no pai_machine_spec next to it
        // Without the option, a task table not named pai_task_table* looks for pai_job_table.csv.
        const QString error = errorOf([&] { importTrace(tasks, ImportFormat::Alibaba, {}); });
        QVERIFY2(error.contains(QStringLiteral("cannot find the PAI job table")), qPrintable(error));
    }

    void malformedRecordsNamePlace_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<QByteArray>("content");     // philly/helios file, alibaba task table
        QTest::addColumn<QByteArray>("jobTable");    // alibaba only
        QTest::addColumn<QString>("expected");
        const auto philly = int(ImportFormat::Philly), alibaba = int(ImportFormat::Alibaba),
                   helios = int(ImportFormat::Helios);
        const QByteArray ok = R"({"jobid": "a", "status": "Pass", "submitted_time": "2017-10-03 08:00:00", "attempts": []})";
        const QByteArray jobs = fixture(QStringLiteral("pai/pai_job_table.csv"));
        const QByteArray tasks = fixture(QStringLiteral("pai/pai_task_table.csv"));
        const QByteArray log = fixture(QStringLiteral("helios/cluster_log.csv"));
        const QByteArray header = log.left(log.indexOf('\n') + 1);
        QTest::newRow("philly syntax") << philly << QByteArray("[\n {\"jobid\": \"a\",\n  \"status\": }\n]") << QByteArray()
                                       << QStringLiteral("in.json:3: invalid JSON at byte");
        QTest::newRow("philly not array") << philly << QByteArray("{}") << QByteArray() << QStringLiteral("in.json: expected a JSON array");
        QTest::newRow("philly not object") << philly << QByteArray("[" + ok + ", 7]") << QByteArray() << QStringLiteral("in.json: job[1]: expected a JSON object");
        QTest::newRow("philly status type") << philly << QByteArray(R"([{"jobid": "a", "status": 3, "submitted_time": "2017-10-03 08:00:00"}])")
                                            << QByteArray() << QStringLiteral("in.json: job[0] (a): status");
        QTest::newRow("philly submit") << philly << QByteArray("[" + ok + R"(, {"jobid": "b", "status": "Killed", "submitted_time": "None"}])")
                                       << QByteArray() << QStringLiteral("in.json: job[1] (b): submitted_time");
        QTest::newRow("philly attempt time") << philly
            << QByteArray(R"([{"jobid": "a", "status": "Pass", "submitted_time": "2017-10-03 08:00:00", "attempts": [{"start_time": "yesterday", "end_time": null}]}])")
            << QByteArray() << QStringLiteral("in.json: job[0] (a): attempts[0]: start_time");
        QTest::newRow("philly end before start") << philly
            << QByteArray(R"([{"jobid": "a", "status": "Pass", "submitted_time": "2017-10-03 08:00:00", "attempts": [{"start_time": "2017-10-03 09:00:00", "end_time": "2017-10-03 08:59:00"}]}])")
            << QByteArray() << QStringLiteral("job[0] (a): attempts[0]: end_time is before start_time");
        QTest::newRow("philly bad date") << philly << QByteArray(R"([{"jobid": "a", "status": "Pass", "submitted_time": "2017-02-29 08:00:00"}])")
                                         << QByteArray() << QStringLiteral("job[0] (a): submitted_time");
        QTest::newRow("philly garbage between jobs") << philly << QByteArray("[" + ok + " x " + ok + "]") << QByteArray()
                                                     << QStringLiteral("in.json:1: invalid JSON at byte");
        QTest::newRow("pai inst_num") << alibaba << QByteArray("j1,w,4,Terminated,1,2,600,29,50,V100\nj2,w,four,Terminated,1,2,600,29,50,V100\n")
                                      << jobs << QStringLiteral("pai_task_table.csv:2: column 'inst_num': not a number: 'four'");
        QTest::newRow("pai task columns") << alibaba << QByteArray("j1,w,4,Terminated,1,2,600,29,50\n") << jobs
                                          << QStringLiteral("pai_task_table.csv:1: expected 10 columns");
        QTest::newRow("pai negative gpu") << alibaba << QByteArray("\nj1,w,4,Terminated,1,2,600,29,-50,V100\n") << jobs
                                          << QStringLiteral("pai_task_table.csv:2: column 'plan_gpu': must be at least 0");
        QTest::newRow("pai end before start") << alibaba << QByteArray("j1,w,4,Terminated,100,50,600,29,50,V100\n") << jobs
                                              << QStringLiteral("pai_task_table.csv:1: end_time is before start_time");
        QTest::newRow("pai duplicate job") << alibaba << tasks << QByteArray("j1,i,u,Terminated,900,4800\nj2,i,u,Failed,1,2\nj1,i,u,Failed,1,2\n")
                                           << QStringLiteral("pai_job_table.csv:3: duplicate job_name 'j1' (first on line 1)");
        QTest::newRow("pai job table given") << alibaba << jobs << jobs
                                             << QStringLiteral("pai_task_table.csv:1: 6 columns: this looks like pai_job_table");
        QTest::newRow("helios header") << helios << QByteArray("job_id,gpu_num,submit_time,duration\n") << QByteArray()
                                       << QStringLiteral("in.csv:1: header: missing column 'state'");
        QTest::newRow("helios gpu_num") << helios << header + "h9,u,v,-1,1,1,COMPLETED,2020-04-01 00:00:00,,,10,0\n"
                                        << QByteArray() << QStringLiteral("in.csv:2: column 'gpu_num': must be at least 0");
        QTest::newRow("helios date") << helios << header + "h9,u,v,1,1,1,COMPLETED,2020-13-01 00:00:00,,,10,0\n"
                                     << QByteArray() << QStringLiteral("in.csv:2: column 'submit_time'");
        QTest::newRow("helios columns") << helios << header + "h9,u,v,1,1,1,COMPLETED\nh10,u,v,1,1,1,COMPLETED,2020-04-01 00:00:00,,,10,0\n"
                                        << QByteArray() << QStringLiteral("in.csv:2: expected 12 columns (as in the header), got 7");
    }
    void malformedRecordsNamePlace()
    {
        QFETCH(int, format);
        QFETCH(QByteArray, content);
        QFETCH(QByteArray, jobTable);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        std::string path;
        switch (ImportFormat(format)) {
        case ImportFormat::Philly: path = write(dir, QStringLiteral("in.json"), content); break;
        case ImportFormat::Helios: path = write(dir, QStringLiteral("in.csv"), content); break;
        case ImportFormat::Alibaba:
            write(dir, QStringLiteral("pai_job_table.csv"), jobTable);
            path = write(dir, QStringLiteral("pai_task_table.csv"), content);
            break;
        }
        const QString msg = errorOf([&] { importTrace(path, ImportFormat(format), {}); });
        QVERIFY2(msg.contains(expected), qPrintable(msg));
    }

    void compressedInputIsNotMistakenForText()
    {
        // Before: "missing column 'job_id'" / "invalid JSON at byte 1" for a compressed file.
        QTemporaryDir dir;
        const std::string gz = write(dir, QStringLiteral("cluster_log.csv"),
                                     testarchive::pack(Kind::Gzip, {{"cluster_log.csv", fixture(QStringLiteral("helios/cluster_log.csv"))}}));
        QCOMPARE(importTrace(gz, ImportFormat::Helios, {}).trace.jobs.size(), size_t(3));
        // A format the archive reader does not know is named as binary, not as a bad header.
        const std::string odd = write(dir, QStringLiteral("odd.csv"), QByteArray("\x04\x22\x4d\x18\0\0\0", 7));
        const QString error = errorOf([&] { importTrace(odd, ImportFormat::Helios, {}); });
        QVERIFY2(error.contains(QStringLiteral("binary content")), qPrintable(error));
    }

    void skipMalformedCounts()
    {
        QTemporaryDir dir;
        QByteArray philly = fixture(QStringLiteral("philly/cluster_job_log"));
        philly.replace("\"start_time\": \"2017-10-03 01:22:07\"", "\"start_time\": 42");
        philly.replace("\"submitted_time\": \"2017-10-03 02:20:12\"", "\"submitted_time\": \"today\"");
        const std::string path = write(dir, QStringLiteral("p.json"), philly);
        QVERIFY(!errorOf([&] { importTrace(path, ImportFormat::Philly, {}); }).isEmpty());
        ImportOptions options;
        options.skipMalformed = true;
        ImportResult r = importTrace(path, ImportFormat::Philly, options);
        QCOMPARE(r.report.malformed, 2);
        QCOMPARE(r.report.records, 8);
        QCOMPARE(r.trace.jobs.size(), size_t(3));
        QCOMPARE(r.report.filtered.count("failed"), size_t(0));
        QCOMPARE(r.report.malformedExamples.size(), size_t(2));
        QVERIFY(QString::fromStdString(r.report.malformedExamples[0]).contains(QStringLiteral("job[0] (application_1506638472019_10190): attempts[0]: start_time")));

        // A malformed task row takes its job with it (counted), the other jobs stay.
        QTemporaryDir pai;
        QByteArray tasks = fixture(QStringLiteral("pai/pai_task_table.csv"));
        tasks.replace("b7c8d9e0f1a2b3c4d5e6f7a8,PyTorchWorker,2,", "b7c8d9e0f1a2b3c4d5e6f7a8,PyTorchWorker,two,");
        write(pai, QStringLiteral("pai_job_table.csv"), fixture(QStringLiteral("pai/pai_job_table.csv")));
        r = importTrace(write(pai, QStringLiteral("pai_task_table.csv"), tasks), ImportFormat::Alibaba, options);
        QCOMPARE(r.report.malformed, 1);
        QCOMPARE(r.report.filtered.at("malformed-task"), 1);
        QCOMPARE(r.trace.jobs.size(), size_t(4));
        QVERIFY(QString::fromStdString(r.report.malformedExamples[0]).contains(QStringLiteral("pai_task_table.csv:5:")));
    }

    void traceTimes()
    {
        QCOMPARE(parseTraceTime("1970-01-02 00:00:01"), std::optional<double>(86401));
        QCOMPARE(parseTraceTime(" 12.5 "), std::optional<double>(12.5));
        QVERIFY(!parseTraceTime("2017-10-03 24:00:00"));
        QVERIFY(!parseTraceTime("2017-10-3 08:00:00"));
        QVERIFY(!parseTraceTime("None"));
        for (const char *t : {"2017-10-03 08:12:41", "2000-02-29 23:59:59", "1969-12-31 00:00:00"})
            QCOMPARE(formatTraceTime(*parseTraceTime(t)), std::string(t));
    }

    // The shipped example stays what `dl2 trace-import` makes of it, and --help states the rules.
    void cliReproducesShippedSampleAndStatesRules()
    {
        const QString cli = qEnvironmentVariable("DL2_CLI");
        const QString source = qEnvironmentVariable("DL2_SOURCE_DIR");
        if (cli.isEmpty() || source.isEmpty())
            QSKIP("DL2_CLI / DL2_SOURCE_DIR not set (run through ctest)");
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("philly-sample.csv"));
        QProcess p;
        p.start(cli, {QStringLiteral("trace-import"), QStringLiteral("--format"), QStringLiteral("philly"),
                      source + QStringLiteral("/resources/traces/philly-sample.json"), QStringLiteral("-o"), out});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QString report = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(report.contains(QStringLiteral("filtered     9: cpu-only 2, failed 2, killed 2, no-attempts 1, no-duration 2")), qPrintable(report));
        const Trace produced = Trace::load(out.toStdString());
        const Trace shipped = Trace::load(QString(source + QStringLiteral("/resources/traces/philly-sample.csv")).toStdString());
        QCOMPARE(produced.jobs.size(), shipped.jobs.size());
        QCOMPARE(produced.cluster, shipped.cluster);
        for (size_t i = 0; i < shipped.jobs.size(); ++i) {
            const JobSpec &a = produced.jobs[i], &b = shipped.jobs[i];
            QVERIFY(a.id == b.id && a.arrivalSlot == b.arrivalSlot && a.model == b.model && a.source == b.source);
            QVERIFY(std::abs(a.epochs - b.epochs) <= 1e-9 * b.epochs);
        }

        // A malformed record: one line on stderr naming the job, exit code 2, no output file.
        const std::string bad = write(dir, QStringLiteral("bad.json"), R"([{"jobid": "x", "status": "Pass"}])");
        const QString badOut = dir.filePath(QStringLiteral("bad.csv"));
        p.start(cli, {QStringLiteral("trace-import"), QStringLiteral("--format"), QStringLiteral("philly"),
                      QString::fromStdString(bad), QStringLiteral("-o"), badOut});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.startsWith(QStringLiteral("dl2 trace-import: ")) && err.contains(QStringLiteral("bad.json: job[0] (x): submitted_time")),
                 qPrintable(err));
        QVERIFY(!QFile::exists(badOut));

        p.start(cli, {QStringLiteral("trace-import"), QStringLiteral("--help")});
        QVERIFY(p.waitForFinished(30000));
        const QString help = QString::fromUtf8(p.readAllStandardOutput());
        for (const char *rule : {"span = last attempt's end - first attempt's", "attempt 0", "Times of 0",
                                 "inst_num * plan_gpu / 100", "SUSPENDED", "unknown-state", "--keep-cpu-jobs",
                                 "arrival slot = floor((submit - origin) / --slot-seconds)", "workers = GPUs rounded up",
                                 "--ps-rule", "by-size", "epochs = observed duration x speed(PS, workers)",
                                 ".tar.gz", "byte-order mark", "cluster_machine_list", "pai_machine_spec",
                                 "cluster_gpu_number.csv", "--from/--to", "truncated"})
            QVERIFY2(help.contains(QLatin1String(rule)), rule);
    }
};

QTEST_GUILESS_MAIN(TestTraceImport)
#include "tst_traceimport.moc"
