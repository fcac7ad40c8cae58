#pragma once
// Value types the console session passes between its worker thread and the GUI: the core's
// SlotSnapshot (registered for queued connections here, since core stays Qt-Widgets-free)
// and the light per-slot record kept for every simulated slot (timeline, plots).

#include "decisionadapter.h"
#include "jobstate.h"
#include "trace.h"

#include <QMetaType>
#include <QString>
#include <QVector>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace dl2console {

// One job in one slot, 12 bytes: enough for the speed/allocation plot of any slot.
struct JobSlotRecord
{
    std::int16_t workers = 0;
    std::int16_t ps = 0;
    float epochs = 0.0f; // epochs done in this slot
    float speed = 0.0f;  // steps/s
};

// Light data of one simulated slot; the session keeps one per slot of the run.
struct SlotSummary
{
    int slot = -1;
    double reward = 0.0;
    double cumulativeReward = 0.0;
    std::array<double, dl2::kResourceTypes> utilisation{0.0, 0.0};
    int pending = 0;
    int queued = 0;
    int running = 0;
    int finished = 0;
    // Time the jobs spent in the system during this slot, in job-slots (1 per arrived,
    // unfinished job, the fraction it needed for one that finished here): summed over the
    // slots it is the cumulative JCT, and over the whole run the total JCT.
    double jobSlots = 0.0;
    std::vector<int> arrivals;
    std::vector<int> completions;
    std::vector<JobSlotRecord> jobs; // trace order
    std::optional<float> value;      // learned policies: V(s) of the slot's first inference
};

SlotSummary summarise(const dl2::SlotSnapshot &snapshot);

// Did the job hold its tasks in the snapshot's slot? The core leaves a finished job's last
// allocation in its JobState; only jobs that finished during this very slot used it here.
inline bool heldAllocation(const dl2::JobState &job, int slot)
{
    return job.status != dl2::JobStatus::Finished || job.finishTime >= slot;
}

// What identifies one loaded run.
struct SessionSetup
{
    QString scenario = QStringLiteral("dl2-reference");
    quint64 seed = 1;
    QString traceFile; // when set, replaces the scenario's generated trace
    QString policy;
    QString checkpoint;                      // dl2 / dl2-plus: policy file or shipped name; empty: shipped default
    QString speedModel = QStringLiteral("rbf"); // "rbf" (measured table) or "optimus" (fitted model)
    QString speedTable;                      // measured speeds file; empty: the built-in table
    int nodes = 0;                           // cluster size; 0: the scenario's (500 for trace files)
    bool operator==(const SessionSetup &) const = default;
};

// "measured speeds (exact RBF)" / "fitted Optimus model", plus the table file if any.
QString speedModelLabel(const SessionSetup &setup);

// A full snapshot plus what only the worker knows (decision record of the policy).
struct SnapshotPacket
{
    dl2::SlotSnapshot snapshot;
    DecisionLog decisions;
};

} // namespace dl2console

Q_DECLARE_METATYPE(dl2::SlotSnapshot)
Q_DECLARE_METATYPE(dl2console::SlotSummary)
Q_DECLARE_METATYPE(dl2console::SnapshotPacket)
Q_DECLARE_METATYPE(dl2console::SessionSetup)

namespace dl2console {

// What the worker reports once a run is set up.
struct RunInfo
{
    QString traceName;
    QString policy;
    int nodes = 0;
    int jobs = 0;
    double slotSeconds = 1200.0;
    QString speedModel; // speedModelLabel() of the run
    QString checkpoint; // the policy file a learned policy runs, empty for baselines
    int maxSlots = 1000;
    // Live operations: the cluster being operated ("sim", "kubernetes"; "embedded" for the
    // in-process simulator) and its description ("simulated cluster (dl2-small, seed 1)").
    QString backend;
    QString cluster;
    // What the trace's source said about its jobs (imported traces), by job id; null when no
    // job has any (generated traces, live operations).
    std::shared_ptr<const std::vector<std::pair<int, dl2::JobSource>>> sources;
    QString clusterSource; // "trace (…)" when the trace's own cluster is used, else empty
};

} // namespace dl2console

Q_DECLARE_METATYPE(dl2console::RunInfo)
