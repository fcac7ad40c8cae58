#include "learnerprocess.h"

#include "auditlog.h"
#include "companions.h"
#include "error.h"
#include "learnerwire.h"
#include "logging.h"
#include "policyplanner.h"
#ifdef DL2_CONSOLE_LEARNING
#include "checkpoint.h"
#include "dl2policy.h"
#include "onlineacting.h"
#include "registerpolicies.h"
#endif

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <sys/resource.h>

namespace dl2console {

namespace {
constexpr std::uint64_t kSeed = 1; // the acting policy's and its reference's (common numbers)
}

QString LearningStatus::stateText() const
{
    switch (state) {
    case State::Off:
        return version > 0 ? QStringLiteral("learning off (v%1 decides)").arg(version)
                           : QStringLiteral("learning off");
    case State::Starting:
        return QStringLiteral("learning: starting");
    case State::Learning:
        return QStringLiteral("learning v%1").arg(version);
    case State::Paused:
        return QStringLiteral("learning paused (rolled back to v%1)").arg(version);
    case State::Failed:
        return QStringLiteral("learning failed (v%1 decides, frozen)").arg(version);
    }
    return {};
}

LearnerProcess::LearnerProcess(QObject *parent) : QObject(parent) {}

LearnerProcess::~LearnerProcess()
{
    detachActing();
    if (m_process) {
        m_process->disconnect(this);
        m_process->closeWriteChannel();
        if (!m_process->waitForFinished(3000)) {
            m_process->kill();
            m_process->waitForFinished(1000);
        }
    }
}

QString LearnerProcess::findProgram(const LearningSettings &settings)
{
    if (!settings.program.isEmpty()) {
        const QFileInfo info(settings.program);
        return info.isFile() && info.isExecutable() ? info.absoluteFilePath() : QString();
    }
    return findCompanion(QStringLiteral("dl2-train"));
}

std::unique_ptr<dl2::Scheduler> LearnerProcess::start(const LearningSettings &settings,
                                                      const QString &initCheckpoint,
                                                      dl2::AuditLog *audit)
{
#ifndef DL2_CONSOLE_LEARNING
    (void)settings;
    (void)initCheckpoint;
    (void)audit;
    throw dl2::Error("this console was built without the learned policies: nothing to learn");
#else
    m_settings = settings;
    m_audit = audit;
    const QString program = findProgram(settings);
    if (program.isEmpty())
        throw dl2::Error(
            settings.program.isEmpty()
                ? QStringLiteral("Learning needs dl2-train (the trainer), which is not next to "
                                 "the console (%1) nor on PATH")
                      .arg(QDir::toNativeSeparators(QCoreApplication::applicationDirPath()))
                      .toStdString()
                : QStringLiteral("Learning needs dl2-train: '%1' is not an executable file")
                      .arg(settings.program)
                      .toStdString());
    const std::string init = dl2::resolveCheckpoint(initCheckpoint.toStdString());
    const dl2::Checkpoint start = dl2::readCheckpoint(init); // throws, naming the file
    if (!QDir().mkpath(settings.directory))
        throw dl2::Error("cannot create the learning directory '" +
                         settings.directory.toStdString() + "'");
    auto acting = dl2::makeOnlineActingPolicy(
        start, kSeed, [this](const dl2::EncodedState &s, int action, float mu, int job) {
            m_captured.record(s, action, mu, job); // the changed row only: cheap
        });
    m_acting = acting.get();
    m_checkpoint = QString::fromStdString(init);

    m_process = new QProcess(this);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &LearnerProcess::onOutput);
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        m_errTail += m_process->readAllStandardError();
        if (m_errTail.size() > 4000)
            m_errTail = m_errTail.right(4000);
    });
    connect(m_process, &QProcess::finished, this, &LearnerProcess::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &LearnerProcess::onError);
    QStringList args{QStringLiteral("online-learner"),
                     QStringLiteral("--init"),
                     QString::fromStdString(init),
                     QStringLiteral("--dir"),
                     settings.directory,
                     QStringLiteral("--margin"),
                     QString::number(settings.margin),
                     QStringLiteral("--deadline-ms"),
                     QString::number(settings.deadlineMs),
                     QStringLiteral("--window"),
                     QString::number(settings.window),
                     QStringLiteral("--updates"),
                     QString::number(settings.updatesPerSlot),
                     QStringLiteral("--seed"),
                     QString::number(kSeed)};
    if (settings.sabotageVersion > 0)
        args << QStringLiteral("--debug-sabotage-version")
             << QString::number(settings.sabotageVersion);
    m_status = {};
    m_status.directory = settings.directory;
    setState(LearningStatus::State::Starting);
    qCInfo(lcLive) << "online learning:" << program << args.join(QLatin1Char(' '));
    // Below the console: the learner does not take the CPU the GUI and the decisions need.
    m_process->setChildProcessModifier([] { ::setpriority(PRIO_PROCESS, 0, 10); });
    m_process->start(program, args);
    m_status.pid = m_process->processId();
    event(QStringLiteral("learning started from %1 (versions in %2, margin %3 %, deadline %4 ms)")
              .arg(m_checkpoint, settings.directory)
              .arg(100.0 * settings.margin)
              .arg(settings.deadlineMs));
    return acting;
