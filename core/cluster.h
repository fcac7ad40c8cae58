#pragma once
// The cluster: N nodes with capacities per resource type, per-node usage, and the two
// node-choice rules (reference least-loaded, feasible-node search). Nodes are indexed by load
// level (load = used CPU + GPU slots, a small integer) in one bitset per level, so allocation
// is O(1) and the least-loaded node (ties by id) is a scan of a few machine words.

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
    void setBit(int level, int node);
    void clearBit(int level, int node);
    int firstNode(int level, int fromWord) const;

    Demand m_capacity{0, 0};
    std::vector<Demand> m_used;
    Demand m_totalUsed{0, 0};
    int m_words = 0;                      // 64-bit words per level
    std::vector<std::uint64_t> m_levels;  // (capacity sum + 1) levels x m_words
    std::vector<int> m_levelCount;        // nodes per load level
    int m_minLevel = 0;                   // no node has a lower load
};

} // namespace dl2
