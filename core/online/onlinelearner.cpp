#include "onlinelearner.h"

#include "advantagescales.h"
#include "checkpoint.h"
#include "dl2policy.h"
#include "error.h"
#include "experience.h"
#include "fileio.h"
#include "learner.h"
#include "onlineacting.h"
#include "policyplanner.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <map>
#include <malloc.h>
#include <mutex>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace dl2 {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// One slot of progress reward on the mirror: what `alloc` (per job index of the view) earns
// under the speed model, as the simulator counts it (epochs capped at the remaining ones,
// divided by the job's epoch estimate).
double mirrorReward(const ClusterView &view, const std::vector<Allocation> &alloc,
                    const ProfileSet &profiles)
{
    double reward = 0.0;
    for (size_t i = 0; i < view.jobs.size() && i < alloc.size(); ++i) {
        const JobState &j = view.jobs[i];
        if (j.status == JobStatus::Finished || alloc[i].ps <= 0 || alloc[i].workers <= 0 ||
            j.estimatedEpochs <= 0 || j.type < 0 || j.type >= profiles.size())
            continue;
        const ModelProfile &p = profiles[j.type];
        const double epochs =
            p.speed->speed(alloc[i].ps, alloc[i].workers) / p.stepsPerEpoch * view.slotSeconds;
        reward += std::min(epochs, std::max(0.0, j.totalEpochs - j.doneEpochs)) / j.estimatedEpochs;
    }
    return reward;
}

// The allocation a scheduler gives every job of the view (per job index).
std::vector<Allocation> planOn(Scheduler &policy, const ClusterView &view,
                               const ProfileSet &profiles)
{
    PolicyPlanner::RebuiltSlot slot = PolicyPlanner::rebuild(view);
    SlotContext ctx = slot.context(profiles);
    policy.schedule(ctx);
    std::vector<Allocation> out;
    for (const JobState &j : slot.jobs)
        out.push_back(Allocation{j.ps, j.workers, {}});
    return out;
}

// The counterfactual credit of the task sample `x` added: its job's progress with the final
// allocation minus without that task (Simulator::slotProgress on the mirror).
float counterfactual(const ClusterView &view, const std::vector<Allocation> &alloc,
                     const Sample &x, const ProfileSet &profiles)
{
    const size_t i = size_t(x.jobIndex);
    if (i >= view.jobs.size() || i >= alloc.size())
        return 0.0f;
    const TaskKind kind = actionKind(x.action);
    std::vector<Allocation> one(view.jobs.size());
    one[i] = alloc[i];
    const double with = mirrorReward(view, one, profiles);
    one[i].ps = std::max(0, one[i].ps - (kind == TaskKind::Worker ? 0 : 1));
    one[i].workers = std::max(0, one[i].workers - (kind == TaskKind::Ps ? 0 : 1));
    return float(with - mirrorReward(view, one, profiles));
}

void sabotage(ParameterSet &p, const PolicySpec &spec)
{
    if (spec.kind == PolicyKind::Dl2) {
        auto &bias = p.at("policy.out.bias").data;
        for (int r = 0; r < spec.window; ++r) {
            bias[size_t(3 * r)] -= 6.0f;
            bias[size_t(3 * r + 1)] += 6.0f;
            bias[size_t(3 * r + 2)] -= 6.0f;
        }
    } else {
        // Raising the PS output alone is not enough for a policy whose worker outputs are
        // strong (the shipped dl2-plus-reference kept 90 % of its reward for four versions).
        auto &bias = p.at("policy.jobhead.bias").data;
        bias[0] -= 6.0f;
        bias[1] += 6.0f;
        bias[2] -= 6.0f;
    }
}

} // namespace

