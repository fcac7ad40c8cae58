// dl2 train sl|rl: supervised warm-up from a teacher, then reinforcement learning.
// Ctrl-C stops cleanly: the last good (best-on-validation) checkpoint stays in place and the
// latest state goes to CKPT.resume (checkpointwriter.h), which --resume continues from.
// --world-size/--rank/--master run it as one rank of a distributed training (distributed.h);
// --nproc N starts N local ranks of it and waits for them.
#include "command.h"
#include "common.h"
#include "progressbar.h"

#include "checkpoint.h"
#include "checkpointwriter.h"
#include "distributed.h"
#include "error.h"
#include "learner.h"
#include "registerpolicies.h"
#include "rltrainer.h"
#include "sltrainer.h"
#ifdef DL2_HAVE_ONLINE
#include "fromaudit.h"
#endif

#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QStringList>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <functional>
#include <cstdio>
#include <memory>

namespace dl2::cli {

namespace {

std::atomic<bool> g_stop{false};

extern "C" void onSigint(int)
{
    g_stop = true;
    std::signal(SIGINT, SIG_DFL); // a second Ctrl-C kills
}

void addCommonTrainOptions(QCommandLineParser &p)
{
    p.addHelpOption();
    p.addOption({opt("scenario"), opt("Scenario to train on (default dl2-reference)."), opt("NAME"), opt("dl2-reference")});
    addSpeedOptions(p); // train (and validate) on measured speeds, as dl2 simulate does
    p.addOption({opt("policy"), opt("Policy kind: dl2 (faithful) or dl2-plus (default dl2)."), opt("KIND"), opt("dl2")});
    p.addOption({opt("steps"), opt("Number of updates."), opt("N")});
    p.addOption({opt("seed"), opt("Seed of network initialisation and sampling (default 1)."), opt("N"), opt("1")});
    p.addOption({{opt("o"), opt("output")}, opt("Checkpoint to write (best on validation); CKPT.resume next to it holds the run's latest state, for --resume."), opt("CKPT")});
    p.addOption({opt("val-seeds"), opt("Validation trace seeds (default 100-109)."), opt("A-B"), opt("100-109")});
    p.addOption({opt("train-seed-base"), opt("First training trace seed (default 1000)."), opt("N"), opt("1000")});
    p.addOption({opt("validate-every"), opt("Validate every N updates."), opt("N")});
    p.addOption({opt("threads"), opt("Threads for validation runs (default 1)."), opt("N"), opt("1")});
    p.addOption({opt("lr"), opt("Learning rate: Adam's step (default: SL 0.005, actor-critic 1e-4, ES 0.02), or with --optimizer sgd the gradient's factor."), opt("X")});
    p.addOption({opt("batch"), opt("Batch size (default 256)."), opt("N"), opt("256")});
    p.addOption({opt("buffer"), opt("Sample / replay buffer size (default 8192)."), opt("N"), opt("8192")});
    p.addOption({opt("hidden"), opt("Hidden layer sizes H1,H2 (fresh networks)."), opt("H1,H2")});
    p.addOption({opt("raw-type"), opt("dl2: feed the raw type id (reference code) instead of one-hot (paper).")});
    p.addOption({opt("normalise"), opt("dl2: normalise features (not in the reference).")});
    p.addOption({opt("count-features"), opt("dl2: how a job's workers and PSs are fed: scalar (the paper: the two counts) or per-type (also one bit per job type and level, type = t and count >= c, c = 2..16: lets the network stop at each type's own count)."), opt("MODE"), opt("scalar")});
    p.addOption({opt("window"), opt("dl2: the window J, jobs the network sees and adds tasks to (default: the scenario's, 40 on dl2-reference; the window teachers use the same J)."), opt("J")});
    p.addOption({opt("best-setting-features"),
                 opt("dl2-plus: add each job's gap to its fastest setting on the cluster's speed "
                     "model (the measured table) to its features (policyspec.h).")});
    p.addOption({opt("weights-only"), opt("Do not store the optimizer state (small files for shipping).")});
    p.addOption({opt("resume"), opt("Continue the run that wrote this checkpoint from its latest state, CKPT.resume (rewritten at every validation, at the end and on Ctrl-C; CKPT itself when there is none): weights, optimizer state, step, random-number state, best so far, curves. Give the run's options again: any that differs from the recorded recipe is refused, by name (--steps may grow; same world size, except ES)."), opt("CKPT")});
    // Distributed training (README "Training on several machines").
    p.addOption({opt("world-size"), opt("Distributed: number of cooperating processes (ranks) on all hosts (default 1)."), opt("N"), opt("1")});
    p.addOption({opt("rank"), opt("Distributed: this process's rank, 0 to N-1; rank 0 holds the rendezvous store and alone writes the checkpoint and curves."), opt("R")});
    p.addOption({opt("master"), opt("Distributed: rank 0's address and store port (default 127.0.0.1:29500)."), opt("HOST:PORT")});
    p.addOption({opt("nproc"), opt("Start N local ranks of this command (127.0.0.1, a free port unless --master is given) and wait for them."), opt("N")});
    p.addOption({opt("timeout"), opt("Distributed: seconds without an answer after which a rank is treated as failed (default 120)."), opt("S"), opt("120")});
}

// --world-size, --rank, --master, --timeout (not --nproc).
DistributedOptions distributedFromOptions(const QCommandLineParser &p)
{
    DistributedOptions d;
    d.worldSize = parsePositiveInt(p, opt("world-size"), 1, 4096);
    if (d.worldSize > 1 && !p.isSet(opt("rank")))
        throw Error("--world-size " + std::to_string(d.worldSize) + " needs --rank R (0-" +
                    std::to_string(d.worldSize - 1) + ") or use --nproc for local ranks");
    if (p.isSet(opt("rank")))
        d.rank = parsePositiveInt(p, opt("rank"), 0, d.worldSize - 1);
    if (p.isSet(opt("master")))
        parseMaster(p.value(opt("master")).toStdString(), d, "--master");
    d.timeoutSeconds = parseDouble(p, opt("timeout"), 0.5, 86400.0);
    return d;
}

// A port nobody listens on at the moment (the kernel's choice), for --nproc without --master.
int freeLocalPort()
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = 0;
    if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr *>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    if (port == 0)
        throw Error("--nproc: no free local port (give --master 127.0.0.1:PORT)");
    return port;
}

// --nproc N: this command N times as ranks 0..N-1 of one run; exits with the first failure.
// Ctrl-C in the terminal reaches every rank (one process group), which stop together.
int launchLocalRanks(const QCommandLineParser &p, const QStringList &args)
{
    if (p.isSet(opt("rank")) || p.isSet(opt("world-size")))
        throw Error("--nproc starts its own ranks: drop --rank and --world-size");
    const int n = parsePositiveInt(p, opt("nproc"), 1, 256);
    QString master = p.value(opt("master"));
    if (master.isEmpty())
        master = QStringLiteral("127.0.0.1:") + QString::number(freeLocalPort());
    QStringList base;
    base << args[0].section(QLatin1Char(' '), -1); // "sl" or "rl"
    for (int i = 1; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QStringLiteral("--nproc") || a == QStringLiteral("--master")) {
            ++i; // and its value
            continue;
        }
        if (a.startsWith(QStringLiteral("--nproc=")) || a.startsWith(QStringLiteral("--master=")))
            continue;
        base << a;
    }
    std::signal(SIGINT, SIG_IGN); // the ranks get Ctrl-C themselves and stop cleanly
    std::vector<std::unique_ptr<QProcess>> ranks;
    for (int r = 0; r < n; ++r) {
        auto proc = std::make_unique<QProcess>();
        proc->setProcessChannelMode(QProcess::ForwardedChannels);
        QStringList a = base;
        a << QStringLiteral("--world-size") << QString::number(n) << QStringLiteral("--rank")
          << QString::number(r) << QStringLiteral("--master") << master;
        proc->start(QCoreApplication::applicationFilePath(), a);
        if (!proc->waitForStarted())
            throw Error("--nproc: cannot start rank " + std::to_string(r) + ": " +
                        proc->errorString().toStdString());
        ranks.push_back(std::move(proc));
    }
    int code = 0;
    for (int r = 0; r < n; ++r) {
        QProcess &proc = *ranks[size_t(r)];
        proc.waitForFinished(-1);
        const int c = proc.exitStatus() == QProcess::CrashExit ? 128 : proc.exitCode();
        if (proc.exitStatus() == QProcess::CrashExit)
            std::fprintf(stderr, "dl2 train: rank %d was killed\n", r);
        if (code == 0 && c != 0)
            code = c;
    }
    return code;
}

