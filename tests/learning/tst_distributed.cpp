// Distributed training on 127.0.0.1 (distributed.h, dl2 train --world-size/--rank/--master,
// --nproc): the collectives themselves (two ranks as threads of this process), then whole
// `dl2-train` processes: 3 actor-critic ranks of a run that really trains keep equal weights
// and give bit-identical checkpoints run after run, ES at world size 2 and 3 writes the single
// process's checkpoint, a rank with bad input or that never comes is named by the others, a
// killed rank stops the others with one error naming it and leaves the checkpoint intact,
// Ctrl-C on one rank stops all and keeps the latest state, --resume continues from the latest
// state (CKPT.resume) and refuses another world size; SL on 2 ranks is deterministic too.
#include "checkpoint.h"
#include "distributed.h"
#include "registerpolicies.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <functional>
#include <stdexcept>
#include <thread>

using namespace dl2;

namespace {

int freePort()
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

QByteArray fileBytes(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Runs `body(comm)` on `world` ranks, one thread each, and returns what each threw ("" = none).
std::vector<std::string> onRanks(int world, const std::function<void(Communicator &)> &body)
{
    DistributedOptions d;
    d.worldSize = world;
    d.masterPort = freePort();
    d.timeoutSeconds = 20;
    std::vector<std::string> errors(static_cast<size_t>(world));
    std::vector<std::thread> threads;
    for (int r = 0; r < world; ++r)
        threads.emplace_back([&, r] {
            try {
                DistributedOptions mine = d;
                mine.rank = r;
                auto comm = Communicator::connect(mine);
                body(*comm);
                comm->finish();
            } catch (const std::exception &e) {
                errors[size_t(r)] = e.what();
            }
        });
    for (auto &t : threads)
        t.join();
    return errors;
}

bool sameWeights(const ParameterSet &a, const ParameterSet &b)
{
    if (a.size() != b.size())
        return false;
    for (const auto &[name, t] : a)
        if (!b.count(name) || b.at(name).data != t.data)
            return false;
    return true;
}

struct Run
{
    int code = -1;
    QString out, err;
};

} // namespace

class TestDistributed : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_init; // a shipped dl2-plus policy with its stop bias sabotaged: ES has work to do
    QString m_shipped; // the shipped dl2-plus policy: actor-critic from it improves at once

    QString path(const QString &name) const { return m_dir.path() + QLatin1Char('/') + name; }