QJsonObject OnlineSummary::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("versions"), versions);
    o.insert(QStringLiteral("adopted"), adopted);
    o.insert(QStringLiteral("late_updates"), lateUpdates);
    o.insert(QStringLiteral("slots_used"), slotsUsed);
    o.insert(QStringLiteral("slots_skipped"), slotsSkipped);
    o.insert(QStringLiteral("rollbacks"), rollbacks);
    o.insert(QStringLiteral("paused"), paused);
    o.insert(QStringLiteral("version"), version);
    o.insert(QStringLiteral("last_good"), lastGood);
    o.insert(QStringLiteral("versions_held"), versionsHeld);
    o.insert(QStringLiteral("waited_ms"), waitedMs);
    QJsonArray points;
    for (const OnlinePoint &p : curve)
        points.append(p.toJson());
    o.insert(QStringLiteral("curve"), points);
    return o;
}

QJsonObject OnlinePoint::toJson() const
{
    QJsonObject q;
    q.insert(QStringLiteral("slot"), slot);
    q.insert(QStringLiteral("version"), version);
    q.insert(QStringLiteral("reward"), reward);
    q.insert(QStringLiteral("reference"), reference);
    q.insert(QStringLiteral("mirror"), mirror);
    q.insert(QStringLiteral("rolling_reward"), rollingReward);
    q.insert(QStringLiteral("rolling_reference"), rollingReference);
    q.insert(QStringLiteral("used"), used);
    q.insert(QStringLiteral("ps_share"), psShare);
    if (policyLoss)
        q.insert(QStringLiteral("policy_loss"), *policyLoss);
    if (valueLoss)
        q.insert(QStringLiteral("value_loss"), *valueLoss);
    q.insert(QStringLiteral("update_ms"), updateMs);
    q.insert(QStringLiteral("late"), late);
    return q;
}

struct OnlineLearner::Impl
{
    OnlineOptions o;
    AuditLog *audit = nullptr;
    PolicyPlanner *planner = nullptr;
    Checkpoint start;
    PolicySpec spec;
    std::unique_ptr<Learner> learner;
    std::unique_ptr<Dl2Policy> actingOwned;
    Dl2Policy *acting = nullptr;
    std::unique_ptr<Dl2Policy> reference;
    std::map<int, std::shared_ptr<const ParameterSet>> versions;
    int version = 0;
    int lastGood = 0;
    bool paused = false;
    OnlineSummary summary;

    // The slot in flight: samples of the acting policy, then (afterSlot) its view, allocation
    // and whether the operators left it as proposed; its reward comes with the next snapshot.
    ActingTrace current;
    struct Pending
    {
        ClusterView view;
        std::vector<Allocation> applied;
        ActingTrace trace;
        bool used = true;
        double reference = 0.0;
        double mirror = 0.0;
        int version = 0;
    };
    std::optional<Pending> pending;
    std::deque<std::pair<double, double>> rolling; // (live, reference)
    std::deque<int> rollingVersions;

    // Learner thread. A slot's samples get their returns there (the counterfactual credit
    // costs a speed-model evaluation per job and sample: off the decision's path).
    struct SlotWork
    {
        ClusterView view;
        std::vector<Allocation> applied;
        ActingTrace trace;
        double reward = 0.0;
    };
    struct Work
    {
        std::vector<SlotWork> slots;
        int version = 0; // to publish
        size_t curveIndex = 0;
    };
    struct Result
    {
        std::shared_ptr<const ParameterSet> params;
        int version = 0;
        size_t curveIndex = 0;
        double policyLoss = 0.0, valueLoss = 0.0, ms = 0.0;
    };
    std::thread thread;
    std::mutex mutex;
    std::condition_variable cv;
    std::optional<Work> work;
    std::optional<Result> result;
    bool busy = false;
    bool stop = false;
    // A decision is being made (beforePlan .. afterPlan): the learner thread does not start
    // an update step meanwhile, so the decision has the CPU to itself (2 cores, shared).
    bool deciding = false;
    Clock::time_point decidingSince;
    int submitted = 0;
    Clock::time_point workStarted;
    std::string threadError;
    // Owned by the thread.
    ReplayBuffer replay{8192, ReplayMode::Uniform};
    Rng rng{1};
    long long updates = 0;
    AdvantageScales scales;

    // The console's learner process: the samples and version of a slot acted elsewhere.
    std::optional<int> actedVersion;
    std::function<void(const std::string &, const QJsonObject &)> eventSink;
    std::function<void(int, const std::string &)> versionListener;