std::optional<PolicySpec> specFromOptions(const QCommandLineParser &p, PolicyKind kind, const std::string &scenario)
{
    if (!p.isSet(opt("hidden")) && !p.isSet(opt("raw-type")) && !p.isSet(opt("normalise")) &&
        !p.isSet(opt("best-setting-features")) && !p.isSet(opt("window")) &&
        !p.isSet(opt("count-features")))
        return std::nullopt;
    PolicySpec s = defaultSpec(kind, scenarioByName(scenario).window, 8);
    if (p.isSet(opt("hidden"))) {
        const QStringList parts = p.value(opt("hidden")).split(QLatin1Char(','));
        bool ok1 = false, ok2 = false;
        if (parts.size() == 2) {
            s.hidden1 = parts[0].toInt(&ok1);
            s.hidden2 = parts[1].toInt(&ok2);
        }
        if (!ok1 || !ok2 || s.hidden1 < 1 || s.hidden2 < 1 || s.hidden1 > 4096 || s.hidden2 > 4096)
            throw Error("--hidden: expected H1,H2 (1-4096), got '" + p.value(opt("hidden")).toStdString() + "'");
    }
    if (p.isSet(opt("window"))) {
        if (kind != PolicyKind::Dl2)
            throw Error("--window: only for --policy dl2 (dl2-plus sees every job)");
        s.window = parsePositiveInt(p, opt("window"), 1, 1024);
    }
    if (p.isSet(opt("raw-type")))
        s.features.oneHotType = false;
    if (p.isSet(opt("normalise")))
        s.features.normalise = true;
    if (p.isSet(opt("count-features"))) {
        try {
            s.features.counts = countFeaturesFromString(p.value(opt("count-features")).toStdString());
        } catch (const Error &e) {
            throw Error(std::string("--count-features: ") + e.what());
        }
        if (kind != PolicyKind::Dl2 && s.features.counts != CountFeatures::Scalar)
            throw Error("--count-features per-type: only for --policy dl2");
    }
    if (p.isSet(opt("best-setting-features"))) {
        if (kind != PolicyKind::Dl2Plus)
            throw Error("--best-setting-features: only for --policy dl2-plus");
        s.features.bestSetting = true;
    }
    return s;
}

std::vector<std::uint64_t> seedsOption(const QCommandLineParser &p, const char *name)
{
    const auto seeds = parseSeeds(p.value(opt(name)));
    if (seeds.empty())
        throw Error(std::string("--") + name + ": no seeds");
    return seeds;
}

