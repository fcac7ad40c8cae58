#pragma once
// The console's session: one loaded run (scenario or trace file + policy) and the playback
// position. The simulation runs on a worker thread (SimulationWorker); this object lives on
// the GUI thread, keeps the current SlotSnapshot and the light timeline of every simulated
// slot, and drops results of earlier loads by generation number.
//
// Flow control: at most one snapshot request is in flight; a newer seek replaces the pending
// one, so a dragged scrubber never queues hundreds of requests.
//
// Live operations mode (startLive): instead of replaying, the session drives a cluster
// through the decision gate (LiveOperations, on its own worker thread): every slot the
// policy's proposal becomes a batch of decisions, and the slot only advances once the batch
// is committed (or its review deadline passed). Play and step run slots; the timeline grows
// as they complete. load() returns to replay mode.
//
// Live history: every live slot is kept (snapshot, the policy's decision record, the batch
// with its verdicts, the cluster's acknowledgments), including the slots the cluster ran
// before the console attached (read from its history). Kept slots are counted 0, 1, 2… in
// the backend's slot order whatever its numbering (the Kubernetes backend numbers slots by
// wall-clock time, ~1.4 million): in live mode currentSlot(), liveSlot(), seek(), the timeline
// and liveRecord() use these positions, and the snapshot keeps the backend's slot number
// (liveSlotLabel()) for display. Seeking back shows a kept slot
// read-only while live operation goes on (slots keep completing, the timeline keeps growing,
// the gate's batch stays open for review); backToLive() or seeking to the newest slot returns
// to the live state, and stepping forward from there runs the next slot.

#include "jobtracker.h"
#include "livetypes.h"
#include "modelprofile.h"
#include "playbackclock.h"
#include "sessiontypes.h"

#include <QObject>
#include <QPointer>
#include <memory>
#include <vector>

class QThread;

namespace dl2console {

class LiveOperations;
class SimulationWorker;

class ConsoleSession : public QObject
{
    Q_OBJECT
public:
    explicit ConsoleSession(QObject *parent = nullptr);
    ~ConsoleSession() override;

    void load(const SessionSetup &setup);
    void startLive(const LiveSetup &setup);
    bool isLive() const { return m_live != nullptr; }
    LiveOperations *live() const { return m_live; }
    // Live mode: showing a kept slot instead of the live state.
    bool isViewingHistory() const { return m_live && m_viewingHistory; }
    // Live mode: position of the newest state (-1 before the first slot).
    int liveSlot() const;
    // Live mode: the kept record at a position (nullptr when none).
    const LiveSlotPacket *liveRecord(int slot) const;
    // Live mode: the backend's slot number of the kept slot at a position (-1 when none).
    int liveSlotLabel(int position) const;
    // Live mode: the batch that decided `slot`, read-only, with acknowledgments (history = true).
    GateBatch historyBatch(int slot) const;
    void backToLive();
    const SessionSetup &setup() const { return m_setup; }
    const RunInfo &runInfo() const { return m_info; }
    bool isLoaded() const { return m_loaded; }
    const dl2::ProfileSet &profiles() const { return m_profiles; }

    bool isPlaying() const { return m_clock.isPlaying(); }
    void setPlaying(bool playing);
    void togglePlaying() { setPlaying(!isPlaying()); }
    void stepForward();
    void stepBack();
    void seek(int slot);
    // Slots per second; 0 = as fast as the simulator goes.
    void setSpeed(double slotsPerSecond);
    double speed() const { return m_clock.speed(); }

    // Slot of the snapshot on display (-1 before the first one arrives); live: its position.
    int currentSlot() const { return m_live ? m_livePosition : m_snapshot.slot; }
    // Slot the session is heading for (== currentSlot() when idle).
    int targetSlot() const
    {
        return m_wanted >= 0 ? m_wanted : m_inFlightSlot >= 0 ? m_inFlightSlot : currentSlot();
    }
    bool isIdle() const { return m_inFlightSlot < 0 && m_wanted < 0; }
    const dl2::SlotSnapshot &snapshot() const { return m_snapshot; }
    const DecisionLog &decisions() const { return m_decisions; }
    // One summary per simulated slot, index == slot.
    const std::vector<SlotSummary> &timeline() const { return m_timeline; }
    bool runComplete() const { return m_runComplete; }
    // Last slot of the run if complete, else the furthest slot simulated so far.
    int lastKnownSlot() const { return static_cast<int>(m_timeline.size()) - 1; }

    // Runs a local event loop until `slot` (clamped to the run's end) is on display and no
    // request is pending, or the timeout passes. For the CLI screenshot, tests and benchmarks.
    bool waitForSlot(int slot, int timeoutMs = 60000);

Q_SIGNALS:
    void loadStarted();
    void loaded();
    void errorOccurred(const QString &message);
    void snapshotChanged();
    void timelineChanged();
    void playingChanged(bool playing);
    void speedChanged(double slotsPerSecond);
    void liveChanged();     // entered or left live operations mode (a new LiveOperations)
    void liveViewChanged(); // left or returned to the live state (isViewingHistory())

private:
    void clearRun(int wantedSlot);
    void onLoaded(quint64 generation, const dl2console::RunInfo &info);
    void onLoadFailed(quint64 generation, const QString &message);
    void onSummaries(quint64 generation, const QVector<dl2console::SlotSummary> &summaries,
                     bool runComplete);
    void onSnapshot(quint64 generation, const dl2console::SnapshotPacket &packet);
    void onPlayTick();
    void sendNext();
    void stopLive();
    void onLiveSlot(const dl2console::LiveSlotPacket &packet);
    void onLiveHistory(const std::vector<dl2console::LiveSlotPacket> &packets);
    int keepLiveSlot(const LiveSlotPacket &packet); // its position; -1: not kept
    void showLivePacket(const LiveSlotPacket &packet, int position);
    int positionOfLabel(int label) const;
    void setViewingHistory(bool on);

    QThread *m_thread = nullptr;
    QPointer<SimulationWorker> m_worker;
    LiveOperations *m_live = nullptr;
    PlaybackClock m_clock{4.0, [this] { onPlayTick(); }};
    SessionSetup m_setup;
    RunInfo m_info;
    dl2::ProfileSet m_profiles;
    JobTracker m_jobs; // loads: results of an earlier one are dropped
    bool m_loaded = false;
    int m_inFlightSlot = -1; // requested, reply pending
    int m_wanted = -1;       // to request once the in-flight reply arrives
    bool m_runComplete = false;
    dl2::SlotSnapshot m_snapshot;
    DecisionLog m_decisions;
    std::vector<SlotSummary> m_timeline;
    // Live mode: the kept slots in the backend's slot order (index == position, as the
    // timeline's), and the backend's slot number of each (ascending).
    std::vector<LiveSlotPacket> m_liveSlots;
    std::vector<int> m_liveLabels;
    int m_livePosition = -1; // position of the live packet on display
    std::unique_ptr<LiveSlotPacket> m_liveHead; // the newest state
    bool m_viewingHistory = false;
};

} // namespace dl2console
