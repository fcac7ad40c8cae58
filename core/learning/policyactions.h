#pragma once
// What a learned policy did in its last slot, one entry per inference: the acted-on job, whether
// the task was placed, the probability of the chosen action and V(s). Only the outcome, not the
// full decision record (dl2policy.h): enough for the confidence the operating loop attaches to
// each resize decision (PolicyPlanner::ActionReader), in the console and in `dl2 operate`.

#include "scheduler.h"

#include <vector>

namespace dl2 {

struct PolicyActionSummary
{
    int jobId = -1;      // -1 for stop
    bool placed = false; // the task was allocated (not stop, not a failed allocation)
    double probability = 0.0;
    double value = 0.0; // V(s) before the action
};

// Switches the decision record of a learned policy on; false for any other scheduler.
bool recordPolicyActions(Scheduler &scheduler);
// The inferences of the scheduler's last slot (empty for a scheduler that is not learned).
std::vector<PolicyActionSummary> lastPolicyActions(const Scheduler &scheduler);

} // namespace dl2
