// Public-trace importers (Philly, Alibaba PAI 2020, Helios) on tiny inline fixtures with the
// formats' documented defects: filters and their counts, arrival slots, the model rule, epochs
// that reproduce the observed durations in the simulator, malformed records named by place.
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

#include <set>

using namespace dl2;

namespace {

std::string write(const QTemporaryDir &dir, const QString &name, const QByteArray &content)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write fixture");
    f.write(content);
    return path.toStdString();
}

// Origin 08:00:00. Kept: 0001 (slot 0, 2 GPUs, 3600 s), 0002 (slot 1, 8 GPUs, its second
// attempt: 1800 s), 0008 (slot 12, CPU-only, 600 s). Filtered: killed, failed, zero attempts,
// and two without a duration (null times; a missing start).
const QByteArray kPhilly = R"([
 {"jobid": "application_1_0001", "status": "Pass", "vc": "ee9e8c", "user": "a1", "submitted_time": "2017-10-03 08:00:00",
  "attempts": [{"start_time": "2017-10-03 08:05:00", "end_time": "2017-10-03 09:05:00", "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1"]}]}]},
 {"jobid": "application_1_0008", "status": "Pass", "vc": "ee9e8c", "user": "a2", "submitted_time": "2017-10-03 12:00:00",
  "attempts": [{"start_time": "2017-10-03 12:00:10", "end_time": "2017-10-03 12:10:10", "detail": [{"ip": "m4", "gpus": []}]}]},
 {"jobid": "application_1_0002", "status": "Pass", "vc": "b436b2", "user": "a3", "submitted_time": "2017-10-03 08:25:00",
  "attempts": [{"start_time": "2017-10-03 08:30:00", "end_time": "None", "detail": [{"ip": "m2", "gpus": ["gpu0"]}]},
               {"start_time": "2017-10-03 09:00:00", "end_time": "2017-10-03 09:30:00",
                "detail": [{"ip": "m2", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}, {"ip": "m3", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]}]},
 {"jobid": "application_1_0003", "status": "Pass", "vc": "b436b2", "user": "a1", "submitted_time": "2017-10-03 09:00:00", "attempts": []},
 {"jobid": "application_1_0004", "status": "Killed", "vc": "6214e9", "user": "a2", "submitted_time": "2017-10-03 09:10:00",
  "attempts": [{"start_time": "2017-10-03 09:11:00", "end_time": "2017-10-03 09:50:00", "detail": [{"ip": "m5", "gpus": ["gpu0", "gpu1", "gpu2", "gpu3"]}]}]},
 {"jobid": "application_1_0005", "status": "Pass", "vc": "6214e9", "user": "a3", "submitted_time": "2017-10-03 10:00:00",
  "attempts": [{"start_time": null, "end_time": null, "detail": []}]},
 {"jobid": "application_1_0006", "status": "Pass", "vc": "6214e9", "user": "a3", "submitted_time": "2017-10-03 10:40:00",
  "attempts": [{"end_time": "2017-10-03 11:00:00", "detail": [{"ip": "m6", "gpus": ["gpu0"]}]}]},
 {"jobid": "application_1_0007", "status": "Failed", "vc": "0e4a51", "user": "a4", "submitted_time": "2017-10-03 11:00:00",
  "attempts": [{"start_time": "2017-10-03 11:00:30", "end_time": "2017-10-03 11:01:00", "detail": [{"ip": "m7", "gpus": ["gpu0"]}]}]}
]
)";

// No header rows. Origin 900. Kept: j1 (slot 0, 2 GPUs, 1000..4700 = 3700 s), j2 (slot 1,
// 0.25 GPU, 600 s), j4 (slot 2, 16 GPUs, 6000 s). Filtered: Failed j3, Running j5, Waiting j8,
// j6 without task times, j7 without tasks. The orphan task belongs to no job.
const QByteArray kPaiTasks = "j1,worker,4,Terminated,1000,4600,600,29.296875,50,V100\n"
                             "j1,ps,2,Terminated,1000,4700,400,10,,\n"
                             "j2,tensorflow,1,Terminated,2500,3100,600,29.296875,25,T4\n"
                             "j3,worker,8,Failed,3000,3500,600,29.296875,100,V100\n"
                             "j4,worker,16,Terminated,3900,9900,600,29.296875,100,V100M32\n"
                             "j5,worker,1,Running,5000,,600,29.296875,100,P100\n"
                             "j6,worker,1,Terminated,,,600,29.296875,100,P100\n"
                             "orphan,worker,1,Terminated,100,200,600,29.296875,100,MISC\n";