void printResult(const TrainResult &r)
{
    std::printf("best validation avg JCT %.3f slots at step %lld%s\n", r.bestValidationAvgJct,
                r.bestStep, r.cancelled ? " (stopped by Ctrl-C)" : "");
    if (r.teacherValidationAvgJct > 0) {
        std::printf("teacher validation avg JCT %.3f slots; agreement %.3f (chance %.3f); ",
                    r.teacherValidationAvgJct, r.agreement, r.chanceAgreement);
        if (r.secondsToTeacher5 >= 0)
            std::printf("within 5%% of teacher after %.1f s\n", r.secondsToTeacher5);
        else
            std::printf("never within 5%% of teacher\n");
    }
    if (r.studentSlots > 0)
        std::printf("training slots: %lld acted on by the teacher, %lld by the student (DAgger)\n",
                    r.teacherSlots, r.studentSlots);
    if (!r.checkpoint.empty() && QFileInfo::exists(QString::fromStdString(r.checkpoint)))
        std::printf("checkpoint %s (curves: %s.curves.csv/.json); latest state %s.resume\n",
                    r.checkpoint.c_str(), r.checkpoint.c_str(), r.checkpoint.c_str());
    else if (!r.checkpoint.empty()) // a resumed run that never beat the best it inherited
        std::printf("no validation beat the resumed run's best (step %lld): %s not written; "
                    "curves %s.curves.csv/.json, latest state %s.resume\n",
                    r.bestStep, r.checkpoint.c_str(), r.checkpoint.c_str(), r.checkpoint.c_str());
}

TrainProgress progressTo(ProgressBar &bar)
{
    return [&bar](long long step, long long, const CurvePoint &p) {
        char extra[160];
        if (p.validationAvgJct >= 0)
            std::snprintf(extra, sizeof extra, "loss %.4f val-jct %.3f", p.trainLoss, p.validationAvgJct);
        else
            std::snprintf(extra, sizeof extra, "loss %.4f", p.trainLoss);
        bar.update(step, extra);
    };
}

// The options `train sl` and `train rl` share (SlOptions and RlOptions name them alike).
template <typename Options>
void readCommonOptions(const QCommandLineParser &p, Options &o)
{
    o.profiles = profilesFromOptions(p);
    o.validationSeeds = seedsOption(p, "val-seeds");
    o.trainSeedBase = std::uint64_t(parsePositiveInt(p, opt("train-seed-base"), 0, 2000000000));
    if (p.isSet(opt("validate-every")))
        o.validateEvery = parsePositiveInt(p, opt("validate-every"), 1, 100000000);
    o.threads = parsePositiveInt(p, opt("threads"), 1, 256);
    if (p.isSet(opt("lr")))
        o.learningRate = parseDouble(p, opt("lr"), 1e-9, 1.0);
    o.batchSize = parsePositiveInt(p, opt("batch"), 1, 65536);
    o.bufferSize = parsePositiveInt(p, opt("buffer"), 1, 10000000);
    o.saveOptimizer = !p.isSet(opt("weights-only"));
    o.resume = p.value(opt("resume")).toStdString();
    if (!p.isSet(opt("o")))
        throw Error("-o CKPT is required");
    o.output = p.value(opt("o")).toStdString();
}

// Runs a trainer with a progress bar; Ctrl-C stops it cleanly (last good checkpoint kept).
// Distributed: joins the other ranks' store first and reads this rank's inputs (`options`)
// only then, so that bad input is reported to the others by rank; only rank 0 shows progress
// and the result, an error of this rank is left for the others to report.
template <typename Trainer, typename Options>
int train(const char *label, const std::function<Options()> &options, const DistributedOptions &d)
{
    setTorchThreads(1);
    std::signal(SIGINT, onSigint);
    const bool lead = d.rank == 0;
    Options o;
    try {
        if (d.worldSize > 1) {
            auto comm = Communicator::connect(d, [&] { o = options(); });
            o.comm = std::move(comm);
        } else {
            o = options();
        }
        std::unique_ptr<ProgressBar> bar;
        if (lead) {
            long long first = 0; // a resumed run's rate counts its own updates only
            if (!o.resume.empty())
                first = readResumeCheckpoint(o.resume).info.resume.step;
            bar = std::make_unique<ProgressBar>(label, o.steps, "steps", first);
        }
        const TrainResult r = Trainer(o).run(bar ? progressTo(*bar) : TrainProgress(), &g_stop);
        if (o.comm)
            o.comm->finish();
        if (bar) {
            if (r.cancelled)
                bar->stopAt(r.lastStep, "stopped by Ctrl-C");
            else
                bar->finish();
        }
        if (lead)
            printResult(r);
        else if (r.cancelled)
            std::printf("rank %d stopped by Ctrl-C\n", d.rank);
    } catch (const std::exception &e) {
        if (o.comm)
            o.comm->reportError(e.what());
        if (d.worldSize > 1)
            throw Error("rank " + std::to_string(d.rank) + ": " + e.what());
        throw;
    }
    return 0;
}

