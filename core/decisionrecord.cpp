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

namespace {

constexpr std::size_t kBlock = 16;

// Non-zero inputs among x[0..kBlock): a fixed trip count, which the compiler vectorises.
unsigned nonZeroInBlock(const float *x)
{
    unsigned count = 0;
    for (std::size_t k = 0; k < kBlock; ++k)
        count += x[k] != 0.0f ? 1u : 0u;
    return count;
}

} // namespace

void DecisionRecord::setFeatures(const std::vector<float> &inputs)
{
    features.clear();
    sparseFeatures.clear();
    // Counted per block of 16, so that the copy below skips the all-zero blocks: with per-type
    // count features most of a row is 0 (the console records 1,500 inferences a slot of
    // 15,060 inputs each, and two plain passes were a third of its simulation thread). The
    // last, partial block always counts as non-zero.
    const float *x = inputs.data();
    const std::size_t size = inputs.size(), full = size / kBlock;
    thread_local std::vector<std::uint8_t> perBlock;
    perBlock.resize(full + 1);
    std::uint8_t *counts = perBlock.data();
    std::size_t nonZero = 0;
    for (std::size_t b = 0; b < full; ++b) {
        counts[b] = static_cast<std::uint8_t>(nonZeroInBlock(x + b * kBlock));
        nonZero += counts[b];
    }
    for (std::size_t i = full * kBlock; i < size; ++i)
        nonZero += x[i] != 0.0f ? 1 : 0;
    counts[full] = 1;
    // A sparse entry takes two floats' worth of memory.
    if (2 * nonZero >= size) {
        features = inputs;
        return;
    }
    sparseFeatures.reserve(nonZero);
    for (std::size_t b = 0; b <= full; ++b) {
        if (counts[b] == 0)
            continue;
        for (std::size_t i = b * kBlock; i < std::min(size, (b + 1) * kBlock); ++i)
            if (x[i] != 0.0f)
                sparseFeatures.emplace_back(static_cast<std::uint32_t>(i), x[i]);
    }
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
