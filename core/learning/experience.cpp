#include "experience.h"

#include "error.h"

#include <algorithm>
#include <cmath>

namespace dl2 {

Sample Sample::fromState(const EncodedState &s, int action)
{
    Sample x;
    x.rows = s.rows;
    x.jobs = s.jobs;
    x.global = s.global;
    x.mask = s.mask;
    x.action = action;
    return x;
}

void Sample::toState(const PolicySpec &spec, EncodedState &s) const
{
    s.rows = rows;
    s.jobDim = spec.jobDim();
    s.globalDim = spec.globalDim();
    s.jobs = jobs;
    s.global = global;
    s.mask = mask;
    s.jobIndex.resize(size_t(rows));
    for (int r = 0; r < rows; ++r)
        s.jobIndex[size_t(r)] = r;
}

Sample shuffledWindow(const Sample &in, Rng &rng)
{
    Sample out = in;
    const int rows = in.rows;
    if (rows <= 1)
        return out;
    const int dim = int(in.jobs.size()) / rows;
    std::vector<int> perm(rows);
    for (int i = 0; i < rows; ++i)
        perm[i] = i;
    rng.shuffle(perm.begin(), perm.end());
    // Row r of the output is row perm[r] of the input.
    for (int r = 0; r < rows; ++r) {
        std::copy_n(in.jobs.begin() + perm[r] * dim, dim, out.jobs.begin() + r * dim);
        for (int k = 0; k < 3; ++k)
            out.mask[3 * r + k] = in.mask[3 * perm[r] + k];
    }
    if (!in.target.empty())
        for (int r = 0; r < rows; ++r)
            for (int k = 0; k < 3; ++k)
                out.target[size_t(3 * r + k)] = in.target[size_t(3 * perm[r] + k)];
    if (in.action < 3 * rows) {
        const int row = in.action / 3;
        const int pos = int(std::find(perm.begin(), perm.end(), row) - perm.begin());
        out.action = 3 * pos + in.action % 3;
    }
    return out;
}

const char *toString(ReplayMode mode)
{
    switch (mode) {
    case ReplayMode::None: return "none";
    case ReplayMode::Uniform: return "uniform";
    case ReplayMode::Prioritised: return "prioritised";
    }
    return "none";
}

ReplayMode replayModeFromString(const std::string &name)
{
    if (name == "none")
        return ReplayMode::None;
    if (name == "uniform")
        return ReplayMode::Uniform;
    if (name == "prioritised" || name == "prioritized")
        return ReplayMode::Prioritised;
    throw Error("unknown replay mode '" + name + "' (known: none, uniform, prioritised)");
}

ReplayBuffer::ReplayBuffer(int capacity, ReplayMode mode) : m_capacity(std::max(1, capacity)), m_mode(mode) {}

void ReplayBuffer::add(Sample sample, float priority)
{
    if (int(m_samples.size()) < m_capacity) {
        m_samples.push_back(std::move(sample));
        m_priority.push_back(priority);
        return;
    }
    m_samples[size_t(m_next)] = std::move(sample);
    m_priority[size_t(m_next)] = priority;
    m_next = (m_next + 1) % m_capacity;
}

std::vector<int> ReplayBuffer::sample(int count, Rng &rng) const
{
    std::vector<int> out;
    if (m_samples.empty())
        return out;
    const int n = size();
    if (m_mode != ReplayMode::Prioritised) {
        for (int i = 0; i < count; ++i)
            out.push_back(int(rng.below(std::uint64_t(n))));
        return out;
    }
    std::vector<double> prefix(static_cast<size_t>(n), 0.0);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        sum += m_priority[size_t(i)];
        prefix[size_t(i)] = sum;
    }
    for (int i = 0; i < count; ++i) {
        const double u = rng.uniform() * sum;
        const auto it = std::upper_bound(prefix.begin(), prefix.end(), u);
        out.push_back(std::min(n - 1, int(it - prefix.begin())));
    }
    return out;
}

void ReplayBuffer::setPriority(int index, float priority)
{
    m_priority[size_t(index)] = priority;
}

} // namespace dl2