int trainFromAuditCommand(const QCommandLineParser &p)
{
#ifdef DL2_HAVE_ONLINE
    AuditSlOptions o;
    o.audit = p.value(opt("from-audit")).toStdString();
    if (!QFileInfo::exists(p.value(opt("from-audit"))))
        throw Error("--from-audit: no such audit log '" + o.audit + "'");
    o.init = resolveCheckpoint(p.value(opt("init")).toStdString());
    if (o.init.empty() && p.isSet(opt("policy")))
        o.kind = policyKindFromString(p.value(opt("policy")).toStdString());
    o.profiles = profilesFromOptions(p);
    if (p.isSet(opt("steps")))
        o.steps = parsePositiveInt(p, opt("steps"), 1, 100000000);
    if (p.isSet(opt("lr")))
        o.learningRate = parseDouble(p, opt("lr"), 1e-9, 1.0);
    if (p.isSet(opt("labels")))
        o.labels = p.value(opt("labels")).toStdString();
    if (p.isSet(opt("override-weight")))
        o.overrideWeight = parsePositiveInt(p, opt("override-weight"), 1, 1000);
    o.batchSize = parsePositiveInt(p, opt("batch"), 1, 65536);
    o.seed = std::uint64_t(parsePositiveInt(p, opt("seed"), 0, 2000000000));
    o.saveOptimizer = !p.isSet(opt("weights-only"));
    if (!p.isSet(opt("o")))
        throw Error("-o CKPT is required");
    o.output = p.value(opt("o")).toStdString();
    setTorchThreads(1);
    std::signal(SIGINT, onSigint);
    ProgressBar bar("train sl --from-audit", o.steps, "steps");
    long long last = 0; // every update reports: where Ctrl-C stopped it
    const TrainProgress show = progressTo(bar);
    const AuditSlReport r = trainFromAudit(
        o,
        [&](long long step, long long total, const CurvePoint &p) {
            last = step;
            show(step, total, p);
        },
        &g_stop);
    if (g_stop && last < o.steps)
        bar.stopAt(last, "stopped by Ctrl-C");
    else
        bar.finish();
    std::printf("%s", r.toText().c_str());
    return 0;
#else
    (void)p;
    throw Error("--from-audit: this dl2-train was built without the connectors (audit log)");
#endif
}

int runSl(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(opt("Supervised warm-up: imitate a teacher scheduler (docs/model.md section 6)."));
    addCommonTrainOptions(p);
    p.addOption({opt("teacher"), opt("Teacher: drf, fifo, srtf, optimus, best-config, or for dl2 a window teacher optimus-window-R or best-config-window-R, R = nocap, 0, 25, 50, 75, 100 (the base's allocation within dl2's window, see windowteacher.h) (default drf)."), opt("NAME"), opt("drf")});
    p.addOption({opt("teacher-order"), opt("Order the teacher's tasks are replayed in: auto, share, arrival, remaining, random (one needed task at a time), random-jobs (each job's tasks in turn, the jobs in random order)."), opt("ORDER"), opt("auto")});
    p.addOption({opt("no-window-shuffle"), opt("dl2: train on the window's rows in arrival order (by default they are shuffled in every batch, the paper's augmentation).")});
    p.addOption({opt("tie-window"), opt("dl2: tie the network's weights across the window positions for the first N updates (or 'all'), so every position learns the same per-job function; the network stays the paper's flat one and trains freely afterwards (default: never). With --init, only from a checkpoint trained with --tie-window all."), opt("N")});
    p.addOption({opt("tie-init"), opt("dl2, a fresh network with --tie-window: layer (default) starts the tied weights at the default initialisation's scale of the whole flat layer, which leaves each window position's own hidden units with weights sqrt(J) times smaller than a per-job network's; job starts them at a per-job network's scale (fan-in: the position's own inputs and the layer's global units)."), opt("NAME")});
    p.addOption({opt("labels"), opt("SL targets: sequence (the teacher's next task, default), set (uniform over every task its allocation still needs), multi (the same set, per-action binary cross-entropy) or wfirst (multi, a job's workers before its PSs)."), opt("KIND"), opt("sequence")});
    p.addOption({opt("init"), opt("Start from this checkpoint's weights (e.g. a previous SL run)."), opt("CKPT")});
    p.addOption({opt("dagger"), opt("Slot-level DAgger: after a pure-teacher phase the student acts on a fraction 1-beta of the training slots; the teacher labels every slot.")});
    p.addOption({opt("dagger-start"), opt("Pure-teacher updates before DAgger (default steps/5, 0 with --init)."), opt("N")});
    p.addOption({opt("dagger-decay"), opt("beta = DECAY^((step - start)/100) (default 0.5)."), opt("X")});
    p.addOption({opt("dagger-beta-min"), opt("Floor of beta (default 0)."), opt("X")});
    p.addOption({opt("dagger-tasks"), opt("Experimental (made dl2 worse, see core/learning/README.md): with --dagger and --labels set|multi, also label every decision of the student's slots.")});
    p.addOption({opt("dagger-refresh"), opt("Refresh the acting student's weights every N updates (default 10)."), opt("N")});
    p.addOption({opt("from-audit"), opt("Learn from the operators instead of a teacher: every decision of this audit log (schema 3) the gate approved, overrode or rejected becomes a label (the state the policy saw, the allocation finally applied). Starts from --init (default: the shipped policy the log was operated with, or of --policy); --steps (default 300), --lr (default 1e-4); --labels set (default), multi or student."), opt("AUDIT.db")});
    p.addOption({opt("override-weight"), opt("With --from-audit: a slot with an operator's override counts N times (default 4)."), opt("N")});
    int code = 0;
    if (!parseOrExit(p, args, code))
        return code;
    if (p.isSet(opt("from-audit")))
        return guarded("train sl --from-audit", [&] { return trainFromAuditCommand(p); });
    // Every input but the distributed options, read after joining the others (train()).
    const std::function<SlOptions()> read = [&] {
        SlOptions o;
        o.scenario = p.value(opt("scenario")).toStdString();
        scenarioByName(o.scenario);
        o.kind = policyKindFromString(p.value(opt("policy")).toStdString());
        o.teacher = p.value(opt("teacher")).toStdString();
        const auto isTeacher = [](const std::string &t) {
            for (const char *base : {"drf", "fifo", "srtf", "optimus", "best-config"})
                if (t == base)
                    return true;
            for (const char *base : {"optimus-window-", "best-config-window-"})
                for (const char *rule : {"nocap", "0", "25", "50", "75", "100"})
                    if (t == std::string(base) + rule)
                        return true;
            return false;
        };
        if (!isTeacher(o.teacher))
            throw Error("--teacher: expected drf, fifo, srtf, optimus, best-config, optimus-window-R or "
                        "best-config-window-R (R = nocap, 0, 25, 50, 75, 100), got '" + o.teacher + "'");
        o.teacherOrder = p.value(opt("teacher-order")).toStdString();
        o.labels = p.value(opt("labels")).toStdString();
        if (o.labels != "sequence" && o.labels != "set" && o.labels != "multi" && o.labels != "wfirst")
            throw Error("--labels: expected sequence, set, multi or wfirst, got '" + o.labels + "'");
        o.init = resolveCheckpoint(p.value(opt("init")).toStdString());
        o.spec = specFromOptions(p, o.kind, o.scenario);
        if (!o.init.empty()) {
            if (o.spec)
                throw Error("--init: the network shape comes from the checkpoint (drop --hidden/--raw-type/--normalise/--count-features/--best-setting-features/--window)");
            o.kind = readCheckpoint(o.init).spec.kind;
        }
        o.shuffleWindow = !p.isSet(opt("no-window-shuffle"));
        if (!o.shuffleWindow && o.kind != PolicyKind::Dl2)
            throw Error("--no-window-shuffle: only for --policy dl2 (dl2-plus has no window rows)");
        if (p.isSet(opt("tie-init")))
            o.tieInit = p.value(opt("tie-init")).toStdString();
        if (p.isSet(opt("tie-window"))) {
            if (o.kind != PolicyKind::Dl2)
                throw Error("--tie-window: only for --policy dl2 (dl2-plus shares its job network already)");
            o.tieWindowSteps = p.value(opt("tie-window")) == opt("all")
                                   ? -1
                                   : parsePositiveInt(p, opt("tie-window"), 1, 100000000);
        }
        o.dagger = p.isSet(opt("dagger"));
        o.daggerTasks = p.isSet(opt("dagger-tasks"));
        if (o.daggerTasks && (!o.dagger || (o.labels != "set" && o.labels != "multi")))
            throw Error("--dagger-tasks needs --dagger and --labels set or multi");
        if (p.isSet(opt("dagger-start")))
            o.daggerStart = parsePositiveInt(p, opt("dagger-start"), 0, 100000000);
        if (p.isSet(opt("dagger-decay")))
            o.daggerDecay = parseDouble(p, opt("dagger-decay"), 0.0, 1.0);
        if (p.isSet(opt("dagger-beta-min")))
            o.daggerBetaMin = parseDouble(p, opt("dagger-beta-min"), 0.0, 1.0);
        if (p.isSet(opt("dagger-refresh")))
            o.daggerRefresh = parsePositiveInt(p, opt("dagger-refresh"), 1, 100000000);
        if (p.isSet(opt("steps")))
            o.steps = parsePositiveInt(p, opt("steps"), 1, 100000000);
        o.seed = std::uint64_t(parsePositiveInt(p, opt("seed"), 0, 2000000000));
        readCommonOptions(p, o);
        return o;
    };
    return guarded("train sl", [&] {
        if (p.isSet(opt("nproc"))) {
            read(); // bad input fails here, once
            return launchLocalRanks(p, args);
        }
        return train<SlTrainer>("train sl", read, distributedFromOptions(p));
    });
}