#endif
}

void LearnerProcess::detachActing()
{
#ifdef DL2_CONSOLE_LEARNING
    // The acting policy outlives this object (the planner owns it and keeps deciding, frozen):
    // it must stop reporting its inferences here.
    if (m_acting) {
        dl2::ActorOptions actor;
        actor.sample = true;
        m_acting->setActor(std::move(actor));
        m_acting = nullptr;
    }
#endif
    m_captured.clear();
}

void LearnerProcess::setPlanner(dl2::PolicyPlanner *planner)
{
    m_planner = planner;
    if (m_planner)
        m_planner->setVersion(dl2::PolicyPlanner::versionName(m_status.version));
}

void LearnerProcess::stop()
{
    if (!m_process)
        return;
    m_stopping = true;
    detachActing();
    m_process->closeWriteChannel(); // the child finishes its update and exits
    m_process->disconnect(this);
    connect(m_process, &QProcess::finished, m_process, &QObject::deleteLater);
    m_process->setParent(nullptr);
    m_process = nullptr;
    event(QStringLiteral("learning stopped by the operator: v%1 decides, frozen")
              .arg(m_status.version));
    setState(LearningStatus::State::Off);
}

void LearnerProcess::beforePlan(const dl2::ClusterView &view)
{
#ifdef DL2_CONSOLE_LEARNING
    m_captured.clear();
    m_nextSlot = view.nextSlot;
    m_plannedVersion = m_status.version;
    if (m_acting)
        m_acting->reseed(dl2::onlineSlotSeed(kSeed, view.nextSlot));
#else
    (void)view;
#endif
}

void LearnerProcess::afterSlot(const dl2::ClusterView &planned,
                               const std::vector<dl2::GateEntry> &entries)
{
    m_nextSlot = planned.nextSlot + 1;
    if (!m_process || m_process->state() == QProcess::NotRunning) {
        m_captured.clear();
        return;
    }
    dl2::LearnerSlotFrame frame;
    frame.view = planned;
    frame.entries = entries;
    frame.version = m_plannedVersion;
    frame.trace = m_captured.toBytes();
    m_captured.clear();
    try {
        m_process->write(dl2::encodeLearnerFrame(frame, m_planner ? m_planner->profiles()
                                                                  : dl2::ProfileSet::reference()));
    } catch (const std::exception &e) {
        fail(QStringLiteral("the slot could not be sent to the learner: %1")
                 .arg(QString::fromStdString(e.what())));
    }
}

void LearnerProcess::onOutput()
{
    if (!m_process)
        return;
    m_out += m_process->readAllStandardOutput();
    for (qsizetype nl; (nl = m_out.indexOf('\n')) >= 0;) {
        const QByteArray line = m_out.left(nl);
        m_out.remove(0, nl + 1);
        if (!line.trimmed().isEmpty())
            onLine(line);
        if (!m_process)
            return; // failed meanwhile
    }
}