const QByteArray kPaiJobs = "j1,9f2c,u1,Terminated,900,4800\n"
                            "j2,a31d,u2,Terminated,2450,3200\n"
                            "j3,77e0,u1,Failed,2990,3600\n"
                            "j4,c0de,u3,Terminated,3700,10000\n"
                            "j5,0b1e,u3,Running,4950,\n"
                            "j6,fe11,u2,Terminated,5000,6000\n"
                            "j7,5eed,u2,Terminated,5100,5200\n"
                            "j8,d00d,u4,Waiting,5300,\n";

// Origin 2020-04-01 00:00:00. Kept: h1 (slot 0, 8 GPUs, 7200 s), h2 (slot 1, CPU-only, 600 s),
// h7 (slot 5, 2 GPUs, duration empty -> end - start = 3600 s). Filtered: one per other state
// and h8 with a zero duration.
const QByteArray kHelios =
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
    "h1,u1,vc1,8,48,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:10:00,2020-04-01 02:10:00,7200,600\n"
    "h2,u2,vc1,0,4,1,COMPLETED,2020-04-01 00:30:00,2020-04-01 00:30:05,2020-04-01 00:40:05,600,5\n"
    "h3,u1,vc2,1,6,1,CANCELLED,2020-04-01 01:00:00,,,,\n"
    "h4,u3,vc2,2,12,1,FAILED,2020-04-01 01:10:00,2020-04-01 01:10:00,2020-04-01 01:12:00,120,0\n"
    "h5,u3,vc2,2,12,1,TIMEOUT,2020-04-01 01:20:00,2020-04-01 01:20:00,2020-04-01 05:20:00,14400,0\n"
    "h6,u4,vc3,16,96,2,NODE_FAIL,2020-04-01 01:30:00,2020-04-01 01:31:00,2020-04-01 01:40:00,540,60\n"
    "h7,u4,vc3,2,12,1,COMPLETED,2020-04-01 01:45:00,2020-04-01 02:00:00,2020-04-01 03:00:00,,900\n"
    "\n"
    "h8,u5,vc3,1,6,1,COMPLETED,2020-04-01 02:00:00,2020-04-01 02:00:00,2020-04-01 02:00:00,0,0\n";

ImportResult importFixture(const QTemporaryDir &dir, ImportFormat format,
                           const ImportOptions &options = {})
{
    switch (format) {
    case ImportFormat::Philly:
        return importTrace(write(dir, QStringLiteral("cluster_job_log"), kPhilly), format, options);
    case ImportFormat::Alibaba:
        write(dir, QStringLiteral("pai_job_table.csv"), kPaiJobs);
        return importTrace(write(dir, QStringLiteral("pai_task_table.csv"), kPaiTasks), format,
                           options);
    case ImportFormat::Helios:
        return importTrace(write(dir, QStringLiteral("cluster_log.csv"), kHelios), format, options);
    }
    return {};
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

using Filtered = std::map<std::string, int>;

} // namespace

