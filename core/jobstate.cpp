#include "jobstate.h"

#include <algorithm>

namespace dl2 {

const char *toString(JobStatus status)
{
    switch (status) {
    case JobStatus::Pending: return "pending";
    case JobStatus::Queued: return "queued";
    case JobStatus::Running: return "running";
    case JobStatus::Finished: return "finished";
    }
    return "?";
}

double JobState::remainingEpochs() const
{
    const double total = estimatedEpochs > 0 ? estimatedEpochs : totalEpochs;
    return std::max(0.0, total - doneEpochs);
}

int JobState::waitingSlots(int slotCount) const
{
    return firstRunSlot >= 0 ? firstRunSlot - arrivalSlot : std::max(0, slotCount - arrivalSlot);
}

double JobState::meanWorkers() const
{
    return slotsRun > 0 ? static_cast<double>(workerSlots) / slotsRun : 0.0;
}

double JobState::meanPs() const
{
    return slotsRun > 0 ? static_cast<double>(psSlots) / slotsRun : 0.0;
}

double JobState::remainingFraction() const
{
    const double total = estimatedEpochs > 0 ? estimatedEpochs : totalEpochs;
    return total > 0 ? remainingEpochs() / total : 0.0;
}

} // namespace dl2
