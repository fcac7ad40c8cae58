#pragma once
// Two replays of one trace under two policies, kept on the same slot: play, step and seek
// drive both sessions (each on its own worker thread), and the pair only moves on once both
// show the new slot. What the views read (shownSnapshot) changes for both sides at once, in
// slotChanged(), so the two halves of a side-by-side view never disagree about the slot.
//
// When one run ends earlier (its policy finished every job sooner), that side stays on its
// last slot while the other plays on: sideSlot() says which slot a side shows for a pair slot.

#include "playbackclock.h"
#include "sessiontypes.h"

#include <QObject>
#include <array>

namespace dl2console {

class ConsoleSession;

class LockstepReplay : public QObject
{
    Q_OBJECT
public:
    static constexpr int kSides = 2;

    explicit LockstepReplay(QObject *parent = nullptr);
    ~LockstepReplay() override;

    // One trace (scenario + seed, or trace file), two policies; starts at slot 0.
    void load(const SessionSetup &trace, const QString &leftPolicy, const QString &rightPolicy);
    bool isLoaded() const;
    ConsoleSession *session(int side) const { return m_sessions[side]; }
    QString policy(int side) const;

    // The slot both sides show (-1 before the first pair arrives).
    int currentSlot() const { return m_slot; }
    // The slot the pair is heading for (== currentSlot() when idle).
    int targetSlot() const { return m_target >= 0 ? m_target : m_slot; }
    bool isIdle() const { return m_target < 0; }
    // The longer of the two runs: its last slot once both are complete.
    int lastKnownSlot() const;
    bool runComplete() const;
    // The slot side shows for a pair slot: the pair slot, or its own last slot if it ended.
    int sideSlot(int side, int pairSlot) const;
    // What the views draw: both replaced together when the pair reaches a slot.
    const dl2::SlotSnapshot &shownSnapshot(int side) const { return m_shown[side]; }
    const DecisionLog &shownDecisions(int side) const { return m_shownDecisions[side]; }

    bool isPlaying() const { return m_clock.isPlaying(); }
    void setPlaying(bool playing);
    void togglePlaying() { setPlaying(!isPlaying()); }
    void stepForward();
    void stepBack();
    void seek(int slot);
    void seekToEnd() { seek(lastKnownSlot()); }
    // Slots per second; 0 = as fast as both simulators go.
    void setSpeed(double slotsPerSecond);
    double speed() const { return m_clock.speed(); }

    // Local event loop until both sides show `slot` (clamped to the runs), a side fails (also
    // before the call: a run that failed to load never shows a slot) or the timeout passes.
    // For the CLI export, tests and benchmarks.
    bool waitForSlot(int slot, int timeoutMs = 60000);
    // The last error of the current load ("" when none).
    const QString &error() const { return m_error; }

Q_SIGNALS:
    void loadStarted();
    void loaded();
    void errorOccurred(const QString &message);
    void slotChanged(int slot);
    void timelineChanged();
    void playingChanged(bool playing);

private:
    void onSideSnapshot();
    void onPlayTick();
    bool sideReached(int side, int pairSlot) const;
    void requestSides();

    std::array<ConsoleSession *, kSides> m_sessions{};
    std::array<dl2::SlotSnapshot, kSides> m_shown;
    std::array<DecisionLog, kSides> m_shownDecisions;
    std::array<bool, kSides> m_loaded{false, false};
    PlaybackClock m_clock{2.0, [this] { onPlayTick(); }};
    int m_slot = -1;
    int m_target = -1;
    QString m_error; // of the current load
};

} // namespace dl2console
