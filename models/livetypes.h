#pragma once
// Value types of the console's live operations (ConsoleSession's live mode): what starts a
// live run, the state of the cluster connector, and the gate's open batch as the GUI sees it.
// They cross the queued connections between the operations worker and the GUI thread.

#include "decisiongate.h"
#include "sessiontypes.h"

#include <QMetaType>
#include <QString>
#include <map>
#include <vector>

namespace dl2console {

// Online learning of a live run (the Learn toggle): the learner is a dl2-train child
// (learnerprocess.h); these are its settings.
struct LearningSettings
{
    double margin = 0.10;    // roll back when the rolling reward is this far below the reference
    int deadlineMs = 1000;   // an update's deadline (a late one is adopted a slot later)
    int window = 10;         // slots of the rolling rewards
    int updatesPerSlot = 4;
    QString directory;       // versions vN.dl2ckpt and the curve (empty: <audit file>.learn)
    QString program;         // dl2-train (empty: next to the console, then PATH)
    int sabotageVersion = 0; // testing: versions from N on are sabotaged (to see the rollback)
};

struct LearningStatus
{
    enum class State
    {
        Off,
        Starting,
        Learning,
        Paused, // the rollback rail tripped: the last good version decides, no more updates
        Failed  // the learner could not start or died: the last version decides, frozen
    };
    State state = State::Off;
    int version = 0;   // deciding now
    int lastGood = 0;
    int versions = 0;  // published by the learner
    int rollbacks = 0;
    QString directory;
    QString message;   // last event or error
    qint64 pid = 0;    // of the learner process
    // "learning v5", "learning paused (rolled back to v2)", ...
    QString stateText() const;
};

// One slot of the online learning curve.
struct LearningPoint
{
    int slot = 0;
    int version = 0; // that decided the slot
    double reward = 0.0, reference = 0.0;
    double rollingReward = 0.0, rollingReference = 0.0;
    bool used = true; // its samples trained the policy
};

// A change of the deciding version, from the slot it first decides.
struct LearningMark
{
    int slot = 0;
    int version = 0;
    bool rollback = false;
};

// What a live run connects to and how its gate works.
struct LiveSetup
{
    QString scenario = QStringLiteral("dl2-small"); // embedded simulator only
    quint64 seed = 1;
    QString policy = QStringLiteral("drf");
    QString checkpoint; // dl2 / dl2-plus: policy file or shipped name; empty: the shipped default
    dl2::GateMode mode = dl2::GateMode::Review;
    QString rulesFile; // rules mode
    int reviewDeadlineMs = 120'000;
    dl2::DeadlineDefault atDeadline = dl2::DeadlineDefault::KeepCurrent;
    QString auditFile; // SQLite audit log (created if missing)
    QString agentAddress; // empty: the embedded simulator
    QString token;
    int callDeadlineMs = 3'000; // of every call to a remote agent
    bool learn = false;         // start with online learning on (dl2 / dl2-plus)
    LearningSettings learning;
};

// Gate settings that can change while a live run goes on (they apply from the next batch).
struct GateSettings
{
    dl2::GateMode mode = dl2::GateMode::Review;
    QString rulesFile;
    int reviewDeadlineMs = 120'000;
    dl2::DeadlineDefault atDeadline = dl2::DeadlineDefault::KeepCurrent;
    bool operator==(const GateSettings &) const = default;
};

struct ConnectorStatus
{
    enum class State
    {
        Embedded,     // the in-process simulator
        Connecting,
        Connected,
        Reconnecting, // retryInSeconds until the next attempt
        RejectedToken,
        Disconnected
    };
    State state = State::Embedded;
    QString address; // agent address, or the embedded simulator's description
    int retryInSeconds = 0;
    QString message; // last error
    // "connected", "reconnecting in 4 s", "rejected token", ...
    QString stateText() const;
};

// The gate's batch of one slot, copied out of the worker after every change.
struct GateBatch
{
    bool open = false;
    int slot = -1;
    dl2::GateMode mode = dl2::GateMode::Automatic;
    dl2::DeadlineDefault atDeadline = dl2::DeadlineDefault::KeepCurrent;
    std::vector<dl2::GateEntry> entries;
    std::vector<int> jobTypes;    // profile index per entry (model name)
    qint64 deadlineEpochMs = 0;   // wall clock of the review deadline
    int maxPs = 16, maxWorkers = 16;
    bool canUndo = false, canRedo = false;
    QString undoText, redoText;
    // A batch of the live history (closed, shown read-only): one acknowledgment text per entry
    // ("applied", "duplicate", "invalid: ..."; empty: not sent).
    bool history = false;
    std::vector<QString> acks;
    int pending() const;
};

// One slot that went through the gate and the cluster.
struct LiveSlotPacket
{
    SnapshotPacket packet;
    SlotSummary summary;
    std::map<int, dl2::Allocation> targets; // job id -> allocation the cluster runs now
    int approved = 0, rejected = 0, applied = 0, invalid = 0;
    // The batch that decided this slot (empty when nothing changed) with its verdicts, and the
    // cluster's acknowledgments of the approved ones.
    std::vector<dl2::GateEntry> entries;
    std::vector<dl2::Acknowledgment> acks;
    // Read from the cluster's history (the slot ran before this console attached, or while
    // it was disconnected): no decision record of the policy, entries = decisions applied.
    bool fromHistory = false;
};

} // namespace dl2console

Q_DECLARE_METATYPE(dl2console::LiveSetup)
Q_DECLARE_METATYPE(dl2console::GateSettings)
Q_DECLARE_METATYPE(dl2console::ConnectorStatus)
Q_DECLARE_METATYPE(dl2console::GateBatch)
Q_DECLARE_METATYPE(dl2console::LiveSlotPacket)
Q_DECLARE_METATYPE(std::vector<dl2console::LiveSlotPacket>)
Q_DECLARE_METATYPE(dl2console::LearningStatus)
Q_DECLARE_METATYPE(dl2console::LearningPoint)
Q_DECLARE_METATYPE(dl2console::LearningMark)