    static QStringList actorCritic()
    {
        return {QStringLiteral("rl"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                QStringLiteral("--policy"), QStringLiteral("dl2-plus"), QStringLiteral("--hidden"),
                QStringLiteral("16,16"), QStringLiteral("--batch"), QStringLiteral("64"),
                QStringLiteral("--critic-warmup"), QStringLiteral("3"), QStringLiteral("--val-seeds"),
                QStringLiteral("100-101"), QStringLiteral("--timeout"), QStringLiteral("30")};
    }
    // A setting in which actor-critic really trains within a few updates: from the shipped
    // dl2-plus policy, validation improves on the starting point (checked by the tests, which
    // would otherwise compare step-0 checkpoints and prove nothing).
    QStringList trainingActorCritic() const
    {
        return {QStringLiteral("rl"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                QStringLiteral("--init"), m_shipped, QStringLiteral("--batch"), QStringLiteral("64"),
                QStringLiteral("--lr"), QStringLiteral("0.0005"), QStringLiteral("--critic-warmup"),
                QStringLiteral("0"), QStringLiteral("--val-seeds"), QStringLiteral("100-101"),
                QStringLiteral("--validate-every"), QStringLiteral("1"), QStringLiteral("--timeout"),
                QStringLiteral("30")};
    }
    QStringList es() const
    {
        return {QStringLiteral("rl"), QStringLiteral("--algorithm"), QStringLiteral("es"),
                QStringLiteral("--scenario"), QStringLiteral("dl2-small"), QStringLiteral("--init"),
                m_init, QStringLiteral("--es-scope"), QStringLiteral("bias"),
                QStringLiteral("--es-pairs"), QStringLiteral("3"), QStringLiteral("--es-traces"),
                QStringLiteral("2"), QStringLiteral("--es-sigma"), QStringLiteral("1"),
                QStringLiteral("--lr"), QStringLiteral("0.5"), QStringLiteral("--val-seeds"),
                QStringLiteral("100-101"), QStringLiteral("--validate-every"), QStringLiteral("1")};
    }

    static Run train(const QStringList &args, int timeoutMs = 120000)
    {
        QProcess p;
        p.start(QStringLiteral(DL2_TRAIN), args);
        Run r;
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
            r.err = QStringLiteral("timed out");
            return r;
        }
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        return r;
    }

    // Ranks 0..n-1 as separate processes of this test (so that it can kill one).
    std::vector<std::unique_ptr<QProcess>> startRanks(const QStringList &args, int n)
    {
        const QString master = QStringLiteral("127.0.0.1:") + QString::number(freePort());
        std::vector<std::unique_ptr<QProcess>> ranks;
        for (int r = 0; r < n; ++r) {
            auto p = std::make_unique<QProcess>();
            p->start(QStringLiteral(DL2_TRAIN),
                     args + QStringList{QStringLiteral("--world-size"), QString::number(n),
                                        QStringLiteral("--rank"), QString::number(r),
                                        QStringLiteral("--master"), master});
            ranks.push_back(std::move(p));
        }
        return ranks;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        registerLearnedPolicies();
        const Checkpoint shipped = readCheckpoint(shippedPolicyPath(PolicyKind::Dl2Plus, "dl2-reference"));
        ParameterSet sabotaged = *shipped.parameters;
        sabotaged["policy.stop2.bias"].data[0] += 8.0f;
        m_init = path(QStringLiteral("sabotaged.dl2ckpt"));
        writeCheckpoint(m_init.toStdString(), shipped.spec, shipped.info, sabotaged);
        m_shipped = path(QStringLiteral("shipped.dl2ckpt"));
        writeCheckpoint(m_shipped.toStdString(), shipped.spec, shipped.info, *shipped.parameters);
    }

    // A trained checkpoint: its best is past step 0 and its weights moved from the start.
    void verifyTrained(const QString &file)
    {
        const Checkpoint c = readCheckpoint(file.toStdString());
        QVERIFY2(c.info.step > 0, qPrintable(file + QStringLiteral(": best at step 0, nothing trained")));
        QVERIFY(!sameWeights(*c.parameters, *readCheckpoint(m_shipped.toStdString()).parameters));
    }

    // The collectives every rank relies on, and the weight check that must catch a difference.
    void collectives()
    {
        const auto errors = onRanks(3, [](Communicator &c) {
            auto check = [&](bool ok, const char *what) {
                if (!ok)
                    throw std::runtime_error("rank " + std::to_string(c.rank()) + ": " + what);
            };
            std::vector<float> f{1.5f, float(c.rank())};
            c.allReduceSum(f.data(), f.size());
            check(f == std::vector<float>{4.5f, 3.0f}, "float sum");
            std::vector<double> d{0.0, 0.0, 0.0};
            d[size_t(c.rank())] = 0.1 * (c.rank() + 1); // disjoint entries: exact
            c.allReduceSum(d.data(), d.size());
            check(d == std::vector<double>{0.1, 0.1 * 2, 0.1 * 3}, "double sum");
            std::int64_t m = c.rank() == 1 ? 7 : 0;
            c.allReduceMax(&m, 1);
            check(m == 7, "max");
            check(c.allGather(std::uint64_t(10 + c.rank())) == std::vector<std::uint64_t>{10, 11, 12}, "gather");
            check(anyRank(&c, c.rank() == 2), "any rank true");
            check(!anyRank(&c, false), "any rank false");
            ParameterSet p;
            p["w"] = ParameterTensor{{2}, {1.0f, 2.0f}};
            checkSameWeights(&c, p, 1); // equal: no error
        });
        for (const auto &e : errors)
            QCOMPARE(e, std::string());

        const auto mismatch = onRanks(2, [](Communicator &c) {
            ParameterSet p;
            p["w"] = ParameterTensor{{2}, {1.0f, c.rank() == 1 ? 2.0000002f : 2.0f}};
            checkSameWeights(&c, p, 7);
        });
        for (const auto &e : mismatch)
            QVERIFY2(e.find("weights diverged at step 7: rank(s) 1 differ") != std::string::npos, e.c_str());
    }

    void badInput()
    {
        Run r = train(actorCritic() + QStringList{QStringLiteral("--world-size"), QStringLiteral("2"),
                                                  QStringLiteral("-o"), path(QStringLiteral("x.dl2ckpt"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("needs --rank")), qPrintable(r.err));
        r = train(actorCritic() + QStringList{QStringLiteral("--nproc"), QStringLiteral("2"), QStringLiteral("--master"),
                                              QStringLiteral("127.0.0.1:99999"), QStringLiteral("-o"), path(QStringLiteral("x.dl2ckpt"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("port must be a number 1-65535")), qPrintable(r.err));
        // Rank 1 alone: nobody holds the store.
        r = train(actorCritic() + QStringList{QStringLiteral("--world-size"), QStringLiteral("2"), QStringLiteral("--rank"),
                                              QStringLiteral("1"), QStringLiteral("--master"),
                                              QStringLiteral("127.0.0.1:") + QString::number(freePort()),
                                              QStringLiteral("--timeout"), QStringLiteral("2"), QStringLiteral("-o"),
                                              path(QStringLiteral("x.dl2ckpt"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("dl2 train rl: rank 1: rendezvous at 127.0.0.1:")), qPrintable(r.err));
        QVERIFY(!QFile::exists(path(QStringLiteral("x.dl2ckpt"))));
    }

    // 3 ranks compare their weight hashes after every update (a difference stops the run);
    // the same seed and world size write the same bytes, of a run that did train.
    void actorCriticRanksAgree()
    {
        const QStringList args = trainingActorCritic() + QStringList{QStringLiteral("--steps"), QStringLiteral("8"),
                                                                     QStringLiteral("--hash-every"), QStringLiteral("1"),
                                                                     QStringLiteral("--nproc"), QStringLiteral("3")};
        const Run a = train(args + QStringList{QStringLiteral("-o"), path(QStringLiteral("ac-a.dl2ckpt"))});
        QVERIFY2(a.code == 0, qPrintable(a.err));
        const Run b = train(args + QStringList{QStringLiteral("-o"), path(QStringLiteral("ac-b.dl2ckpt"))});
        QVERIFY2(b.code == 0, qPrintable(b.err));
        const QByteArray ca = fileBytes(path(QStringLiteral("ac-a.dl2ckpt")));
        QVERIFY(!ca.isEmpty());
        QVERIFY(ca == fileBytes(path(QStringLiteral("ac-b.dl2ckpt"))));
        const QByteArray ra = fileBytes(path(QStringLiteral("ac-a.dl2ckpt.resume")));
        QVERIFY(!ra.isEmpty());
        QVERIFY(ra == fileBytes(path(QStringLiteral("ac-b.dl2ckpt.resume"))));
        verifyTrained(path(QStringLiteral("ac-a.dl2ckpt")));
        const Checkpoint c = readCheckpoint(path(QStringLiteral("ac-a.dl2ckpt")).toStdString());
        QVERIFY(c.hasOptimizer);
        QCOMPARE(c.info.resume.worldSize, 3);
        QCOMPARE(readCheckpoint(path(QStringLiteral("ac-a.dl2ckpt.resume")).toStdString()).info.resume.step, 8LL);
        // Only rank 0 wrote: one checkpoint, its latest state, one set of curves, no strays.
        QCOMPARE(QDir(m_dir.path()).entryList({QStringLiteral("ac-a*")}, QDir::Files).size(), 4);
    }

    // SL, data-parallel on 2 ranks: the same seed and world size write the same bytes.
    void slDataParallelIsDeterministic()
    {
        const QStringList args{QStringLiteral("sl"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                               QStringLiteral("--policy"), QStringLiteral("dl2-plus"), QStringLiteral("--hidden"),
                               QStringLiteral("16,16"), QStringLiteral("--batch"), QStringLiteral("64"),
                               QStringLiteral("--steps"), QStringLiteral("10"), QStringLiteral("--validate-every"),
                               QStringLiteral("5"), QStringLiteral("--val-seeds"), QStringLiteral("100-101"),
                               QStringLiteral("--nproc"), QStringLiteral("2")};
        const Run a = train(args + QStringList{QStringLiteral("-o"), path(QStringLiteral("sl-a.dl2ckpt"))});
        QVERIFY2(a.code == 0, qPrintable(a.err));
        const Run b = train(args + QStringList{QStringLiteral("-o"), path(QStringLiteral("sl-b.dl2ckpt"))});
        QVERIFY2(b.code == 0, qPrintable(b.err));
        const QByteArray ca = fileBytes(path(QStringLiteral("sl-a.dl2ckpt")));
        QVERIFY(!ca.isEmpty());
        QVERIFY(ca == fileBytes(path(QStringLiteral("sl-b.dl2ckpt"))));
        QCOMPARE(readCheckpoint(path(QStringLiteral("sl-a.dl2ckpt")).toStdString()).info.resume.worldSize, 2);
    }

    // SL resumes with its own options: grown --steps continue the run, another teacher is
    // refused by name.
    void slResumeKeepsItsOptions()
    {
        const QStringList args{QStringLiteral("sl"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                               QStringLiteral("--policy"), QStringLiteral("dl2-plus"), QStringLiteral("--hidden"),
                               QStringLiteral("16,16"), QStringLiteral("--batch"), QStringLiteral("64"),
                               QStringLiteral("--validate-every"), QStringLiteral("2"), QStringLiteral("--val-seeds"),
                               QStringLiteral("100")};
        const QString two = path(QStringLiteral("sl2.dl2ckpt"));
        Run r = train(args + QStringList{QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("-o"), two});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        r = train(args + QStringList{QStringLiteral("--steps"), QStringLiteral("4"), QStringLiteral("--teacher"),
                                     QStringLiteral("optimus"), QStringLiteral("--resume"), two, QStringLiteral("-o"),
                                     path(QStringLiteral("sl4t.dl2ckpt"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--teacher (drf in the run, optimus here) differs")), qPrintable(r.err));
        r = train(args + QStringList{QStringLiteral("--steps"), QStringLiteral("4"), QStringLiteral("--resume"), two,
                                     QStringLiteral("-o"), path(QStringLiteral("sl4.dl2ckpt"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(readCheckpoint(path(QStringLiteral("sl4.dl2ckpt.resume")).toStdString()).info.resume.step, 4LL);
    }

    // ES splits the (member, trace) runs across ranks: world sizes 2 and 3 write exactly the
    // checkpoint of one process, and the run did move away from the starting point.
    void esAnyWorldSizeEqualsOne()
    {
        const QStringList args = es() + QStringList{QStringLiteral("--steps"), QStringLiteral("3")};
        const Run one = train(args + QStringList{QStringLiteral("-o"), path(QStringLiteral("es1.dl2ckpt"))});
        QVERIFY2(one.code == 0, qPrintable(one.err));
        const Run two = train(args + QStringList{QStringLiteral("--nproc"), QStringLiteral("2"), QStringLiteral("-o"),
                                                 path(QStringLiteral("es2.dl2ckpt"))});
        QVERIFY2(two.code == 0, qPrintable(two.err));
        const Run three = train(args + QStringList{QStringLiteral("--nproc"), QStringLiteral("3"), QStringLiteral("-o"),
                                                   path(QStringLiteral("es3.dl2ckpt"))});
        QVERIFY2(three.code == 0, qPrintable(three.err));
        const QByteArray b1 = fileBytes(path(QStringLiteral("es1.dl2ckpt")));
        QVERIFY(!b1.isEmpty());
        QVERIFY(b1 == fileBytes(path(QStringLiteral("es2.dl2ckpt"))));
        QVERIFY(b1 == fileBytes(path(QStringLiteral("es3.dl2ckpt"))));
        const Checkpoint c = readCheckpoint(path(QStringLiteral("es1.dl2ckpt")).toStdString());
        QVERIFY2(c.info.step >= 1, "the best checkpoint should be a trained one");
        QVERIFY(c.parameters->at("policy.stop2.bias").data != readCheckpoint(m_init.toStdString()).parameters->at("policy.stop2.bias").data);
    }

    // --resume continues from CKPT.resume, the latest state (written at every validation and
    // at the end), not from the best-on-validation checkpoint. ES resumed (theta, Adam
    // moments, random numbers, next trace seed) ends exactly where the uninterrupted run ends.
    void resumeContinues()
    {
        const Run whole = train(es() + QStringList{QStringLiteral("--steps"), QStringLiteral("4"), QStringLiteral("-o"),
                                                   path(QStringLiteral("whole.dl2ckpt"))});
        QVERIFY2(whole.code == 0, qPrintable(whole.err));
        const Run part = train(es() + QStringList{QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("-o"),
                                                  path(QStringLiteral("part.dl2ckpt"))});
        QVERIFY2(part.code == 0, qPrintable(part.err));
        const Checkpoint mid = readCheckpoint(path(QStringLiteral("part.dl2ckpt.resume")).toStdString());
        QVERIFY(mid.info.resume.present);
        QCOMPARE(mid.info.resume.step, 2LL); // the latest state, whatever step was best
        const Run rest = train(es() + QStringList{QStringLiteral("--steps"), QStringLiteral("4"), QStringLiteral("--resume"),
                                                  path(QStringLiteral("part.dl2ckpt")), QStringLiteral("--nproc"),
                                                  QStringLiteral("2"), QStringLiteral("-o"), path(QStringLiteral("rest.dl2ckpt"))});
        QVERIFY2(rest.code == 0, qPrintable(rest.err));
        const QByteArray wholeState = fileBytes(path(QStringLiteral("whole.dl2ckpt.resume")));
        QVERIFY(!wholeState.isEmpty());
        QVERIFY(wholeState == fileBytes(path(QStringLiteral("rest.dl2ckpt.resume"))));
        const Checkpoint wholeBest = readCheckpoint(path(QStringLiteral("whole.dl2ckpt")).toStdString());
        if (wholeBest.info.step > 2) // the best came after the interruption: the same file
            QVERIFY(fileBytes(path(QStringLiteral("whole.dl2ckpt"))) == fileBytes(path(QStringLiteral("rest.dl2ckpt"))));
        else // the resumed run knows the best it has to beat and did not write a worse one
            QVERIFY(!QFile::exists(path(QStringLiteral("rest.dl2ckpt"))));

        // Actor-critic in a setting that trains: stopped after 4 updates, resumed to 8. The
        // optimizer state, step, random numbers and best come back from the latest state;
        // the replay buffer and half-run traces start afresh (not bit-identical to an
        // uninterrupted run), but the resumed run is deterministic.
        const QStringList ac = trainingActorCritic();
        Run r = train(ac + QStringList{QStringLiteral("--steps"), QStringLiteral("4"), QStringLiteral("-o"), path(QStringLiteral("ac4.dl2ckpt"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        verifyTrained(path(QStringLiteral("ac4.dl2ckpt")));
        const Checkpoint four = readCheckpoint(path(QStringLiteral("ac4.dl2ckpt.resume")).toStdString());
        QCOMPARE(four.info.resume.step, 4LL);
        QVERIFY(four.hasOptimizer);
        for (const QString &out : {QStringLiteral("ac8a.dl2ckpt"), QStringLiteral("ac8b.dl2ckpt")}) {
            r = train(ac + QStringList{QStringLiteral("--steps"), QStringLiteral("8"), QStringLiteral("--resume"),
                                       path(QStringLiteral("ac4.dl2ckpt")), QStringLiteral("-o"), path(out)});
            QVERIFY2(r.code == 0, qPrintable(r.err));
        }
        // The curves go on from the interrupted run's: steps 0-4 from it, 5-8 from the resumed.
        const QList<QByteArray> lines = fileBytes(path(QStringLiteral("ac8a.dl2ckpt.curves.csv"))).trimmed().split('\n');
        QStringList steps;
        for (qsizetype i = 1; i < lines.size(); ++i)
            steps << QString::fromUtf8(lines[i].split(',')[0]);
        QCOMPARE(steps.join(QLatin1Char(' ')), QStringLiteral("0 1 2 3 4 5 6 7 8"));
        QCOMPARE(lines.mid(0, 6), fileBytes(path(QStringLiteral("ac4.dl2ckpt.curves.csv"))).trimmed().split('\n'));
        const Checkpoint eight = readCheckpoint(path(QStringLiteral("ac8a.dl2ckpt.resume")).toStdString());
        QCOMPARE(eight.info.resume.step, 8LL);
        QVERIFY(!sameWeights(*eight.parameters, *four.parameters));
        QVERIFY(fileBytes(path(QStringLiteral("ac8a.dl2ckpt.resume"))) == fileBytes(path(QStringLiteral("ac8b.dl2ckpt.resume"))));
        // The world size is part of the state: resuming on 2 ranks is refused, naming both.
        r = train(ac + QStringList{QStringLiteral("--steps"), QStringLiteral("8"), QStringLiteral("--resume"),
                                   path(QStringLiteral("ac4.dl2ckpt")), QStringLiteral("--nproc"), QStringLiteral("2"),
                                   QStringLiteral("-o"), path(QStringLiteral("ac8w.dl2ckpt"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("written by a run of world size 1, this run has world size 2")), qPrintable(r.err));
        // The options are part of the run: a resume that changes any is refused, naming each
        // with the run's value and this one's, and writes nothing.
        r = train(ac + QStringList{QStringLiteral("--steps"), QStringLiteral("8"), QStringLiteral("--lr"),
                                   QStringLiteral("0.001"), QStringLiteral("--task-credit"), QStringLiteral("remaining"),
                                   QStringLiteral("--resume"), path(QStringLiteral("ac4.dl2ckpt")), QStringLiteral("-o"),
                                   path(QStringLiteral("ac8o.dl2ckpt"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--lr (0.0005 in the run, 0.001 here), --task-credit (progress in "
                                               "the run, remaining here) differ")),
                 qPrintable(r.err));
        QVERIFY(QDir(m_dir.path()).entryList({QStringLiteral("ac8o*")}, QDir::Files).isEmpty());
        // So is the policy's optimizer, shown only where it is not Adam.
        r = train(ac + QStringList{QStringLiteral("--steps"), QStringLiteral("8"),
                                   QStringLiteral("--optimizer"), QStringLiteral("sgd"),
                                   QStringLiteral("--resume"), path(QStringLiteral("ac4.dl2ckpt")),
                                   QStringLiteral("-o"), path(QStringLiteral("ac8s.dl2ckpt"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(
            r.err.contains(QStringLiteral("--optimizer (not set in the run, sgd here) differs")),
            qPrintable(r.err));
        // And the decoding its validation figures were measured with: without --decode the
        // resumed run keeps it (above), another is refused.
        const QString other = four.spec.decode == Decode::Greedy ? QStringLiteral("sample")
                                                                 : QStringLiteral("greedy");
        r = train(ac + QStringList{QStringLiteral("--steps"), QStringLiteral("8"),
                                   QStringLiteral("--decode"), other, QStringLiteral("--resume"),
                                   path(QStringLiteral("ac4.dl2ckpt")), QStringLiteral("-o"),
                                   path(QStringLiteral("ac8d.dl2ckpt"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(
                     QStringLiteral("this one with --decode %1; a resumed run keeps its decoding")
                         .arg(other)),
                 qPrintable(r.err));
        QCOMPARE(
            readCheckpoint(path(QStringLiteral("ac8a.dl2ckpt.resume")).toStdString()).spec.decode,
            four.spec.decode);
        r = train(es() + QStringList{QStringLiteral("--steps"), QStringLiteral("4"), QStringLiteral("--es-sigma"),
                                     QStringLiteral("0.5"), QStringLiteral("--resume"), path(QStringLiteral("part.dl2ckpt")),
                                     QStringLiteral("-o"), path(QStringLiteral("rest-sigma.dl2ckpt"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--es-sigma (1 in the run, 0.5 here) differs")), qPrintable(r.err));
        // A weights-only file cannot be resumed: clear error.
        r = train(ac + QStringList{QStringLiteral("--steps"), QStringLiteral("10"), QStringLiteral("--resume"), m_init,
                                   QStringLiteral("-o"), path(QStringLiteral("bad.dl2ckpt"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("no actor-critic resume state")), qPrintable(r.err));
    }

    // A rank whose input is bad (here a missing --init) stops before the process group forms:
    // the others name it and its error at once; a rank that never comes is named at the
    // timeout.
    void rankWithBadInputIsNamed()
    {
        const QString master = QStringLiteral("127.0.0.1:") + QString::number(freePort());
        const QStringList base = actorCritic() + QStringList{QStringLiteral("--steps"), QStringLiteral("5"),
                                                             QStringLiteral("--timeout"), QStringLiteral("90"),
                                                             QStringLiteral("--world-size"), QStringLiteral("3"),
                                                             QStringLiteral("--master"), master, QStringLiteral("-o"),
                                                             path(QStringLiteral("badrank.dl2ckpt"))};
        QElapsedTimer t;
        t.start();
        std::vector<std::unique_ptr<QProcess>> ranks;
        for (int r = 0; r < 3; ++r) {
            QStringList a = base + QStringList{QStringLiteral("--rank"), QString::number(r)};
            if (r == 1)
                a << QStringLiteral("--speed-table") << path(QStringLiteral("missing-speeds.csv"));
            ranks.push_back(std::make_unique<QProcess>());
            ranks.back()->start(QStringLiteral(DL2_TRAIN), a);
        }
        // Well before the 90 s timeout: the message below comes from the store, not a timeout.
        for (int r = 0; r < 3; ++r) {
            QVERIFY(ranks[size_t(r)]->waitForFinished(60000));
            QCOMPARE(ranks[size_t(r)]->exitCode(), 2);
            const QString err = QString::fromUtf8(ranks[size_t(r)]->readAllStandardError());
            QVERIFY2(err.contains(QStringLiteral("missing-speeds.csv")), qPrintable(err));
            if (r != 1)
                QVERIFY2(err.contains(QStringLiteral("rank ") + QString::number(r) +
                                      QStringLiteral(": distributed training stopped: rank 1 stopped: ")),
                         qPrintable(err));
        }
        qInfo("every rank stopped %.2f s after the start (timeout 90 s)", double(t.elapsed()) / 1000.0);
        QVERIFY(!QFile::exists(path(QStringLiteral("badrank.dl2ckpt"))));

        // World size 3, rank 2 never started: ranks 0 and 1 name it after the 3 s timeout.
        const QString master2 = QStringLiteral("127.0.0.1:") + QString::number(freePort());
        ranks.clear();
        for (int r = 0; r < 2; ++r) {
            ranks.push_back(std::make_unique<QProcess>());
            ranks.back()->start(QStringLiteral(DL2_TRAIN),
                                actorCritic() + QStringList{QStringLiteral("--steps"), QStringLiteral("5"),
                                                            QStringLiteral("--timeout"), QStringLiteral("3"),
                                                            QStringLiteral("--world-size"), QStringLiteral("3"),
                                                            QStringLiteral("--master"), master2, QStringLiteral("--rank"),
                                                            QString::number(r), QStringLiteral("-o"),
                                                            path(QStringLiteral("absent.dl2ckpt"))});
        }
        for (int r = 0; r < 2; ++r) {
            QVERIFY(ranks[size_t(r)]->waitForFinished(30000));
            QCOMPARE(ranks[size_t(r)]->exitCode(), 2);
            const QString err = QString::fromUtf8(ranks[size_t(r)]->readAllStandardError());
            QVERIFY2(err.contains(QStringLiteral("rank 2 did not join the rendezvous at ") + master2), qPrintable(err));
        }
    }

    // SIGKILL on rank 1 of 3: ranks 0 and 2 stop at once with one error naming rank 1, and
    // the checkpoint rank 0 wrote before still loads.
    void killedRankStopsTheOthers()
    {
        const QString out = path(QStringLiteral("killed.dl2ckpt"));
        auto ranks = startRanks(actorCritic() + QStringList{QStringLiteral("--steps"), QStringLiteral("1000000"),
                                                            QStringLiteral("--validate-every"), QStringLiteral("10"),
                                                            QStringLiteral("-o"), out},
                                3);
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(out + QStringLiteral(".curves.csv")) &&
                                     fileBytes(out + QStringLiteral(".curves.csv")).count('\n') >= 2,
                                 60000);
        ::kill(pid_t(ranks[1]->processId()), SIGKILL);
        QElapsedTimer t;
        t.start();
        for (int r : {0, 2}) {
            QVERIFY(ranks[size_t(r)]->waitForFinished(30000));
            const QString err = QString::fromUtf8(ranks[size_t(r)]->readAllStandardError());
            QCOMPARE(ranks[size_t(r)]->exitCode(), 2);
            QVERIFY2(err.contains(QStringLiteral("rank ") + QString::number(r) +
                                  QStringLiteral(": distributed training stopped: rank 1 is gone")),
                     qPrintable(err));
        }
        qInfo("ranks 0 and 2 stopped %.2f s after rank 1 was killed", double(t.elapsed()) / 1000.0);
        ranks[1]->waitForFinished();
        const Checkpoint c = readCheckpoint(out.toStdString());
        QVERIFY(c.info.resume.present);
        QVERIFY(QDir(m_dir.path()).entryList({QStringLiteral("killed*")}, QDir::Files).size() == 3); // no temporaries
    }

    // Ctrl-C (SIGINT) on rank 2 alone: every rank stops cleanly at the same update.
    void ctrlCOnOneRankStopsAll()
    {
        const QString out = path(QStringLiteral("int.dl2ckpt"));
        auto ranks = startRanks(actorCritic() + QStringList{QStringLiteral("--steps"), QStringLiteral("1000000"),
                                                            QStringLiteral("--validate-every"), QStringLiteral("10"),
                                                            QStringLiteral("-o"), out},
                                3);
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(out), 60000);
        // A rank ignores SIGPIPE: a write to a peer that went away (after SIGSTOP/SIGCONT)
        // is an error it reports, not a silent death with exit 141.
        const QByteArray status = fileBytes(QStringLiteral("/proc/%1/status").arg(ranks[1]->processId()));
        const qsizetype at = status.indexOf("SigIgn:");
        QVERIFY(at >= 0);
        const qulonglong ignored = status.mid(at + 7, status.indexOf('\n', at) - at - 7).trimmed().toULongLong(nullptr, 16);
        QVERIFY2(ignored & (1ULL << (SIGPIPE - 1)), status.constData());
        ::kill(pid_t(ranks[2]->processId()), SIGINT);
        // Well before the 90 s timeout: the message below comes from the store, not a timeout.
        for (int r = 0; r < 3; ++r) {
            QVERIFY(ranks[size_t(r)]->waitForFinished(60000));
            QCOMPARE(ranks[size_t(r)]->exitCode(), 0);
        }
        QVERIFY(QString::fromUtf8(ranks[0]->readAllStandardOutput()).contains(QStringLiteral("(stopped by Ctrl-C)")));
        QVERIFY(readCheckpoint(out.toStdString()).parameters);
        // The latest state is kept where the run stopped, and the progress shows that step
        // (not 1000000/1000000 at an absurd rate).
        const Checkpoint latest = readCheckpoint(QString(out + QStringLiteral(".resume")).toStdString());
        QVERIFY(latest.info.resume.step > 0);
        const QString progress = QString::fromUtf8(ranks[0]->readAllStandardError());
        QVERIFY2(progress.contains(QString::number(latest.info.resume.step) + QStringLiteral("/1000000 ")) &&
                     progress.contains(QStringLiteral("stopped by Ctrl-C")) &&
                     !progress.contains(QStringLiteral("1000000/1000000")),
                 qPrintable(progress));
    }
};

QTEST_GUILESS_MAIN(TestDistributed)
#include "tst_distributed.moc"
