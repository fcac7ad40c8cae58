#pragma once
// The in-process backend (the default): a Simulator whose scheduler runs the approved
// allocations. Jobs keep their target allocation from slot to slot until a decision changes
// it (the cluster scales running jobs by the difference only, docs/model.md section 8).
//
// With a state directory, every change is appended to the journal DIR/agent-journal.jsonl and
// fsync'ed before apply() or advanceSlot() returns: a header (scenario, seed), then one line
// per applied decision and one per simulated slot. A restarted backend rebuilds the same
// simulation by replaying the journal (the simulator is deterministic), so it resumes where it
// was and still knows which decision ids it applied. Each record is atomic: a torn last line
// (crash mid-write, never acknowledged) is dropped on restart. If the journal cannot be
// written the process stops (qFatal) rather than acknowledge something it could forget.
// Duplicate-receipt counts are not journaled (they restart from zero).
//
// History: one SlotRecord per slot run (reward, utilisation, arrivals, completions, every
// arrived job as it ran, the decisions applied for it), kept in memory for the whole run and
// rebuilt by the journal replay; about 150 bytes per arrived job and slot.
//
// Thread-safe: one mutex guards all state (the gRPC server calls in from several threads).

#include "clusterconnector.h"
#include "scheduler.h"
#include "simulator.h"

#include <QByteArray>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>

class QFile;

namespace dl2 {

class SimulatedConnector : public ServedConnector
{
public:
    // Loads DIR/agent-state.json when it exists (scenario and seed then come from it and must
    // match the arguments unless `adoptStoredScenario` is set); stateDir may be empty.
    SimulatedConnector(const std::string &scenario, std::uint64_t seed,
                       const std::string &stateDir = {}, bool adoptStoredScenario = true);
    ~SimulatedConnector() override;

    std::string describe() const override;
    ClusterView snapshot() override;
    std::vector<ClusterEvent> events(std::int64_t afterSeq) override;
    std::vector<Acknowledgment> apply(const std::vector<ResizeDecision> &decisions) override;
    bool advanceSlot(int expectedSlot) override;
    std::vector<AppliedRecord> appliedRecord() override;
    // Every slot run since the start (a restored backend rebuilds them from its journal).
    std::vector<SlotRecord> history(int fromSlot, int toSlot, int maxSlots = 1 << 30) override;

    std::string backendName() const override { return "sim"; }
    std::string scenarioName() const override { return m_scenarioName; }
    int nextSlot() const override;
    std::vector<ClusterEvent> waitForEvents(std::int64_t afterSeq,
                                            std::chrono::milliseconds timeout) override;
    // The simulator's full snapshot of the last simulated slot (the console's views).
    SlotSnapshot slotSnapshot() const;
    std::string scenario() const { return m_scenarioName; }
    bool restored() const { return m_restored; }

private:
    struct AppliedEntry
    {
        ResizeDecision decision;
        AppliedRecord record;
    };
    class TargetScheduler;

    void build();
    void restore(const QByteArray &journal);
    void journalLocked(const QByteArray &records);
    Acknowledgment applyOneLocked(const ResizeDecision &d, bool replaying);
    void stepLocked();
    void pushEventLocked(ClusterEvent e);

    std::string m_scenarioName;
    std::uint64_t m_seed;
    std::string m_stateDir;
    bool m_restored = false;

    mutable std::mutex m_mutex;
    std::condition_variable m_eventsChanged;
    std::unique_ptr<Simulator> m_sim;
    std::unique_ptr<TargetScheduler> m_scheduler;
    std::map<int, Allocation> m_targets; // job id -> allocation to run
    std::map<int, int> m_jobIndex;       // job id -> index in the simulator's jobs
    std::vector<AppliedEntry> m_applied; // in order of application
    std::map<std::string, size_t> m_appliedById;
    std::vector<ClusterEvent> m_events;
    std::vector<SlotRecord> m_history; // index == slot; `applied` filled when asked
    std::unique_ptr<QFile> m_journal;
};

} // namespace dl2
