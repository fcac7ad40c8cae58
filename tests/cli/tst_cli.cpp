// The dl2 command line as a script sees it: exit codes, one-line errors, JSON keys, and no
// partial output file on failure.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace {

struct Run
{
    int code = -1;
    QByteArray out;
    QByteArray err;
};

Run dl2(const QStringList &args)
{
    QProcess p;
    p.start(qEnvironmentVariable("DL2_CLI"), args);
    if (!p.waitForFinished(120000))
        qFatal("dl2 did not finish");
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

QString fixture(const QTemporaryDir &dir, const QString &name, const QByteArray &content)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write fixture");
    f.write(content);
    return path;
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY(QFile::exists(qEnvironmentVariable("DL2_CLI"))); }

    void simulateJsonHasStableKeys()
    {
        const Run r = dl2({QStringLiteral("simulate"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                           QStringLiteral("--policy"), QStringLiteral("drf"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        for (const char *key : {"policy", "jobs", "completed", "avg_jct_slots", "makespan_slots", "avg_reward",
                                "lower_bound_avg_jct_slots", "wall_seconds"})
            QVERIFY2(o.contains(QLatin1String(key)), key);
        QCOMPARE(o[QStringLiteral("policy")].toString(), QStringLiteral("drf"));
        QCOMPARE(o[QStringLiteral("jobs")].toInt(), 60);
        QVERIFY(o[QStringLiteral("avg_jct_slots")].toDouble() >= o[QStringLiteral("lower_bound_avg_jct_slots")].toDouble());
    }

    // How the jobs' time went (--jobs columns after `state`) and the per-slot use (--json
    // per_slot) agree with each other and with the JCTs, whatever the policy.
    void simulateTimeSpent_data()
    {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QString>("maxSlots");
        QTest::newRow("drf") << QStringLiteral("drf") << QString();
        QTest::newRow("optimus") << QStringLiteral("optimus") << QString();
        QTest::newRow("fifo") << QStringLiteral("fifo") << QString();
        QTest::newRow("drf cut short") << QStringLiteral("drf") << QStringLiteral("4");
    }
    void simulateTimeSpent()
    {
        QFETCH(QString, policy);
        QFETCH(QString, maxSlots);
        QTemporaryDir dir;
        const QString jobsFile = dir.filePath(QStringLiteral("jobs.csv"));
        QStringList args{QStringLiteral("simulate"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                         QStringLiteral("--seed"), QStringLiteral("1"), QStringLiteral("--policy"), policy,
                         QStringLiteral("--jobs"), jobsFile, QStringLiteral("--json")};
        if (!maxSlots.isEmpty())
            args << QStringLiteral("--max-slots") << maxSlots;
        const Run r = dl2(args);
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const int slotCount = o[QStringLiteral("slots")].toInt();
        QVERIFY(slotCount > 0);
        QCOMPARE(o[QStringLiteral("truncated")].toBool(), !maxSlots.isEmpty());

        QFile f(jobsFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QList<QByteArray> rows = f.readAll().split('\n');
        QVERIFY(rows.size() > 2 && rows.last().isEmpty());
        rows.removeLast();
        const QList<QByteArray> header = rows.takeFirst().split(',');
        QCOMPARE(rows.size(), o[QStringLiteral("jobs")].toInt());
        auto col = [&](const char *name) {
            const qsizetype i = header.indexOf(QByteArray(name));
            if (i < 0)
                qFatal("no column %s", name);
            return i;
        };
        const qsizetype arrivalCol = col("arrival_slot"), jctCol = col("jct_slots"), stateCol = col("state"),
                        firstCol = col("first_run_slot"), waitingCol = col("waiting_slots"),
                        runCol = col("slots_run"), workersCol = col("mean_workers"), psCol = col("mean_ps");
        struct Job
        {
            int arrival = 0;
            double finish = -1; // -1 if unfinished
        };
        std::vector<Job> jobs;
        long long slotsRun = 0, waitingBeforeRun = 0;
        for (const QByteArray &row : rows) {
            const QList<QByteArray> c = row.split(',');
            QVERIFY2(c.size() == header.size(), row.constData());
            const int arrival = c[arrivalCol].toInt();
            const double jct = c[jctCol].toDouble();
            const bool finished = c[stateCol] == "finished";
            const int waiting = c[waitingCol].toInt(), run = c[runCol].toInt();
            slotsRun += run;
            waitingBeforeRun += waiting;
            if (c[firstCol].isEmpty()) {
                QVERIFY2(!finished && run == 0, row.constData());
                QVERIFY2(waiting == std::max(0, slotCount - arrival), row.constData());
                QVERIFY2(c[workersCol].toDouble() == 0 && c[psCol].toDouble() == 0, row.constData());
            } else {
                const int first = c[firstCol].toInt();
                QVERIFY2(first >= arrival && first < slotCount, row.constData());
                QVERIFY2(waiting == first - arrival, row.constData());
                QVERIFY2(run >= 1 && waiting + run <= slotCount - arrival, row.constData());
                QVERIFY2(c[workersCol].toDouble() >= 1 && c[psCol].toDouble() >= 1, row.constData());
            }
            if (finished) {
                QVERIFY2(!c[firstCol].isEmpty(), row.constData());
                // It waited, then ran in some of the slots up to the one it finished in.
                QVERIFY2(waiting + run <= std::ceil(jct - 1e-9), row.constData());
                QVERIFY2(run <= std::ceil(jct - 1e-9), row.constData());
            }
            jobs.push_back({arrival, finished ? arrival + jct : -1.0});
        }

        const QJsonArray perSlot = o[QStringLiteral("per_slot")].toArray();
        QCOMPARE(perSlot.size(), slotCount);
        long long running = 0, waitingSlots = 0;
        double cpu = 0, gpu = 0;
        for (int s = 0; s < perSlot.size(); ++s) {
            const QJsonObject x = perSlot[s].toObject();
            QCOMPARE(x[QStringLiteral("slot")].toInt(), s);
            const double cpuUsed = x[QStringLiteral("cpu_used")].toDouble(),
                         gpuUsed = x[QStringLiteral("gpu_used")].toDouble();
            QVERIFY(cpuUsed >= 0 && cpuUsed <= 1 && gpuUsed >= 0 && gpuUsed <= 1);
            cpu += cpuUsed;
            gpu += gpuUsed;
            const int run = x[QStringLiteral("running")].toInt(), wait = x[QStringLiteral("waiting")].toInt();
            QVERIFY(x[QStringLiteral("workers")].toInt() >= run && x[QStringLiteral("ps")].toInt() >= run);
            QVERIFY(run == 0 || cpuUsed > 0);
            running += run;
            waitingSlots += wait;
            // Running + waiting = the jobs arrived and not finished by the slot's start.
            int inSystem = 0;
            for (const Job &j : jobs)
                inSystem += j.arrival <= s && (j.finish < 0 || s < j.finish);
            QVERIFY2(run + wait == inSystem, qPrintable(QStringLiteral("slot %1: %2 + %3 vs %4").arg(s).arg(run).arg(wait).arg(inSystem)));
        }
        QCOMPARE(running, slotsRun);
        QVERIFY(waitingBeforeRun <= waitingSlots); // a job may also wait after its first run
        QVERIFY(std::abs(o[QStringLiteral("mean_cpu_used")].toDouble() - cpu / slotCount) <= 1e-9);
        QVERIFY(std::abs(o[QStringLiteral("mean_gpu_used")].toDouble() - gpu / slotCount) <= 1e-9);
    }

    // The faithful dl2 decides for a window of jobs: --json counts per slot the jobs it never
    // had in view, --jobs per job, and the two agree; the text says how many. A baseline,
    // which sees every job, has neither (the column is empty).
    void simulateCountsJobsOutsideTheWindow()
    {
        QTemporaryDir dir;
        const QString jobsFile = dir.filePath(QStringLiteral("jobs.csv"));
        const QStringList args{QStringLiteral("simulate"),
                               QStringLiteral("--scenario"),
                               QStringLiteral("dl2-reference"),
                               QStringLiteral("--seed"),
                               QStringLiteral("1"),
                               QStringLiteral("--policy"),
                               QStringLiteral("dl2"),
                               QStringLiteral("--jobs"),
                               jobsFile};
        const Run r = dl2(args + QStringList{QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const QJsonArray perSlot = o[QStringLiteral("per_slot")].toArray();
        long long outside = 0;
        for (const QJsonValue v : perSlot) {
            const QJsonObject x = v.toObject();
            QVERIFY(x.contains(QStringLiteral("outside_window")));
            const int n = x[QStringLiteral("outside_window")].toInt();
            QVERIFY(n >= 0 && n <= x[QStringLiteral("running")].toInt() +
                                       x[QStringLiteral("waiting")].toInt());
            outside += n;
        }
        // The shipped window-60 policy leaves a few jobs out on this trace's busiest slots.
        QVERIFY(outside > 0);
        QVERIFY(std::abs(o[QStringLiteral("mean_outside_window")].toDouble() -
                         double(outside) / perSlot.size()) <= 1e-9);
        QFile f(jobsFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QList<QByteArray> rows = f.readAll().trimmed().split('\n');
        const qsizetype col = rows.takeFirst().split(',').indexOf("outside_window_slots");
        QVERIFY(col >= 0);
        long long perJob = 0;
        for (const QByteArray &row : rows)
            perJob += row.split(',')[col].toInt();
        QCOMPARE(perJob, outside);
        const Run text = dl2(args);
        QVERIFY2(text.out.contains("outside window    ") &&
                     text.out.contains(" slots left some out)"),
                 text.out.constData());

        const Run drf =
            dl2({QStringLiteral("simulate"), QStringLiteral("--scenario"),
                 QStringLiteral("dl2-small"), QStringLiteral("--seed"), QStringLiteral("1"),
                 QStringLiteral("--jobs"), jobsFile, QStringLiteral("--json")});
        QVERIFY2(drf.code == 0, drf.err.constData());
        const QJsonObject d = QJsonDocument::fromJson(drf.out).object();
        QVERIFY(!d.contains(QStringLiteral("mean_outside_window")));
        QVERIFY(!d[QStringLiteral("per_slot")].toArray().first().toObject().contains(
            QStringLiteral("outside_window")));
        QFile g(jobsFile);
        QVERIFY(g.open(QIODevice::ReadOnly));
        const QList<QByteArray> drfRows = g.readAll().trimmed().split('\n');
        QVERIFY2(drfRows[1].endsWith(','), drfRows[1].constData());
    }

    // --decisions: one row per inference of the learned policy, in order within each slot; the
    // counts before each action follow from the actions before it on the same job, and the
    // probabilities are the policy's (the chosen action's is not 0; none adds up past 1).
    void simulateDecisions()
    {
        QTemporaryDir dir;
        const QString decisionsFile = dir.filePath(QStringLiteral("decisions.csv"));
        const Run r = dl2({QStringLiteral("simulate"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                           QStringLiteral("--seed"), QStringLiteral("1"), QStringLiteral("--policy"),
                           QStringLiteral("dl2"), QStringLiteral("--max-slots"), QStringLiteral("6"),
                           QStringLiteral("--decisions"), decisionsFile, QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const int slotCount = QJsonDocument::fromJson(r.out).object()[QStringLiteral("slots")].toInt();
        QFile f(decisionsFile);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QList<QByteArray> rows = f.readAll().split('\n');
        QVERIFY(rows.last().isEmpty());
        rows.removeLast();
        QCOMPARE(rows.takeFirst(), QByteArray("slot,inference,job_id,model,workers,ps,action,explored,"
                                              "p_stop,p_worker,p_ps,p_bundle,result"));
        QVERIFY(rows.size() > 50);
        int slot = -1, inference = -1, slotsSeen = 0;
        std::map<int, std::pair<int, int>> next; // job -> (workers, ps) after its last action this slot
        std::set<QByteArray> kinds;
        for (const QByteArray &row : rows) {
            const QList<QByteArray> c = row.split(',');
            QVERIFY2(c.size() == 13, row.constData());
            if (c[0].toInt() != slot) {
                QVERIFY2(c[0].toInt() > slot && c[1].toInt() == 0, row.constData());
                slot = c[0].toInt();
                inference = 0;
                next.clear();
                ++slotsSeen;
            } else {
                QVERIFY2(c[1].toInt() == ++inference, row.constData());
            }
            QVERIFY(c[7] == "0"); // no exploration outside training
            const double stop = c[8].toDouble();
            QVERIFY(stop >= 0 && stop <= 1);
            kinds.insert(c[6]);
            if (c[6] == "stop") {
                QVERIFY2(c[2].isEmpty() && stop > 0, row.constData());
                continue;
            }
            const int job = c[2].toInt(), workers = c[4].toInt(), ps = c[5].toInt();
            QVERIFY2(!c[3].isEmpty() && workers >= 0 && ps >= 0, row.constData());
            const double pw = c[9].toDouble(), pp = c[10].toDouble(), pb = c[11].toDouble();
            QVERIFY2(pw >= 0 && pp >= 0 && pb >= 0 && stop + pw + pp + pb <= 1 + 1e-5, row.constData());
            const double chosen = c[6] == "worker" ? pw : c[6] == "ps" ? pp : pb;
            QVERIFY2(chosen > 0, row.constData());
            if (next.count(job))
                QVERIFY2(next[job] == std::make_pair(workers, ps), row.constData());
            const bool ok = c[12] == "ok";
            QVERIFY2(ok || c[12] == "no-capacity" || c[12] == "at-cap", row.constData());
            next[job] = {workers + (ok && c[6] != "ps" ? 1 : 0), ps + (ok && c[6] != "worker" ? 1 : 0)};
        }
        QVERIFY(slotsSeen > 1 && slot < slotCount);
        QVERIFY(kinds.count("ps") && kinds.count("stop") + kinds.count("worker") + kinds.count("bundle") > 0);
    }

    void compareJsonShape()
    {
        const Run r = dl2({QStringLiteral("compare"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                           QStringLiteral("--seeds"), QStringLiteral("1-3"), QStringLiteral("--policies"),
                           QStringLiteral("drf,fifo"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o[QStringLiteral("runs")].toArray().size(), 6);
        QCOMPARE(o[QStringLiteral("runs")].toArray().at(0).toObject()[QStringLiteral("seed")].toInt(), 1);
        const QJsonObject drf = o[QStringLiteral("summary")].toObject()[QStringLiteral("drf")].toObject();
        QVERIFY(drf[QStringLiteral("mean_avg_jct_slots")].toDouble() > 0);
        QCOMPARE(drf[QStringLiteral("ratio_to_drf")].toDouble(), 1.0);
    }

    void byModel()
    {
        // Each job type's mean JCT per policy, and its part of each policy's average: the parts
        // add up to the policy's average over all jobs, and no type beats its lower bound.
        const Run r = dl2({QStringLiteral("compare"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                           QStringLiteral("--seeds"), QStringLiteral("1-3"), QStringLiteral("--policies"),
                           QStringLiteral("drf,fifo,best-config"), QStringLiteral("--by-model"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const QJsonObject byModel = o[QStringLiteral("by_model")].toObject();
        QVERIFY(byModel.size() >= 2);
        std::map<QString, double> pooled, parts; // per policy
        double jobs = 0.0;
        for (const QJsonValue &v : o[QStringLiteral("runs")].toArray()) {
            const QJsonObject run = v.toObject();
            const QString policy = run[QStringLiteral("policy")].toString();
            pooled[policy] += run[QStringLiteral("avg_jct_slots")].toDouble() * run[QStringLiteral("jobs")].toDouble();
            if (policy == QLatin1String("drf"))
                jobs += run[QStringLiteral("jobs")].toDouble();
        }
        double typed = 0.0;
        for (auto it = byModel.begin(); it != byModel.end(); ++it) {
            const QJsonObject m = it.value().toObject();
            typed += m[QStringLiteral("jobs")].toDouble();
            const double bound = m[QStringLiteral("lower_bound")].toDouble();
            QVERIFY(bound > 0.0);
            const QJsonObject mean = m[QStringLiteral("mean_jct")].toObject();
            const QJsonObject part = m[QStringLiteral("part_of_avg_jct")].toObject();
            QCOMPARE(mean.size(), 3);
            for (auto p = mean.begin(); p != mean.end(); ++p) {
                QVERIFY2(p.value().toDouble() >= bound - 1e-9, qPrintable(it.key() + QLatin1Char(' ') + p.key()));
                parts[p.key()] += part[p.key()].toDouble();
                QCOMPARE(part[p.key()].toDouble(), p.value().toDouble() * m[QStringLiteral("jobs")].toDouble() / jobs);
            }
        }
        QCOMPARE(typed, jobs);
        for (const auto &[policy, sum] : pooled)
            QVERIFY2(std::abs(parts[policy] - sum / jobs) < 1e-9, qPrintable(policy));
        QVERIFY(parts[QStringLiteral("fifo")] > parts[QStringLiteral("best-config")]);

        // The table: both blocks, each type once per block, and the "all" row.
        const Run text = dl2({QStringLiteral("compare"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                              QStringLiteral("--seeds"), QStringLiteral("1-3"), QStringLiteral("--policies"),
                              QStringLiteral("drf,fifo,best-config"), QStringLiteral("--by-model")});
        QCOMPARE(text.code, 0);
        const QString out = QString::fromUtf8(text.out);
        QVERIFY2(out.contains(QStringLiteral("By model: mean JCT")) && out.contains(QStringLiteral("Part of the average JCT")),
                 text.out.constData());
        QCOMPARE(out.count(QRegularExpression(QStringLiteral("^all +%1 ").arg(jobs), QRegularExpression::MultilineOption)), 1);
        for (auto it = byModel.begin(); it != byModel.end(); ++it)
            QCOMPARE(out.count(QRegularExpression(QLatin1Char('^') + it.key() + QLatin1Char(' '),
                                                  QRegularExpression::MultilineOption)), 2);

        // evaluate has it too, with the learned policy's column.
        const Run evaluated = dl2({QStringLiteral("evaluate"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                                   QStringLiteral("--seeds"), QStringLiteral("1"), QStringLiteral("--by-model"),
                                   QStringLiteral("--json")});
        QCOMPARE(evaluated.code, 0);
        const QJsonObject first = QJsonDocument::fromJson(evaluated.out).object()[QStringLiteral("by_model")]
                                      .toObject().begin().value().toObject();
        QVERIFY(first[QStringLiteral("mean_jct")].toObject().contains(QStringLiteral("dl2")));
        // ... and refuses runs cut short, which would leave unfinished jobs out of some means.
        const Run cut = dl2({QStringLiteral("evaluate"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                             QStringLiteral("--seeds"), QStringLiteral("1"), QStringLiteral("--max-slots"),
                             QStringLiteral("3"), QStringLiteral("--by-model")});
        QCOMPARE(cut.code, 2);
        QVERIFY2(cut.err.contains("dl2 evaluate: a breakdown by model needs runs in which every job finished (dl2 on "
                                  "dl2-small-seed1 stopped early)"),
                 cut.err.constData());
        QVERIFY(cut.out.isEmpty());
    }

    void traceFileRoundTripThroughCli()
    {
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("t.csv"));
        QCOMPARE(dl2({QStringLiteral("trace"), QStringLiteral("generate"), QStringLiteral("--scenario"),
                      QStringLiteral("dl2-small"), QStringLiteral("--seed"), QStringLiteral("4"), QStringLiteral("-o"), csv})
                     .code,
                 0);
        const QString pb = dir.filePath(QStringLiteral("t.pb"));
        QCOMPARE(dl2({QStringLiteral("trace"), QStringLiteral("convert"), csv, QStringLiteral("-o"), pb}).code, 0);
        const Run a = dl2({QStringLiteral("simulate"), QStringLiteral("--trace"), pb, QStringLiteral("--nodes"),
                           QStringLiteral("96"), QStringLiteral("--json")});
        const Run b = dl2({QStringLiteral("simulate"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                           QStringLiteral("--seed"), QStringLiteral("4"), QStringLiteral("--json")});
        QCOMPARE(a.code, 0);
        QCOMPARE(QJsonDocument::fromJson(a.out).object()[QStringLiteral("avg_jct_slots")].toDouble(),
                 QJsonDocument::fromJson(b.out).object()[QStringLiteral("avg_jct_slots")].toDouble());
    }

    // An imported trace brings its slot length and cluster; runs go to completion unless cut,
    // and a cut run says so.
    void importedTraceSetsUpItsRun()
    {
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("helios.csv"));
        const QString log = qEnvironmentVariable("DL2_SOURCE_DIR") + QStringLiteral("/tests/data/traces/helios/cluster_log.csv");
        QCOMPARE(dl2({QStringLiteral("trace-import"), QStringLiteral("--format"), QStringLiteral("helios"), log,
                      QStringLiteral("--slot-seconds"), QStringLiteral("600"), QStringLiteral("-o"), trace}).code, 0);
        const Run r = dl2({QStringLiteral("simulate"), QStringLiteral("--trace"), trace, QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        const QJsonObject setup = o[QStringLiteral("setup")].toObject();
        QCOMPARE(setup[QStringLiteral("nodes")].toInt(), 93); // cluster_gpu_number.csv: 744 GPUs
        QCOMPARE(setup[QStringLiteral("gpus_per_node")].toDouble(), 8.0);
        QCOMPARE(setup[QStringLiteral("slot_seconds")].toDouble(), 600.0);
        QCOMPARE(setup[QStringLiteral("max_workers")].toInt(), 128); // the 128-GPU job
        QVERIFY(setup[QStringLiteral("cluster_source")].toString().startsWith(QStringLiteral("trace")));
        QCOMPARE(o[QStringLiteral("truncated")].toBool(), false);
        QCOMPARE(o[QStringLiteral("completed")].toInt(), 3);
        QVERIFY(r.err.contains("note: cluster 93 nodes x 8 GPUs"));

        // Another slot length re-derives arrivals from the submission times (01:20 is slot 4 of
        // 1200 s, slot 7 of 600 s).
        const QString jobs = dir.filePath(QStringLiteral("jobs.csv"));
        const Run longer = dl2({QStringLiteral("simulate"), QStringLiteral("--trace"), trace, QStringLiteral("--slot-seconds"),
                                QStringLiteral("1200"), QStringLiteral("--jobs"), jobs});
        QCOMPARE(longer.code, 0);
        QVERIFY2(longer.err.contains("arrival slots re-derived from the submission times for 1200-s slots"), longer.err.constData());
        QFile f(jobs);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QList<QByteArray> rows = f.readAll().split('\n');
        QCOMPARE(rows[0], QByteArray("job_id,source_id,model,arrival_slot,epochs,jct_slots,state,"
                                     "first_run_slot,waiting_slots,slots_run,mean_workers,mean_ps,"
                                     "outside_window_slots"));
        QVERIFY2(rows[2].startsWith("2,93a4b5c6,") && rows[2].split(',')[3] == "3", rows[2].constData());

        // The observed policy replays the history: JCT = queueing delay + duration.
        const Run observed = dl2({QStringLiteral("simulate"), QStringLiteral("--trace"), trace, QStringLiteral("--policy"),
                                  QStringLiteral("observed"), QStringLiteral("--json")});
        QCOMPARE(observed.code, 0);
        const double jct = QJsonDocument::fromJson(observed.out).object()[QStringLiteral("avg_jct_slots")].toDouble();
        const double history = ((300 + 7200) + (1200 + 7200) + (900 + 3600)) / 600.0 / 3;
        QVERIFY2(std::abs(jct - history) <= 1.0, qPrintable(QString::number(jct) + QLatin1String(" vs ") + QString::number(history)));

        // Cut short: truncated, counted, censored, warned.
        const Run cut = dl2({QStringLiteral("simulate"), QStringLiteral("--trace"), trace, QStringLiteral("--max-slots"),
                             QStringLiteral("8"), QStringLiteral("--json")});
        QCOMPARE(cut.code, 0);
        const QJsonObject c = QJsonDocument::fromJson(cut.out).object();
        QCOMPARE(c[QStringLiteral("truncated")].toBool(), true);
        QCOMPARE(c[QStringLiteral("avg_jct_censored")].toBool(), true);
        QCOMPARE(c[QStringLiteral("not_arrived")].toInt(), 1); // the job of slot 10
        QCOMPARE(c[QStringLiteral("unfinished")].toInt() + c[QStringLiteral("completed")].toInt(), 2);
        QVERIFY(c[QStringLiteral("avg_jct_slots")].toDouble() >= c[QStringLiteral("lower_bound_avg_jct_slots")].toDouble());
        QVERIFY(cut.err.contains("warning: the run stopped at slot 8 (max-slots)"));

        // compare does not rank censored averages unless told to.
        const QStringList compare{QStringLiteral("compare"), QStringLiteral("--trace"), trace, QStringLiteral("--policies"),
                                  QStringLiteral("drf,fifo"), QStringLiteral("--max-slots"), QStringLiteral("8")};
        const Run refused = dl2(compare);
        QCOMPARE(refused.code, 2);
        // The refusal names each truncated run with the counts simulate reports for it.
        const Run drfCut = dl2({QStringLiteral("simulate"), QStringLiteral("--trace"), trace, QStringLiteral("--policy"),
                                QStringLiteral("drf"), QStringLiteral("--max-slots"), QStringLiteral("8"), QStringLiteral("--json")});
        const QJsonObject d = QJsonDocument::fromJson(drfCut.out).object();
        QVERIFY(d[QStringLiteral("unfinished")].toInt() > 0);
        const QByteArray named = QStringLiteral("drf on helios.csv: %1 unfinished, %2 not arrived (max-slots)")
                                     .arg(d[QStringLiteral("unfinished")].toInt())
                                     .arg(d[QStringLiteral("not_arrived")].toInt())
                                     .toUtf8();
        QVERIFY2(refused.err.contains(named) && refused.err.contains("--allow-truncated"),
                 refused.err.constData());
        const Run allowed = dl2(compare + QStringList{QStringLiteral("--allow-truncated")});
        QCOMPARE(allowed.code, 0);
        QVERIFY(allowed.err.contains("warning: truncated runs ranked on censored average JCTs"));
        // The table marks them: '*' after each truncated policy, and a footnote saying so.
        const QList<QByteArray> table = allowed.out.split('\n');
        for (const char *policy : {"drf*", "fifo*"})
            QVERIFY2(std::any_of(table.begin(), table.end(), [&](const QByteArray &row) { return row.startsWith(policy); }),
                     allowed.out.constData());
        QVERIFY2(allowed.out.contains("* TRUNCATED runs (stopped before every job finished): drf 1 of 1, fifo 1 of 1"),
                 allowed.out.constData());
        const Run whole = dl2({QStringLiteral("compare"), QStringLiteral("--trace"), trace, QStringLiteral("--policies"),
                               QStringLiteral("drf,fifo,observed")});
        QCOMPARE(whole.code, 0);
        QVERIFY2(!whole.out.contains('*') && !whole.out.contains("TRUNCATED"), whole.out.constData()); // no marker
    }

    void badInputExitsTwoWithOneLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("csv");
        QTest::addColumn<QString>("expected");
        const QByteArray header = "job_id,arrival_slot,model,epochs\n";
        const QString sim = QStringLiteral("simulate");
        const QString trace = QStringLiteral("--trace");
        QTest::newRow("unknown model") << QStringList{sim, trace, QStringLiteral("@")} << header + "1,0,alexnet,5\n" << QStringLiteral("unknown model 'alexnet'");
        QTest::newRow("malformed row") << QStringList{sim, trace, QStringLiteral("@")} << header + "1,0,dssm\n" << QStringLiteral("t.csv:2:");
        QTest::newRow("negative epochs") << QStringList{sim, trace, QStringLiteral("@")} << header + "1,0,dssm,-3\n" << QStringLiteral("t.csv:2: column 'epochs'");
        QTest::newRow("missing file") << QStringList{sim, trace, QStringLiteral("/nonexistent/x.csv")} << QByteArray() << QStringLiteral("/nonexistent/x.csv: no such file");
        QTest::newRow("unknown policy") << QStringList{sim, QStringLiteral("--policy"), QStringLiteral("magic")} << QByteArray() << QStringLiteral("unknown policy 'magic'");
        QTest::newRow("unknown scenario") << QStringList{sim, QStringLiteral("--scenario"), QStringLiteral("nope")} << QByteArray() << QStringLiteral("unknown scenario 'nope'");
        QTest::newRow("absurd nodes") << QStringList{sim, QStringLiteral("--nodes"), QStringLiteral("-4")} << QByteArray() << QStringLiteral("--nodes");
        QTest::newRow("absurd seeds") << QStringList{QStringLiteral("compare"), QStringLiteral("--seeds"), QStringLiteral("9-1")} << QByteArray() << QStringLiteral("--seeds");
        QTest::newRow("by model of truncated runs") << QStringList{QStringLiteral("compare"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"), QStringLiteral("--seeds"), QStringLiteral("1"), QStringLiteral("--policies"), QStringLiteral("drf"), QStringLiteral("--max-slots"), QStringLiteral("3"), QStringLiteral("--allow-truncated"), QStringLiteral("--by-model")} << QByteArray() << QStringLiteral("--by-model needs runs in which every job finished (drf on dl2-small-seed1: ");
        QTest::newRow("decisions of a baseline") << QStringList{sim, QStringLiteral("--policy"), QStringLiteral("drf"), QStringLiteral("--decisions"), QStringLiteral("/tmp/dl2-never-written.csv")} << QByteArray() << QStringLiteral("--decisions: drf keeps no decision record");
        QTest::newRow("unknown speed model") << QStringList{sim, QStringLiteral("--speed-model"), QStringLiteral("spline")} << QByteArray() << QStringLiteral("--speed-model: unknown speed model 'spline'");
        QTest::newRow("unknown shipped policy") << QStringList{sim, QStringLiteral("--policy"), QStringLiteral("dl2-plus"), QStringLiteral("--checkpoint"), QStringLiteral("dl2-plus-nowhere")} << QByteArray() << QStringLiteral("dl2-plus-nowhere: checkpoint file does not exist (nor is it a shipped policy's name: `dl2 policy list` shows them)");
        QTest::newRow("operate checkpoint with a baseline") << QStringList{QStringLiteral("operate"), QStringLiteral("--agent"), QStringLiteral("local"), QStringLiteral("--audit"), QStringLiteral("/nonexistent/a.db"), QStringLiteral("--checkpoint"), QStringLiteral("dl2-plus-contended")} << QByteArray() << QStringLiteral("--checkpoint needs a learned --policy");
        QTest::newRow("operate bad checkpoint") << QStringList{QStringLiteral("operate"), QStringLiteral("--agent"), QStringLiteral("local"), QStringLiteral("--audit"), QStringLiteral("/nonexistent/a.db"), QStringLiteral("--policy"), QStringLiteral("dl2-plus"), QStringLiteral("--checkpoint"), QStringLiteral("/nonexistent/p.dl2ckpt")} << QByteArray() << QStringLiteral("/nonexistent/p.dl2ckpt: checkpoint file does not exist");
        QTest::newRow("speeds derive missing") << QStringList{QStringLiteral("speeds"), QStringLiteral("derive"), QStringLiteral("/nonexistent/m.txt")} << QByteArray() << QStringLiteral("/nonexistent/m.txt");
        const QString train = QStringLiteral("train");
        const QString rl = QStringLiteral("rl");
        const QString out = QStringLiteral("-o");
        QTest::newRow("es without init") << QStringList{train, rl, QStringLiteral("--algorithm"), QStringLiteral("es"), out, QStringLiteral("/tmp/dl2-never-written.dl2ckpt")} << QByteArray() << QStringLiteral("--init CHECKPOINT is required");
        QTest::newRow("unknown rl algorithm") << QStringList{train, rl, QStringLiteral("--algorithm"), QStringLiteral("genetic"), out, QStringLiteral("/tmp/dl2-never-written.dl2ckpt")} << QByteArray() << QStringLiteral("--algorithm: expected actor-critic or es");
        QTest::newRow("epsilon with the code's rules") << QStringList{train, rl, QStringLiteral("--exploration"), QStringLiteral("reference"), QStringLiteral("--epsilon"), QStringLiteral("0.8"), out, QStringLiteral("/tmp/dl2-never-written.dl2ckpt")} << QByteArray() << QStringLiteral("--epsilon sets how often the paper's exploration rules fire");
        QTest::newRow("train speed table missing") << QStringList{train, rl, QStringLiteral("--speed-table"), QStringLiteral("/nonexistent/speeds.txt"), out, QStringLiteral("/tmp/dl2-never-written.dl2ckpt")} << QByteArray() << QStringLiteral("/nonexistent/speeds.txt");
        // --init takes a shipped policy's name: the kind comes from its file (dl2-plus), and
        // the dl2-only credit is refused for it rather than the name as a missing file.
        QTest::newRow("init by shipped name") << QStringList{train, rl, QStringLiteral("--init"), QStringLiteral("dl2-plus-reference"), QStringLiteral("--task-marginal"), QStringLiteral("added"), QStringLiteral("--row-credit"), QStringLiteral("window-stop"), out, QStringLiteral("/tmp/dl2-never-written.dl2ckpt")} << QByteArray() << QStringLiteral("dl2-plus has no window");
        QTest::newRow("unknown command") << QStringList{QStringLiteral("frobnicate")} << QByteArray() << QStringLiteral("unknown command");
        QTest::newRow("unknown option") << QStringList{sim, QStringLiteral("--frob")} << QByteArray() << QStringLiteral("frob");
    }
    void badInputExitsTwoWithOneLine()
    {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, csv);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        if (!csv.isEmpty())
            args.replaceInStrings(QStringLiteral("@"), fixture(dir, QStringLiteral("t.csv"), csv));
        const Run r = dl2(args);
        QCOMPARE(r.code, 2);
        QVERIFY2(QString::fromUtf8(r.err).contains(expected), r.err.constData());
        QCOMPARE(r.err.trimmed().count('\n'), 0); // one line
        QVERIFY(r.out.isEmpty());
    }

    void failedConversionLeavesNoOutput()
    {
        QTemporaryDir dir;
        const QString bad = fixture(dir, QStringLiteral("bad.csv"), "job_id,arrival_slot,model,epochs\n1,0,dssm,5\n2,0,dssm,oops\n");
        const QString out = dir.filePath(QStringLiteral("out.pb"));
        const Run r = dl2({QStringLiteral("trace"), QStringLiteral("convert"), bad, QStringLiteral("-o"), out});
        QCOMPARE(r.code, 2);
        QVERIFY(!QFile::exists(out));
        const QString unwritable = dir.filePath(QStringLiteral("missing-dir/out.csv"));
        const Run w = dl2({QStringLiteral("trace"), QStringLiteral("generate"), QStringLiteral("-o"), unwritable});
        QCOMPARE(w.code, 2);
        QVERIFY(QString::fromUtf8(w.err).contains(unwritable));
    }

    void scenarioShowReportsCapacityBinding()
    {
        const Run r = dl2({QStringLiteral("scenario"), QStringLiteral("show"), QStringLiteral("dl2-small"),
                           QStringLiteral("--seeds"), QStringLiteral("1")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("capacity binds"));
        QVERIFY(r.out.contains("96 nodes"));
    }

    // Without a speed option the simulation runs on the built-in measured table: the same as
    // giving that table's file, and not the fitted model.
    void measuredSpeedsByDefault()
    {
        const QString table = qEnvironmentVariable("DL2_SOURCE_DIR") +
                              QStringLiteral("/resources/speeds/dl2-testbed-speeds.csv");
        auto jct = [](const QStringList &extra) {
            const Run r = dl2(QStringList{QStringLiteral("simulate"), QStringLiteral("--scenario"),
                                          QStringLiteral("dl2-small"), QStringLiteral("--policy"),
                                          QStringLiteral("optimus"), QStringLiteral("--json")} + extra);
            if (r.code != 0)
                qWarning("%s", r.err.constData());
            return QJsonDocument::fromJson(r.out).object()[QStringLiteral("avg_jct_slots")].toDouble();
        };
        const double byDefault = jct({});
        QVERIFY(byDefault > 0);
        QCOMPARE(jct({QStringLiteral("--speed-table"), table}), byDefault);
        QCOMPARE(jct({QStringLiteral("--speed-model"), QStringLiteral("rbf")}), byDefault);
        const double fitted = jct({QStringLiteral("--speed-model"), QStringLiteral("optimus")});
        QVERIFY(fitted > 0);
        QVERIFY(fitted != byDefault);
    }

    // dl2 speeds derive: one row per measured configuration, the summed worker speeds, the
    // failed one kept, provenance as comments; the result reads back as a speed table.
    void speedsDerive()
    {
        QTemporaryDir dir;
        const QString in = fixture(dir, QStringLiteral("m.txt"),
                                   "('dssm', 'dist_sync', 256, 1, 2, [1.5, 2.25], [1.0], [0.5, 0.5])\n"
                                   "('dssm', 'dist_sync', 256, 2, 1, [0.0], [0.0, 0.0], [0.0])\n");
        const QString out = dir.filePath(QStringLiteral("t.csv"));
        const Run r = dl2({QStringLiteral("speeds"), QStringLiteral("derive"), in, QStringLiteral("-o"), out});
        QCOMPARE(r.code, 0);
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray csv = f.readAll();
        QVERIFY2(csv.contains("# Derived by: dl2 speeds derive m.txt"), csv.constData());
        QVERIFY(csv.contains("model,ps,workers,speed\ndssm,1,2,3.75\ndssm,2,1,0\n"));
        const Run show = dl2({QStringLiteral("speeds"), QStringLiteral("show")});
        QCOMPARE(show.code, 0);
        QVERIFY(show.out.contains("measured table"));
    }

    // Shipped policies by name, wherever a checkpoint is taken.
    void shippedPoliciesByName()
    {
        const Run list = dl2({QStringLiteral("policy"), QStringLiteral("list"), QStringLiteral("--json")});
        QCOMPARE(list.code, 0);
        QStringList names;
        const QJsonObject listed = QJsonDocument::fromJson(list.out).object();
        QStringList schedulers;
        for (const auto &v : listed[QStringLiteral("schedulers")].toArray())
            schedulers << v.toObject()[QStringLiteral("name")].toString();
        for (const char *n : {"drf", "optimus", "best-config", "dl2", "dl2-plus"})
            QVERIFY2(schedulers.contains(QLatin1String(n)), n);
        for (const auto &v : listed[QStringLiteral("shipped")].toArray()) {
            names << v.toObject()[QStringLiteral("name")].toString();
            QVERIFY(!v.toObject()[QStringLiteral("speed_model")].toString().isEmpty());
        }
        for (const char *n : {"dl2-reference", "dl2-reference-window60", "dl2-reference-actor-critic", "dl2-plus-reference",
                              "dl2-plus-contended", "dl2-plus-reference-fitted",
                              "dl2-plus-contended-fitted"})
            QVERIFY2(names.contains(QLatin1String(n)), n);
        const Run plain = dl2({QStringLiteral("policy"), QStringLiteral("list"), QStringLiteral("--names"), QStringLiteral("shipped")});
        QCOMPARE(QString::fromUtf8(plain.out).split(u'\n', Qt::SkipEmptyParts), names);
        auto jct = [](const QString &checkpoint) {
            QStringList args{QStringLiteral("simulate"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                             QStringLiteral("--policy"), QStringLiteral("dl2-plus"), QStringLiteral("--json")};
            if (!checkpoint.isEmpty())
                args << QStringLiteral("--checkpoint") << checkpoint;
            const Run r = dl2(args);
            return r.code == 0 ? QJsonDocument::fromJson(r.out).object()[QStringLiteral("avg_jct_slots")].toDouble() : -1.0;
        };
        // The default on dl2-small is dl2-plus-reference; naming it gives the same run.
        QCOMPARE(jct(QStringLiteral("dl2-plus-reference")), jct({}));
        QVERIFY(jct(QStringLiteral("dl2-plus-contended")) > 0);
        const Run show = dl2({QStringLiteral("policy"), QStringLiteral("show"), QStringLiteral("dl2-plus-contended")});
        QCOMPARE(show.code, 0);
        const QJsonObject shown = QJsonDocument::fromJson(show.out).object();
        QCOMPARE(shown[QStringLiteral("kind")].toString(), u"dl2-plus"_qs);
        QCOMPARE(shown[QStringLiteral("decode")].toString(), u"greedy"_qs);
        QVERIFY(shown.contains(QStringLiteral("best_setting_features")));
        // The shipped dl2 reads normalised features: the checkpoint says so, and show says it.
        const QJsonObject dl2Shown = QJsonDocument::fromJson(
            dl2({QStringLiteral("policy"), QStringLiteral("show"), QStringLiteral("dl2-reference")}).out).object();
        QCOMPARE(dl2Shown[QStringLiteral("type_input")].toString(), u"one-hot"_qs);
        QCOMPARE(dl2Shown[QStringLiteral("normalised_features")].toBool(), true);
        // SL then ES: its value network was never trained; the fitted dl2-plus went through
        // the actor-critic.
        QCOMPARE(dl2Shown[QStringLiteral("value_network_trained")].toBool(true), false);
        const QJsonObject fitted = QJsonDocument::fromJson(
            dl2({QStringLiteral("policy"), QStringLiteral("show"), QStringLiteral("dl2-plus-reference-fitted")}).out).object();
        QCOMPARE(fitted[QStringLiteral("value_network_trained")].toBool(false), true);

        // `dl2 policy probe`: the shipped window-60 dl2 gives a row a worker far more often as
        // an inception-bn job than as a vgg-16 job (best-config: 5 workers against 1), and its
        // tied units are counted; dl2-plus cannot be probed.
        const Run probe = dl2({QStringLiteral("policy"), QStringLiteral("probe"),
                               QStringLiteral("dl2-reference-window60"), QStringLiteral("--json")});
        QVERIFY2(probe.code == 0, probe.err.constData());
        const QJsonObject probed = QJsonDocument::fromJson(probe.out).object();
        const QJsonArray types = probed[QStringLiteral("types")].toArray();
        QCOMPARE(types.size(), 8);
        qsizetype vgg = -1, inception = -1;
        for (qsizetype t = 0; t < types.size(); ++t) {
            if (types[t].toString() == QLatin1String("vgg-16"))
                vgg = t;
            if (types[t].toString() == QLatin1String("inception-bn"))
                inception = t;
        }
        QVERIFY(vgg >= 0 && inception >= 0);
        for (const QJsonValue row : probed[QStringLiteral("one_worker_one_ps")].toArray()) {
            if (row[QStringLiteral("rows")].toInt() == 0)
                continue;
            const QJsonArray q = row[QStringLiteral("q_worker_as_type")].toArray();
            QVERIFY2(q[inception].toDouble() > q[vgg].toDouble() + 0.1,
                     qPrintable(row[QStringLiteral("type")].toString()));
        }
        QVERIFY(probed.contains(QStringLiteral("units")));
        QVERIFY(probed[QStringLiteral("spread_one_worker_one_ps")].toDouble() > 0.3);
        // The 40 states are drawn from slots 10-29, not the first decisions of slot 10.
        const QJsonArray stateSlots = probed[QStringLiteral("state_slots")].toArray();
        QCOMPARE(stateSlots.size(), 40);
        QVERIFY(stateSlots.first().toInt() >= 10 && stateSlots.last().toInt() <= 29);
        QVERIFY2(stateSlots.last().toInt() - stateSlots.first().toInt() >= 5,
                 probe.out.constData());
        // --from-slot and --states choose where and how many; a slot not played is refused.
        const Run late =
            dl2({QStringLiteral("policy"), QStringLiteral("probe"),
                 QStringLiteral("dl2-reference-window60"), QStringLiteral("--slots"),
                 QStringLiteral("25"), QStringLiteral("--from-slot"), QStringLiteral("20"),
                 QStringLiteral("--states"), QStringLiteral("8")});
        QVERIFY2(late.code == 0, late.err.constData());
        QVERIFY2(late.out.contains(
                     ": 8 decision states of dl2-reference seed 100, drawn from slots 20-24 ("),
                 late.out.constData());
        const Run unplayed =
            dl2({QStringLiteral("policy"), QStringLiteral("probe"),
                 QStringLiteral("dl2-reference-window60"), QStringLiteral("--slots"),
                 QStringLiteral("12"), QStringLiteral("--from-slot"), QStringLiteral("12")});
        QCOMPARE(unplayed.code, 2);
        QVERIFY2(unplayed.err.contains(
                     "--from-slot 12 is not among the 12 slots played (--slots): give at most 11"),
                 unplayed.err.constData());
        const Run plus = dl2({QStringLiteral("policy"), QStringLiteral("probe"), QStringLiteral("dl2-plus-reference")});
        QCOMPARE(plus.code, 2);
        QVERIFY2(plus.err.contains("dl2-plus-reference.dl2ckpt: only for the faithful dl2 network") &&
                     !plus.err.contains("policy probe: policy probe"),
                 plus.err.constData());
    }

    // `dl2 train` runs dl2-train (the only executable with libtorch), same options.
    // `dl2 policy strip`: a copy without the optimizer state and the trained critic decides
    // exactly as the original and says its critic is left out; without -o nothing is written.
    void policyStripKeepsThePolicy()
    {
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("stripped.dl2ckpt"));
        const QString original = QStringLiteral("dl2-plus-reference-fitted"); // went through the actor-critic
        const auto shown = [](const QString &checkpoint) {
            return QJsonDocument::fromJson(dl2({QStringLiteral("policy"), QStringLiteral("show"), checkpoint}).out)
                .object();
        };
        QVERIFY(shown(original)[QStringLiteral("value_network_trained")].toBool());
        const Run missing = dl2({QStringLiteral("policy"), QStringLiteral("strip"), original});
        QCOMPARE(missing.code, 2);
        QVERIFY2(missing.err.contains("-o FILE"), missing.err.constData());
        const Run strip = dl2({QStringLiteral("policy"), QStringLiteral("strip"), original, QStringLiteral("-o"), copy});
        QVERIFY2(strip.code == 0, strip.err.constData());
        const QJsonObject s = shown(copy);
        QVERIFY(!s[QStringLiteral("value_network_trained")].toBool());
        QVERIFY(!s[QStringLiteral("has_optimizer")].toBool());
        QCOMPARE(s[QStringLiteral("training")], shown(original)[QStringLiteral("training")]);
        QVERIFY(QFileInfo(copy).size() < QFileInfo(QString::fromUtf8(qgetenv("DL2_SOURCE_DIR")) +
                                                   QStringLiteral("/resources/policies/") + original +
                                                   QStringLiteral(".dl2ckpt"))
                                             .size());
        const auto decisions = [](const QString &checkpoint) {
            return dl2({QStringLiteral("simulate"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                        QStringLiteral("--policy"), QStringLiteral("dl2-plus"), QStringLiteral("--speed-model"),
                        QStringLiteral("optimus"), QStringLiteral("--checkpoint"), checkpoint, QStringLiteral("--json")})
                .out;
        };
        const QJsonObject a = QJsonDocument::fromJson(decisions(original)).object();
        const QJsonObject b = QJsonDocument::fromJson(decisions(copy)).object();
        QVERIFY(a[QStringLiteral("avg_jct_slots")].toDouble() > 0);
        QCOMPARE(b[QStringLiteral("avg_jct_slots")].toDouble(), a[QStringLiteral("avg_jct_slots")].toDouble());
    }

    void trainRunsTheTrainingExecutable()
    {
        const Run help = dl2({QStringLiteral("train"), QStringLiteral("sl"), QStringLiteral("--help")});
        QCOMPARE(help.code, 0);
        QVERIFY2(help.out.contains("dl2 train sl"), help.out.constData());
        QVERIFY(help.out.contains("--teacher"));
    }

    // `dl2 policy show` says how a checkpoint was trained, as its trainer recorded it: a
    // short RL run's options come back, and the shipped dl2 reads as ES on its output layer.
    void policyShowSaysHowItWasTrained()
    {
        QTemporaryDir dir;
        const QString ckpt = dir.filePath(QStringLiteral("rl.dl2ckpt"));
        const Run train = dl2({QStringLiteral("train"), QStringLiteral("rl"), QStringLiteral("--policy"),
                               QStringLiteral("dl2"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                               QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("--validate-every"),
                               QStringLiteral("2"), QStringLiteral("--val-seeds"), QStringLiteral("100"),
                               QStringLiteral("--exploration"), QStringLiteral("reference"),
                               QStringLiteral("--task-credit"), QStringLiteral("remaining"),
                               QStringLiteral("--lr"), QStringLiteral("3e-5"), QStringLiteral("--seed"),
                               QStringLiteral("7"), QStringLiteral("-o"), ckpt});
        QVERIFY2(train.code == 0, train.err.constData());
        const Run show = dl2({QStringLiteral("policy"), QStringLiteral("show"), ckpt});
        QCOMPARE(show.code, 0);
        const QJsonObject shown = QJsonDocument::fromJson(show.out).object();
        QCOMPARE(shown[QStringLiteral("trainer")].toString(), u"rl"_qs);
        const QJsonObject t = shown[QStringLiteral("training")].toObject();
        QCOMPARE(t[QStringLiteral("credit")].toString(), u"split"_qs);
        QCOMPARE(t[QStringLiteral("task_credit")].toString(), u"remaining"_qs);
        QCOMPARE(t[QStringLiteral("exploration")].toString(), u"reference"_qs);
        QCOMPARE(t[QStringLiteral("reward")].toString(), u"progress"_qs);
        QCOMPARE(t[QStringLiteral("learning_rate")].toDouble(), 3e-5);
        QCOMPARE(t[QStringLiteral("seed")].toInteger(), 7);
        QCOMPARE(t[QStringLiteral("control")].toBool(), false);
        QVERIFY(t[QStringLiteral("ablations")].toArray().isEmpty());
        // The code's rules fire with their own probabilities: no epsilon to show for them.
        QVERIFY2(!t.contains(QStringLiteral("epsilon")), show.out.constData());

        const QJsonObject shipped = QJsonDocument::fromJson(
            dl2({QStringLiteral("policy"), QStringLiteral("show"), QStringLiteral("dl2-reference")}).out).object();
        QCOMPARE(shipped[QStringLiteral("trainer")].toString(), u"rl-es"_qs);
        const QJsonObject es = shipped[QStringLiteral("training")].toObject();
        QCOMPARE(es[QStringLiteral("es_scope")].toString(), u"head"_qs);
        QVERIFY(es[QStringLiteral("es_pairs")].toInt() > 0);
        QVERIFY(!es.contains(QStringLiteral("credit"))); // ES takes no actor-critic options
    }

    // dl2 train --window J: the faithful network's window, recorded in the checkpoint;
    // refused for dl2-plus (no window) and where the shape comes from --init.
    void trainWindowOption()
    {
        QTemporaryDir dir;
        const QString ckpt = dir.filePath(QStringLiteral("w.dl2ckpt"));
        const QStringList sl{QStringLiteral("train"), QStringLiteral("sl"), QStringLiteral("--scenario"),
                             QStringLiteral("dl2-small"), QStringLiteral("--steps"), QStringLiteral("2"),
                             QStringLiteral("--validate-every"), QStringLiteral("2"),
                             QStringLiteral("--val-seeds"), QStringLiteral("100")};
        const Run train = dl2(sl + QStringList{QStringLiteral("--window"), QStringLiteral("30"),
                                               QStringLiteral("-o"), ckpt});
        QVERIFY2(train.code == 0, train.err.constData());
        const QJsonObject shown = QJsonDocument::fromJson(
            dl2({QStringLiteral("policy"), QStringLiteral("show"), ckpt}).out).object();
        QCOMPARE(shown[QStringLiteral("window")].toInt(), 30);

        const Run plus = dl2(sl + QStringList{QStringLiteral("--policy"), QStringLiteral("dl2-plus"),
                                              QStringLiteral("--window"), QStringLiteral("30"),
                                              QStringLiteral("-o"), dir.filePath(QStringLiteral("p.dl2ckpt"))});
        QVERIFY(plus.code != 0);
        QVERIFY2(plus.err.contains("--window: only for --policy dl2"), plus.err.constData());
        const Run zero = dl2(sl + QStringList{QStringLiteral("--window"), QStringLiteral("0"),
                                              QStringLiteral("-o"), dir.filePath(QStringLiteral("z.dl2ckpt"))});
        QVERIFY(zero.code != 0);
        QVERIFY2(zero.err.contains("--window"), zero.err.constData());
        const Run init = dl2(sl + QStringList{QStringLiteral("--init"), ckpt, QStringLiteral("--window"),
                                              QStringLiteral("40"), QStringLiteral("-o"),
                                              dir.filePath(QStringLiteral("i.dl2ckpt"))});
        QVERIFY(init.code != 0);
        QVERIFY2(init.err.contains("--window"), init.err.constData());
    }

    // dl2 train sl --no-window-shuffle trains on the window rows in arrival order: the same
    // seed then takes other steps than with the paper's shuffled rows, and the same again;
    // refused for dl2-plus, which has no window rows.
    void trainNoWindowShuffle()
    {
        QTemporaryDir dir;
        auto trainLosses = [&](bool shuffle, const char *name) {
            const QString ckpt = dir.filePath(QLatin1String(name));
            QStringList args{QStringLiteral("train"), QStringLiteral("sl"), QStringLiteral("--scenario"),
                             QStringLiteral("dl2-small"), QStringLiteral("--teacher"), QStringLiteral("optimus"),
                             QStringLiteral("--steps"), QStringLiteral("20"), QStringLiteral("--validate-every"),
                             QStringLiteral("10"), QStringLiteral("--val-seeds"), QStringLiteral("100"),
                             QStringLiteral("-o"), ckpt};
            if (!shuffle)
                args << QStringLiteral("--no-window-shuffle");
            const Run r = dl2(args);
            QFile csv(ckpt + QStringLiteral(".curves.csv"));
            if (r.code != 0 || !csv.open(QIODevice::ReadOnly)) // the error, shown by the size checks
                return QStringList{QString::fromUtf8(r.err)};
            const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
            const int column = int(lines.front().split(',').indexOf("train_loss"));
            QStringList losses;
            for (qsizetype i = 1; i < lines.size(); ++i)
                losses << QString::fromUtf8(lines[i].split(',').value(column));
            return losses;
        };
        const QStringList shuffled = trainLosses(true, "s.dl2ckpt");
        const QStringList ordered = trainLosses(false, "o.dl2ckpt");
        QVERIFY2(ordered.size() == 2, qPrintable(ordered.join(QLatin1Char(' '))));
        QVERIFY2(shuffled.size() == 2, qPrintable(shuffled.join(QLatin1Char(' '))));
        QVERIFY2(ordered.back() != shuffled.back(), qPrintable(ordered.join(QLatin1Char(' '))));
        QCOMPARE(trainLosses(false, "o2.dl2ckpt"), ordered);

        const Run plus = dl2({QStringLiteral("train"), QStringLiteral("sl"), QStringLiteral("--scenario"),
                              QStringLiteral("dl2-small"), QStringLiteral("--policy"), QStringLiteral("dl2-plus"),
                              QStringLiteral("--no-window-shuffle"), QStringLiteral("-o"),
                              dir.filePath(QStringLiteral("p.dl2ckpt"))});
        QVERIFY(plus.code != 0);
        QVERIFY2(plus.err.contains("--no-window-shuffle: only for --policy dl2"), plus.err.constData());
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("p.dl2ckpt"))));
    }

    // `--tie-window`: refused where it cannot apply, with the option named, before anything
    // is written; continued from a tied checkpoint; recorded in the shipped window-60 policy.
    void trainTieWindow()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("t.dl2ckpt"));
        const auto refused = [&](const QStringList &extra, const char *message) {
            QStringList args{QStringLiteral("train"), QStringLiteral("sl"), QStringLiteral("--scenario"),
                             QStringLiteral("dl2-small"), QStringLiteral("--steps"), QStringLiteral("2"),
                             QStringLiteral("--val-seeds"), QStringLiteral("100"), QStringLiteral("-o"), out};
            const Run r = dl2(args + extra);
            QVERIFY2(r.code != 0, qPrintable(extra.join(QLatin1Char(' '))));
            QVERIFY2(r.err.contains(message), r.err.constData());
            QVERIFY(!QFile::exists(out));
        };
        refused({QStringLiteral("--policy"), QStringLiteral("dl2-plus"), QStringLiteral("--tie-window"),
                 QStringLiteral("all")},
                "--tie-window: only for --policy dl2");
        refused({QStringLiteral("--tie-window"), QStringLiteral("0")}, "--tie-window");
        refused({QStringLiteral("--tie-window"), QStringLiteral("some")}, "--tie-window");
        refused({QStringLiteral("--count-features"), QStringLiteral("log")},
                "--count-features: unknown count features 'log' (known: scalar, per-type)");
        refused({QStringLiteral("--policy"), QStringLiteral("dl2-plus"), QStringLiteral("--count-features"),
                 QStringLiteral("per-type")},
                "--count-features per-type: only for --policy dl2");
        // 20 window positions and 16 hidden units: not one unit per position.
        refused({QStringLiteral("--tie-window"), QStringLiteral("all"), QStringLiteral("--hidden"),
                 QStringLiteral("16,16")},
                "need at least one unit per window position (20)");

        // From a checkpoint: only one trained tied throughout (tying an untied one would
        // replace its weights).
        const auto train = [&](const QString &file, const QStringList &extra) {
            return dl2(QStringList{QStringLiteral("train"), QStringLiteral("sl"), QStringLiteral("--scenario"),
                                   QStringLiteral("dl2-small"), QStringLiteral("--steps"), QStringLiteral("2"),
                                   QStringLiteral("--validate-every"), QStringLiteral("2"), QStringLiteral("--val-seeds"),
                                   QStringLiteral("100"), QStringLiteral("-o"), dir.filePath(file)} +
                       extra);
        };
        QCOMPARE(train(QStringLiteral("untied.dl2ckpt"), {}).code, 0);
        // Per-type count features: the file says so, and the policy it holds plays.
        QCOMPARE(train(QStringLiteral("per-type.dl2ckpt"), {QStringLiteral("--count-features"),
                                                           QStringLiteral("per-type"),
                                                           QStringLiteral("--teacher-order"),
                                                           QStringLiteral("random-jobs")}).code, 0);
        const Run perType = dl2({QStringLiteral("policy"), QStringLiteral("show"), dir.filePath(QStringLiteral("per-type.dl2ckpt"))});
        QCOMPARE(perType.code, 0);
        const QJsonObject perTypeInfo = QJsonDocument::fromJson(perType.out).object();
        QCOMPARE(perTypeInfo[QStringLiteral("count_features")].toString(), u"per-type"_qs);
        QCOMPARE(perTypeInfo[QStringLiteral("training")].toObject()[QStringLiteral("teacher_order")].toString(),
                 u"random-jobs"_qs);
        const Run played = dl2({QStringLiteral("simulate"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                                QStringLiteral("--policy"), QStringLiteral("dl2"), QStringLiteral("--checkpoint"),
                                dir.filePath(QStringLiteral("per-type.dl2ckpt")), QStringLiteral("--seed"),
                                QStringLiteral("100")});
        QVERIFY2(played.code == 0, played.err.constData());
        refused({QStringLiteral("--teacher-order"), QStringLiteral("jobs")}, "unknown teacher order 'jobs'");
        QCOMPARE(train(QStringLiteral("tied.dl2ckpt"), {QStringLiteral("--tie-window"), QStringLiteral("all")}).code, 0);
        refused({QStringLiteral("--init"), dir.filePath(QStringLiteral("untied.dl2ckpt")),
                 QStringLiteral("--tie-window"), QStringLiteral("all")},
                "was not trained with its window's weights tied throughout");
        const Run more = train(QStringLiteral("more.dl2ckpt"), {QStringLiteral("--init"), dir.filePath(QStringLiteral("tied.dl2ckpt")),
                                                              QStringLiteral("--tie-window"), QStringLiteral("all")});
        QVERIFY2(more.code == 0, more.err.constData());
        // The actor-critic's faster type path: only for a tied run, and recorded.
        const auto actorCritic = [&](const QString &file, const QStringList &extra) {
            return dl2(QStringList{QStringLiteral("train"), QStringLiteral("rl"), QStringLiteral("--scenario"),
                                   QStringLiteral("dl2-small"), QStringLiteral("--init"),
                                   dir.filePath(QStringLiteral("tied.dl2ckpt")), QStringLiteral("--steps"),
                                   QStringLiteral("2"), QStringLiteral("--validate-every"), QStringLiteral("2"),
                                   QStringLiteral("--val-seeds"), QStringLiteral("100"), QStringLiteral("-o"),
                                   dir.filePath(file)} +
                       extra);
        };
        const Run untiedFast = actorCritic(QStringLiteral("fast-untied.dl2ckpt"),
                                           {QStringLiteral("--type-step-scale"), QStringLiteral("10")});
        QVERIFY(untiedFast.code != 0);
        QVERIFY2(untiedFast.err.contains("--type-step-scale steps the type's weights of a network tied across the "
                                         "window: it needs --tie-window"),
                 untiedFast.err.constData());
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("fast-untied.dl2ckpt"))));
        const Run noCounts = actorCritic(QStringLiteral("fast-counts.dl2ckpt"),
                                         {QStringLiteral("--tie-window"), QStringLiteral("all"),
                                          QStringLiteral("--count-step-scale"), QStringLiteral("10")});
        QVERIFY(noCounts.code != 0);
        QVERIFY2(noCounts.err.contains("count step scale: the network has no per-type count bits "
                                       "(--count-features per-type)"),
                 noCounts.err.constData());
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("fast-counts.dl2ckpt"))));
        const Run fast = actorCritic(QStringLiteral("fast.dl2ckpt"), {QStringLiteral("--tie-window"), QStringLiteral("all"),
                                                                      QStringLiteral("--type-step-scale"), QStringLiteral("10")});
        QVERIFY2(fast.code == 0, fast.err.constData());
        const Run fastShown = dl2({QStringLiteral("policy"), QStringLiteral("show"), dir.filePath(QStringLiteral("fast.dl2ckpt"))});
        QCOMPARE(QJsonDocument::fromJson(fastShown.out).object()[QStringLiteral("training")].toObject()
                     [QStringLiteral("type_step_scale")].toDouble(),
                 10.0);

        // Without --checkpoint a trace file gets the shipped policy for trace files (the
        // window-40 one), whichever command runs it: simulate and evaluate agree.
        const QString philly = qEnvironmentVariable("DL2_SOURCE_DIR") +
                               QStringLiteral("/resources/traces/philly-sample.csv");
        const auto traceJct = [&](const QStringList &extra) {
            const Run r = dl2(QStringList{QStringLiteral("simulate"), QStringLiteral("--policy"),
                                          QStringLiteral("dl2"), QStringLiteral("--trace"), philly,
                                          QStringLiteral("--json")} + extra);
            return r.code == 0 ? QJsonDocument::fromJson(r.out).object()[QStringLiteral("avg_jct_slots")].toDouble()
                               : -1.0;
        };
        const double byDefault = traceJct({});
        QVERIFY(byDefault > 0);
        QCOMPARE(byDefault, traceJct({QStringLiteral("--checkpoint"), QStringLiteral("dl2-reference")}));
        QVERIFY(byDefault != traceJct({QStringLiteral("--checkpoint"), QStringLiteral("dl2-reference-window60")}));
        const Run evaluated = dl2({QStringLiteral("evaluate"), QStringLiteral("--policy"), QStringLiteral("dl2"),
                                   QStringLiteral("--trace"), philly, QStringLiteral("--json")});
        QCOMPARE(evaluated.code, 0);
        QVERIFY(QJsonDocument::fromJson(evaluated.out).object()[QStringLiteral("checkpoint")].toString().endsWith(
            QStringLiteral("/dl2-reference.dl2ckpt")));

        // The shipped window-60 policy was trained tied; its file says so.
        const Run show = dl2({QStringLiteral("policy"), QStringLiteral("show"),
                              QStringLiteral("dl2-reference-window60")});
        QCOMPARE(show.code, 0);
        const QJsonObject training =
            QJsonDocument::fromJson(show.out).object()[QStringLiteral("training")].toObject();
        QCOMPARE(training[QStringLiteral("tie_window")].toString(), u"all"_qs);
        QCOMPARE(training[QStringLiteral("labels")].toString(), u"set"_qs);
        QCOMPARE(training[QStringLiteral("teacher_order")].toString(), u"random-jobs"_qs);
        QCOMPARE(QJsonDocument::fromJson(show.out).object()[QStringLiteral("count_features")].toString(),
                 u"per-type"_qs);
    }

    void versionAndHelp()
    {
        QCOMPARE(dl2({QStringLiteral("--version")}).code, 0);
        for (const char *cmd : {"simulate", "compare", "fit-speed"}) {
            const Run r = dl2({QLatin1String(cmd), QStringLiteral("--help")});
            QCOMPARE(r.code, 0);
            QVERIFY(r.out.contains("Usage"));
        }
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
