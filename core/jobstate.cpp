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

double JobState::remainingFraction() const
{
    const double total = estimatedEpochs > 0 ? estimatedEpochs : totalEpochs;
    return total > 0 ? remainingEpochs() / total : 0.0;
}

} // namespace dl2
