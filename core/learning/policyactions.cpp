#include "policyactions.h"

#include "dl2policy.h"

namespace dl2 {

bool recordPolicyActions(Scheduler &scheduler)
{
    auto *policy = dynamic_cast<Dl2Policy *>(&scheduler);
    if (!policy)
        return false;
    policy->setRecordDecisions(true);
    return true;
}

std::vector<PolicyActionSummary> lastPolicyActions(const Scheduler &scheduler)
{
    std::vector<PolicyActionSummary> out;
    const auto *policy = dynamic_cast<const Dl2Policy *>(&scheduler);
    if (!policy)
        return out;
    out.reserve(policy->lastSlotDecisions().size());
    for (const DecisionRecord &d : policy->lastSlotDecisions()) {
        PolicyActionSummary a;
        a.jobId = d.stop ? -1 : d.jobId;
        a.placed = !d.stop && d.result == AddResult::Ok;
        if (d.action >= 0 && d.action < static_cast<int>(d.probabilities.size()))
            a.probability = d.probabilities[static_cast<size_t>(d.action)];
        a.value = d.value;
        out.push_back(a);
    }
    return out;
}

} // namespace dl2
