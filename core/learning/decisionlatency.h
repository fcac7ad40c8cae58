#pragma once
// Process-wide collector of learned-policy decision latencies (per inference and per slot),
// switched on by `dl2 evaluate` and the benchmark; off by default (then nothing is timed).

#include <cstddef>
#include <vector>

namespace dl2::decisionlatency {

struct Summary
{
    std::size_t inferences = 0;
    std::size_t slotCount = 0;
    double inferenceP50 = 0.0, inferenceP99 = 0.0, inferenceMean = 0.0; // microseconds
    double slotP50 = 0.0, slotP99 = 0.0, slotMax = 0.0;                // microseconds
};

void setEnabled(bool on);
bool enabled();
void clear();
// One slot's inferences (microseconds each) and the whole slot's time.
void addSlot(const std::vector<float> &inferenceMicros, double slotMicros);
Summary summary();

} // namespace dl2::decisionlatency
