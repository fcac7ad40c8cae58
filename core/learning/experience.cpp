#include "experience.h"

#include "error.h"

#include <algorithm>
#include <cmath>

namespace dl2 {

void SampleInputs::assign(const float *dense, size_t size)
{
    m_size = size;
    m_index.clear();
    m_value.clear();
    const size_t nonzero = size_t(std::count_if(dense, dense + size, [](float v) { return v != 0.0f; }));
    m_sparse = 2 * nonzero < size; // an index and a value per input cost twice a dense one
    if (!m_sparse) {
        m_value.assign(dense, dense + size);
        return;
    }
    m_index.reserve(nonzero);
    m_value.reserve(nonzero);
    for (size_t i = 0; i < size; ++i)
        if (dense[i] != 0.0f) {
            m_index.push_back(std::uint32_t(i));
            m_value.push_back(dense[i]);
        }
}

void SampleInputs::writeTo(float *dst, bool zeroed) const
{
    if (!m_sparse) {
        std::copy(m_value.begin(), m_value.end(), dst);
        return;
    }
    if (!zeroed)
        std::fill(dst, dst + m_size, 0.0f);
    for (size_t k = 0; k < m_index.size(); ++k)
        dst[m_index[k]] = m_value[k];
}

std::vector<float> SampleInputs::dense() const
{
    std::vector<float> out(m_size, 0.0f);
    writeTo(out.data(), true);
    return out;
}

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
    s.jobs.resize(jobs.size());
    jobs.writeTo(s.jobs.data());
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
    const std::vector<float> jobs = in.jobs.dense();
    std::vector<float> shuffled(jobs.size());
    std::vector<int> perm(rows);
    for (int i = 0; i < rows; ++i)
        perm[i] = i;
    rng.shuffle(perm.begin(), perm.end());
    // Row r of the output is row perm[r] of the input.
    for (int r = 0; r < rows; ++r) {
        std::copy_n(jobs.begin() + perm[r] * dim, dim, shuffled.begin() + r * dim);
        for (int k = 0; k < 3; ++k)
            out.mask[3 * r + k] = in.mask[3 * perm[r] + k];
    }
    out.jobs = shuffled;
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
