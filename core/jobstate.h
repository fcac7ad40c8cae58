#pragma once
// The simulator's record of one job, and the per-slot snapshot handed to every client
// (CLI, console, learning, connectors). Plain value types: copy them freely.

#include "types.h"

#include <array>
#include <cstdint>
#include <vector>

namespace dl2 {

enum class JobStatus : std::uint8_t {
    Pending,  // not arrived yet
    Queued,   // arrived, unfinished, no (worker, PS) pair this slot
    Running,  // >= 1 worker and >= 1 PS this slot
    Finished,
};
const char *toString(JobStatus status);

struct JobState
{
    int id = 0;
    int type = 0;               // profile index (type id = type + 1)
    int arrivalSlot = 0;
    double totalEpochs = 0.0;   // truth: completion uses it
    double estimatedEpochs = 0.0; // what schedulers see (== totalEpochs without estimation error)
    double doneEpochs = 0.0;
    JobStatus status = JobStatus::Pending;

    // Allocation of the current slot (cleared at the start of every slot).
    int workers = 0;
    int ps = 0;
    std::vector<TaskPlacement> tasks;
    Demand usage{0, 0};
    int prevWorkers = 0; // allocation of the previous slot (resize cost, decisions)
    int prevPs = 0;

    // Outcome of the last slot.
    double speed = 0.0;          // steps/s
    double epochsThisSlot = 0.0; // progress made (capped at the remaining epochs)
    double finishTime = -1.0;    // slot + fraction of it, -1 while unfinished

    // What the trace observed (imported traces; 0 / -1 when it says nothing): the slot the job
    // started in and its allocation. Policy "observed" replays them.
    int observedStartSlot = -1;
    int observedWorkers = 0;
    int observedPs = 0;

    // How its time was spent so far, kept by the simulator whatever the scheduler: the slots it
    // ran in (>= 1 worker and >= 1 PS, the slot it finished in included), the first of them
    // (-1 before), and its workers and PSs summed over them.
    int firstRunSlot = -1;
    int slotsRun = 0;
    std::int64_t workerSlots = 0;
    std::int64_t psSlots = 0;
    // Slots in which a policy that decides for a window of jobs only (dl2) never had it in view
    // (SlotContext::limitView); under dl2 such a job runs the slot with the one bundle every
    // job gets first, if that fits.
    int slotsOutsideView = 0;
    bool outsideViewThisSlot = false; // the same, for the slot just simulated

    double jct() const { return finishTime < 0 ? -1.0 : finishTime - arrivalSlot; }
    // Slots from its arrival to its first run; one never run waits until `slotCount` (the
    // slots simulated), one not arrived by then 0.
    int waitingSlots(int slotCount) const;
    // Over the slots it ran in (0 if none).
    double meanWorkers() const;
    double meanPs() const;

    // Remaining fraction of epochs as the scheduler sees it (estimate-based), in [0, 1].
    double remainingFraction() const;
    // Remaining epochs as the scheduler sees them.
    double remainingEpochs() const;
    bool active() const { return status == JobStatus::Queued || status == JobStatus::Running; }
};

struct SlotSnapshot
{
    int slot = -1;             // the slot just simulated
    double reward = 0.0;       // normalised progress of this slot
    double cumulativeReward = 0.0;
    std::array<double, kResourceTypes> utilisation{0.0, 0.0};
    std::vector<Demand> nodeUsage; // per node
    Demand nodeCapacity{0, 0};
    std::vector<JobState> jobs;    // every job of the trace, in trace order
    std::vector<int> arrivals;     // job ids that arrived in this slot
    std::vector<int> completions;  // job ids that finished in this slot
    int pending = 0;
    int queued = 0;
    int running = 0;
    int finished = 0;
};

} // namespace dl2
