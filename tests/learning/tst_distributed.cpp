// Distributed training on 127.0.0.1 (distributed.h, dl2 train --world-size/--rank/--master,
// --nproc): the collectives themselves (two ranks as threads of this process), then whole
// `dl2-train` processes: 3 actor-critic ranks keep equal weights and give bit-identical
// checkpoints run after run, ES at world size 2 and 3 writes the single process's checkpoint,
// a killed rank stops the others with one error naming it and leaves the checkpoint intact,
// Ctrl-C on one rank stops all, --resume continues where the checkpoint was written; SL on
// 2 ranks is deterministic too.
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

    QString path(const QString &name) const { return m_dir.path() + QLatin1Char('/') + name; }

    static QStringList actorCritic()
    {
        return {QStringLiteral("rl"), QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                QStringLiteral("--policy"), QStringLiteral("dl2-plus"), QStringLiteral("--hidden"),
                QStringLiteral("16,16"), QStringLiteral("--batch"), QStringLiteral("64"),
                QStringLiteral("--critic-warmup"), QStringLiteral("3"), QStringLiteral("--val-seeds"),
                QStringLiteral("100-101"), QStringLiteral("--timeout"), QStringLiteral("30")};
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
    // the same seed and world size write the same bytes.
    void actorCriticRanksAgree()
    {
        const QStringList args = actorCritic() + QStringList{QStringLiteral("--steps"), QStringLiteral("12"),
                                                             QStringLiteral("--validate-every"), QStringLiteral("6"),
                                                             QStringLiteral("--hash-every"), QStringLiteral("1"),
                                                             QStringLiteral("--nproc"), QStringLiteral("3")};
        const Run a = train(args + QStringList{QStringLiteral("-o"), path(QStringLiteral("ac-a.dl2ckpt"))});
        QVERIFY2(a.code == 0, qPrintable(a.err));
        const Run b = train(args + QStringList{QStringLiteral("-o"), path(QStringLiteral("ac-b.dl2ckpt"))});
        QVERIFY2(b.code == 0, qPrintable(b.err));
        const QByteArray ca = fileBytes(path(QStringLiteral("ac-a.dl2ckpt")));
        QVERIFY(!ca.isEmpty());
        QVERIFY(ca == fileBytes(path(QStringLiteral("ac-b.dl2ckpt"))));
        const Checkpoint c = readCheckpoint(path(QStringLiteral("ac-a.dl2ckpt")).toStdString());
        QVERIFY(c.hasOptimizer);
        QCOMPARE(c.info.resume.worldSize, 3);
        // Only rank 0 wrote: one checkpoint, one set of curves, no stray files.
        QCOMPARE(QDir(m_dir.path()).entryList({QStringLiteral("ac-a*")}, QDir::Files).size(), 3);
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

    // ES resumed from an intermediate checkpoint (theta, Adam moments, random numbers, next
    // trace seed) ends exactly where the uninterrupted run ends.
    void resumeContinues()
    {
        const Run whole = train(es() + QStringList{QStringLiteral("--steps"), QStringLiteral("4"), QStringLiteral("-o"),
                                                   path(QStringLiteral("whole.dl2ckpt"))});
        QVERIFY2(whole.code == 0, qPrintable(whole.err));
        const Run part = train(es() + QStringList{QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("-o"),
                                                  path(QStringLiteral("part.dl2ckpt"))});
        QVERIFY2(part.code == 0, qPrintable(part.err));
        const Checkpoint mid = readCheckpoint(path(QStringLiteral("part.dl2ckpt")).toStdString());
        QVERIFY(mid.info.resume.present);
        QVERIFY2(mid.info.resume.step >= 1, "resuming from step 0 would prove nothing");
        const Run rest = train(es() + QStringList{QStringLiteral("--steps"), QStringLiteral("4"), QStringLiteral("--resume"),
                                                  path(QStringLiteral("part.dl2ckpt")), QStringLiteral("--nproc"),
                                                  QStringLiteral("2"), QStringLiteral("-o"), path(QStringLiteral("rest.dl2ckpt"))});
        QVERIFY2(rest.code == 0, qPrintable(rest.err));
        QVERIFY(fileBytes(path(QStringLiteral("whole.dl2ckpt"))) == fileBytes(path(QStringLiteral("rest.dl2ckpt"))));

        // Actor-critic: the optimizer state and the step come back; the run goes on from there.
        const QStringList ac = actorCritic() + QStringList{QStringLiteral("--validate-every"), QStringLiteral("5")};
        Run r = train(ac + QStringList{QStringLiteral("--steps"), QStringLiteral("5"), QStringLiteral("-o"), path(QStringLiteral("ac5.dl2ckpt"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const Checkpoint five = readCheckpoint(path(QStringLiteral("ac5.dl2ckpt")).toStdString());
        r = train(ac + QStringList{QStringLiteral("--steps"), QStringLiteral("10"), QStringLiteral("--resume"),
                                   path(QStringLiteral("ac5.dl2ckpt")), QStringLiteral("-o"), path(QStringLiteral("ac10.dl2ckpt"))});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QByteArray curves = fileBytes(path(QStringLiteral("ac10.dl2ckpt.curves.csv")));
        const QList<QByteArray> lines = curves.trimmed().split('\n');
        QVERIFY(lines.size() >= 2);
        QCOMPARE(lines[1].split(',')[0].toLongLong(), five.info.resume.step + 5); // validation at 10
        // A weights-only file cannot be resumed: clear error.
        r = train(ac + QStringList{QStringLiteral("--steps"), QStringLiteral("10"), QStringLiteral("--resume"), m_init,
                                   QStringLiteral("-o"), path(QStringLiteral("bad.dl2ckpt"))});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QStringLiteral("no actor-critic resume state")), qPrintable(r.err));
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
        ::kill(pid_t(ranks[2]->processId()), SIGINT);
        for (int r = 0; r < 3; ++r) {
            QVERIFY(ranks[size_t(r)]->waitForFinished(30000));
            QCOMPARE(ranks[size_t(r)]->exitCode(), 0);
        }
        QVERIFY(QString::fromUtf8(ranks[0]->readAllStandardOutput()).contains(QStringLiteral("(stopped by Ctrl-C)")));
        QVERIFY(readCheckpoint(out.toStdString()).parameters);
    }
};

QTEST_GUILESS_MAIN(TestDistributed)
#include "tst_distributed.moc"