void LearnerProcess::onLine(const QByteArray &line)
{
    const QJsonObject o = QJsonDocument::fromJson(line).object();
    const QString type = o.value(QStringLiteral("type")).toString();
    if (type == QLatin1String("ready")) {
        setState(LearningStatus::State::Learning);
    } else if (type == QLatin1String("version")) {
#ifdef DL2_CONSOLE_LEARNING
        const int version = o.value(QStringLiteral("version")).toInt();
        const QString path = o.value(QStringLiteral("checkpoint")).toString();
        try {
            const dl2::Checkpoint c = dl2::readCheckpoint(path.toStdString());
            if (m_acting) {
                m_acting->setParameters(c.parameters);
                m_acting->setValueEstimates(c.info.valueTrained);
            }
        } catch (const std::exception &e) {
            fail(QStringLiteral("version v%1 does not load (%2): learning stopped, v%3 decides")
                     .arg(version)
                     .arg(QString::fromStdString(e.what()))
                     .arg(m_status.version));
            return;
        }
        const bool rollback = version < m_status.version;
        m_status.version = version;
        m_checkpoint = path;
        if (m_planner)
            m_planner->setVersion(dl2::PolicyPlanner::versionName(version));
        Q_EMIT markAdded(LearningMark{m_nextSlot, version, rollback});
        Q_EMIT statusChanged(m_status);
#endif
    } else if (type == QLatin1String("event")) {
        const QString detail = o.value(QStringLiteral("detail")).toString();
        event(detail, o.value(QStringLiteral("after")).toObject());
        m_status.message = detail;
        Q_EMIT statusChanged(m_status);
    } else if (type == QLatin1String("point")) {
        LearningPoint p;
        p.slot = o.value(QStringLiteral("slot")).toInt();
        p.version = o.value(QStringLiteral("version")).toInt();
        p.reward = o.value(QStringLiteral("reward")).toDouble();
        p.reference = o.value(QStringLiteral("reference")).toDouble();
        p.rollingReward = o.value(QStringLiteral("rolling_reward")).toDouble();
        p.rollingReference = o.value(QStringLiteral("rolling_reference")).toDouble();
        p.used = o.value(QStringLiteral("used")).toBool(true);
        Q_EMIT pointAdded(p);
    } else if (type == QLatin1String("state")) {
        m_status.lastGood = o.value(QStringLiteral("last_good")).toInt();
        m_status.versions = o.value(QStringLiteral("versions")).toInt();
        m_status.rollbacks = o.value(QStringLiteral("rollbacks")).toInt();
        const bool paused = o.value(QStringLiteral("paused")).toBool();
        if (paused && m_status.state == LearningStatus::State::Learning)
            m_status.state = LearningStatus::State::Paused;
        Q_EMIT statusChanged(m_status);
    }
}

void LearnerProcess::onFinished(int exitCode, QProcess::ExitStatus status)
{
    if (m_stopping)
        return;
    QString why = QString::fromUtf8(m_errTail).trimmed();
    if (why.size() > 600)
        why = QStringLiteral("…") + why.right(600);
    fail(status == QProcess::CrashExit
             ? QStringLiteral("the learner (dl2-train) crashed%1").arg(why.isEmpty() ? QString() : QStringLiteral(": ") + why)
             : QStringLiteral("the learner (dl2-train) exited with code %1%2")
                   .arg(exitCode)
                   .arg(why.isEmpty() ? QString() : QStringLiteral(": ") + why));
}

void LearnerProcess::onError(QProcess::ProcessError error)
{
    if (error == QProcess::FailedToStart && !m_stopping)
        fail(QStringLiteral("the learner (dl2-train) did not start: %1")
                 .arg(m_process ? m_process->errorString() : QString()));
}

void LearnerProcess::fail(const QString &message)
{
    if (m_status.state == LearningStatus::State::Failed)
        return;
    QString text = message + QStringLiteral("; live operation continues with v%1, frozen")
                                 .arg(m_status.version);
    qCWarning(lcLive) << "online learning failed:" << text;
    detachActing();
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(1000);
        m_process->deleteLater();
        m_process = nullptr;
    }
    event(QStringLiteral("learning failed: ") + text);
    setState(LearningStatus::State::Failed, text);
    Q_EMIT failed(text);
}

void LearnerProcess::event(const QString &detail, const QJsonObject &after)
{
    if (!m_audit)
        return;
    try {
        m_audit->recordLearningEvent("learner", detail.toStdString(), after);
    } catch (const std::exception &e) {
        qCWarning(lcLive) << "audit log refused a learning event:" << e.what();
    }
}

void LearnerProcess::setState(LearningStatus::State state, const QString &message)
{
    m_status.state = state;
    if (!message.isEmpty())
        m_status.message = message;
    Q_EMIT statusChanged(m_status);
}

} // namespace dl2console