    void run();
    void waitWhileDeciding();
    Result train(Work &w);
    void collect(bool wait);
    void versionChanged()
    {
        if (versionListener)
            versionListener(version, version == 0 ? o.init
                                                  : o.directory + "/v" + std::to_string(version) +
                                                        ".dl2ckpt");
    }
    void adopt(const Result &r);
    void syncSummary()
    {
        summary.version = version;
        summary.lastGood = lastGood;
        summary.versionsHeld = int(versions.size());
        summary.paused = paused;
    }
    void submit(SlotWork slot, size_t curveIndex);
    void event(const std::string &detail, const QJsonObject &after = {})
    {
        if (eventSink) {
            eventSink(detail, after);
            return;
        }
        if (!audit)
            return;
        try {
            audit->recordLearningEvent("learner", detail, after);
        } catch (const AuditWriteError &) {
            // the operating loop reports a log that refuses writes; learning goes on
        }
    }
    void writeCurve() const;
};

void OnlineLearner::Impl::run()
{
    // An update allocates and frees tensors of megabytes: above glibc's mmap threshold each is
    // an mmap + page faults + munmap, and every munmap interrupts the other core (a TLB
    // shootdown) - the core the decisions run on. Kept in the heap, they are reused instead.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    // Below the operating loop: the decisions keep their core. One torch thread: intra-op
    // threads would compete with the decisions for the other core (and OpenMP's spin-waiting
    // after every parallel region burns it), and this thread's own OpenMP setting is not the
    // one the main thread set.
    // Not SCHED_IDLE: on a shared machine any other process's work (even at nice 19) would
    // starve the learner and every update would miss its deadline.
    setpriority(PRIO_PROCESS, pid_t(syscall(SYS_gettid)), 10);
    setTorchThreads(1);
    for (;;) {
        Work w;
        {
            std::unique_lock lock(mutex);
            cv.wait(lock, [&] { return stop || work.has_value(); });
            if (stop)
                return;
            w = std::move(*work);
            work.reset();
        }
        Result r;
        try {
            r = train(w);
        } catch (const std::exception &e) {
            std::lock_guard lock(mutex);
            threadError = e.what();
            busy = false;
            cv.notify_all();
            continue;
        }
        std::lock_guard lock(mutex);
        result = std::move(r);
        busy = false;
        cv.notify_all();
    }
}

void OnlineLearner::Impl::waitWhileDeciding()
{
    // Bounded: a decision that never reports its end (a caller without afterPlan) costs the
    // learner at most a second per step.
    std::unique_lock lock(mutex);
    cv.wait_until(lock, decidingSince + std::chrono::seconds(1),
                  [&] { return stop || !deciding; });
}

