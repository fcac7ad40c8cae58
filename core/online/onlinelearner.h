#pragma once
// Online fine-tuning while operating (dl2 operate --learn): the same actor-critic as offline
// training (split credit: the stop-or-continue decision gets the slot return against V, the
// choice of task its counterfactual return; Adam, replay, running-RMS advantage scaling; see
// core/learning/README.md), on the rewards the cluster reports. It is a SlotObserver of the
// operating loop and owns the acting policy the planner runs:
//   - every inference of the acting (sampling) policy is recorded (an ActingTrace: the
//     changed row, not the whole state) and becomes a sample in the learner thread; when the next
//     snapshot brings the cluster's reward for the slot, the slot's samples get their returns
//     and go to the learner thread. A slot the operators changed (an override or a rejection)
//     is left out: its reward is not the policy's;
//   - the learner thread makes `updatesPerSlot` updates and publishes a new version
//     (v1, v2, ...; each written as <dir>/v<N>.dl2ckpt). The update on slot s's samples starts
//     when the snapshot of slot s+1 brings their reward, so it runs while slot s+1 runs and
//     its version decides slot s+2 if it is ready by then. At the end of a slot (before the
//     next snapshot) the loop waits for a running update at most until the update's deadline
//     (`deadline` after it started; on a live cluster the slot is far longer and nothing
//     waits; on the simulated agent, whose slots follow each other at once, the deadline is
//     the learning time a slot gives). A late update is adopted at the first slot after it
//     finished. The decision itself never waits for learning;
//   - safety rail: a frozen reference (the starting checkpoint) plans every slot in shadow on
//     a simulator mirror of the live state (the same snapshot, the speed model: one slot of
//     progress reward); when the learning policy's rolling reward over `window` slots falls
//     more than `margin` (fraction) below the reference's, learning pauses and the last good
//     version (the oldest version of the last window that passed) is restored. Every adopted
//     version, rollback and pause is an event (kind "learning") in the audit log;
//   - the online learning curve (per slot: version, live reward, reference reward, loss) is
//     written to <dir>/online-curve.json and .csv after every slot;
//   - the decisions keep the CPU: the learner thread runs at nice +10 with one torch thread
//     and starts no update step while a decision is being made (beforePlan .. afterPlan).
// The console acts in its own process (it never loads libtorch) and feeds a learner in a
// dl2-train child (online-learner command) with each slot's inferences (setActedSlot); the
// child reports versions and events back (setVersionListener, setEventSink).

#include "actingtrace.h"
#include "auditlog.h"
#include "operatingloop.h"
#include "policyspec.h"

#include <QJsonObject>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dl2 {

class Scheduler;
class PolicyPlanner;

struct OnlineOptions
{
    std::string init;      // starting checkpoint (also the frozen reference)
    std::string directory; // versioned checkpoints and the curve
    ProfileSet profiles = ProfileSet::reference();
    double learningRate = 1e-4;
    double valueLearningRate = 1e-3;
    int batchSize = 256;
    int bufferSize = 8192;
    double entropyWeight = 0.1;
    double epsilon = 0.0; // job-aware exploration (offline default 0.4; a live cluster: off)
    int updatesPerSlot = 4;
    int criticWarmup = 20; // updates that train only the value network first
    std::chrono::milliseconds deadline{1000};
    int window = 10;
    double margin = 0.10;
    std::uint64_t seed = 1;
    // Testing: this version and every later one are sabotaged (the policy's PS outputs raised
    // and its worker and bundle outputs lowered by 6 logits after the step, as a bad update
    // that training does not repair), so the rollback can be seen. 0 = off.
    int sabotageVersion = 0;
};

struct OnlinePoint
{
    int slot = 0;
    int version = 0;           // version that decided the slot
    double reward = 0.0;       // reported by the cluster
    double reference = 0.0;    // the frozen reference on the mirror
    double mirror = 0.0;       // the applied allocation on the mirror
    double rollingReward = 0.0;
    double rollingReference = 0.0;
    bool used = true;          // its samples trained the policy (false: operators changed it)
    double psShare = 0.0;      // of the learning policy's decisions in the slot: add a PS
    std::optional<double> policyLoss; // of the update started with this slot
    std::optional<double> valueLoss;
    double updateMs = 0.0;
    bool late = false;         // that update missed its deadline

    QJsonObject toJson() const; // as in the curve file and the learner child's "point" lines
};

struct OnlineSummary
{
    int versions = 0;       // published by the learner
    int adopted = 0;        // ... and used for decisions
    int lateUpdates = 0;
    int slotsUsed = 0;
    int slotsSkipped = 0;   // changed by the operators
    int rollbacks = 0;
    bool paused = false;
    int version = 0;        // in use at the end
    int lastGood = 0;
    // Versions kept in memory for a rollback: the last good one and the ones after it (a
    // window-60 dl2 version is 31 MB; older versions are dropped, their files stay).
    int versionsHeld = 0;
    double waitedMs = 0.0;  // total time decisions waited for an update (bounded by deadlines)
    std::vector<OnlinePoint> curve;
    QJsonObject toJson() const;
};

class OnlineLearner final : public SlotObserver
{
public:
    // Throws dl2::Error for an unreadable checkpoint or directory.
    explicit OnlineLearner(OnlineOptions options, AuditLog *audit = nullptr);
    ~OnlineLearner() override;

    // The acting policy, for the planner (call once); setPlanner() then lets the learner
    // set the planner's version.
    std::unique_ptr<Scheduler> takeActingPolicy();
    void setPlanner(PolicyPlanner *planner);
    void setAuditLog(AuditLog *audit);

    void beforeSnapshot() override;
    // beforePlan .. afterPlan: a decision is being made; the learner thread starts no update
    // step meanwhile (it yields the CPU to the decision; a running step is not interrupted).
    void beforePlan(const ClusterView &view) override;
    void afterPlan() override;
    void afterSlot(const ClusterView &planned, const std::vector<GateEntry> &entries) override;

    // Adopts a finished update without waiting (a learner fed from another process polls).
    void poll();
    // The console's learner process (dl2-train online-learner): the slot was planned by a
    // copy of the acting policy in the console, at `version`; these are its inferences. Call
    // between beforePlan/afterPlan and afterSlot of that slot.
    void setActedSlot(ActingTrace trace, int version);
    // Learning events go to `sink` instead of the audit log (the console writes them to its
    // own); `listener` hears every change of the acting version (adopted, rolled back) with
    // the checkpoint that holds it.
    void setEventSink(std::function<void(const std::string &detail, const QJsonObject &after)> sink);
    void setVersionListener(std::function<void(int version, const std::string &checkpoint)> listener);

    // Waits for a running update (so the last version is on disk) and returns the summary.
    const OnlineSummary &finish();
    const OnlineSummary &summary() const;
    std::string checkpointPath(int version) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace dl2
