// Fault tests with real processes on 127.0.0.1: dl2-agent (DL2_AGENT) and dl2 operate
// (DL2_CLI). After each fault every approved decision must be applied exactly once by the
// agent, none lost, and the audit log must agree with the agent's own record. Every wait is
// bounded in time; every loop in count.
#include "agentserver.h"
#include "auditlog.h"
#include "error.h"
#include "grpcconnector.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <memory>
#include <thread>

using namespace dl2;

namespace {

QString binary(const char *env)
{
    return QString::fromLocal8Bit(qgetenv(env));
}

class Agent
{
public:
    Agent(const QString &dir, QStringList extra = {}, int port = 0)
        : m_dir(dir), m_extra(std::move(extra))
    {
        start(port);
    }
    ~Agent() { stop(); }
    void start(int port)
    {
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::SeparateChannels);
        QStringList args{QStringLiteral("--backend"),    QStringLiteral("sim"),
                         QStringLiteral("--scenario"),   QStringLiteral("dl2-small"),
                         QStringLiteral("--listen"),     QStringLiteral("127.0.0.1:%1").arg(port),
                         QStringLiteral("--token-file"), m_dir + QStringLiteral("/token"),
                         QStringLiteral("--state-dir"),  m_dir + QStringLiteral("/agent-state")};
        m_process->start(binary("DL2_AGENT"), args + m_extra);
        QVERIFY2(m_process->waitForStarted(10'000), "dl2-agent did not start");
        static const QRegularExpression listening(
            QStringLiteral("listening on 127\\.0\\.0\\.1:(\\d+)"));
        QByteArray out;
        for (int i = 0; i < 100 && !listening.match(QString::fromUtf8(out)).hasMatch(); ++i) {
            m_process->waitForReadyRead(100);
            out += m_process->readAllStandardOutput();
        }
        const auto m = listening.match(QString::fromUtf8(out));
        QVERIFY2(m.hasMatch(), out.constData());
        m_port = m.captured(1).toInt();
    }
    void kill() // SIGKILL
    {
        m_process->kill();
        m_process->waitForFinished(5'000);
    }
    void stop()
    {
        if (m_process && m_process->state() != QProcess::NotRunning) {
            m_process->terminate();
            if (!m_process->waitForFinished(5'000))
                kill();
        }
    }
    int port() const { return m_port; }
    QString address() const { return QStringLiteral("127.0.0.1:%1").arg(m_port); }

private:
    QString m_dir;
    QStringList m_extra;
    std::unique_ptr<QProcess> m_process;
    int m_port = 0;
};

struct Run
{
    int exitCode = -1;
    QJsonObject summary;
    QByteArray err;
};

QStringList operateArgs(const QString &dir, const QString &address, int slotCount,
                        QStringList extra = {})
{
    return QStringList{QStringLiteral("operate"),
                       QStringLiteral("--agent"),
                       address,
                       QStringLiteral("--token-file"),
                       dir + QStringLiteral("/token"),
                       QStringLiteral("--policy"),
                       QStringLiteral("drf"),
                       QStringLiteral("--slots"),
                       QString::number(slotCount),
                       QStringLiteral("--audit"),
                       dir + QStringLiteral("/audit.db"),
                       QStringLiteral("--json")} +
           extra;
}

Run finish(QProcess &p, int timeoutMs = 120'000)
{
    Run r;
    // waitForFinished() is false for a process that has already finished, too.
    if (p.state() != QProcess::NotRunning && !p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5'000);
        r.err = "timed out; its stderr: " + p.readAllStandardError().right(4000);
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.summary = QJsonDocument::fromJson(p.readAllStandardOutput()).object();
    r.err = p.readAllStandardError();
    return r;
}

Run operate(const QString &dir, const QString &address, int slotCount, QStringList extra = {})
{
    QProcess p;
    p.start(binary("DL2_CLI"), operateArgs(dir, address, slotCount, std::move(extra)));
    if (!p.waitForStarted(10'000))
        return {};
    return finish(p);
}

// The independent check: the audit log against the agent's record.
void checkExactlyOnce(const QString &dir, const QString &address, int minimumApplied = 1)
{
    GrpcConnectorOptions o;
    o.address = address.toStdString();
    o.token = "s3cret-token";
    o.retryBudget = std::chrono::seconds(10);
    GrpcConnector agent(o);
    std::map<std::string, AppliedRecord> applied;
    AuditLog log(QString(dir + QStringLiteral("/audit.db")).toStdString());
    for (const auto &r : agent.appliedRecord())
        if (r.decisionId.rfind(log.runId() + "/", 0) == 0)
            applied[r.decisionId] = r;
    QVERIFY(log.unacknowledged().empty());
    int approved = 0;
    for (const auto &r : log.decisions()) {
        if (r.state == "acknowledged") {
            ++approved;
            QVERIFY2(applied.count(r.decision.id), ("lost: " + r.decision.id).c_str());
        } else {
            QVERIFY2(r.state == "rejected" || r.state == "proposed",
                     (r.decision.id + " in state " + r.state).c_str());
            QVERIFY2(!applied.count(r.decision.id),
                     ("applied but not approved: " + r.decision.id).c_str());
        }
    }
    for (const auto &[id, r] : applied)
        QVERIFY2(r.applyCount == 1, ("applied twice: " + id).c_str());
    QCOMPARE(int(applied.size()), approved);
    QVERIFY(approved >= minimumApplied);
}

void checkSummary(const Run &r)
{
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(r.summary.value(QStringLiteral("lost")).toInt(-1), 0);
    QCOMPARE(r.summary.value(QStringLiteral("duplicated")).toInt(-1), 0);
    QCOMPARE(r.summary.value(QStringLiteral("unacknowledged")).toInt(-1), 0);
    QCOMPARE(r.summary.value(QStringLiteral("unknown_to_audit")).toInt(-1), 0);
}

// Slots the agent simulated so far, from its journal (-1 without a journal).
int agentNextSlot(const QString &dir)
{
    QFile f(dir + QStringLiteral("/agent-state/agent-journal.jsonl"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    return int(f.readAll().count("\"t\":\"advance\""));
}

} // namespace

class TestAgentFaults : public QObject
{
    Q_OBJECT
private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString dir() const { return m_dir->path(); }

private Q_SLOTS:
    void initTestCase()
    {
        if (binary("DL2_AGENT").isEmpty() || binary("DL2_CLI").isEmpty())
            QSKIP("DL2_AGENT / DL2_CLI not set (run through ctest)");
    }
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QFile token(dir() + QStringLiteral("/token"));
        QVERIFY(token.open(QIODevice::WriteOnly));
        token.write("s3cret-token\n");
    }

    void normalRun()
    {
        Agent agent(dir());
        const Run r = operate(dir(), agent.address(), 5);
        checkSummary(r);
        QVERIFY(r.summary.value(QStringLiteral("applied")).toInt() > 0);
        QCOMPARE(r.summary.value(QStringLiteral("applied")).toInt(),
                 r.summary.value(QStringLiteral("approved")).toInt());
        checkExactlyOnce(dir(), agent.address());
    }

    void wrongToken()
    {
        Agent agent(dir());
        QFile bad(dir() + QStringLiteral("/bad-token"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("not-the-token\n");
        bad.close();
        QProcess p;
        QStringList args = operateArgs(dir(), agent.address(), 3);
        args[args.indexOf(QStringLiteral("--token-file")) + 1] =
            dir() + QStringLiteral("/bad-token");
        p.start(binary("DL2_CLI"), args);
        const Run r = finish(p);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("agent rejected the token (UNAUTHENTICATED)"), r.err.constData());
        QCOMPARE(agentNextSlot(dir()), 0); // nothing happened on the agent
    }

    void agentKilledMidRunAndRestarted()
    {
        Agent agent(dir());
        const int port = agent.port();
        QProcess p;
        p.start(binary("DL2_CLI"),
                operateArgs(dir(), agent.address(), 14,
                            {QStringLiteral("--retry-seconds"), QStringLiteral("60")}));
        QVERIFY(p.waitForStarted(10'000));
        QTRY_VERIFY_WITH_TIMEOUT(agentNextSlot(dir()) >= 4, 60'000);
        agent.kill(); // SIGKILL
        QTest::qWait(500);
        agent.start(port); // same port, same state directory
        QCOMPARE(agent.port(), port);
        const Run r = finish(p);
        checkSummary(r);
        QCOMPARE(r.summary.value(QStringLiteral("slots")).toInt(), 14);
        QVERIFY(r.summary.value(QStringLiteral("retries")).toInt() > 0);
        checkExactlyOnce(dir(), agent.address(), 10);
    }

    void operatorExitsBetweenCommitAndSend()
    {
        Agent agent(dir());
        Run r = operate(dir(), agent.address(), 10,
                        {QStringLiteral("--debug-exit-after-commit"), QStringLiteral("3")});
        QCOMPARE(r.exitCode, 75);
        {
            AuditLog log(QString(dir() + QStringLiteral("/audit.db")).toStdString());
            QVERIFY(!log.unacknowledged().empty()); // committed, never sent
        }
        r = operate(dir(), agent.address(), 5);
        checkSummary(r);
        QVERIFY(r.summary.value(QStringLiteral("resent")).toInt() > 0);
        checkExactlyOnce(dir(), agent.address());
    }

    void operatorKilledAtRandomMoments()
    {
        Agent agent(dir());
        // Kill the operating side (SIGKILL) a few times at different moments, then finish.
        for (int round = 0; round < 4; ++round) {
            QProcess p;
            p.start(binary("DL2_CLI"), operateArgs(dir(), agent.address(), 50));
            QVERIFY(p.waitForStarted(10'000));
            QTest::qWait(60 + 45 * round);
            p.kill();
            p.waitForFinished(5'000);
        }
        const Run r = operate(dir(), agent.address(), 3);
        checkSummary(r);
        qInfo("after 4 random kills: %d decisions re-sent, %d acknowledged as duplicates",
              r.summary.value(QStringLiteral("resent")).toInt(),
              r.summary.value(QStringLiteral("acknowledged_duplicate")).toInt());
        checkExactlyOnce(dir(), agent.address());
    }

    void slowAgentPastTheDeadline()
    {
        Agent agent(dir(), {QStringLiteral("--debug-slow-applies"), QStringLiteral("2"),
                            QStringLiteral("--debug-apply-delay-ms"), QStringLiteral("1500")});
        const Run r = operate(dir(), agent.address(), 4,
                              {QStringLiteral("--deadline-ms"), QStringLiteral("400")});
        checkSummary(r);
        QVERIFY(r.summary.value(QStringLiteral("retries")).toInt() >= 2);
        // The late Apply did apply: the retry was acknowledged as a duplicate, not re-applied.
        QVERIFY(r.summary.value(QStringLiteral("acknowledged_duplicate")).toInt() >= 1);
        checkExactlyOnce(dir(), agent.address());
    }

    void malformedMessages()
    {
        Agent agent(dir());
        // Raw garbage on the gRPC port: the agent drops the connection and keeps serving.
        // (The HTTP/2 preface is followed by a bogus frame with embedded NULs, so its length
        // comes from the array, not from strlen.)
        static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\xff\xff\xff\xff\x00\x01garbage";
        for (const QByteArray &junk :
             {QByteArray("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
              QByteArray(preface, sizeof preface - 1),
              QByteArray(4096, '\x07')}) {
            QTcpSocket s;
            s.connectToHost(QStringLiteral("127.0.0.1"), static_cast<quint16>(agent.port()));
            QVERIFY(s.waitForConnected(5'000));
            s.write(junk);
            s.waitForBytesWritten(2'000);
            s.waitForReadyRead(500);
            s.abort();
        }
        GrpcConnectorOptions o;
        o.address = agent.address().toStdString();
        o.token = "s3cret-token";
        GrpcConnector client(o);
        QCOMPARE(client.health().backend, std::string("sim"));
        // Well-formed protobuf, malformed decisions: refused one by one, nothing applied.
        const ClusterView v = client.snapshot();
        QVERIFY(!v.jobs.empty());
        ResizeDecision noId, unknownJob, negative, badNode;
        noId.job = v.jobs[0].id;
        unknownJob.id = "m/0/1";
        unknownJob.job = 123456;
        negative.id = "m/0/2";
        negative.job = v.jobs[0].id;
        negative.to = {-3, 2, {}};
        badNode.id = "m/0/3";
        badNode.job = v.jobs[0].id;
        badNode.to = {1, 1, {{99999, TaskRole::Worker}}};
        const auto acks = client.apply({noId, unknownJob, negative, badNode});
        QCOMPARE(acks.size(), size_t(4));
        for (const auto &a : acks) {
            QVERIFY(a.status == Acknowledgment::Status::Invalid);
            QVERIFY(!a.message.empty());
        }
        QVERIFY(client.appliedRecord().empty());
        // A normal run still works afterwards.
        const Run r = operate(dir(), agent.address(), 3);
        checkSummary(r);
        checkExactlyOnce(dir(), agent.address());
    }

    void rulesReviewDeadlineAndAuditExport()
    {
        Agent agent(dir());
        QFile rules(dir() + QStringLiteral("/rules.json"));
        QVERIFY(rules.open(QIODevice::WriteOnly));
        rules.write(R"({"approve_scale_down": true, "max_task_change": 1})");
        rules.close();
        const Run r = operate(dir(), agent.address(), 6,
                              {QStringLiteral("--rules"), rules.fileName(),
                               QStringLiteral("--review-deadline-ms"), QStringLiteral("30"),
                               QStringLiteral("--at-deadline"), QStringLiteral("keep")});
        checkSummary(r);
        const int proposed = r.summary.value(QStringLiteral("proposed")).toInt();
        const int approved = r.summary.value(QStringLiteral("approved")).toInt();
        const int rejected = r.summary.value(QStringLiteral("rejected")).toInt();
        QCOMPARE(r.summary.value(QStringLiteral("gate")).toString(), QStringLiteral("rules"));
        QCOMPARE(approved + rejected, proposed);
        QVERIFY(rejected >
                0); // new jobs grow by more than one task: held, then kept at the deadline
        checkExactlyOnce(dir(), agent.address(), 0);

        auto audit = [&](const QStringList &args) {
            QProcess p;
            p.start(binary("DL2_CLI"),
                    QStringList{QStringLiteral("audit"), dir() + QStringLiteral("/audit.db")} +
                        args);
            p.waitForFinished(30'000);
            return p.readAllStandardOutput();
        };
        const QJsonObject all = QJsonDocument::fromJson(audit({QStringLiteral("--json")})).object();
        QMap<QString, int> kinds;
        int job = -1;
        for (const auto &v : all.value(QStringLiteral("events")).toArray()) {
            kinds[v.toObject().value(QStringLiteral("kind")).toString()]++;
            job = v.toObject().value(QStringLiteral("job")).toInt();
        }
        QCOMPARE(kinds.value(QStringLiteral("proposed")), proposed);
        QCOMPARE(kinds.value(QStringLiteral("deadline")), rejected);
        QCOMPARE(kinds.value(QStringLiteral("committed")), approved);
        QCOMPARE(kinds.value(QStringLiteral("acknowledged")), approved);
        const QList<QByteArray> csv =
            audit({QStringLiteral("--csv"), QStringLiteral("--decisions")}).trimmed().split('\n');
        QCOMPARE(csv.front(), QByteArray("id,slot,job,from_ps,from_workers,to_ps,to_workers,speed_"
                                         "before,speed_after,state,ack,probability,value"));
        QCOMPARE(csv.size(), proposed + 1);
        const QJsonObject one =
            QJsonDocument::fromJson(
                audit({QStringLiteral("--json"), QStringLiteral("--job"), QString::number(job)}))
                .object();
        QVERIFY(!one.value(QStringLiteral("events")).toArray().isEmpty());
        for (const auto &v : one.value(QStringLiteral("events")).toArray())
            QCOMPARE(v.toObject().value(QStringLiteral("job")).toInt(), job);
        const QJsonObject future =
            QJsonDocument::fromJson(audit({QStringLiteral("--json"), QStringLiteral("--since"),
                                           QStringLiteral("2999-01-01T00:00:00Z")}))
                .object();
        QVERIFY(future.value(QStringLiteral("events")).toArray().isEmpty());
    }

    // A learned policy's probability and V(s) travel with each decision: dl2 operate -> audit
    // log (dl2 audit --json shows them with the proposal) and -> the agent, which keeps them in
    // its history of slots with the reward. V(s) needs a value network the actor-critic
    // trained: of the shipped policies, the fitted dl2-plus (the others report none).
    void learnedPolicyConfidenceThroughLogAndAgent()
    {
        Agent agent(dir());
        QStringList args = operateArgs(dir(), agent.address(), 3,
                                       {QStringLiteral("--checkpoint"), QStringLiteral("dl2-plus-reference-fitted")});
        args[args.indexOf(QStringLiteral("--policy")) + 1] = QStringLiteral("dl2-plus");
        QProcess p;
        p.start(binary("DL2_CLI"), args);
        const Run r = finish(p);
        if (r.exitCode == 2 && r.err.contains("unknown policy"))
            QSKIP("dl2 was built without the learning library (no dl2-plus policy)");
        checkSummary(r);
        QVERIFY(r.summary.value(QStringLiteral("applied")).toInt() > 0);

        auto audit = [&](const QStringList &extra) {
            QProcess a;
            a.start(binary("DL2_CLI"),
                    QStringList{QStringLiteral("audit"), dir() + QStringLiteral("/audit.db"),
                                QStringLiteral("--json")} +
                        extra);
            a.waitForFinished(30'000);
            return QJsonDocument::fromJson(a.readAllStandardOutput()).object();
        };
        int proposed = 0, withProbability = 0;
        for (const auto &v : audit({}).value(QStringLiteral("events")).toArray()) {
            const QJsonObject e = v.toObject();
            if (e.value(QStringLiteral("kind")).toString() != QLatin1String("proposed")) {
                QVERIFY(!e.contains(QStringLiteral("probability")));
                continue;
            }
            ++proposed;
            // V(s) for every proposal of the slot; a probability where the policy placed a task
            // for the job (not for a scale-down).
            QVERIFY2(e.value(QStringLiteral("value")).isDouble(),
                     QJsonDocument(e).toJson().constData());
            if (e.contains(QStringLiteral("probability"))) {
                const double p = e.value(QStringLiteral("probability")).toDouble();
                QVERIFY2(p > 0.0 && p <= 1.0, qPrintable(QString::number(p)));
                ++withProbability;
            }
        }
        QCOMPARE(proposed, r.summary.value(QStringLiteral("proposed")).toInt());
        QVERIFY(withProbability > 0);
        // The events CSV has them too, in its last two columns, on the proposals only.
        {
            QProcess a;
            a.start(binary("DL2_CLI"), QStringList{QStringLiteral("audit"), dir() + QStringLiteral("/audit.db"),
                                                   QStringLiteral("--csv")});
            a.waitForFinished(30'000);
            const QList<QByteArray> lines = a.readAllStandardOutput().trimmed().split('\n');
            QCOMPARE(lines.front(), QByteArray("seq,time,decision_id,job,kind,actor,before,after,detail,"
                                               "probability,value"));
            auto fields = [](const QByteArray &line) { // RFC 4180: quoted fields, "" inside
                QStringList out{QString()};
                bool quoted = false;
                for (qsizetype i = 0; i < line.size(); ++i) {
                    const char c = line[i];
                    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                        out.back() += QLatin1Char('"'), ++i;
                    else if (c == '"')
                        quoted = !quoted;
                    else if (c == ',' && !quoted)
                        out << QString();
                    else
                        out.back() += QLatin1Char(c);
                }
                return out;
            };
            std::map<qint64, QJsonObject> bySeq;
            for (const auto &v : audit({}).value(QStringLiteral("events")).toArray())
                bySeq[qint64(v.toObject().value(QStringLiteral("seq")).toDouble())] = v.toObject();
            int rows = 0, withValue = 0;
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const QStringList f = fields(lines[i]);
                QCOMPARE(f.size(), qsizetype(11));
                const QJsonObject e = bySeq.at(f[0].toLongLong());
                QCOMPARE(f[4], e.value(QStringLiteral("kind")).toString());
                for (const auto &[column, key] : {std::pair{9, "probability"}, std::pair{10, "value"}}) {
                    const QString k = QString::fromLatin1(key);
                    QCOMPARE(f[column].isEmpty(), !e.contains(k));
                    if (e.contains(k)) {
                        const double json = e.value(k).toDouble(), csv = f[column].toDouble();
                        QVERIFY2(qAbs(csv - json) <= 1e-3 * qAbs(json) + 1e-12, qPrintable(f[column]));
                    }
                }
                withValue += f[10].isEmpty() ? 0 : 1;
                ++rows;
            }
            QCOMPARE(rows, int(bySeq.size()));
            QCOMPARE(withValue, proposed);
        }
        const QJsonArray decisions =
            audit({QStringLiteral("--decisions")}).value(QStringLiteral("decisions")).toArray();
        QCOMPARE(decisions.size(), proposed);
        std::map<std::string, QJsonObject> byId;
        for (const auto &v : decisions) {
            QVERIFY(v.toObject().value(QStringLiteral("value")).isDouble());
            byId[v.toObject().value(QStringLiteral("id")).toString().toStdString()] = v.toObject();
        }

        // The agent kept every slot (GetHistory), with the decisions it applied for each, and
        // their probability and value as the audit log has them; the reward too, and it
        // survives a SIGKILL and restart (journal replay).
        auto history = [&] {
            GrpcConnectorOptions o;
            o.address = agent.address().toStdString();
            o.token = "s3cret-token";
            o.retryBudget = std::chrono::seconds(10);
            GrpcConnector client(o);
            const ClusterView v = client.snapshot();
            auto h = client.history(0, 1000);
            return std::make_pair(v, h);
        };
        const auto [view, records] = history();
        QCOMPARE(int(records.size()), 3);
        double cumulative = 0.0;
        int applied = 0;
        for (int s = 0; s < 3; ++s) {
            const SlotRecord &r = records[size_t(s)];
            QCOMPARE(r.slot, s);
            cumulative += r.reward;
            QVERIFY(qAbs(r.cumulativeReward - cumulative) < 1e-9);
            QVERIFY(!r.jobs.empty());
            for (const ResizeDecision &d : r.applied) {
                QCOMPARE(d.slot, s);
                const QJsonObject a = byId.at(d.id);
                QCOMPARE(a.value(QStringLiteral("state")).toString(),
                         QStringLiteral("acknowledged"));
                QVERIFY(d.value.has_value());
                QCOMPARE(*d.value, a.value(QStringLiteral("value")).toDouble());
                QCOMPARE(d.probability.has_value(), a.contains(QStringLiteral("probability")));
                ++applied;
            }
        }
        QCOMPARE(applied, r.summary.value(QStringLiteral("applied")).toInt());
        QVERIFY(cumulative > 0.0); // jobs made progress
        QCOMPARE(view.reward, records.back().reward);
        QCOMPARE(view.cumulativeReward, records.back().cumulativeReward);
        QCOMPARE(view.arrivals, records.back().arrivals);
        const int port = agent.port();
        agent.kill();
        agent.start(port);
        const auto [view2, records2] = history();
        QCOMPARE(int(records2.size()), 3);
        QCOMPARE(records2.back().cumulativeReward, records.back().cumulativeReward);
        QCOMPARE(records2[1].applied.size(), records[1].applied.size());
        QCOMPARE(view2.reward, view.reward);
        // A window in the middle, and a window past the end.
        GrpcConnectorOptions o;
        o.address = agent.address().toStdString();
        o.token = "s3cret-token";
        GrpcConnector client(o);
        const auto middle = client.history(1, 1);
        QCOMPARE(int(middle.size()), 1);
        QCOMPARE(middle.front().slot, 1);
        QVERIFY(client.history(3, 50).empty());
    }

    // dl2 operate --override: the gate checks the operator's allocation as in the console; a
    // refusal is printed with its reason and the run goes on.
    void overridesFromTheCommandLine()
    {
        Agent agent(dir());
        const Run r = operate(dir(), agent.address(), 2,
                              {QStringLiteral("--mode"), QStringLiteral("review"),
                               QStringLiteral("--review-deadline-ms"), QStringLiteral("30"),
                               QStringLiteral("--at-deadline"), QStringLiteral("apply"),
                               QStringLiteral("--override"), QStringLiteral("0/1=1,2"),
                               QStringLiteral("--override"), QStringLiteral("0/2=0,99"),
                               QStringLiteral("--override"), QStringLiteral("0/999=1,1")});
        checkSummary(r);
        QVERIFY2(r.err.contains("override 0/1=1,2: job 1 at 1 PS / 2 workers, approved"),
                 r.err.constData());
        QVERIFY2(r.err.contains("override 0/2=0,99 refused: 0 PS / 99 workers is outside the caps"),
                 r.err.constData());
        QVERIFY2(r.err.contains("override 0/999=1,1 refused: no decision for job 999"),
                 r.err.constData());
        QCOMPARE(r.summary.value(QStringLiteral("overrides_applied")).toInt(), 1);
        QCOMPARE(r.summary.value(QStringLiteral("overrides_refused")).toInt(), 2);
        checkExactlyOnce(dir(), agent.address());
        AuditLog log(QString(dir() + QStringLiteral("/audit.db")).toStdString());
        const auto one = log.find(log.runId() + "/0/1");
        QVERIFY(one);
        QCOMPARE(one->state, std::string("acknowledged"));
        QCOMPARE(one->decision.to.ps, 1);
        QCOMPARE(one->decision.to.workers, 2);
        bool overrideEvent = false;
        for (const auto &e : log.events(1))
            overrideEvent |= e.kind == "override";
        QVERIFY(overrideEvent);

        // A malformed --override is refused before anything happens.
        const Run bad = operate(dir(), agent.address(), 1,
                                {QStringLiteral("--override"), QStringLiteral("3:12=2x4")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.contains("--override '3:12=2x4': expected SLOT/JOB=PS,WORKERS"),
                 bad.err.constData());
    }

    void eventStream()
    {
        Agent agent(dir());
        checkSummary(operate(dir(), agent.address(), 3));
        GrpcConnectorOptions o;
        o.address = agent.address().toStdString();
        o.token = "s3cret-token";
        GrpcConnector client(o);
        const auto backlog = client.events(0);
        int arrivals = 0, applied = 0;
        for (const auto &e : backlog) {
            arrivals += e.kind == ClusterEvent::Kind::Arrival;
            applied += e.kind == ClusterEvent::Kind::Applied;
        }
        QVERIFY(arrivals > 0);
        QCOMPARE(applied, int(client.appliedRecord().size()));
        // Follow: a slot advanced by another client shows up on the stream.
        const int next = client.snapshot().nextSlot;
        std::thread advancer([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            GrpcConnector other(o);
            other.advanceSlot(next);
        });
        bool sawNewSlot = false;
        client.watch(
            backlog.back().seq,
            [&](const ClusterEvent &e) {
                sawNewSlot = e.slot == next;
                return !sawNewSlot;
            },
            std::chrono::seconds(10));
        advancer.join();
        QVERIFY(sawNewSlot);
    }

    void listenAddressIsLoopback_data()
    {
        QTest::addColumn<QString>("address");
        QTest::addColumn<bool>("loopback");
        QTest::newRow("127.0.0.1") << "127.0.0.1:50051" << true;
        QTest::newRow("127.8.9.10") << "127.8.9.10:0" << true;
        QTest::newRow("localhost") << "localhost:50051" << true;
        QTest::newRow("[::1]") << "[::1]:50051" << true;
        QTest::newRow("unix socket") << "unix:/run/dl2-agent.sock" << true;
        QTest::newRow("0.0.0.0") << "0.0.0.0:50051" << false;
        QTest::newRow("[::]") << "[::]:50051" << false;
        QTest::newRow("no host") << ":50051" << false;
        QTest::newRow("LAN address") << "192.168.1.20:50051" << false;
        QTest::newRow("host name") << "agent.example.org:50051" << false;
        QTest::newRow("127 as a name prefix") << "127.example.org:50051" << false;
    }
    void listenAddressIsLoopback()
    {
        QFETCH(QString, address);
        QFETCH(bool, loopback);
        QCOMPARE(isLoopbackListenAddress(address.toStdString()), loopback);
    }

    // Without TLS the bearer token would travel in clear text: off loopback the agent refuses
    // to start (and says why) unless --insecure is given.
    void plaintextOffLoopbackNeedsInsecure()
    {
        const QStringList args{QStringLiteral("--backend"),    QStringLiteral("sim"),
                               QStringLiteral("--listen"),     QStringLiteral("0.0.0.0:0"),
                               QStringLiteral("--token-file"), dir() + QStringLiteral("/token")};
        QProcess refused;
        refused.start(binary("DL2_AGENT"), args);
        QVERIFY(refused.waitForFinished(30'000));
        QCOMPARE(refused.exitCode(), 2);
        const QByteArray why = refused.readAllStandardError();
        QVERIFY2(why.contains("refusing to listen on 0.0.0.0:0 without TLS"), why.constData());
        QVERIFY2(why.contains("clear text") && why.contains("--insecure") &&
                     why.contains("--tls-cert"),
                 why.constData());
        QVERIFY(refused.readAllStandardOutput().isEmpty()); // never listened

        QProcess insecure;
        insecure.start(binary("DL2_AGENT"), args + QStringList{QStringLiteral("--insecure")});
        QVERIFY(insecure.waitForStarted(10'000));
        QByteArray out;
        for (int i = 0; i < 100 && !out.contains("listening on 0.0.0.0:"); ++i) {
            insecure.waitForReadyRead(100);
            out += insecure.readAllStandardOutput();
        }
        QVERIFY2(out.contains("listening on 0.0.0.0:"), out.constData());
        QVERIFY(insecure.readAllStandardError().contains("clear text"));
        insecure.terminate();
        QVERIFY(insecure.waitForFinished(10'000));
    }

    void tls()
    {
        QProcess openssl;
        openssl.start(QStringLiteral("openssl"),
                      {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
                       QStringLiteral("rsa:2048"), QStringLiteral("-nodes"),
                       QStringLiteral("-keyout"), dir() + QStringLiteral("/key.pem"),
                       QStringLiteral("-out"), dir() + QStringLiteral("/cert.pem"),
                       QStringLiteral("-days"), QStringLiteral("1"), QStringLiteral("-subj"),
                       QStringLiteral("/CN=localhost"), QStringLiteral("-addext"),
                       QStringLiteral("subjectAltName=IP:127.0.0.1")});
        if (!openssl.waitForStarted(5'000))
            QSKIP("openssl is not installed: cannot make a test certificate");
        QVERIFY(openssl.waitForFinished(30'000) && openssl.exitCode() == 0);
        Agent agent(dir(), {QStringLiteral("--tls-cert"), dir() + QStringLiteral("/cert.pem"),
                            QStringLiteral("--tls-key"), dir() + QStringLiteral("/key.pem")});
        const Run r = operate(dir(), agent.address(), 2,
                              {QStringLiteral("--tls-ca"), dir() + QStringLiteral("/cert.pem")});
        checkSummary(r);
        QVERIFY(r.summary.value(QStringLiteral("applied")).toInt() > 0);
        // Plaintext against a TLS agent fails within the retry budget, with a message.
        const Run plain = operate(dir(), agent.address(), 1,
                                  {QStringLiteral("--retry-seconds"), QStringLiteral("1")});
        QCOMPARE(plain.exitCode, 2);
        QVERIFY2(plain.err.contains("failed after"), plain.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestAgentFaults)
#include "tst_agentfaults.moc"