OnlineLearner::Impl::Result OnlineLearner::Impl::train(Work &w)
{
    waitWhileDeciding(); // the work is submitted as a decision starts
    const auto t0 = Clock::now();
    std::vector<Sample> fresh;
    for (SlotWork &slot : w.slots)
        slot.trace.expand([&](const ActingTrace::Step &step, const std::vector<float> &jobs,
                              const float *global, const std::uint8_t *mask) {
            Sample x;
            x.rows = step.rows;
            x.jobs = jobs;
            x.global.assign(global, global + step.globalDim);
            x.mask.assign(mask, mask + 3 * step.rows + 1);
            x.action = step.action;
            x.behaviourProb = step.behaviourProb;
            x.jobIndex = step.job;
            x.ret = float(slot.reward);
            if (x.jobIndex >= 0)
                x.taskRet = counterfactual(slot.view, slot.applied, x, o.profiles);
            fresh.push_back(std::move(x));
        });
    Result r;
    r.version = w.version;
    r.curveIndex = w.curveIndex;
    RlLossOptions loss;
    loss.entropyWeight = o.entropyWeight;
    loss.split = true;
    for (int k = 0; k < o.updatesPerSlot; ++k) {
        waitWhileDeciding();
        const int freshLimit = replay.size() < o.batchSize ? o.batchSize : o.batchSize / 2;
        std::vector<const Sample *> batch;
        if (k == 0) {
            std::vector<size_t> idx(fresh.size());
            for (size_t i = 0; i < idx.size(); ++i)
                idx[i] = i;
            for (size_t i = 0; i < idx.size() && int(i) < freshLimit; ++i) {
                std::swap(idx[i], idx[i + size_t(rng.below(idx.size() - i))]);
                batch.push_back(&fresh[idx[i]]);
            }
        }
        if (replay.size() > 0 && int(batch.size()) < o.batchSize)
            for (int i : replay.sample(o.batchSize - int(batch.size()), rng))
                batch.push_back(&replay.at(i));
        if (batch.empty())
            break;
        std::vector<float> weights(batch.size(), 1.0f / float(batch.size()));
        scales.applyTo(loss);
        loss.policyWeight = updates < o.criticWarmup ? 0.0 : 1.0;
        const RlUpdateStats st = learner->rlUpdate(batch, weights, loss);
        ++updates;
        scales.track(st);
        r.policyLoss += st.policyLoss / o.updatesPerSlot;
        r.valueLoss += st.valueLoss / o.updatesPerSlot;
        if (k == 0)
            for (Sample &x : fresh)
                replay.add(std::move(x));
    }
    auto params = learner->parameters();
    if (o.sabotageVersion > 0 && w.version >= o.sabotageVersion) {
        ParameterSet bad = *params;
        sabotage(bad, spec);
        params = std::make_shared<const ParameterSet>(std::move(bad));
    }
    r.params = params;
    if (!o.directory.empty()) {
        waitWhileDeciding();
        // What this learner trains with (`dl2 policy show` reads it), not the start's recipe:
        // split credit with the paper's progress reward, uniform replay, the paper's rules.
        TrainingInfo info;
        info.trainer = "rl";
        info.scenario = start.info.scenario;
        info.credit = "split";
        info.taskCredit = "progress";
        info.replay = "uniform";
        info.exploration = "paper";
        info.epsilon = o.epsilon;
        info.entropyWeight = o.entropyWeight;
        info.learningRate = o.learningRate;
        info.valueLearningRate = o.valueLearningRate;
        info.batchSize = o.batchSize;
        info.bufferSize = o.bufferSize;
        info.criticWarmup = o.criticWarmup;
        info.envs = 1;
        info.step = updates;
        info.seed = o.seed;
        info.valueTrained = start.info.valueTrained || updates > 0; // every update trains the critic
        NetworkArchive archive;
        archive.parameters = *params;
        writeFileAtomically(o.directory + "/v" + std::to_string(w.version) + ".dl2ckpt",
                            encodeCheckpoint(spec, info, archive, false));
    }
    r.ms = msSince(t0);
    return r;
}

void OnlineLearner::Impl::adopt(const Result &r)
{
    ++summary.versions;
    const bool late = r.ms > double(o.deadline.count());
    if (late)
        ++summary.lateUpdates;
    if (r.curveIndex < summary.curve.size()) {
        OnlinePoint &p = summary.curve[r.curveIndex];
        p.policyLoss = r.policyLoss;
        p.valueLoss = r.valueLoss;
        p.updateMs = r.ms;
        p.late = late;
    }
    if (paused)
        return; // a rollback happened while it trained: not adopted (nor kept)
    versions[r.version] = r.params;
    acting->setParameters(r.params);
    acting->setValueEstimates(true); // an update trained the critic
    version = r.version;
    ++summary.adopted;
    if (planner)
        planner->setVersion(PolicyPlanner::versionName(version));
    versionChanged();
    QJsonObject after;
    after.insert(QStringLiteral("version"), version);
    after.insert(QStringLiteral("checkpoint"),
                 QString::fromStdString(o.directory + "/v" + std::to_string(version) + ".dl2ckpt"));
    after.insert(QStringLiteral("update_ms"), r.ms);
    event(PolicyPlanner::versionName(version) + " adopted" + (late ? " (late update)" : ""), after);
}

