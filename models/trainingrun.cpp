#include "trainingrun.h"

#include "companions.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#ifdef Q_OS_UNIX
#include <csignal>
#include <sys/types.h>
#endif

namespace dl2console {

namespace {

constexpr int kTailLines = 30;

// "train rl 40/200 (20%) 3.1 steps/s ETA 0m52s loss ..." (the CLI's non-terminal progress).
const QRegularExpression &progressPattern()
{
    static const QRegularExpression re(QStringLiteral("(\\d+)/(\\d+) \\(\\d+%\\)"));
    return re;
}

} // namespace

bool TrainingRequest::rowCreditCreditsStop(const QString &rowCredit)
{
    return rowCredit.endsWith(QLatin1String("-stop"));
}

QStringList TrainingRequest::arguments() const
{
    QStringList a{algorithm,
                  QStringLiteral("--scenario"), scenario,
                  QStringLiteral("--steps"), QString::number(steps),
                  QStringLiteral("--validate-every"), QString::number(validateEvery),
                  QStringLiteral("--val-seeds"), validationSeeds,
                  QStringLiteral("--seed"), QString::number(seed)};
    if (!init.isEmpty())
        a << QStringLiteral("--init") << init;
    else {
        a << QStringLiteral("--policy") << policy;
        if (window > 0 && policy == QLatin1String("dl2"))
            a << QStringLiteral("--window") << QString::number(window);
        if (perTypeCounts && policy == QLatin1String("dl2"))
            a << QStringLiteral("--count-features") << QStringLiteral("per-type")
              << QStringLiteral("--normalise");
    }
    if (algorithm == QLatin1String("sl")) {
        a << QStringLiteral("--teacher") << teacher;
        if (labels != QLatin1String("sequence"))
            a << QStringLiteral("--labels") << labels;
        if (tieWindow && init.isEmpty() && policy == QLatin1String("dl2"))
            a << QStringLiteral("--tie-window") << QStringLiteral("all");
    } else {
        a << QStringLiteral("--exploration") << exploration;
        if (taskCredit != QLatin1String("progress"))
            a << QStringLiteral("--task-credit") << taskCredit;
        // The kind and row credits beyond the paper both need the task marginal "added".
        const bool kindBeyond = kindCredit != QLatin1String("sampled");
        const bool rowBeyond = rowCredit != QLatin1String("sampled");
        if (kindBeyond || rowBeyond)
            a << QStringLiteral("--task-marginal") << QStringLiteral("added");
        if (kindBeyond)
            a << QStringLiteral("--kind-credit") << kindCredit;
        if (rowBeyond)
            a << QStringLiteral("--row-credit") << rowCredit;
        if (rowBeyond && rowScalePerDecision)
            a << QStringLiteral("--row-scale") << QStringLiteral("decision");
        if (stopCreditBest && rowCreditCreditsStop(rowCredit))
            a << QStringLiteral("--stop-credit") << QStringLiteral("best");
        // The second stage of SL, then RL: the actor-critic keeps the warm-up's tied weights
        // tied (a warm-up trained untied is refused by the trainer).
        if (tieWindow && policy == QLatin1String("dl2")) {
            a << QStringLiteral("--tie-window");
            if (typeStepScale != 1.0)
                a << QStringLiteral("--type-step-scale") << QString::number(typeStepScale);
            if (countStepScale != 1.0)
                a << QStringLiteral("--count-step-scale") << QString::number(countStepScale);
        }
        if (optimizer != QLatin1String("adam"))
            a << QStringLiteral("--optimizer") << optimizer;
        if (learningRate > 0.0)
            a << QStringLiteral("--lr") << QString::number(learningRate, 'g', 12);
        if (lrAnnealLinear)
            a << QStringLiteral("--lr-anneal") << QStringLiteral("linear");
        if (control)
            a << QStringLiteral("--control");
    }
    a << extraArguments << QStringLiteral("-o") << output;
    return a;
}

TrainingRequest TrainingRequest::controlRequest() const
{
    TrainingRequest c = *this;
    c.control = true;
    const QString suffix = QStringLiteral(".dl2ckpt");
    const QString stem = output.endsWith(suffix) ? output.left(output.size() - suffix.size()) : output;
    c.output = stem + QStringLiteral("-control") + suffix;
    return c;
}

TrainingRun::TrainingRun(QObject *parent) : QObject(parent)
{
    m_directories = companionDirectories();
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        if (m_process)
            m_process->kill();
    });
}

TrainingRun::~TrainingRun()
{
    if (!m_process)
        return;
    disconnect(m_process, nullptr, this, nullptr);
    if (m_process->state() != QProcess::NotRunning) {
#ifdef Q_OS_UNIX
        ::kill(pid_t(m_process->processId()), SIGINT);
        if (!m_process->waitForFinished(5000))
#endif
        {
            m_process->kill();
            m_process->waitForFinished(2000);
        }
    }
}

void TrainingRun::setSearchDirectories(const QStringList &directories)
{
    m_directories = directories;
}

QStringList TrainingRun::trainCommand() const
{
    // dl2-train first (the training commands may live in their own executable), then dl2.
    for (const auto &[name, lead] : {std::pair{QStringLiteral("dl2-train"), QStringList()},
                                     std::pair{QStringLiteral("dl2"),
                                               QStringList{QStringLiteral("train")}}})
        if (const QString found = findCompanion(name, m_directories, false); !found.isEmpty())
            return QStringList{found} + lead;
    return {};
}

