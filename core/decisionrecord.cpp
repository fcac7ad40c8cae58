#include "decisionrecord.h"

#include "scheduler.h"

#include <algorithm>

namespace dl2 {

int DecisionRecord::validActions() const
{
    int n = 0;
    for (int a = 0; a < static_cast<int>(probabilities.size()); ++a)
        n += isMasked(a) ? 0 : 1;
    return n;
}

void DecisionRecord::setFeatures(const std::vector<float> &inputs)
{
    features.clear();
    sparseFeatures.clear();
    std::size_t nonZero = 0;
    for (const float x : inputs)
        nonZero += x != 0.0f ? 1 : 0;
    // A sparse entry takes two floats' worth of memory.
    if (2 * nonZero >= inputs.size()) {
        features = inputs;
        return;
    }
    sparseFeatures.reserve(nonZero);
    for (std::size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i] != 0.0f)
            sparseFeatures.emplace_back(static_cast<std::uint32_t>(i), inputs[i]);
}

float DecisionRecord::feature(std::size_t index) const
{
    if (!features.empty())
        return features[index];
    const auto it = std::lower_bound(sparseFeatures.begin(), sparseFeatures.end(), index,
                                     [](const auto &entry, std::size_t i) { return entry.first < i; });
    return it != sparseFeatures.end() && it->first == index ? it->second : 0.0f;
}

std::vector<float> DecisionRecord::denseFeatures() const
{
    if (!features.empty())
        return features;
    std::vector<float> out(featureCount(), 0.0f);
    for (const auto &[i, x] : sparseFeatures)
        out[i] = x;
    return out;
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