void OnlineLearner::Impl::submit(SlotWork slot, size_t curveIndex)
{
    std::lock_guard lock(mutex);
    work = Work{{}, ++submitted, curveIndex}; // one version per work item
    work->slots.push_back(std::move(slot));
    busy = true;
    workStarted = Clock::now();
    cv.notify_all();
}

void OnlineLearner::Impl::writeCurve() const
{
    if (o.directory.empty())
        return;
    const QJsonObject json = summary.toJson();
    writeFileAtomically(o.directory + "/online-curve.json",
                        QJsonDocument(json).toJson(QJsonDocument::Indented).toStdString());
    std::string csv = "slot,version,reward,reference,mirror,rolling_reward,rolling_reference,used,"
                      "policy_loss,value_loss,update_ms,late\n";
    for (const OnlinePoint &p : summary.curve) {
        char line[320];
        std::snprintf(line, sizeof line, "%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%d,%s,%s,%.3f,%d\n",
                      p.slot, p.version, p.reward, p.reference, p.mirror, p.rollingReward,
                      p.rollingReference, p.used ? 1 : 0,
                      p.policyLoss ? std::to_string(*p.policyLoss).c_str() : "",
                      p.valueLoss ? std::to_string(*p.valueLoss).c_str() : "", p.updateMs,
                      p.late ? 1 : 0);
        csv += line;
    }
    writeFileAtomically(o.directory + "/online-curve.csv", csv);
}

OnlineLearner::OnlineLearner(OnlineOptions options, AuditLog *audit) : m_impl(std::make_unique<Impl>())
{
    Impl &d = *m_impl;
    d.o = std::move(options);
    d.audit = audit;
    if (d.o.window < 1 || d.o.updatesPerSlot < 1 || d.o.margin < 0 || d.o.batchSize < 1)
        throw Error("online learning: window, updates per slot and batch must be positive, the "
                    "margin not negative");
    d.start = readCheckpoint(d.o.init);
    d.spec = onlineActingSpec(d.start.spec);
    if (!d.o.directory.empty() && !QDir().mkpath(QString::fromStdString(d.o.directory)))
        throw Error("online learning: cannot create the directory '" + d.o.directory + "'");
    d.learner = std::make_unique<Learner>(d.start, d.o.learningRate, false, d.o.valueLearningRate);
    d.replay = ReplayBuffer(d.o.bufferSize, ReplayMode::Uniform);
    d.rng = Rng(d.o.seed * 104729 + 5);
    d.versions[0] = d.start.parameters;
    Impl *impl = &d;
    d.actingOwned = makeOnlineActingPolicy(
        d.start, d.o.seed,
        [impl](const EncodedState &s, int action, float mu, int job) {
            impl->current.record(s, action, mu, job); // the changed row only: cheap
        },
        d.o.epsilon);
    d.acting = d.actingOwned.get();
    d.reference = std::make_unique<Dl2Policy>(d.spec, d.start.parameters, d.o.seed + 7919);
    ActorOptions refActor;
    refActor.sample = true;
    d.reference->setActor(std::move(refActor));
    d.thread = std::thread([impl] { impl->run(); });
}

OnlineLearner::~OnlineLearner()
{
    {
        std::lock_guard lock(m_impl->mutex);
        m_impl->stop = true;
        m_impl->cv.notify_all();
    }
    if (m_impl->thread.joinable())
        m_impl->thread.join();
}

std::unique_ptr<Scheduler> OnlineLearner::takeActingPolicy()
{
    if (!m_impl->actingOwned)
        throw Error("online learning: the acting policy was already taken");
    return std::move(m_impl->actingOwned);
}

void OnlineLearner::setPlanner(PolicyPlanner *planner)
{
    m_impl->planner = planner;
    if (planner)
        planner->setVersion(PolicyPlanner::versionName(m_impl->version));
}

void OnlineLearner::setAuditLog(AuditLog *audit)
{
    m_impl->audit = audit;
}

std::string OnlineLearner::checkpointPath(int version) const
{
    return version == 0 ? m_impl->o.init
                        : m_impl->o.directory + "/v" + std::to_string(version) + ".dl2ckpt";
}

