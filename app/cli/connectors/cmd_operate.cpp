// dl2 operate --agent ADDR --token-file F --policy P [--rules FILE] --slots N --audit FILE [--json]
// The headless operating loop: policy -> decision gate -> audit log -> agent, one batch per
// slot; re-sends what an earlier run committed but never saw acknowledged; at the end checks
// the audit log against the agent's own record of applied decisions.
#include "command.h"
#include "common.h"
#include "decisionrecord.h"
#include "error.h"
#include "fileio.h"
#include "grpcconnector.h"
#include "operatingloop.h"
#include "simulatedconnector.h"

#ifdef DL2_HAVE_LEARNING
#include "registerpolicies.h"
#endif
#ifdef DL2_HAVE_ONLINE
#include "learner.h"
#include "onlinelearner.h"
#endif

#include <QCoreApplication>
#include <QFileInfo>
#include <QStandardPaths>
#include <cerrno>
#include <cstring>
#include <unistd.h>

#include <QRegularExpression>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>
#include <utility>

namespace dl2::cli {

namespace {

std::string readToken(const QString &path)
{
    if (path.isEmpty())
        throw Error("--token-file is required with a remote --agent");
    std::string token = readFile(path.toStdString());
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
        token.pop_back();
    if (token.empty())
        throw Error("token file '" + path.toStdString() + "' is empty");
    return token;
}

// A learned policy (dl2, dl2-plus) reports the probability of its actions and V(s): every
// decision carries them to the gate, the audit log and the agent. No-op for other policies.
void attachConfidence(PolicyPlanner &planner)
{
#ifdef DL2_HAVE_LEARNING
    if (!recordPolicyActions(planner.scheduler()))
        return;
    planner.setActionReader([](const Scheduler &scheduler) {
        std::vector<PolicyPlanner::PolicyAction> out;
        for (const PolicyActionSummary &a : lastPolicyActions(scheduler))
            out.push_back({a.jobId, a.placed, a.probability, a.value});
        return out;
    });
#else
    (void)planner;
#endif
}

// --override SLOT/JOB=PS,WORKERS: the operator's allocation for a job's decision of a slot.
struct PlannedOverride
{
    int slot = 0;
    int job = 0;
    int ps = 0;
    int workers = 0;
    std::string text;
};

PlannedOverride parseOverride(const QString &text)
{
    static const QRegularExpression form(QStringLiteral("^(\\d+)/(\\d+)=(\\d+),(\\d+)$"));
    const auto m = form.match(text.trimmed());
    if (!m.hasMatch())
        throw Error("--override '" + text.toStdString() +
                    "': expected SLOT/JOB=PS,WORKERS (e.g. 3/12=2,4)");
    return {m.captured(1).toInt(), m.captured(2).toInt(), m.captured(3).toInt(),
            m.captured(4).toInt(), text.trimmed().toStdString()};
}

// `dl2 operate --learn` needs the trainer, which only dl2-train links (libtorch): this process
// is replaced by `dl2-train operate ARGS` (same arguments, same exit codes).
[[maybe_unused]] int execLearningOperate(const QStringList &args)
{
    QString exe = QCoreApplication::applicationDirPath() + QStringLiteral("/dl2-train");
    if (!QFileInfo(exe).isExecutable())
        exe = QStandardPaths::findExecutable(QStringLiteral("dl2-train"));
    if (exe.isEmpty()) {
        std::fprintf(stderr, "dl2 operate: --learn needs dl2-train (the trainer), not found next "
                             "to %s or on PATH\n",
                     qPrintable(QCoreApplication::applicationFilePath()));
        return kExitBadInput;
    }
    std::vector<std::string> storage{exe.toStdString(), "operate"};
    for (qsizetype i = 1; i < args.size(); ++i)
        storage.push_back(args[i].toStdString());
    std::vector<char *> argv;
    for (auto &a : storage)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    ::execv(argv[0], argv.data());
    std::fprintf(stderr, "dl2 operate: cannot run %s: %s\n", argv[0], std::strerror(errno));
    return kExitBadInput;
}

// The command line of dl2 operate.
void addOperateOptions(QCommandLineParser &parser)
{
    parser.setApplicationDescription(QStringLiteral(
        "Operate a cluster through its agent: every slot the policy proposes allocations, the "
        "gate approves them (automatic, rules, or review with a deadline default), approved "
        "decisions are committed to the audit log, sent, and acknowledged. A restart resumes "
        "from the audit log (re-sends what was committed but not acknowledged, never decides a "
        "closed slot again). When the audit log refuses writes (full disk) nothing more is "
        "approved until it takes writes again. Exit code 1 when the audit log and the agent's "
        "record disagree (a decision lost or applied twice), 2 on an error."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("agent"),
         QStringLiteral("Agent address HOST:PORT, or 'local' for an in-process simulated cluster."),
         QStringLiteral("ADDR")},
        {QStringLiteral("token-file"), QStringLiteral("File holding the agent's bearer token."),
         QStringLiteral("F")},
        {QStringLiteral("tls-ca"), QStringLiteral("PEM root certificate: talk TLS to the agent."),
         QStringLiteral("PEM")},
        {QStringLiteral("policy"), QStringLiteral("Scheduling policy (default drf)."),
         QStringLiteral("P"), QStringLiteral("drf")},
        {QStringLiteral("checkpoint"),
         QStringLiteral("Policy file for dl2 / dl2-plus, or a shipped policy's name (dl2 policy "
                        "list); default: the shipped policy for --scenario."),
         QStringLiteral("FILE")},
        {QStringLiteral("mode"),
         QStringLiteral(
             "Gate mode: automatic, rules, review (default: rules with --rules, else automatic)."),
         QStringLiteral("M")},
        {QStringLiteral("rules"),
         QStringLiteral("JSON auto-approval rules (approve_scale_down, max_task_change, jobs)."),
         QStringLiteral("FILE")},
        {QStringLiteral("review-deadline-ms"),
         QStringLiteral("How long decisions wait for review (default 0)."), QStringLiteral("MS"),
         QStringLiteral("0")},
        {QStringLiteral("at-deadline"),
         QStringLiteral("Default at the deadline: keep (current allocation) or apply."),
         QStringLiteral("D"), QStringLiteral("keep")},
        {QStringLiteral("slots"), QStringLiteral("Slots to run in this invocation."),
         QStringLiteral("N"), QStringLiteral("10")},
        {QStringLiteral("audit"),
         QStringLiteral("Audit log (SQLite); created if missing, reused to resume."),
         QStringLiteral("FILE")},
        {QStringLiteral("deadline-ms"),
         QStringLiteral("Deadline of each call to the agent (default 5000)."), QStringLiteral("MS"),
         QStringLiteral("5000")},
        {QStringLiteral("retry-seconds"),
         QStringLiteral("Keep retrying an unreachable agent this long (default 30)."),
         QStringLiteral("S"), QStringLiteral("30")},
        {QStringLiteral("scenario"),
         QStringLiteral("With --agent local: the scenario (default dl2-small)."),
         QStringLiteral("S"), QStringLiteral("dl2-small")},
        {QStringLiteral("state-dir"),
         QStringLiteral("With --agent local: persist the cluster state here."),
         QStringLiteral("DIR")},
        {QStringLiteral("json"), QStringLiteral("Print the summary as JSON.")},
        {QStringLiteral("override"),
         QStringLiteral("SLOT/JOB=PS,WORKERS: when the batch of SLOT opens, override the policy's "
                        "decision for JOB with this allocation (approved as the operator's). The "
                        "gate checks it as in the console (caps, cluster totals, fit on the "
                        "nodes under the cluster's placement rule); a refusal is printed with "
                        "its reason and the decision keeps its verdict. Repeatable."),
         QStringLiteral("O")},
        {QStringLiteral("audit-wait-seconds"),
         QStringLiteral("When the audit log refuses writes (full disk): stop approving and wait "
                        "this long for it to take writes again before giving up (default 600)."),
         QStringLiteral("S"), QStringLiteral("600")},
        {QStringLiteral("debug-audit-full-file"),
         QStringLiteral(
             "Testing: every audit log write fails as on a full disk while FILE exists."),
         QStringLiteral("FILE")},
        {QStringLiteral("learn"),
         QStringLiteral("Fine-tune the learned policy (dl2, dl2-plus) while operating: the same "
                        "actor-critic as offline RL on the rewards the cluster reports, one "
                        "update between slots (never holding a decision past its deadline), "
                        "versioned checkpoints in --learn-dir, and a frozen reference in shadow "
                        "on a simulator mirror: if the rolling reward falls more than "
                        "--learn-margin below it, learning pauses and the last good version is "
                        "restored. Starts from --checkpoint (default: the shipped policy). Runs in "
                        "dl2-train.")},
        {QStringLiteral("learn-dir"),
         QStringLiteral("With --learn: where versions (vN.dl2ckpt) and the online curve go "
                        "(default: AUDIT.learn next to the audit log)."),
         QStringLiteral("DIR")},
        {QStringLiteral("learn-deadline-ms"),
         QStringLiteral("With --learn: an update's deadline; a late one is adopted a slot later "
                        "(default 1000)."),
         QStringLiteral("MS"), QStringLiteral("1000")},
        {QStringLiteral("learn-window"),
         QStringLiteral("With --learn: slots of the rolling rewards (default 10)."),
         QStringLiteral("N"), QStringLiteral("10")},
        {QStringLiteral("learn-margin"),
         QStringLiteral("With --learn: roll back when the rolling reward is more than this "
                        "fraction below the reference's (default 0.1)."),
         QStringLiteral("X"), QStringLiteral("0.1")},
        {QStringLiteral("learn-lr"),
         QStringLiteral("With --learn: policy learning rate (default 1e-4)."), QStringLiteral("X"),
         QStringLiteral("0.0001")},
        {QStringLiteral("learn-updates"),
         QStringLiteral("With --learn: updates per slot (default 4)."), QStringLiteral("N"),
         QStringLiteral("4")},
        {QStringLiteral("debug-sabotage-version"),
         QStringLiteral("Testing, with --learn: versions from N on are sabotaged (PS outputs +6 "
                        "logits), to see the rollback."),
         QStringLiteral("N"), QStringLiteral("0")},
        {QStringLiteral("debug-exit-after-commit"),
         QStringLiteral(
             "Testing: exit right after committing the batch of slot N, before sending it."),
         QStringLiteral("N"), QStringLiteral("-1")},
    });
}

#ifdef DL2_HAVE_ONLINE
// --learn: the online learner and the planner that runs its acting policy.
std::unique_ptr<OnlineLearner> makeLearner(const QCommandLineParser &parser,
                                           const QString &policyName,
                                           const SchedulerConfig &policyConfig,
                                           std::unique_ptr<PolicyPlanner> &planner)
{
    if (policyName != QLatin1String("dl2") && policyName != QLatin1String("dl2-plus"))
        throw Error("--learn needs a learned policy (--policy dl2 or dl2-plus), not '" +
                    policyName.toStdString() + "'");
    OnlineOptions lo;
    lo.init = !policyConfig.checkpoint.empty()
                  ? resolveCheckpoint(policyConfig.checkpoint)
                  : shippedPolicyPath(policyKindFromString(policyName.toStdString()),
                                      policyConfig.scenario, policyConfig.measuredSpeeds);
    lo.directory = parser.isSet(QStringLiteral("learn-dir"))
                       ? parser.value(QStringLiteral("learn-dir")).toStdString()
                       : parser.value(QStringLiteral("audit")).toStdString() + ".learn";
    lo.deadline = std::chrono::milliseconds(
        parsePositiveInt(parser, QStringLiteral("learn-deadline-ms"), 1, 86'400'000));
    lo.window = parsePositiveInt(parser, QStringLiteral("learn-window"), 1, 100'000);
    lo.margin = parseDouble(parser, QStringLiteral("learn-margin"), 0.0, 1.0);
    lo.learningRate = parseDouble(parser, QStringLiteral("learn-lr"), 1e-9, 1.0);
    lo.updatesPerSlot = parsePositiveInt(parser, QStringLiteral("learn-updates"), 1, 1000);
    lo.sabotageVersion =
        parsePositiveInt(parser, QStringLiteral("debug-sabotage-version"), 0, 1'000'000);
    setTorchThreads(1);
    auto learner = std::make_unique<OnlineLearner>(lo);
    planner = std::make_unique<PolicyPlanner>(learner->takeActingPolicy(), ProfileSet::reference());
    learner->setPlanner(planner.get());
    std::fprintf(stderr, "dl2 operate: learning online from %s: versions in %s\n", lo.init.c_str(),
                 lo.directory.c_str());
    return learner;
}
#endif

// A frozen policy's planner; the audit log names a frozen learned policy by its checkpoint's
// name.
std::unique_ptr<PolicyPlanner> frozenPlanner(const QString &policyName,
                                             const SchedulerConfig &policyConfig)
{
    auto planner = std::make_unique<PolicyPlanner>(policyName.toStdString(), policyConfig);
#ifdef DL2_HAVE_LEARNING
    if (policyName == QLatin1String("dl2") || policyName == QLatin1String("dl2-plus"))
        planner->setVersion(
            QFileInfo(
                QString::fromStdString(
                    policyConfig.checkpoint.empty()
                        ? shippedPolicyPath(policyKindFromString(policyName.toStdString()),
                                            policyConfig.scenario, policyConfig.measuredSpeeds)
                        : resolveCheckpoint(policyConfig.checkpoint)))
                .completeBaseName()
                .toStdString());
#endif
    return planner;
}

// --mode, --rules, --review-deadline-ms, --at-deadline.
DecisionGate::Options gateOptionsFrom(const QCommandLineParser &parser)
{
    bool ok = false;
    const int reviewMs = parser.value(QStringLiteral("review-deadline-ms")).toInt(&ok);
    if (!ok || reviewMs < 0)
        throw Error("--review-deadline-ms must be a non-negative integer");

    DecisionGate::Options gateOptions;
    if (parser.isSet(QStringLiteral("rules")))
        gateOptions.rules = GateRules::load(parser.value(QStringLiteral("rules")).toStdString());
    gateOptions.mode = parser.isSet(QStringLiteral("mode"))
                           ? gateModeFromString(parser.value(QStringLiteral("mode")).toStdString())
                       : parser.isSet(QStringLiteral("rules")) ? GateMode::Rules
                                                               : GateMode::Automatic;
    gateOptions.reviewDeadline = std::chrono::milliseconds(reviewMs);
    const QString atDeadline = parser.value(QStringLiteral("at-deadline"));
    if (atDeadline != QLatin1String("keep") && atDeadline != QLatin1String("apply"))
        throw Error("--at-deadline must be keep or apply");
    gateOptions.atDeadline = atDeadline == QLatin1String("apply") ? DeadlineDefault::Apply
                                                                  : DeadlineDefault::KeepCurrent;
    return gateOptions;
}

// --agent local (an in-process simulated cluster) or HOST:PORT (checked at once: a wrong token
// or an unreachable agent fails here).
std::unique_ptr<ClusterConnector> makeConnector(const QCommandLineParser &parser,
                                                const QString &agent, int deadlineMs,
                                                int retrySeconds)
{
    std::unique_ptr<ClusterConnector> connector;
    if (agent == QLatin1String("local")) {
        connector = std::make_unique<SimulatedConnector>(
            parser.value(QStringLiteral("scenario")).toStdString(), 1,
            parser.value(QStringLiteral("state-dir")).toStdString());
    } else {
        GrpcConnectorOptions o;
        o.address = agent.toStdString();
        o.token = readToken(parser.value(QStringLiteral("token-file")));
        o.tlsCaFile = parser.value(QStringLiteral("tls-ca")).toStdString();
        o.deadline = std::chrono::milliseconds(deadlineMs);
        o.retryBudget = std::chrono::seconds(retrySeconds);
        auto grpc = std::make_unique<GrpcConnector>(o);
        grpc->health(); // fails early on a wrong token or an unreachable agent
        connector = std::move(grpc);
    }
    return connector;
}

// A log that cannot be opened for writing (full disk) is waited for, as a refused write while
// running is.
std::unique_ptr<AuditLog> openAuditLog(const std::string &path, int waitSeconds,
                                       const std::function<void(const std::string &)> &notice)
{
    std::unique_ptr<AuditLog> auditLog;
    bool waiting = false;
    for (const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(waitSeconds);
         !auditLog;) {
        try {
            auditLog = std::make_unique<AuditLog>(path);
        } catch (const AuditWriteError &e) {
            if (std::chrono::steady_clock::now() >= until)
                throw;
            if (!std::exchange(waiting, true))
                notice(std::string(e.what()) + ": waiting for the audit log to take writes");
            std::this_thread::sleep_for(std::chrono::seconds(1));
        }
    }
    return auditLog;
}

struct OverrideCounts
{
    int applied = 0, refused = 0;
};

// When the batch of a slot opens: the --override decisions planned for it, approved as the
// operator's, or refused with the gate's reason.
void applyOverrides(DecisionGate &g, const std::vector<PlannedOverride> &overrides,
                    OverrideCounts &counts, const std::function<void(const std::string &)> &notice)
{
    for (const PlannedOverride &o : overrides) {
        if (o.slot != g.slot())
            continue;
        const auto entry =
            std::find_if(g.entries().begin(), g.entries().end(),
                         [&](const GateEntry &e) { return e.decision.job == o.job; });
        if (entry == g.entries().end()) {
            ++counts.refused;
            notice("override " + o.text + " refused: no decision for job " + std::to_string(o.job) +
                   " in the batch of slot " + std::to_string(o.slot) +
                   " (the policy kept its allocation)");
            continue;
        }
        try {
            g.override(entry->decision.id, o.ps, o.workers);
            ++counts.applied;
            notice("override " + o.text + ": job " + std::to_string(o.job) + " at " +
                   describe(Allocation{o.ps, o.workers, {}}) + ", approved");
        } catch (const Error &e) {
            std::string why = e.what();
            if (why.rfind("override: ", 0) == 0)
                why = why.substr(10);
            ++counts.refused;
            notice("override " + o.text + " refused: " + why);
        }
    }
}

#ifdef DL2_HAVE_ONLINE
// The learner's summary: into the JSON, and one line unless --json.
void reportLearning(OnlineLearner &learner, QJsonObject &out, bool json)
{
    QJsonObject l = learner.finish().toJson();
    l.remove(QStringLiteral("curve"));
    l.insert(QStringLiteral("directory"),
             QString::fromStdString(learner.checkpointPath(1)).section(QLatin1Char('/'), 0, -2));
    out.insert(QStringLiteral("learning"), l);
    if (!json) {
        const OnlineSummary &ls = learner.summary();
        std::printf("learning: %d versions (%d adopted, %d late), %d slots learned from, "
                    "%d changed by operators, %d rollbacks%s; in use v%d (last good v%d)\n",
                    ls.versions, ls.adopted, ls.lateUpdates, ls.slotsUsed, ls.slotsSkipped,
                    ls.rollbacks, ls.paused ? ", paused" : "", ls.version, ls.lastGood);
    }
}
#endif

// The run's summary (JSON with --json, else one line); exit code 1 when the audit log and the
// agent disagree.
int reportRun(const OperateSummary &summary, const QJsonObject &out, bool json,
              const std::string &agent, const std::string &runId)
{
    if (json) {
        printJson(out);
    } else {
        std::printf("%s, run %s: slots %d..%d, proposed %d, approved %d, rejected %d, applied %d, "
                    "resent %d, lost %d, duplicated %d%s\n",
                    agent.c_str(), runId.c_str(), summary.startSlot, summary.endSlot,
                    summary.proposed, summary.approved, summary.rejected, summary.applied,
                    summary.resent, summary.lost, summary.duplicated,
                    summary.done ? " (cluster done)" : "");
    }
    if (summary.lost || summary.duplicated || summary.unacknowledged || summary.unknownToAudit) {
        std::fprintf(stderr,
                     "dl2 operate: audit log and agent disagree: %d lost, %d duplicated, %d "
                     "unacknowledged, %d unknown to the audit log\n",
                     summary.lost, summary.duplicated, summary.unacknowledged,
                     summary.unknownToAudit);
        return 1;
    }
    return 0;
}

QString requiredValue(const QCommandLineParser &parser, const char *name, const char *what)
{
    const QString value = parser.value(QString::fromLatin1(name));
    if (value.isEmpty())
        throw Error(std::string("--") + name + " " + what + " is required");
    return value;
}

// --checkpoint and --scenario for the policy; a checkpoint only for a learned policy.
SchedulerConfig policyConfigFrom(const QCommandLineParser &parser, const QString &policyName)
{
    SchedulerConfig config;
    config.checkpoint = parser.value(QStringLiteral("checkpoint")).toStdString();
    config.scenario = parser.value(QStringLiteral("scenario")).toStdString();
    if (!config.checkpoint.empty() && policyName != QLatin1String("dl2") &&
        policyName != QLatin1String("dl2-plus"))
        throw Error("--checkpoint needs a learned --policy (dl2 or dl2-plus), got '" +
                    policyName.toStdString() + "'");
    return config;
}

// The loop's settings from the command line: test hooks, audit waits, the --override
// decisions and the per-slot progress line (unless --json).
void configureLoop(OperatingLoop &loop, const QCommandLineParser &parser, int auditWaitSeconds,
                   const std::function<void(const std::string &)> &notice,
                   const std::vector<PlannedOverride> &overrides, OverrideCounts &counts, bool json)
{
    loop.setExitAfterCommit(parser.value(QStringLiteral("debug-exit-after-commit")).toInt());
    loop.setAuditWait(std::chrono::seconds(auditWaitSeconds), std::chrono::seconds(1));
    loop.setNotice(notice);
    loop.setOnOpen([&overrides, &counts, notice](DecisionGate &g) {
        applyOverrides(g, overrides, counts, notice);
    });
    if (!json)
        loop.setProgress([](const OperateSummary &s) {
            std::printf("slot %d: %d proposed, %d approved, %d applied so far\n", s.endSlot - 1,
                        s.proposed, s.approved, s.applied);
            std::fflush(stdout);
            return true;
        });
}

// The run's JSON record (printed with --json): the summary and what it ran with.
QJsonObject runRecord(const OperateSummary &summary, const AuditLog &audit,
                      ClusterConnector &connector, const PolicyPlanner &planner,
                      const DecisionGate::Options &gateOptions, bool hadOverrides,
                      const OverrideCounts &overrideCounts)
{
    QJsonObject out = summary.toJson();
    out.insert(QStringLiteral("run_id"), QString::fromStdString(audit.runId()));
    out.insert(QStringLiteral("agent"), QString::fromStdString(connector.describe()));
    out.insert(QStringLiteral("policy"), QString::fromStdString(planner.policy()));
    out.insert(QStringLiteral("gate"), QString::fromLatin1(toString(gateOptions.mode)));
    if (hadOverrides) {
        out.insert(QStringLiteral("overrides_applied"), overrideCounts.applied);
        out.insert(QStringLiteral("overrides_refused"), overrideCounts.refused);
    }
    if (auto *g = dynamic_cast<GrpcConnector *>(&connector))
        out.insert(QStringLiteral("retries"), g->retries());
    return out;
}

int runOperate(const QStringList &args)
{
    QCommandLineParser parser;
    addOperateOptions(parser);
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
#ifndef DL2_HAVE_ONLINE
    if (parser.isSet(QStringLiteral("learn")))
        return execLearningOperate(args);
#endif
    return guarded("operate", [&] {
        const QString agent = requiredValue(parser, "agent", "HOST:PORT (or 'local')");
        const QString auditPath = requiredValue(parser, "audit", "FILE");
        const int slots = parsePositiveInt(parser, QStringLiteral("slots"), 1, 10'000'000);
        const QString policyName = parser.value(QStringLiteral("policy"));
        const SchedulerConfig policyConfig = policyConfigFrom(parser, policyName);
        // Before anything is opened: an unknown policy or a bad policy file fails here.
        std::unique_ptr<PolicyPlanner> plannerOwned;
#ifdef DL2_HAVE_ONLINE
        std::unique_ptr<OnlineLearner> learner;
        if (parser.isSet(QStringLiteral("learn")))
            learner = makeLearner(parser, policyName, policyConfig, plannerOwned);
#endif
        if (!plannerOwned)
            plannerOwned = frozenPlanner(policyName, policyConfig);
        PolicyPlanner &planner = *plannerOwned;
        attachConfidence(planner);
        const int deadlineMs =
            parsePositiveInt(parser, QStringLiteral("deadline-ms"), 1, 3'600'000);
        const int retrySeconds =
            parsePositiveInt(parser, QStringLiteral("retry-seconds"), 1, 86'400);
        const DecisionGate::Options gateOptions = gateOptionsFrom(parser);

        std::vector<PlannedOverride> overrides;
        for (const QString &o : parser.values(QStringLiteral("override")))
            overrides.push_back(parseOverride(o));

        const std::unique_ptr<ClusterConnector> connector =
            makeConnector(parser, agent, deadlineMs, retrySeconds);

        const int auditWaitSeconds =
            parsePositiveInt(parser, QStringLiteral("audit-wait-seconds"), 1, 86'400);
        if (parser.isSet(QStringLiteral("debug-audit-full-file")))
            AuditLog::injectDiskFullWhile(
                parser.value(QStringLiteral("debug-audit-full-file")).toStdString());
        const auto notice = [](const std::string &text) {
            std::fprintf(stderr, "dl2 operate: %s\n", text.c_str());
            std::fflush(stderr);
        };
        const std::unique_ptr<AuditLog> auditLog =
            openAuditLog(auditPath.toStdString(), auditWaitSeconds, notice);
        AuditLog &audit = *auditLog;
#ifdef DL2_HAVE_ONLINE
        if (learner)
            learner->setAuditLog(&audit);
#endif
        DecisionGate gate(gateOptions);
        OperatingLoop loop(*connector, planner, gate, audit);
#ifdef DL2_HAVE_ONLINE
        if (learner)
            loop.setSlotObserver(learner.get());
#endif
        OverrideCounts overrideCounts;
        const bool json = parser.isSet(QStringLiteral("json"));
        configureLoop(loop, parser, auditWaitSeconds, notice, overrides, overrideCounts, json);
        OperateSummary summary = loop.run(slots);
        loop.verify(summary);
        QJsonObject out = runRecord(summary, audit, *connector, planner, gateOptions,
                                    !overrides.empty(), overrideCounts);
#ifdef DL2_HAVE_ONLINE
        if (learner)
            reportLearning(*learner, out, json);
#endif
        return reportRun(summary, out, json, connector->describe(), audit.runId());
    });
}

} // namespace

static CommandRegistration operateRegistration{
    {"operate", "run a policy against a cluster agent through the decision gate", runOperate}};

} // namespace dl2::cli
