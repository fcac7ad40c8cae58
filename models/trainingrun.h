#pragma once
// A short training in the background: runs `dl2-train rl|sl ...` (or `dl2 train rl|sl ...`)
// found next to the running executable as a child process (QProcess), reports its progress
// from the progress lines on its stderr, and cancels it the way a user would (SIGINT: the
// trainer stops cleanly, keeps its best checkpoint and writes its curves). The curves file
// (<output>.curves.csv) is what TrainingCurvesModel follows.

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>

namespace dl2console {

struct TrainingRequest
{
    QString algorithm = QStringLiteral("rl"); // "rl" (the paper's actor-critic) or "sl"
    QString scenario = QStringLiteral("dl2-small");
    QString policy = QStringLiteral("dl2");    // fresh networks: dl2 or dl2-plus
    QString init;                              // checkpoint to start from (optional)
    QString teacher = QStringLiteral("optimus"); // sl
    // sl: the targets ("sequence", the teacher's next task; "set", every task its allocation
    // still needs; "multi", the same as per-task binary ones); passed only when not the default.
    QString labels = QStringLiteral("sequence");
    // sl, dl2, fresh network: the network's weights tied across the window positions
    // (`--tie-window all`), so every position learns the same per-job rule; rl (the second
    // stage of SL, then RL): kept tied (`--tie-window`).
    bool tieWindow = false;
    // dl2, fresh network: the window J (jobs the network sees; the window teachers use the
    // same J); 0 = the scenario's. A checkpoint (init) brings its own.
    int window = 0;
    // dl2, fresh network: each job's workers and PSs also fed per type, normalised
    // (`--count-features per-type --normalise`); the count step scale needs it.
    bool perTypeCounts = false;
    QString exploration = QStringLiteral("paper"); // rl: job-aware rules, "paper" or "reference"
    // rl: how the choice of task is credited, "progress" (the paper's reward) or "remaining"
    // (weighted by what the job has left); passed only when not the default.
    QString taskCredit = QStringLiteral("progress");
    // rl, dl2: how the kind of task (worker, PS, bundle) chosen for a job is credited:
    // "sampled" (the chosen task's own return, the default), "expected" (every kind's exact
    // gain at the allocation it was added to) or "expected-balanced" (the same, each job type
    // weighted equally); the last two are passed with the `--task-marginal added` they need.
    QString kindCredit = QStringLiteral("sampled");
    // rl, dl2: how the choice of job is credited: "sampled" (the chosen task's own return, the
    // default), "expected" (every task of every window row by its exact gain, all-actions
    // gradient), "expected-stop" (stop and continue too), "lookahead-stop" (each task's gain
    // taken to the best allocation its job can still reach), "window-stop" (that, or its way
    // out of the window when jobs wait outside it) or "regret-stop" (the lookahead, each task
    // scored against its job's headroom); passed with `--task-marginal added`.
    QString rowCredit = QStringLiteral("sampled");
    // rl, dl2, with a row credit: each decision's gains over their own RMS (`--row-scale
    // decision`) instead of as they are.
    bool rowScalePerDecision = false;
    // rl, dl2, with a row credit that also credits stop: continuing credited with the best
    // task's gain (`--stop-credit best`) instead of the expected one.
    bool stopCreditBest = false;
    // rl: the shuffled-advantage control (`--control`): the same run with each batch's
    // advantages shuffled, so any gain the real run shows over it is learnt, not drift.
    bool control = false;
    // rl, tied dl2 (the second stage of SL, then RL): the type one-hot's and the per-type
    // count bits' weights take these times the policy's step (`--type-step-scale`,
    // `--count-step-scale`); passed only when not 1.
    double typeStepScale = 1.0, countStepScale = 1.0;
    // rl: the policy's optimizer, "adam" (the paper's) or "sgd" (plain gradient descent,
    // `--optimizer sgd`), and the learning rate (`--lr`; 0: the trainer's default); passed
    // only when not the default.
    QString optimizer = QStringLiteral("adam");
    double learningRate = 0.0;
    // rl: the learning rate falls linearly to 0 over the run (`--lr-anneal linear`).
    bool lrAnnealLinear = false;
    int steps = 200;
    int validateEvery = 20;
    QString validationSeeds = QStringLiteral("100-104");
    quint64 seed = 1;
    QString output; // checkpoint to write; required
    QStringList extraArguments;

    // The sub-command's arguments ("rl --scenario ... -o OUTPUT"), without "train".
    QStringList arguments() const;
    // Whether a row credit also credits stop against continuing (expected-stop, lookahead-stop,
    // window-stop, regret-stop): only then does --stop-credit apply.
    static bool rowCreditCreditsStop(const QString &rowCredit);
    QString curvesFile() const { return output + QStringLiteral(".curves.csv"); }
    // The same request as its control: `control` set, written next to `output` as
    // <name>-control.dl2ckpt.
    TrainingRequest controlRequest() const;
};

class TrainingRun : public QObject
{
    Q_OBJECT
public:
    enum class State
    {
        Idle,
        Running,
        Cancelling,
        Finished,
        Cancelled,
        Failed
    };
    Q_ENUM(State)

    explicit TrainingRun(QObject *parent = nullptr);
    ~TrainingRun() override; // cancels a running training and waits for it (briefly)

    // Where to look for dl2-train / dl2 (default: the running executable's directory and,
    // for a build tree, ../cli next to it).
    void setSearchDirectories(const QStringList &directories);
    QStringList searchDirectories() const { return m_directories; }
    // The program and its leading arguments: {"/dir/dl2-train"} or {"/dir/dl2", "train"};
    // empty if neither exists.
    QStringList trainCommand() const;

    // Starts the training; false (and errorString()) if one is running or nothing to run.
    bool start(const TrainingRequest &request);
    // SIGINT, then a kill if it has not stopped after `graceMs`.
    void cancel(int graceMs = 15000);
    bool isRunning() const { return m_state == State::Running || m_state == State::Cancelling; }
    State state() const { return m_state; }
    const TrainingRequest &request() const { return m_request; }
    QString commandLine() const { return m_commandLine; }
    long long step() const { return m_step; }
    long long totalSteps() const { return m_total; }
    double elapsedSeconds() const;
    QString errorString() const { return m_error; }
    // The trainer's result lines ("best validation avg JCT ... at step ...").
    QString summary() const { return m_summary.join(QLatin1Char('\n')); }

Q_SIGNALS:
    void started();
    void progressChanged(long long step, long long total);
    void stateChanged(dl2console::TrainingRun::State state);
    void finished(dl2console::TrainingRun::State state);

private:
    void readStderr();
    void readStdout();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void setState(State state);

    QStringList m_directories;
    QProcess *m_process = nullptr;
    QTimer m_killTimer;
    QElapsedTimer m_clock;
    double m_finalSeconds = 0.0;
    TrainingRequest m_request;
    QString m_commandLine;
    State m_state = State::Idle;
    long long m_step = 0;
    long long m_total = 0;
    QByteArray m_errBuffer, m_outBuffer;
    QStringList m_errTail, m_summary;
    QString m_error;
};

} // namespace dl2console