void OnlineLearner::beforePlan(const ClusterView &view)
{
    Impl &d = *m_impl;
    {
        std::lock_guard lock(d.mutex);
        d.deciding = true;
        d.decidingSince = Clock::now();
    }
    d.current.clear(); // samples belong to the slot about to be planned
    // The learning policy and the reference sample from the same numbers on the same state:
    // they differ only where their weights do.
    d.acting->reseed(onlineSlotSeed(d.o.seed, view.nextSlot));
    // 1. The reward of the slot in flight arrived: returns, the safety rail, the update.
    if (d.pending && view.nextSlot == d.pending->view.nextSlot + 1) {
        Impl::Pending p = std::move(*d.pending);
        d.pending.reset();
        OnlinePoint point;
        point.slot = p.view.nextSlot;
        point.version = p.version;
        point.reward = view.reward;
        point.reference = p.reference;
        point.mirror = p.mirror;
        point.used = p.used && !d.paused;
        int ps = 0;
        for (const ActingTrace::Step &x : p.trace.steps)
            ps += x.job >= 0 && actionKind(x.action) == TaskKind::Ps ? 1 : 0;
        point.psShare = p.trace.empty() ? 0.0 : double(ps) / double(p.trace.size());
        d.rolling.emplace_back(view.reward, p.reference);
        d.rollingVersions.push_back(p.version);
        while (int(d.rolling.size()) > d.o.window) {
            d.rolling.pop_front();
            d.rollingVersions.pop_front();
        }
        double live = 0.0, ref = 0.0;
        for (const auto &[l, r] : d.rolling) {
            live += l;
            ref += r;
        }
        live /= double(d.rolling.size());
        ref /= double(d.rolling.size());
        point.rollingReward = live;
        point.rollingReference = ref;
        d.summary.curve.push_back(point);
        const size_t index = d.summary.curve.size() - 1;
        if (int(d.rolling.size()) == d.o.window && !d.paused) {
            if (live < ref * (1.0 - d.o.margin)) {
                // The rail: pause, restore the last good version.
                d.paused = true;
                ++d.summary.rollbacks;
                const int bad = d.version;
                d.version = d.lastGood;
                d.acting->setParameters(d.versions.at(d.lastGood));
                d.acting->setValueEstimates(d.lastGood > 0 || d.start.info.valueTrained);
                if (d.planner)
                    d.planner->setVersion(PolicyPlanner::versionName(d.version));
                d.versionChanged();
                char detail[256];
                std::snprintf(detail, sizeof detail,
                              "rollback: rolling reward %.4f over %d slots is more than %.0f%% "
                              "below the frozen reference's %.4f; learning paused, v%d "
                              "restored (was v%d)",
                              live, d.o.window, 100.0 * d.o.margin, ref, d.lastGood, bad);
                QJsonObject after;
                after.insert(QStringLiteral("version"), d.lastGood);
                after.insert(QStringLiteral("rolled_back_from"), bad);
                after.insert(QStringLiteral("rolling_reward"), live);
                after.insert(QStringLiteral("rolling_reference"), ref);
                d.event(detail, after);
            } else {
                d.lastGood = std::max(d.lastGood, d.rollingVersions.front());
                // Only the last good version or a later one can ever be restored.
                d.versions.erase(d.versions.begin(), d.versions.lower_bound(d.lastGood));
            }
        }
        if (point.used) {
            ++d.summary.slotsUsed;
            Impl::SlotWork slot{std::move(p.view), std::move(p.applied), std::move(p.trace),
                                view.reward};
            // Only one update runs at a time: a slot that arrives while one runs joins the
            // replay with the next.
            std::unique_lock lock(d.mutex);
            if (d.work) {
                d.work->slots.push_back(std::move(slot));
            } else {
                lock.unlock();
                d.submit(std::move(slot), index);
            }
        } else if (!p.used) {
            ++d.summary.slotsSkipped; // (a slot while paused is neither)
        }
    }
    d.syncSummary();
}

