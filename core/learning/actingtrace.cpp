#include "actingtrace.h"

#include "error.h"

#include <cstring>

namespace dl2 {

void ActingTrace::clear()
{
    steps.clear();
    floats.clear();
    masks.clear();
    m_encode = m_updates = 0;
}

void ActingTrace::record(const EncodedState &s, int action, float behaviourProb, int job)
{
    Step step;
    step.rows = s.rows;
    step.jobDim = s.jobDim;
    step.globalDim = int(s.global.size());
    step.action = action;
    step.job = job;
    step.behaviourProb = behaviourProb;
    const bool delta = !steps.empty() && s.encodeId != 0 && s.encodeId == m_encode &&
                       s.updates == m_updates + 1 && s.updatedRow >= 0 &&
                       steps.back().rows == s.rows && steps.back().jobDim == s.jobDim;
    step.floats = floats.size();
    if (delta) {
        step.row = s.updatedRow;
        const float *row = s.jobs.data() + size_t(s.updatedRow) * size_t(s.jobDim);
        floats.insert(floats.end(), row, row + s.jobDim);
    } else {
        floats.insert(floats.end(), s.jobs.begin(), s.jobs.end());
    }
    floats.insert(floats.end(), s.global.begin(), s.global.end());
    step.mask = masks.size();
    masks.insert(masks.end(), s.mask.begin(), s.mask.end());
    m_encode = s.encodeId;
    m_updates = s.updates;
    steps.push_back(step);
}

void ActingTrace::expand(const std::function<void(const Step &, const std::vector<float> &,
                                                  const float *, const std::uint8_t *)> &f) const
{
    std::vector<float> jobs;
    for (const Step &s : steps) {
        const float *p = floats.data() + s.floats;
        const size_t width = size_t(s.rows) * size_t(s.jobDim);
        if (s.row < 0) {
            jobs.assign(p, p + width);
            p += width;
        } else {
            if (jobs.size() != width || s.row >= s.rows)
                throw Error("acting trace: a changed row without the state it changes");
            std::memcpy(jobs.data() + size_t(s.row) * size_t(s.jobDim), p,
                        size_t(s.jobDim) * sizeof(float));
            p += s.jobDim;
        }
        f(s, jobs, p, masks.data() + s.mask);
    }
}

namespace {
constexpr std::uint32_t kTraceMagic = 0x41435431; // "ACT1"

template <typename T>
void put(QByteArray &out, const std::vector<T> &v)
{
    const std::uint64_t n = v.size();
    out.append(reinterpret_cast<const char *>(&n), sizeof n);
    out.append(reinterpret_cast<const char *>(v.data()), qsizetype(n * sizeof(T)));
}

template <typename T>
void get(const QByteArray &in, qsizetype &at, std::vector<T> &v)
{
    std::uint64_t n = 0;
    if (at + qsizetype(sizeof n) > in.size())
        throw Error("acting trace: truncated");
    std::memcpy(&n, in.constData() + at, sizeof n);
    at += sizeof n;
    if (n > std::uint64_t(in.size() - at) / sizeof(T))
        throw Error("acting trace: truncated");
    v.resize(n);
    std::memcpy(v.data(), in.constData() + at, n * sizeof(T));
    at += qsizetype(n * sizeof(T));
}
} // namespace

QByteArray ActingTrace::toBytes() const
{
    QByteArray out;
    const std::uint32_t head[2] = {kTraceMagic, std::uint32_t(sizeof(Step))};
    out.append(reinterpret_cast<const char *>(head), sizeof head);
    put(out, steps);
    put(out, floats);
    put(out, masks);
    return out;
}

ActingTrace ActingTrace::fromBytes(const QByteArray &bytes)
{
    std::uint32_t head[2] = {0, 0};
    if (bytes.size() < qsizetype(sizeof head))
        throw Error("acting trace: truncated");
    std::memcpy(head, bytes.constData(), sizeof head);
    if (head[0] != kTraceMagic || head[1] != sizeof(Step))
        throw Error("acting trace: not a trace of this version");
    ActingTrace t;
    qsizetype at = sizeof head;
    get(bytes, at, t.steps);
    get(bytes, at, t.floats);
    get(bytes, at, t.masks);
    // Every step's data must be inside the pools.
    for (const Step &s : t.steps) {
        const std::uint64_t n = (s.row < 0 ? std::uint64_t(s.rows) * std::uint64_t(s.jobDim)
                                           : std::uint64_t(s.jobDim)) +
                                std::uint64_t(s.globalDim);
        if (s.rows < 0 || s.jobDim < 0 || s.globalDim < 0 || s.floats + n > t.floats.size() ||
            s.mask + std::uint64_t(3 * s.rows + 1) > t.masks.size())
            throw Error("acting trace: a step outside its data");
    }
    return t;
}

} // namespace dl2
