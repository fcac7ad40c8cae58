#include "decisionrecord.h"

#include "scheduler.h"

namespace dl2 {

int DecisionRecord::validActions() const
{
    int n = 0;
    for (int a = 0; a < static_cast<int>(probabilities.size()); ++a)
        n += isMasked(a) ? 0 : 1;
    return n;
}

bool recordPolicyActions(Scheduler &scheduler)
{
    return scheduler.recordDecisions(DecisionRecording::Full);
}

std::vector<PolicyActionSummary> lastPolicyActions(const Scheduler &scheduler)
{
    std::vector<PolicyActionSummary> out;
    const auto &records = scheduler.lastDecisions();
    out.reserve(records.size());
    for (const DecisionRecord &d : records) {
        PolicyActionSummary a;
        a.jobId = d.stop ? -1 : d.jobId;
        a.placed = !d.stop && d.result == AddResult::Ok;
        if (d.action >= 0 && d.action < static_cast<int>(d.probabilities.size()))
            a.probability = d.probabilities[static_cast<size_t>(d.action)];
        if (d.value)
            a.value = *d.value;
        out.push_back(a);
    }
    return out;
}

} // namespace dl2
