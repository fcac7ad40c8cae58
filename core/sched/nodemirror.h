#pragma once
// A scheduler-side copy of the cluster that answers the cluster's FirstFit question
// ("least-loaded node where the task fits, ties by id") for tentative placements, which can
// be undone. It is a plain Cluster copy: the same bitset index, so the answer is the one the
// real cluster gives for the same usage.

#include "cluster.h"

namespace dl2 {

class NodeMirror
{
public:
    void reset(const Cluster &cluster) { m_cluster = cluster; }
    // The node Cluster::chooseNode(demand, PlacementRule::FirstFit) would pick, or -1.
    int firstFit(const Demand &demand) const
    {
        return m_cluster.chooseNode(demand, PlacementRule::FirstFit);
    }
    void allocate(int node, const Demand &demand) { m_cluster.allocate(node, demand); }
    void release(int node, const Demand &demand) { m_cluster.release(node, demand); }
    Demand totalFree() const
    {
        const Demand cap = m_cluster.totalCapacity(), used = m_cluster.totalUsed();
        return {cap[0] - used[0], cap[1] - used[1]};
    }

private:
    Cluster m_cluster;
};

} // namespace dl2