class TestTraceImport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void keepsSuccessesAndCountsTheRest_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<QStringList>("ids");
        QTest::addColumn<QList<int>>("arrivalSlots");
        QTest::addColumn<QList<double>>("gpus");
        QTest::addColumn<QList<double>>("durations");
        QTest::addColumn<int>("records");
        QTest::addColumn<QStringList>("filtered"); // "reason=count"
        QTest::newRow("philly") << int(ImportFormat::Philly)
            << QStringList{QStringLiteral("application_1_0001"), QStringLiteral("application_1_0002"), QStringLiteral("application_1_0008")}
            << QList<int>{0, 1, 12} << QList<double>{2, 8, 0} << QList<double>{3600, 1800, 600} << 8
            << QStringList{QStringLiteral("failed=1"), QStringLiteral("killed=1"), QStringLiteral("no-attempts=1"), QStringLiteral("no-duration=2")};
        QTest::newRow("alibaba") << int(ImportFormat::Alibaba)
            << QStringList{QStringLiteral("j1"), QStringLiteral("j2"), QStringLiteral("j4")}
            << QList<int>{0, 1, 2} << QList<double>{2, 0.25, 16} << QList<double>{3700, 600, 6000} << 8
            << QStringList{QStringLiteral("failed=1"), QStringLiteral("no-duration=1"), QStringLiteral("no-tasks=1"), QStringLiteral("unfinished=2")};
        QTest::newRow("helios") << int(ImportFormat::Helios)
            << QStringList{QStringLiteral("h1"), QStringLiteral("h2"), QStringLiteral("h7")}
            << QList<int>{0, 1, 5} << QList<double>{8, 0, 2} << QList<double>{7200, 600, 3600} << 8
            << QStringList{QStringLiteral("cancelled=1"), QStringLiteral("failed=1"), QStringLiteral("no-duration=1"),
                           QStringLiteral("node-fail=1"), QStringLiteral("timeout=1")};
    }
    void keepsSuccessesAndCountsTheRest()
    {
        QFETCH(int, format);
        QFETCH(QStringList, ids);
        QFETCH(QList<int>, arrivalSlots);
        QFETCH(QList<double>, gpus);
        QFETCH(QList<double>, durations);
        QFETCH(int, records);
        QFETCH(QStringList, filtered);
        QTemporaryDir dir;
        const ImportResult r = importFixture(dir, ImportFormat(format));
        QCOMPARE(r.trace.jobs.size(), size_t(ids.size()));
        QCOMPARE(r.jobs.size(), r.trace.jobs.size());
        for (qsizetype i = 0; i < ids.size(); ++i) {
            const size_t k = size_t(i);
            QCOMPARE(QString::fromStdString(r.jobs[k].sourceId), ids[i]);
            QCOMPARE(r.trace.jobs[k].id, int(i) + 1);
            QCOMPARE(r.trace.jobs[k].arrivalSlot, arrivalSlots[i]);
            QCOMPARE(r.jobs[k].gpus, gpus[i]);
            QCOMPARE(r.jobs[k].durationSeconds, durations[i]);
            QVERIFY(!r.trace.jobs[k].estimatedEpochs);
        }
        QCOMPARE(r.report.records, records);
        QCOMPARE(r.report.kept, int(ids.size()));
        QCOMPARE(r.report.malformed, 0);
        QStringList got;
        for (const auto &[reason, count] : r.report.filtered)
            got << QString::fromStdString(reason) + QLatin1Char('=') + QString::number(count);
        QCOMPARE(got, filtered);
        QCOMPARE(r.report.firstSlot, arrivalSlots.front());
        QCOMPARE(r.report.lastSlot, arrivalSlots.back());
        r.trace.validate(ProfileSet::reference(), "imported");
    }

    // The import rule: the job alone at its observed allocation runs its observed duration.
    void epochsReproduceObservedDurations_data() { addFormatRows(); }
    void epochsReproduceObservedDurations()
    {
        QFETCH(int, format);
        QTemporaryDir dir;
        const ProfileSet profiles = ProfileSet::reference();
        for (const ModelRule rule : {ModelRule::BySize, ModelRule::Sample}) {
            ImportOptions options;
            options.modelRule = rule;
            options.slotSeconds = 900;
            const ImportResult r = importFixture(dir, ImportFormat(format), options);
            QVERIFY(!r.jobs.empty());
            for (size_t i = 0; i < r.jobs.size(); ++i) {
                const ImportedJob &job = r.jobs[i];
                const ObservedAllocation expected = observedAllocation(job.gpus);
                QCOMPARE(job.ps, expected.ps);
                QCOMPARE(job.workers, expected.workers);
                Trace alone;
                alone.name = "alone";
                alone.jobs = {r.trace.jobs[i]};
                alone.jobs[0].arrivalSlot = 3;
                SimulationOptions sim;
                sim.slotSeconds = options.slotSeconds;
                Simulator simulator(ClusterSpec{64, {8, 8}}, profiles, alone, sim);
                FixedAllocation policy(job.ps, job.workers);
                const RunResult run = runSimulation(simulator, policy);
                QCOMPARE(policy.failedAdds, 0);
                QCOMPARE(run.completed, 1);
                const double seconds = run.jcts[0] * sim.slotSeconds;
                QVERIFY2(std::abs(seconds - job.durationSeconds) <= 1e-6 * job.durationSeconds,
                         qPrintable(QStringLiteral("%1: %2 s simulated, %3 s observed")
                                        .arg(QString::fromStdString(job.sourceId))
                                        .arg(seconds).arg(job.durationSeconds)));
            }
        }
    }

    void observedAllocationRule_data()
    {
        QTest::addColumn<double>("gpus");
        QTest::addColumn<int>("cap");
        QTest::addColumn<int>("ps");
        QTest::addColumn<int>("workers");
        QTest::newRow("cpu-only") << 0.0 << 16 << 1 << 1;
        QTest::newRow("quarter gpu") << 0.25 << 16 << 1 << 1;
        QTest::newRow("one") << 1.0 << 16 << 1 << 1;
        QTest::newRow("1.5 rounds up") << 1.5 << 16 << 2 << 2;
        QTest::newRow("3 x 33%") << 0.99 << 16 << 1 << 1;
        QTest::newRow("eight") << 8.0 << 16 << 8 << 8;
        QTest::newRow("capped") << 64.0 << 16 << 16 << 16;
        QTest::newRow("small cap") << 12.0 << 4 << 4 << 4;
    }
    void observedAllocationRule()
    {
        QFETCH(double, gpus);
        QFETCH(int, cap);
        QFETCH(int, ps);
        QFETCH(int, workers);
        const ObservedAllocation a = observedAllocation(gpus, cap, cap);
        QCOMPARE(a.ps, ps);
        QCOMPARE(a.workers, workers);
    }

    void bySizeRuleMapsGpuClasses_data() { addFormatRows(); }
    void bySizeRuleMapsGpuClasses()
    {
        QFETCH(int, format);
        const std::set<std::string> cpu{"cnn-text-classification", "dssm"};
        const std::set<std::string> small{"resnext-110", "seq2seq", "wlm"};
        const std::set<std::string> large{"inception-bn", "resnet-50", "vgg-16"};
        QTemporaryDir dir;
        for (std::uint64_t seed = 1; seed <= 8; ++seed) {
            ImportOptions options;
            options.seed = seed;
            const ImportResult r = importFixture(dir, ImportFormat(format), options);
            for (size_t i = 0; i < r.jobs.size(); ++i) {
                const double g = r.jobs[i].gpus;
                const auto &cls = g == 0 ? cpu : g <= 2 ? small : large;
                QVERIFY2(cls.count(r.trace.jobs[i].model), r.trace.jobs[i].model.c_str());
            }
        }
    }

    void modelChoiceIsSeeded()
    {
        QTemporaryDir dir;
        ImportOptions options;
        options.modelRule = ModelRule::Sample;
        options.seed = 5;
        const Trace a = importFixture(dir, ImportFormat::Helios, options).trace;
        QVERIFY(a.jobs == importFixture(dir, ImportFormat::Helios, options).trace.jobs);
        // A job keeps its model when other jobs are cut away.
        const ImportResult all = importFixture(dir, ImportFormat::Philly, options);
        options.timeOrigin = all.jobs[1].submitTime;
        const ImportResult later = importFixture(dir, ImportFormat::Philly, options);
        QCOMPARE(later.jobs.size(), all.jobs.size() - 1);
        for (size_t i = 0; i < later.jobs.size(); ++i)
            QCOMPARE(later.trace.jobs[i].model, all.trace.jobs[i + 1].model);
        options.timeOrigin.reset();
        // Over many seeds, sample reaches models outside the by-size class of a CPU-only job.
        std::set<std::string> models;
        for (options.seed = 1; options.seed <= 100; ++options.seed)
            models.insert(importFixture(dir, ImportFormat::Helios, options).trace.jobs[1].model);
        QCOMPARE(models.size(), size_t(8));
    }

    void slotLengthOriginAndMaxJobs()
    {
        QTemporaryDir dir;
        ImportOptions options;
        options.slotSeconds = 600;
        ImportResult r = importFixture(dir, ImportFormat::Helios, options);
        QCOMPARE(r.trace.jobs[1].arrivalSlot, 3);  // 1800 s
        QCOMPARE(r.trace.jobs[2].arrivalSlot, 10); // 6300 s
        QCOMPARE(formatTraceTime(r.report.timeOrigin), std::string("2020-04-01 00:00:00"));

        // An explicit origin drops earlier jobs (counted) and shifts the rest.
        options.slotSeconds = 1200;
        options.timeOrigin = parseTraceTime("2020-04-01 00:20:00");
        r = importFixture(dir, ImportFormat::Helios, options);
        QCOMPARE(r.trace.jobs.size(), size_t(2));
        QCOMPARE(r.report.filtered.at("before-origin"), 1);
        QCOMPARE(r.trace.jobs[0].arrivalSlot, 0); // 600 s after the origin
        QCOMPARE(r.trace.jobs[1].arrivalSlot, 4); // 5100 s

        options.timeOrigin.reset();
        options.maxJobs = 2;
        r = importFixture(dir, ImportFormat::Alibaba, options);
        QCOMPARE(r.trace.jobs.size(), size_t(2));
        QCOMPARE(r.jobs[1].sourceId, std::string("j2"));
        QCOMPARE(r.report.filtered.at("over-max-jobs"), 1);
    }

    void alibabaJobTableOption()
    {
        QTemporaryDir dir;
        ImportOptions options;
        options.alibabaJobTable = write(dir, QStringLiteral("jobs-elsewhere.csv"), kPaiJobs);
        const std::string tasks = write(dir, QStringLiteral("tasks.csv"), kPaiTasks);
        const ImportResult r = importTrace(tasks, ImportFormat::Alibaba, options);
        QCOMPARE(r.trace.jobs.size(), size_t(3));
        QCOMPARE(r.report.inputs.size(), size_t(2));
        // Without the option, a task table not named pai_task_table* looks for pai_job_table.csv.
        try {
            importTrace(tasks, ImportFormat::Alibaba, {});
            QFAIL("no error");
        } catch (const Error &e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("cannot find the PAI job table")), e.what());
        }
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
        QTest::newRow("philly syntax") << philly << QByteArray("[\n {\"jobid\": \"a\",\n  \"status\": }\n]") << QByteArray()
                                       << QStringLiteral("in.json:3: invalid JSON at byte");
        QTest::newRow("philly not array") << philly << QByteArray("{}") << QByteArray() << QStringLiteral("in.json: expected a JSON array");
        QTest::newRow("philly not object") << philly << QByteArray("[" + ok + ", 7]") << QByteArray() << QStringLiteral("in.json: job[1]: expected a JSON object");
        QTest::newRow("philly status") << philly << QByteArray(R"([{"jobid": "a", "status": "Running", "submitted_time": "2017-10-03 08:00:00"}])")
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
        QTest::newRow("pai inst_num") << alibaba << QByteArray("j1,w,4,Terminated,1,2,600,29,50,V100\nj2,w,four,Terminated,1,2,600,29,50,V100\n")
                                      << kPaiJobs << QStringLiteral("pai_task_table.csv:2: column 'inst_num': not a number: 'four'");
        QTest::newRow("pai task columns") << alibaba << QByteArray("j1,w,4,Terminated,1,2,600,29,50\n") << kPaiJobs
                                          << QStringLiteral("pai_task_table.csv:1: expected 10 columns");
        QTest::newRow("pai negative gpu") << alibaba << QByteArray("\nj1,w,4,Terminated,1,2,600,29,-50,V100\n") << kPaiJobs
                                          << QStringLiteral("pai_task_table.csv:2: column 'plan_gpu': must be at least 0");
        QTest::newRow("pai job status") << alibaba << kPaiTasks << QByteArray("j1,i,u,Terminated,900,4800\nj2,i,u,Done,1,2\n")
                                        << QStringLiteral("pai_job_table.csv:2: column 'status'");
        QTest::newRow("pai duplicate job") << alibaba << kPaiTasks << QByteArray("j1,i,u,Terminated,900,4800\nj2,i,u,Failed,1,2\nj1,i,u,Failed,1,2\n")
                                           << QStringLiteral("pai_job_table.csv:3: duplicate job_name 'j1' (first on line 1)");
        QTest::newRow("pai job table given") << alibaba << kPaiJobs << kPaiJobs
                                             << QStringLiteral("pai_task_table.csv:1: 6 columns: this looks like pai_job_table");
        QTest::newRow("helios header") << helios << QByteArray("job_id,gpu_num,submit_time,duration\n") << QByteArray()
                                       << QStringLiteral("in.csv:1: header: missing column 'state'");
        QTest::newRow("helios gpu_num") << helios << kHelios.left(kHelios.indexOf("h3,")) + "h9,u,v,-1,1,1,COMPLETED,2020-04-01 00:00:00,,,10,0\n"
                                        << QByteArray() << QStringLiteral("in.csv:4: column 'gpu_num': must be at least 0");
        QTest::newRow("helios date") << helios << kHelios.left(kHelios.indexOf("h1,")) + "h9,u,v,1,1,1,COMPLETED,2020-13-01 00:00:00,,,10,0\n"
                                     << QByteArray() << QStringLiteral("in.csv:2: column 'submit_time'");
        QTest::newRow("helios columns") << helios << kHelios.left(kHelios.indexOf("h1,")) + "h9,u,v,1,1,1,COMPLETED\n"
                                        << QByteArray() << QStringLiteral("in.csv:2: expected 12 columns");
        QTest::newRow("helios state") << helios << kHelios.left(kHelios.indexOf("h1,")) + "h9,u,v,1,1,1,PENDING,2020-04-01 00:00:00,,,,\n"
                                      << QByteArray() << QStringLiteral("in.csv:2: column 'state'");
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
        try {
            importTrace(path, ImportFormat(format), {});
            QFAIL("no error");
        } catch (const Error &e) {
            const QString msg = QString::fromUtf8(e.what());
            QVERIFY2(msg.contains(expected), qPrintable(msg));
        }
    }

    void skipMalformedCounts()
    {
        QTemporaryDir dir;
        QByteArray philly = kPhilly;
        philly.replace("\"status\": \"Failed\"", "\"status\": \"Lost\"");
        philly.replace("\"2017-10-03 12:00:10\"", "42");
        const std::string path = write(dir, QStringLiteral("p.json"), philly);
        QVERIFY_THROWS_EXCEPTION(Error, importTrace(path, ImportFormat::Philly, {}));
        ImportOptions options;
        options.skipMalformed = true;
        ImportResult r = importTrace(path, ImportFormat::Philly, options);
        QCOMPARE(r.report.malformed, 2);
        QCOMPARE(r.report.records, 8);
        QCOMPARE(r.trace.jobs.size(), size_t(2));
        QCOMPARE(r.report.filtered.count("failed"), size_t(0));
        QCOMPARE(r.report.malformedExamples.size(), size_t(2));
        QVERIFY(QString::fromStdString(r.report.malformedExamples[0]).contains(QStringLiteral("job[1] (application_1_0008): attempts[0]: start_time")));

        // A malformed task row takes its job with it (counted), the other jobs stay.
        QTemporaryDir pai;
        QByteArray tasks = kPaiTasks;
        tasks.replace("j2,tensorflow,1,", "j2,tensorflow,one,");
        write(pai, QStringLiteral("pai_job_table.csv"), kPaiJobs);
        r = importTrace(write(pai, QStringLiteral("pai_task_table.csv"), tasks), ImportFormat::Alibaba, options);
        QCOMPARE(r.report.malformed, 1);
        QCOMPARE(r.report.filtered.at("malformed-task"), 1);
        QCOMPARE(r.trace.jobs.size(), size_t(2));
        QVERIFY(QString::fromStdString(r.report.malformedExamples[0]).contains(QStringLiteral("pai_task_table.csv:3:")));
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

    // The shipped example stays what `dl2 trace-import` makes of it.
    void cliReproducesShippedSample()
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
        QVERIFY2(report.contains(QStringLiteral("filtered     7: failed 2, killed 2, no-attempts 1, no-duration 2")), qPrintable(report));
        const Trace produced = Trace::load(out.toStdString());
        const Trace shipped = Trace::load(QString(source + QStringLiteral("/resources/traces/philly-sample.csv")).toStdString());
        QCOMPARE(produced.jobs.size(), shipped.jobs.size());
        for (size_t i = 0; i < shipped.jobs.size(); ++i) {
            const JobSpec &a = produced.jobs[i], &b = shipped.jobs[i];
            QVERIFY(a.id == b.id && a.arrivalSlot == b.arrivalSlot && a.model == b.model);
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
    }
};

QTEST_GUILESS_MAIN(TestTraceImport)
#include "tst_traceimport.moc"