int runRl(const QStringList &args)
{
    QCommandLineParser p;
    p.setApplicationDescription(opt("Reinforcement learning: actor-critic (replay, job-aware exploration), or evolution strategies."));
    addCommonTrainOptions(p);
    p.addOption({opt("init"), opt("Start from this checkpoint (e.g. the SL warm-up)."), opt("CKPT")});
    p.addOption({opt("envs"), opt("Parallel simulation environments (default 1)."), opt("N"), opt("1")});
    p.addOption({opt("ablation"), opt("no-value, no-exploration, no-replay, per-action-reward (repeat or comma-separate)."), opt("NAME")});
    p.addOption({opt("replay"), opt("uniform (default), prioritised or none."), opt("MODE"), opt("uniform")});
    p.addOption({opt("entropy"), opt("Entropy bonus weight (default 0.1)."), opt("X")});
    p.addOption({opt("epsilon"), opt("Job-aware exploration probability of the paper's rules (default 0.4; --exploration reference has its own)."), opt("X")});
    p.addOption({opt("discount"), opt("Bootstrap across slots with this x V(next slot) (default 0 = the reference's per-slot return); with --credit episode or episode-job, the discount of the return (default 1)."), opt("X")});
    p.addOption({opt("critic-warmup"), opt("Updates that train only the value network first (default 200)."), opt("N")});
    p.addOption({opt("value-lr"), opt("Adam learning rate of the value network (its own optimizer; default 1e-3)."), opt("X")});
    p.addOption({opt("lr-anneal"), opt("The policy's learning rate over the run: constant (default, the reference's) or linear (beyond the paper: from --lr at the actor's first update down towards 0 at the last, so the steps that drift a policy past its best shrink; a resume that grows --steps stretches it)."), opt("NAME")});
    p.addOption({opt("optimizer"), opt("The policy's optimizer: adam (default, the reference's: every weight steps by about --lr, whatever its gradient) or sgd (beyond the paper: plain gradient descent, each weight steps by --lr x its gradient, so weights whose gradient is mostly noise hardly move; try --lr 1e-3). The value network keeps its Adam."), opt("NAME")});
    p.addOption({opt("credit"), opt("split (default: stop-or-continue from the slot return, the task from its counterfactual return), slot (the paper: every decision gets the slot return), episode (--envs rollouts of one trace to its end per update; a decision gets its rollout's JCT still to come minus the rollouts' mean from its slot: an input-dependent baseline, no critic, no replay) or episode-job (the same rollouts; the choice of task is credited with its job's completion slot against that job's mean over the rollouts) or vine (a trunk rollout advances a slot per update; --envs branches replay that slot with their own random numbers and play on with common ones; every decision of the slot gets its branch's JCT still to come minus the branches' mean)."), opt("NAME"), opt("split")});
    p.addOption({opt("keep"), opt("--credit episode or episode-job: share of the decisions trained on (default 0.01; a dl2-reference rollout makes about 70,000)."), opt("X")});
    p.addOption({opt("horizon"), opt("--credit vine: slots each branch plays after the branch slot (default 0 = to the end of the trace)."), opt("N")});
    p.addOption({opt("streams"), opt("--credit vine: random streams each allocation of the branch slot is played on with and averaged over (default 1); --envs / M allocations."), opt("M")});
    p.addOption({opt("continuation"), opt("--credit vine: how the trunk and the slots after the branch slot play: sample (default: the policy as it trains) or greedy (its arg max without exploration, the policy as deployed with --decode greedy: every branch's return is the exact value of its allocation; one stream)."), opt("MODE")});
    p.addOption({opt("kl"), opt("Trust region: add X x KL(warm-up || policy) to the policy loss, the warm-up being the --init policy (default 0 = none)."), opt("X")});
    p.addOption({opt("control"), opt("Control run: shuffle the policy's advantages across each batch (what learning must beat).")});
    p.addOption({opt("tie-window"), opt("dl2: keep the policy's weights tied across the window positions while it trains, so that what one position's decisions teach every position learns (the network stays the paper's flat one). The --init checkpoint must be tied throughout (dl2 train sl --tie-window all).")});
    p.addOption({opt("type-step-scale"), opt("dl2 with --tie-window, beyond the paper: the weights from each window position's type one-hot to its own first-layer units take X times the learning rate's step (default 1). A DRF warm-up leaves the type's path small, and the actor-critic moves the shared output biases first."), opt("X")});
    p.addOption({opt("count-step-scale"), opt("dl2 with --tie-window and --count-features per-type, beyond the paper: the same for the weights from each window position's per-type count bits (type = t and count >= c), through which the network can stop at each type's own counts (default 1)."), opt("X")});
    p.addOption({opt("task-credit"), opt("--credit split: how the choice of task is credited: progress (default: its counterfactual share of the slot's normalised progress, the paper's reward) or remaining (the same divided by its job's remaining share, at most 20x: shortest-remaining-time weighting) or time (the slots of its job's training it saves: the same divided by the job's progress per slot, at most 1)."), opt("NAME")});
    p.addOption({opt("task-marginal"), opt("--credit split: where a task's counterfactual is taken: final (default: its job's progress with its final allocation minus without that task, so every task of a kind gets the last one's gain) or added (its job's gain from it at the allocation it was added to: the first worker of a job is credited with what the first worker adds)."), opt("WHERE")});
    p.addOption({opt("kind-credit"), opt("--credit split with --task-marginal added: how the kind of task chosen for a job is credited: sampled (default: the chosen task's return against the batch mean, like the choice of job) or expected (beyond the paper: every kind's exact return at that allocation, so the choice of kind gets the all-actions gradient and a job's kinds are compared with each other) or expected-balanced (the same, each job type's kind terms weighted to the same total in every batch, so rare types are not taught the common types' kind) or every-row (with any --row-credit other than sampled: every window row's kind at every decision, by the all-actions gradient of the row's own worker/PS/bundle mix on the row credit's gains, however unlikely the row is to be picked)."), opt("NAME")});
    p.addOption({opt("row-credit"), opt("--credit split with --task-marginal added: how the choice of job is credited: sampled (default: the chosen task's return) or expected (beyond the paper: every task of every window row is credited with its exact gain at the allocations when the decision was taken, and the choice among them gets the all-actions gradient) or expected-stop (also stop or continue: stop with 0, continue with the expected gain of the task it would add, in place of the slot return against the critic) or lookahead-stop (expected-stop with each task's gain taken to the best progress its job can still reach by adding tasks after it, so the policy learns to stop growing a job at its best allocation) or window-stop (dl2 only: lookahead-stop where, when jobs trained the slot outside the window, a job's reach also counts its way out of it: at both caps its row goes to a job that waits, worth those jobs' mean gain to their best) or regret-stop (lookahead-stop where the choice among tasks is taught each task's regret, its gain minus its job's headroom to its best: every task that keeps its job's best within reach scores 0, whichever the job, so the order among jobs, which matters little on an uncontended cluster, gets no gradient and only tasks past a job's best are pushed down)."), opt("NAME")});
    p.addOption({opt("row-scale"), opt("With a row credit other than sampled: batch (default: the gains as they are, the batch's spread setting the step) or decision (beyond the paper: each decision's gains over their own RMS across its allowed tasks, so the last tasks of a slot, which set each job's final allocation, are ranked as firmly as the first)."), opt("NAME")});
    p.addOption({opt("stop-credit"), opt("With --row-credit expected-stop, lookahead-stop, window-stop or regret-stop, what continuing is credited with against stop's 0: expected (default: the expected gain of the task the policy would add) or best (beyond the paper: the best gain among the tasks it could add, so a policy that favours tasks that lose is taught to move to one that gains rather than to stop the slot for every job)."), opt("NAME")});
    p.addOption({opt("exploration"), opt("Job-aware exploration rules: paper (default: the corrective task in poor states, with probability --epsilon) or reference (the authors' code: far more overrides)."), opt("RULES")});
    p.addOption({opt("stop-epsilon"), opt("Probability that a decision is replaced by stop during training (default 0)."), opt("X")});
    p.addOption({opt("kind-epsilon"), opt("dl2, beyond the paper: probability that the task a training decision adds is replaced by one of its job's allowed tasks (worker, PS, bundle) drawn uniformly, so every kind keeps being tried on every job type (default 0)."), opt("X")});
    p.addOption({opt("kind-entropy"), opt("dl2, beyond the paper: add X x the entropy of each window row's mix of worker, PS and bundle to the policy's objective, next to --entropy's mean over all actions, which barely sees that mix (default 0)."), opt("X")});
    p.addOption({opt("importance-clip"), opt("Weight replayed/explored samples by pi/mu clipped to [0, X]; 0 (default) = full weight, as the reference."), opt("X")});
    p.addOption({opt("decode"), opt("How the trained policy decides when deployed and validated (es: also while it is scored): sample (default for dl2 with the actor-critic, as the reference; es keeps the --init checkpoint's) or greedy."), opt("MODE")});
    p.addOption({opt("reward"), opt("progress (reference) or unfinished (minus unfinished jobs per slot); default: dl2 progress, dl2-plus unfinished."), opt("KIND")});
    p.addOption({opt("algorithm"), opt("actor-critic (default, the paper's) or es (evolution strategies on the output layer of an --init policy, objective = the avg JCT of the policy decoded as --decode says; see core/learning/README.md)."), opt("NAME"), opt("actor-critic")});
    p.addOption({opt("es-pairs"), opt("es: antithetic direction pairs per iteration (default 8)."), opt("N")});
    p.addOption({opt("es-traces"), opt("es: training traces per iteration (default 4)."), opt("N")});
    p.addOption({opt("es-sigma"), opt("es: perturbation scale (default 0.1)."), opt("X")});
    p.addOption({opt("es-scope"), opt("es: head (output layer, default), bias (its biases only) or all (every weight of the policy network; wants many --es-pairs, i.e. several ranks)."), opt("NAME")});
    p.addOption({opt("hash-every"), opt("Distributed actor-critic: compare a hash of every rank's weights every K updates (default 50); a mismatch stops the run."), opt("K")});
    int code = 0;
    if (!parseOrExit(p, args, code))
        return code;
    // Every input but the distributed options, read after joining the others (train()).
    const std::function<RlOptions()> read = [&] {
        RlOptions o;
        o.scenario = p.value(opt("scenario")).toStdString();
        scenarioByName(o.scenario);
        o.kind = policyKindFromString(p.value(opt("policy")).toStdString());
        o.init = resolveCheckpoint(p.value(opt("init")).toStdString());
        if (!o.init.empty()) {
            // The kind comes from the file.
            const Checkpoint c = readCheckpoint(o.init);
            o.kind = c.spec.kind;
        }
        o.spec = specFromOptions(p, o.kind, o.scenario);
        if (p.isSet(opt("steps")))
            o.steps = parsePositiveInt(p, opt("steps"), 1, 100000000);
        o.seed = std::uint64_t(parsePositiveInt(p, opt("seed"), 0, 2000000000));
        o.envs = parsePositiveInt(p, opt("envs"), 1, 64);
        for (const QString &v : p.values(opt("ablation")))
            for (const auto &a : parseList(v))
                o.ablations.push_back(a);
        checkAblations(o.ablations);
        o.replay = replayModeFromString(p.value(opt("replay")).toStdString());
        if (p.isSet(opt("entropy")))
            o.entropyWeight = parseDouble(p, opt("entropy"), 0.0, 100.0);
        if (p.isSet(opt("epsilon")))
            o.epsilon = parseDouble(p, opt("epsilon"), 0.0, 1.0);
        if (p.isSet(opt("discount")))
            o.discount = parseDouble(p, opt("discount"), 0.0, 1.0);
        if (p.isSet(opt("critic-warmup")))
            o.criticWarmup = parsePositiveInt(p, opt("critic-warmup"), 0, 100000000);
        if (p.isSet(opt("value-lr")))
            o.valueLearningRate = parseDouble(p, opt("value-lr"), 1e-9, 10.0);
        if (p.isSet(opt("lr-anneal")))
            o.lrAnneal = p.value(opt("lr-anneal")).toStdString(); // the trainer checks the names
        if (p.isSet(opt("optimizer")))
            o.optimizer = p.value(opt("optimizer")).toStdString();
        o.credit = p.value(opt("credit")).toStdString();
        checkCredit(o.credit);
        if (p.isSet(opt("keep"))) {
            if (o.credit != "episode" && o.credit != "episode-job")
                throw Error("--keep applies to --credit episode and episode-job only");
            o.episodeKeep = parseDouble(p, opt("keep"), 1e-6, 1.0);
        }
        if (p.isSet(opt("horizon"))) {
            if (o.credit != "vine")
                throw Error("--horizon applies to --credit vine only");
            o.vineHorizon = parsePositiveInt(p, opt("horizon"), 0, 100000);
        }
        if (p.isSet(opt("streams"))) {
            if (o.credit != "vine")
                throw Error("--streams applies to --credit vine only");
            o.vineStreams = parsePositiveInt(p, opt("streams"), 1, 64);
        }
        if (p.isSet(opt("continuation"))) {
            if (o.credit != "vine")
                throw Error("--continuation applies to --credit vine only");
            // The continuation decodes as --decode does: the same two names.
            o.vineGreedy = decodeFromString(p.value(opt("continuation")).toStdString()) == Decode::Greedy;
        }
        if (p.isSet(opt("kl")))
            o.klWeight = parseDouble(p, opt("kl"), 0.0, 1e6);
        o.control = p.isSet(opt("control"));
        o.tieWindow = p.isSet(opt("tie-window"));
        if (p.isSet(opt("task-credit"))) {
            o.taskCredit = p.value(opt("task-credit")).toStdString();
            checkTaskCredit(o.taskCredit);
        }
        if (p.isSet(opt("task-marginal")))
            o.taskMarginal = p.value(opt("task-marginal")).toStdString();
        if (p.isSet(opt("kind-credit")))
            o.kindCredit = p.value(opt("kind-credit")).toStdString();
        if (p.isSet(opt("row-credit")))
            o.rowCredit = p.value(opt("row-credit")).toStdString();
        if (p.isSet(opt("row-scale")))
            o.rowScale = p.value(opt("row-scale")).toStdString();
        if (p.isSet(opt("stop-credit")))
            o.stopCredit = p.value(opt("stop-credit")).toStdString();
        if (p.isSet(opt("exploration")))
            o.exploration = explorationFromString(p.value(opt("exploration")).toStdString());
        // The code's rules fire with their own probabilities: a value here would be ignored.
        if (p.isSet(opt("epsilon")) && o.epsilon > 0.0 && o.exploration == Exploration::Reference)
            throw Error("--epsilon sets how often the paper's exploration rules fire; --exploration "
                        "reference (the authors' code's rules) fires with its own probabilities "
                        "and would ignore it (--ablation no-exploration switches either off)");
        if (p.isSet(opt("stop-epsilon")))
            o.stopEpsilon = parseDouble(p, opt("stop-epsilon"), 0.0, 1.0);
        if (p.isSet(opt("kind-epsilon")))
            o.kindEpsilon = parseDouble(p, opt("kind-epsilon"), 0.0, 1.0);
        if (p.isSet(opt("type-step-scale")))
            o.typeStepScale = parseDouble(p, opt("type-step-scale"), 1e-3, 1000.0);
        if (p.isSet(opt("count-step-scale")))
            o.countStepScale = parseDouble(p, opt("count-step-scale"), 1e-3, 1000.0);
        if (p.isSet(opt("kind-entropy")))
            o.kindEntropyWeight = parseDouble(p, opt("kind-entropy"), 0.0, 100.0);
        if (p.isSet(opt("importance-clip")))
            o.importanceClip = parseDouble(p, opt("importance-clip"), 0.0, 1000.0);
        if (p.isSet(opt("decode")))
            o.decode = decodeFromString(p.value(opt("decode")).toStdString());
        if (p.isSet(opt("reward"))) {
            const QString r = p.value(opt("reward"));
            if (r != opt("progress") && r != opt("unfinished"))
                throw Error("--reward: expected progress or unfinished, got '" + r.toStdString() + "'");
            o.unfinishedJobsReward = r == opt("unfinished");
        }
        o.algorithm = p.value(opt("algorithm")).toStdString();
        if (o.algorithm != "actor-critic" && o.algorithm != "es")
            throw Error("--algorithm: expected actor-critic or es, got '" + o.algorithm + "'");
        if (o.algorithm == "es" && !p.isSet(opt("lr")))
            o.learningRate = 0.02;
        if (o.algorithm == "es" && (p.isSet(opt("optimizer")) || p.isSet(opt("lr-anneal"))))
            throw Error(std::string(p.isSet(opt("optimizer")) ? "--optimizer" : "--lr-anneal") +
                        " applies to the actor-critic: es takes Adam steps along its ranked directions");
        if (p.isSet(opt("es-pairs")))
            o.esPairs = parsePositiveInt(p, opt("es-pairs"), 1, 10000);
        if (p.isSet(opt("es-traces")))
            o.esTraces = parsePositiveInt(p, opt("es-traces"), 1, 10000);
        if (p.isSet(opt("es-sigma")))
            o.esSigma = parseDouble(p, opt("es-sigma"), 1e-9, 100.0);
        if (p.isSet(opt("es-scope")))
            o.esScope = p.value(opt("es-scope")).toStdString();
        if (p.isSet(opt("hash-every")))
            o.hashEvery = parsePositiveInt(p, opt("hash-every"), 1, 100000000);
        readCommonOptions(p, o);
        return o;
    };
    return guarded("train rl", [&] {
        if (p.isSet(opt("nproc"))) {
            read(); // bad input fails here, once
            return launchLocalRanks(p, args);
        }
        return train<RlTrainer>("train rl", read, distributedFromOptions(p));
    });
}

int runTrain(const QStringList &args)
{
    if (args.size() < 2 || (args[1] != opt("sl") && args[1] != opt("rl"))) {
        std::fprintf(stderr, "Usage: dl2 train sl|rl [options]   (dl2 train sl --help)\n");
        return args.size() >= 2 && (args[1] == opt("--help") || args[1] == opt("-h")) ? 0 : kExitBadInput;
    }
    QStringList sub = args.mid(1);
    sub[0] = args[0] + QLatin1Char(' ') + args[1];
    return args[1] == opt("sl") ? runSl(sub) : runRl(sub);
}

} // namespace

static CommandRegistration trainRegistration{
    {"train", "train the learned scheduler (sl: imitate a teacher, rl: reinforcement learning)", runTrain}};

} // namespace dl2::cli
