#pragma once
// How a backend runs the allocations it was told to run (its targets), and whether a set of
// targets fits on the nodes. One rule for the simulated backend (SimulatedConnector runs it
// every slot) and for the decision gate (an operator's override is checked with it):
//   every active job with a target, in the simulator's job order (arrival slot, then id), gets
//   its listed tasks on their nodes when they still fit there, else where the cluster's
//   placement rule puts them; then whatever the list did not cover: bundles (one worker + one
//   PS on one node) while both are missing, then single tasks, until one fails.
// Under the reference rule (least-loaded) a task that does not fit on the least-loaded node
// fails even when another node has room, so a target can fail on the nodes while the cluster's
// totals would hold it.

#include "clusterconnector.h"
#include "modelprofile.h"
#include "scheduler.h"

#include <map>
#include <string>
#include <vector>

namespace dl2 {

// Adds every target's tasks to the slot (see above); jobs without a target stay idle.
void placeTargets(SlotContext &context, const std::map<int, Allocation> &targets);

struct PlacementShortfall
{
    int job = 0;
    Allocation wanted;
    Allocation placed; // what the rule managed to place (tasks filled in)
};

// Places `targets` (job id -> allocation) on the view's nodes, empty, with the view's placement
// rule and caps, as the backend will at the start of its next slot. Returns the jobs that would
// not get their whole target (in job order; empty: everything fits).
std::vector<PlacementShortfall> placementShortfalls(const ClusterView &view,
                                                    const std::map<int, Allocation> &targets,
                                                    const ProfileSet &profiles);

} // namespace dl2
