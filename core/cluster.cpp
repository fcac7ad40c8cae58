#include "cluster.h"

#include "error.h"

#include <algorithm>
#include <bit>
#include <climits>

namespace dl2 {

const char *toString(PlacementRule rule)
{
    return rule == PlacementRule::LeastLoaded ? "least-loaded" : "first-fit";
}

Cluster::Cluster(int nodes, Demand capacityPerNode)
    : m_capacity(capacityPerNode), m_used(static_cast<size_t>(nodes > 0 ? nodes : 0), Demand{0, 0})
{
    if (nodes <= 0)
        throw Error("cluster: number of nodes must be positive, got " + std::to_string(nodes));
    if (capacityPerNode[0] < 0 || capacityPerNode[1] < 0 || capacityPerNode[0] > 1024 ||
        capacityPerNode[1] > 1024 || (capacityPerNode[0] + 1) * (capacityPerNode[1] + 1) > 16384)
        throw Error("cluster: node capacity out of range (each type 0..1024 slots, "
                    "(CPU + 1) x (GPU + 1) at most 16384)");
    m_words = (nodes + 63) / 64;
    const int buckets = (m_capacity[0] + 1) * (m_capacity[1] + 1);
    m_bits.assign(static_cast<size_t>(buckets) * m_words, 0);
    m_bucketCount.assign(static_cast<size_t>(buckets), 0);
    m_levelCount.assign(static_cast<size_t>(m_capacity[0] + m_capacity[1] + 1), 0);
    for (int n = 0; n < nodes; ++n)
        setBit(0, n);
    m_levelCount[0] = nodes;
}

void Cluster::setBit(int b, int node)
{
    m_bits[static_cast<size_t>(b) * m_words + node / 64] |= 1ull << (node % 64);
    ++m_bucketCount[b];
}

void Cluster::clearBit(int b, int node)
{
    m_bits[static_cast<size_t>(b) * m_words + node / 64] &= ~(1ull << (node % 64));
    --m_bucketCount[b];
}

int Cluster::firstNode(int b) const
{
    const std::uint64_t *words = &m_bits[static_cast<size_t>(b) * m_words];
    for (int w = 0; w < m_words; ++w)
        if (words[w])
            return w * 64 + std::countr_zero(words[w]);
    return -1;
}

int Cluster::firstAtLevel(int level, const Demand &demand) const
{
    if (m_levelCount[level] == 0)
        return -1;
    int best = INT_MAX;
    const int lo = std::max(0, level - m_capacity[1]);
    const int hi = std::min(m_capacity[0], level);
    for (int cpu = lo; cpu <= hi; ++cpu) {
        const int gpu = level - cpu;
        if (cpu + demand[0] > m_capacity[0] || gpu + demand[1] > m_capacity[1])
            continue;
        const int b = bucket(cpu, gpu);
        if (m_bucketCount[b] == 0)
            continue;
        best = std::min(best, firstNode(b));
    }
    return best == INT_MAX ? -1 : best;
}

Demand Cluster::totalCapacity() const
{
    return nodeCount() * m_capacity;
}

double Cluster::utilisation(Resource r) const
{
    const int i = static_cast<int>(r);
    const double total = static_cast<double>(nodeCount()) * m_capacity[i];
    return total > 0 ? m_totalUsed[i] / total : 0.0;
}

bool Cluster::fits(int node, const Demand &demand) const
{
    const Demand &u = m_used[node];
    return u[0] + demand[0] <= m_capacity[0] && u[1] + demand[1] <= m_capacity[1];
}

int Cluster::leastLoadedNode() const
{
    const int levels = static_cast<int>(m_levelCount.size());
    for (int level = m_minLevel; level < levels; ++level)
        if (m_levelCount[level] > 0)
            return firstAtLevel(level, {0, 0});
    return -1;
}

int Cluster::chooseNode(const Demand &demand, PlacementRule rule) const
{
    if (demand[0] > m_capacity[0] || demand[1] > m_capacity[1])
        return -1;
    if (rule == PlacementRule::LeastLoaded) {
        const int node = leastLoadedNode();
        return node >= 0 && fits(node, demand) ? node : -1;
    }
    const int maxLevel = m_capacity[0] + m_capacity[1] - demand[0] - demand[1];
    for (int level = m_minLevel; level <= maxLevel; ++level)
        if (const int node = firstAtLevel(level, demand); node >= 0)
            return node;
    return -1;
}

void Cluster::setUsed(int node, const Demand &value)
{
    const Demand old = m_used[node];
    m_totalUsed = m_totalUsed + Demand{value[0] - old[0], value[1] - old[1]};
    m_used[node] = value;
    clearBit(bucket(old[0], old[1]), node);
    setBit(bucket(value[0], value[1]), node);
    --m_levelCount[old[0] + old[1]];
    const int newLevel = value[0] + value[1];
    ++m_levelCount[newLevel];
    if (newLevel < m_minLevel)
        m_minLevel = newLevel;
    while (m_minLevel < static_cast<int>(m_levelCount.size()) - 1 && m_levelCount[m_minLevel] == 0)
        ++m_minLevel;
}

void Cluster::allocate(int node, const Demand &demand)
{
    setUsed(node, m_used[node] + demand);
}

void Cluster::release(int node, const Demand &demand)
{
    setUsed(node, {m_used[node][0] - demand[0], m_used[node][1] - demand[1]});
}

void Cluster::clear()
{
    if (m_totalUsed == Demand{0, 0})
        return;
    std::fill(m_bits.begin(), m_bits.end(), 0);
    std::fill(m_bucketCount.begin(), m_bucketCount.end(), 0);
    std::fill(m_levelCount.begin(), m_levelCount.end(), 0);
    for (int n = 0; n < nodeCount(); ++n) {
        m_used[n] = {0, 0};
        setBit(0, n);
    }
    m_levelCount[0] = nodeCount();
    m_minLevel = 0;
    m_totalUsed = {0, 0};
}

} // namespace dl2
