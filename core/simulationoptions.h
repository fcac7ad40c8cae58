#pragma once
// How a simulation runs (slot length, caps, placement, noise): what the simulator, the
// schedulers' SlotContext and the learning environment share, without the simulator itself.

#include "cluster.h"

#include <cstdint>

namespace dl2 {

struct SimulationOptions
{
    double slotSeconds = 1200.0;
    // Stop after this many slots; 0 = until every job has finished, or until the run stalls:
    // every job has arrived and none has progressed for stallSlots slots.
    int maxSlots = 1000;
    int stallSlots = 1000;
    int maxWorkers = 16;
    int maxPs = 16;
    PlacementRule placement = PlacementRule::LeastLoaded;
    // Beyond the reference (all off there):
    double resizeCostSeconds = 0.0; // lost training per task added/removed vs previous slot
    double speedNoise = 0.0;        // multiplicative uniform noise, speed x (1 + U(-n, n))
    std::uint64_t seed = 1;         // for the noise
    bool unfinishedJobsReward = false; // reward = -(number of unfinished jobs) instead
};

} // namespace dl2