void OnlineLearner::afterPlan()
{
    Impl &d = *m_impl;
    std::lock_guard lock(d.mutex);
    d.deciding = false;
    d.cv.notify_all();
}

void OnlineLearner::beforeSnapshot()
{
    // The slot ended: adopt a finished update; wait for a running one until its deadline,
    // never longer.
    m_impl->collect(true);
    // From the snapshot to the proposals no update step starts.
    std::lock_guard lock(m_impl->mutex);
    m_impl->deciding = true;
    m_impl->decidingSince = Clock::now();
}

void OnlineLearner::poll()
{
    m_impl->collect(false);
}

void OnlineLearner::Impl::collect(bool wait)
{
    Impl &d = *this;
    std::unique_lock lock(d.mutex);
    if (wait && d.busy && !d.paused) {
        const auto until = d.workStarted + d.o.deadline;
        const auto t0 = Clock::now();
        d.cv.wait_until(lock, until, [&] { return !d.busy; });
        d.summary.waitedMs += msSince(t0);
    }
    if (!d.threadError.empty()) {
        const std::string e = d.threadError;
        d.threadError.clear();
        lock.unlock();
        d.paused = true;
        d.event("learning paused: the update failed: " + e);
        return;
    }
    if (d.result) {
        Impl::Result r = std::move(*d.result);
        d.result.reset();
        lock.unlock();
        d.adopt(r);
    }
    d.syncSummary();
}

void OnlineLearner::afterSlot(const ClusterView &planned, const std::vector<GateEntry> &entries)
{
    Impl &d = *m_impl;
    Impl::Pending p;
    p.view = planned;
    p.version = d.actedVersion ? *d.actedVersion : d.version;
    d.actedVersion.reset();
    p.trace = std::move(d.current);
    d.current.clear();
    // What ran: the targets, changed by the approved decisions; the operators' changes make
    // the slot's reward not the policy's.
    p.applied.resize(planned.jobs.size());
    for (size_t i = 0; i < planned.jobs.size(); ++i)
        p.applied[i] = i < planned.targets.size() ? planned.targets[i] : Allocation{};
    std::map<int, size_t> indexOf;
    for (size_t i = 0; i < planned.jobs.size(); ++i)
        indexOf[planned.jobs[i].id] = i;
    for (const GateEntry &e : entries) {
        const auto it = indexOf.find(e.decision.job);
        if (it == indexOf.end())
            continue;
        if (e.verdict == GateEntry::Verdict::Approved)
            p.applied[it->second] = e.decision.to;
        // A rejection or an override: what ran is not what the policy proposed.
        if (e.verdict == GateEntry::Verdict::Rejected || e.reason == "operator override")
            p.used = false;
    }
    p.mirror = mirrorReward(planned, p.applied, d.o.profiles);
    d.reference->reseed(onlineSlotSeed(d.o.seed, planned.nextSlot));
    p.reference = mirrorReward(planned, planOn(*d.reference, planned, d.o.profiles), d.o.profiles);
    d.pending = std::move(p);
    d.writeCurve();
}

const OnlineSummary &OnlineLearner::finish()
{
    Impl &d = *m_impl;
    std::unique_lock lock(d.mutex);
    d.cv.wait(lock, [&] { return !d.busy; });
    if (d.result) {
        Impl::Result r = std::move(*d.result);
        d.result.reset();
        lock.unlock();
        d.adopt(r);
    }
    d.syncSummary();
    d.writeCurve();
    return d.summary;
}

const OnlineSummary &OnlineLearner::summary() const
{
    return m_impl->summary;
}

void OnlineLearner::setActedSlot(ActingTrace trace, int version)
{
    m_impl->current = std::move(trace);
    m_impl->actedVersion = version;
}

void OnlineLearner::setEventSink(
    std::function<void(const std::string &detail, const QJsonObject &after)> sink)
{
    m_impl->eventSink = std::move(sink);
}

void OnlineLearner::setVersionListener(
    std::function<void(int version, const std::string &checkpoint)> listener)
{
    m_impl->versionListener = std::move(listener);
}

} // namespace dl2
