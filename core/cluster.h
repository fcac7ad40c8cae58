#pragma once
// The cluster: N nodes with capacities per resource type, per-node usage, and the two
// node-choice rules (reference least-loaded, feasible-node search). Nodes are indexed by their
// usage vector (used CPU, used GPU slots: a few dozen possible values) in one bitset per
// value, so allocation is O(1) and both rules look at each distinct usage once instead of
// scanning nodes: a 3,250-node cluster answers a first-fit query in well under a microsecond.

#include "types.h"

#include <cstdint>
#include <vector>

namespace dl2 {

enum class PlacementRule {
    // Reference: always the least-loaded node (load = sum of used slots over types, ties by
    // node id); if the task does not fit there, the allocation fails.
    LeastLoaded,
    // Feasible-node search: the least-loaded node on which the task fits; fails only if the
    // task fits nowhere.
    FirstFit,
};
const char *toString(PlacementRule rule);

class Cluster
{
public:
    Cluster() = default;
    Cluster(int nodes, Demand capacityPerNode);

    int nodeCount() const { return static_cast<int>(m_used.size()); }
    const Demand &nodeCapacity() const { return m_capacity; }
    const Demand &used(int node) const { return m_used[node]; }
    const std::vector<Demand> &usage() const { return m_used; }
    Demand totalCapacity() const;
    Demand totalUsed() const { return m_totalUsed; }
    double utilisation(Resource r) const;
    int load(int node) const { return m_used[node][0] + m_used[node][1]; }

    bool fits(int node, const Demand &demand) const;
    // The node the rule picks for `demand`, or -1 if the allocation fails.
    int chooseNode(const Demand &demand, PlacementRule rule) const;
    int leastLoadedNode() const;

    void allocate(int node, const Demand &demand);
    void release(int node, const Demand &demand);
    // Frees everything (the reference clears every allocation at the start of a slot).
    void clear();

private:
    void setUsed(int node, const Demand &value);
    int bucket(int cpu, int gpu) const { return cpu * (m_capacity[1] + 1) + gpu; }
    void setBit(int bucket, int node);
    void clearBit(int bucket, int node);
    int firstNode(int bucket) const;
    // Least id among nodes of load `level` whose usage leaves room for `demand`, or -1.
    int firstAtLevel(int level, const Demand &demand) const;

    Demand m_capacity{0, 0};
    std::vector<Demand> m_used;
    Demand m_totalUsed{0, 0};
    int m_words = 0;                       // 64-bit words per bucket
    std::vector<std::uint64_t> m_bits;     // one bitset of nodes per usage vector
    std::vector<int> m_bucketCount;        // nodes per usage vector
    std::vector<int> m_levelCount;         // nodes per load (used CPU + GPU slots)
    int m_minLevel = 0;                    // no node has a lower load
};

} // namespace dl2
