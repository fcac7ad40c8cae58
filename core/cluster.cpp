#include "cluster.h"

#include "error.h"

#include <bit>

namespace dl2 {

Cluster::Cluster(int nodes, Demand capacityPerNode)
    : m_capacity(capacityPerNode), m_used(static_cast<size_t>(nodes > 0 ? nodes : 0), Demand{0, 0})
{
    if (nodes <= 0)
        throw Error("cluster: number of nodes must be positive, got " + std::to_string(nodes));
    if (capacityPerNode[0] < 0 || capacityPerNode[1] < 0 || capacityPerNode[0] > 4096 ||
        capacityPerNode[1] > 4096)
        throw Error("cluster: node capacity per resource type must be in 0..4096 slots");
    m_words = (nodes + 63) / 64;
    const int levels = m_capacity[0] + m_capacity[1] + 1;
    m_levels.assign(static_cast<size_t>(levels) * m_words, 0);
    m_levelCount.assign(static_cast<size_t>(levels), 0);
    for (int n = 0; n < nodes; ++n)
        setBit(0, n);
}

void Cluster::setBit(int level, int node)
{
    m_levels[static_cast<size_t>(level) * m_words + node / 64] |= 1ull << (node % 64);
    ++m_levelCount[level];
}

void Cluster::clearBit(int level, int node)
{
    m_levels[static_cast<size_t>(level) * m_words + node / 64] &= ~(1ull << (node % 64));
    --m_levelCount[level];
}

int Cluster::firstNode(int level, int fromWord) const
{
    const std::uint64_t *words = &m_levels[static_cast<size_t>(level) * m_words];
    for (int w = fromWord; w < m_words; ++w)
        if (words[w])
            return w * 64 + std::countr_zero(words[w]);
    return -1;
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
            return firstNode(level, 0);
    return -1;
}

int Cluster::chooseNode(const Demand &demand, PlacementRule rule) const
{
    if (rule == PlacementRule::LeastLoaded) {
        const int node = leastLoadedNode();
        return node >= 0 && fits(node, demand) ? node : -1;
    }
    // Least-loaded first, ties by id: walk the levels upwards and each level's nodes by id.
    const int levels = static_cast<int>(m_levelCount.size());
    const int maxLevel = m_capacity[0] + m_capacity[1] - demand[0] - demand[1];
    for (int level = m_minLevel; level < levels && level <= maxLevel; ++level) {
        if (m_levelCount[level] == 0)
            continue;
        const std::uint64_t *words = &m_levels[static_cast<size_t>(level) * m_words];
        for (int w = 0; w < m_words; ++w) {
            std::uint64_t bits = words[w];
            while (bits) {
                const int node = w * 64 + std::countr_zero(bits);
                if (fits(node, demand))
                    return node;
                bits &= bits - 1;
            }
        }
    }
    return -1;
}

void Cluster::setUsed(int node, const Demand &value)
{
    const int oldLevel = load(node);
    m_totalUsed = m_totalUsed + Demand{value[0] - m_used[node][0], value[1] - m_used[node][1]};
    m_used[node] = value;
    const int newLevel = load(node);
    if (newLevel == oldLevel)
        return;
    clearBit(oldLevel, node);
    setBit(newLevel, node);
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
    std::fill(m_levels.begin(), m_levels.end(), 0);
    std::fill(m_levelCount.begin(), m_levelCount.end(), 0);
    for (int n = 0; n < nodeCount(); ++n) {
        m_used[n] = {0, 0};
        setBit(0, n);
    }
    m_minLevel = 0;
    m_totalUsed = {0, 0};
}

} // namespace dl2