double TrainingRun::elapsedSeconds() const
{
    return isRunning() && m_clock.isValid() ? m_clock.elapsed() / 1000.0 : m_finalSeconds;
}

bool TrainingRun::start(const TrainingRequest &request)
{
    if (isRunning()) {
        m_error = tr("a training is already running");
        return false;
    }
    m_error.clear();
    if (request.output.isEmpty()) {
        m_error = tr("no output checkpoint given");
        return false;
    }
    const QStringList command = trainCommand();
    if (command.isEmpty()) {
        m_error = tr("neither dl2-train nor dl2 found in %1")
                      .arg(m_directories.join(QStringLiteral(", ")));
        return false;
    }
    const QString dir = QFileInfo(request.output).absolutePath();
    if (!QDir().mkpath(dir)) {
        m_error = tr("cannot create the directory %1").arg(QDir::toNativeSeparators(dir));
        return false;
    }
    m_request = request;
    m_step = 0;
    m_total = request.steps;
    m_errBuffer.clear();
    m_outBuffer.clear();
    m_errTail.clear();
    m_summary.clear();
    m_finalSeconds = 0.0;

    delete m_process;
    m_process = new QProcess(this);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("DL2_PROGRESS_SECONDS"), QStringLiteral("0.5")); // finer progress
    m_process->setProcessEnvironment(env);
    connect(m_process, &QProcess::readyReadStandardError, this, &TrainingRun::readStderr);
    connect(m_process, &QProcess::readyReadStandardOutput, this, &TrainingRun::readStdout);
    connect(m_process, &QProcess::finished, this, &TrainingRun::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            m_error = tr("could not start %1: %2").arg(m_commandLine, m_process->errorString());
            m_finalSeconds = 0.0;
            setState(State::Failed);
            Q_EMIT finished(m_state);
        }
    });
    const QStringList arguments = command.mid(1) + request.arguments();
    m_commandLine = QFileInfo(command.front()).fileName() + QLatin1Char(' ') +
                    arguments.join(QLatin1Char(' '));
    m_clock.start();
    setState(State::Running);
    Q_EMIT started();
    Q_EMIT progressChanged(m_step, m_total);
    m_process->start(command.front(), arguments); // a failure to start ends in finished(Failed)
    return true;
}

void TrainingRun::cancel(int graceMs)
{
    if (m_state != State::Running || !m_process)
        return;
    setState(State::Cancelling);
#ifdef Q_OS_UNIX
    // Like Ctrl-C: the trainer stops after its current update, keeps its best checkpoint.
    ::kill(pid_t(m_process->processId()), SIGINT);
#else
    m_process->terminate();
#endif
    m_killTimer.start(graceMs);
}

void TrainingRun::readStderr()
{
    m_errBuffer += m_process->readAllStandardError();
    qsizetype nl;
    while ((nl = m_errBuffer.indexOf('\n')) >= 0) {
        QByteArray raw = m_errBuffer.left(nl);
        m_errBuffer.remove(0, nl + 1);
        // A terminal progress bar redraws with \r; keep the last redraw.
        const qsizetype cr = raw.lastIndexOf('\r', raw.size() - 2);
        const QString line = QString::fromUtf8(cr >= 0 ? raw.mid(cr + 1) : raw).trimmed();
        if (line.isEmpty())
            continue;
        const auto match = progressPattern().match(line);
        if (match.hasMatch()) {
            const long long step = match.captured(1).toLongLong();
            const long long total = match.captured(2).toLongLong();
            if (total > 0 && (step != m_step || total != m_total)) {
                m_step = step;
                m_total = total;
                Q_EMIT progressChanged(m_step, m_total);
            }
            continue;
        }
        m_errTail << line;
        if (m_errTail.size() > kTailLines)
            m_errTail.removeFirst();
    }
}

void TrainingRun::readStdout()
{
    m_outBuffer += m_process->readAllStandardOutput();
    qsizetype nl;
    while ((nl = m_outBuffer.indexOf('\n')) >= 0) {
        const QString line = QString::fromUtf8(m_outBuffer.left(nl)).trimmed();
        m_outBuffer.remove(0, nl + 1);
        if (!line.isEmpty())
            m_summary << line;
    }
}

void TrainingRun::onFinished(int exitCode, QProcess::ExitStatus status)
{
    m_killTimer.stop();
    readStderr();
    readStdout();
    m_finalSeconds = m_clock.isValid() ? m_clock.elapsed() / 1000.0 : 0.0;
    if (m_state == State::Cancelling) {
        setState(State::Cancelled);
    } else if (status == QProcess::NormalExit && exitCode == 0) {
        setState(State::Finished);
    } else {
        const QString last = m_errTail.isEmpty() ? QString() : m_errTail.back();
        m_error = status == QProcess::CrashExit
                      ? tr("%1 crashed").arg(m_commandLine)
                      : tr("training failed (exit code %1): %2").arg(exitCode).arg(last);
        setState(State::Failed);
    }
    Q_EMIT finished(m_state);
}

void TrainingRun::setState(State state)
{
    if (state == m_state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

} // namespace dl2console
