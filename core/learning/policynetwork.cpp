#include "policynetwork.h"

#include "error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

namespace dl2 {

std::vector<std::pair<std::string, std::vector<std::int64_t>>>
expectedParameters(const PolicySpec &s)
{
    const std::int64_t h1 = s.hidden1, h2 = s.hidden2;
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> p;
    auto linear = [&](const std::string &name, std::int64_t out, std::int64_t in) {
        p.push_back({name + ".weight", {out, in}});
        p.push_back({name + ".bias", {out}});
    };
    if (s.kind == PolicyKind::Dl2) {
        const std::int64_t in = s.stateDim(), a = s.actionDim();
        linear("policy.fc1", h1, in);
        linear("policy.fc2", h2, h1);
        linear("policy.out", a, h2);
        linear("value.fc1", h1, in);
        linear("value.fc2", h2, h1);
        linear("value.out", 1, h2);
    } else {
        const std::int64_t d = s.jobDim(), g = s.globalDim();
        linear("policy.enc1", h1, d);
        linear("policy.enc2", h2, h1);
        linear("policy.jobhead", 3, h2 + g);
        linear("policy.stop1", h2, h2 + g);
        linear("policy.stop2", 1, h2);
        linear("value.enc1", h1, d);
        linear("value.enc2", h2, h1);
        linear("value.head1", h2, h2 + g);
        linear("value.head2", 1, h2);
    }
    return p;
}

bool isValueParameter(const std::string &name) { return name.rfind("value.", 0) == 0; }

namespace {

// y += w * a over n floats: the inner loop of every layer. Cloned for AVX-512 and AVX2 (the
// loader picks the widest the CPU has); each y[o] is still one multiply and one add in the
// same order (no FMA: fp-contract is off for this file), so every CPU computes the same bits.
__attribute__((target_clones("avx512f", "avx2", "default"))) void axpy(float *__restrict y,
                                                                       const float *__restrict w,
                                                                       float a, int n)
{
    for (int o = 0; o < n; ++o)
        y[o] += w[o] * a;
}

// y = W x + b with W stored transposed (in x out) so the inner loop is a vectorisable axpy.
// The transposed weights are shared by every network built from the same parameter set
// (transposedWeights below).
struct Dense
{
    int in = 0, out = 0;
    std::shared_ptr<const std::vector<float>> wt; // in x out
    std::vector<float> b;

    void forward(const float *x, float *y) const
    {
        std::memcpy(y, b.data(), sizeof(float) * out);
        for (int j = 0; j < in; ++j) {
            const float xj = x[j];
            if (xj == 0.0f)
                continue;
            axpy(y, wt->data() + size_t(j) * out, xj, out);
        }
    }
    void addColumn(int j, float delta, float *y) const
    {
        axpy(y, wt->data() + size_t(j) * out, delta, out);
    }
};

std::vector<float> transpose(const ParameterTensor &w)
{
    const int out = int(w.shape[0]), in = int(w.shape[1]);
    std::vector<float> wt(size_t(in) * out);
    // In 32 x 32 tiles: a window-60 first layer is 15,060 x 256, and the plain double loop
    // strides through one of the two arrays and misses the cache on every float.
    constexpr int kTile = 32;
    for (int o0 = 0; o0 < out; o0 += kTile)
        for (int i0 = 0; i0 < in; i0 += kTile)
            for (int o = o0; o < std::min(out, o0 + kTile); ++o)
                for (int i = i0; i < std::min(in, i0 + kTile); ++i)
                    wt[size_t(i) * out + o] = w.data[size_t(o) * in + i];
    return wt;
}

// The transposed weights of a layer, made once per parameter set and shared while any network
// uses them: the console's replay and scan each build a network from the same policy, ES runs
// every perturbation on several traces, and a window-60 first layer is 15 MB and 40-75 ms to
// transpose. Keyed by the parameter set's owner (its control block), so a set freed and
// another allocated at the same address never match. Parameter sets are not changed once
// shared (every writer copies first).
std::shared_ptr<const std::vector<float>> transposedWeights(
    const std::shared_ptr<const ParameterSet> &params, const std::string &layer)
{
    using Layers = std::map<std::string, std::weak_ptr<const std::vector<float>>>;
    static std::mutex mutex;
    static std::map<std::weak_ptr<const ParameterSet>, Layers, std::owner_less<>> cache;
    {
        const std::lock_guard lock(mutex);
        std::erase_if(cache, [](const auto &entry) { return entry.first.expired(); });
        if (auto shared = cache[params][layer].lock())
            return shared;
    }
    // Outside the lock: threads building networks of other sets (ES) do not wait for it.
    auto made = std::make_shared<const std::vector<float>>(transpose(params->at(layer + ".weight")));
    const std::lock_guard lock(mutex);
    std::weak_ptr<const std::vector<float>> &slot = cache[params][layer];
    if (auto shared = slot.lock()) // another thread was first
        return shared;
    slot = made;
    return made;
}

Dense makeDense(const std::shared_ptr<const ParameterSet> &params, const std::string &name)
{
    const auto &w = params->at(name + ".weight");
    Dense d;
    d.out = int(w.shape[0]);
    d.in = int(w.shape[1]);
    d.wt = transposedWeights(params, name);
    d.b = params->at(name + ".bias").data;
    return d;
}

void relu(std::vector<float> &v)
{
    for (auto &x : v)
        x = std::max(0.0f, x);
}

// Flat MLP with an incrementally maintained first layer.
struct FlatNet
{
    Dense fc1, fc2, out;
    std::vector<float> xPrev, z1, h1, h2;
    bool cached = false;
    int increments = 0;

    void run(const std::vector<float> &x, std::vector<float> &y)
    {
        z1.resize(fc1.out);
        if (cached && increments < 512 && xPrev.size() == x.size()) {
            // Between two inferences of a slot only a row or two changes: find the changed
            // blocks with memcmp (vectorised in libc) instead of comparing all inputs one by
            // one (15,060 of them for a window of 60 with per-type counts). Columns are still
            // added in increasing order, so the result is the same to the bit.
            constexpr size_t kBlock = 64;
            for (size_t b = 0; b < x.size(); b += kBlock) {
                const size_t e = std::min(x.size(), b + kBlock);
                if (std::memcmp(x.data() + b, xPrev.data() + b, sizeof(float) * (e - b)) == 0)
                    continue;
                for (size_t j = b; j < e; ++j)
                    if (x[j] != xPrev[j]) {
                        fc1.addColumn(int(j), x[j] - xPrev[j], z1.data());
                        xPrev[j] = x[j];
                    }
            }
            ++increments;
        } else {
            fc1.forward(x.data(), z1.data());
            increments = 0;
            xPrev = x;
        }
        cached = true;
        h1 = z1;
        relu(h1);
        h2.resize(fc2.out);
        fc2.forward(h1.data(), h2.data());
        relu(h2);
        y.resize(out.out);
        out.forward(h2.data(), y.data());
    }
};

// Per-job encoder with a cache keyed by the job's context index.
struct JobEncoder
{
    Dense enc1, enc2;
    struct Entry
    {
        std::vector<float> features;
        std::vector<float> phi;
        std::vector<float> head; // W_phi phi of the job head (cleared when phi changes)
        std::uint64_t version = 0; // bumped whenever phi is recomputed
    };
    std::vector<Entry> cache; // by job index
    std::vector<float> h1;

    const std::vector<float> &embed(int jobIndex, const float *x, int dim)
    {
        if (jobIndex >= int(cache.size()))
            cache.resize(size_t(jobIndex) + 64);
        Entry &e = cache[size_t(jobIndex)];
        if (!e.phi.empty() && std::equal(e.features.begin(), e.features.end(), x))
            return e.phi;
        e.features.assign(x, x + dim);
        e.head.clear();
        ++e.version;
        h1.resize(enc1.out);
        enc1.forward(x, h1.data());
        relu(h1);
        e.phi.resize(enc2.out);
        enc2.forward(h1.data(), e.phi.data());
        relu(e.phi);
        return e.phi;
    }
    // Mean embedding over the state's rows, and each row's embedding pointer.
    // Running sum of the pooled embeddings: when the rows are the same jobs as last time,
    // only the rows whose embedding changed are updated (O(changed x h) instead of O(n x h)).
    struct Pooling
    {
        std::uint64_t encodeId = 0; // the state's change tracking when last pooled
        std::uint64_t seenUpdates = 0;
        std::vector<int> jobs;
        std::vector<std::uint64_t> versions;
        std::vector<std::vector<float>> phis;
        std::vector<double> sum;
        int updates = 0;
    };

    void pool(const EncodedState &s, std::vector<const std::vector<float> *> &rows,
              std::vector<float> &mean, std::vector<Entry *> *entries = nullptr,
              Pooling *pooling = nullptr)
    {
        // The same encoding, one partial update later (or none): only that row can have new
        // features, so the others are not even compared.
        if (pooling && s.encodeId != 0 && s.encodeId == pooling->encodeId && pooling->updates < 4096 &&
            s.rows > 0 && int(rows.size()) == s.rows &&
            (s.updates == pooling->seenUpdates ||
             (s.updates == pooling->seenUpdates + 1 && s.updatedRow >= 0 && s.updatedRow < s.rows))) {
            if (s.updates != pooling->seenUpdates) {
                const int r = s.updatedRow;
                rows[size_t(r)] = &embed(s.jobIndex[r], s.jobs.data() + size_t(r) * s.jobDim, s.jobDim);
                Entry &e = cache[size_t(s.jobIndex[r])];
                if (entries)
                    (*entries)[size_t(r)] = &e;
                if (e.version != pooling->versions[size_t(r)]) {
                    auto &old = pooling->phis[size_t(r)];
                    for (int k = 0; k < enc2.out; ++k)
                        pooling->sum[size_t(k)] += double(e.phi[size_t(k)]) - old[size_t(k)];
                    old = e.phi;
                    pooling->versions[size_t(r)] = e.version;
                }
                pooling->seenUpdates = s.updates;
                ++pooling->updates;
            }
            mean.resize(size_t(enc2.out));
            for (int k = 0; k < enc2.out; ++k)
                mean[size_t(k)] = float(pooling->sum[size_t(k)] / s.rows);
            return;
        }
        if (pooling && pooling->jobs == s.jobIndex && pooling->updates < 4096 && s.rows > 0) {
            rows.assign(s.rows, nullptr);
            if (entries)
                entries->assign(size_t(s.rows), nullptr);
            for (int r = 0; r < s.rows; ++r) {
                rows[r] = &embed(s.jobIndex[r], s.jobs.data() + size_t(r) * s.jobDim, s.jobDim);
                Entry &e = cache[size_t(s.jobIndex[r])];
                if (entries)
                    (*entries)[size_t(r)] = &e;
                if (e.version != pooling->versions[size_t(r)]) {
                    auto &old = pooling->phis[size_t(r)];
                    for (int k = 0; k < enc2.out; ++k)
                        pooling->sum[size_t(k)] += double(e.phi[size_t(k)]) - old[size_t(k)];
                    old = e.phi;
                    pooling->versions[size_t(r)] = e.version;
                }
            }
            ++pooling->updates;
            pooling->encodeId = s.encodeId;
            pooling->seenUpdates = s.updates;
            mean.resize(size_t(enc2.out));
            for (int k = 0; k < enc2.out; ++k)
                mean[size_t(k)] = float(pooling->sum[size_t(k)] / s.rows);
            return;
        }
        poolFull(s, rows, mean, entries);
        if (pooling) {
            pooling->jobs = s.jobIndex;
            pooling->versions.assign(size_t(s.rows), 0);
            pooling->phis.assign(size_t(s.rows), {});
            pooling->sum.assign(size_t(enc2.out), 0.0);
            pooling->updates = 0;
            pooling->encodeId = s.encodeId;
            pooling->seenUpdates = s.updates;
            for (int r = 0; r < s.rows; ++r) {
                if (!rows[r])
                    continue;
                const Entry &e = cache[size_t(s.jobIndex[r])];
                pooling->versions[size_t(r)] = e.version;
                pooling->phis[size_t(r)] = e.phi;
                for (int k = 0; k < enc2.out; ++k)
                    pooling->sum[size_t(k)] += e.phi[size_t(k)];
            }
            if (s.rows > 0)
                for (int k = 0; k < enc2.out; ++k)
                    mean[size_t(k)] = float(pooling->sum[size_t(k)] / s.rows);
        }
    }

    void poolFull(const EncodedState &s, std::vector<const std::vector<float> *> &rows,
                  std::vector<float> &mean, std::vector<Entry *> *entries)
    {
        rows.assign(s.rows, nullptr);
        if (entries)
            entries->assign(size_t(s.rows), nullptr);
        mean.assign(enc2.out, 0.0f);
        // Size the cache first: embed() must not reallocate while rows[] points into it.
        int maxIndex = -1;
        for (int r = 0; r < s.rows; ++r)
            maxIndex = std::max(maxIndex, s.jobIndex[r]);
        if (maxIndex >= int(cache.size()))
            cache.resize(size_t(maxIndex) + 64);
        int n = 0;
        for (int r = 0; r < s.rows; ++r) {
            if (s.jobIndex[r] < 0)
                continue;
            rows[r] = &embed(s.jobIndex[r], s.jobs.data() + size_t(r) * s.jobDim, s.jobDim);
            if (entries)
                (*entries)[size_t(r)] = &cache[size_t(s.jobIndex[r])];
            for (int k = 0; k < enc2.out; ++k)
                mean[k] += (*rows[r])[k];
            ++n;
        }
        if (n > 0)
            for (auto &m : mean)
                m /= float(n);
    }
};

} // namespace

struct PolicyNetwork::Impl
{
    std::shared_ptr<const ParameterSet> params;
    // The value network's layers are built at its first use: most policies never ask for
    // V(s) (an SL policy's value network is untrained), and a window-60 one is 15 MB.
    bool valueBuilt = false;
    bool hasValue = false; // the parameter set holds a value network
    void buildValue(PolicyKind kind);
    // dl2
    FlatNet policy, value;
    // dl2-plus
    JobEncoder pEnc, vEnc;
    Dense jobHead, stop1, stop2, head1, head2;
    std::vector<const std::vector<float> *> rows;
    std::vector<JobEncoder::Entry *> entries;
    JobEncoder::Pooling pooling;
    std::vector<float> pooled, in, hidden, headG;
};

PolicyNetwork::PolicyNetwork(const PolicySpec &spec, std::shared_ptr<const ParameterSet> params)
    : m_spec(spec), m_impl(std::make_unique<Impl>())
{
    if (!params)
        throw Error("policy network: no parameters");
    // A value network may be absent as a whole (a file that left out an untrained one): it is
    // needed only for V(s), and buildValue says so then. A part of one is an error.
    m_impl->hasValue = std::any_of(params->begin(), params->end(),
                                   [](const auto &e) { return isValueParameter(e.first); });
    for (const auto &[name, shape] : expectedParameters(spec)) {
        const auto it = params->find(name);
        if (it == params->end() && !m_impl->hasValue && isValueParameter(name))
            continue;
        if (it == params->end())
            throw Error("policy network: parameter '" + name + "' missing");
        if (it->second.shape != shape)
            throw Error("policy network: parameter '" + name + "' has the wrong shape");
    }
    m_impl->params = params;
    const auto &p = m_impl->params;
    if (spec.kind == PolicyKind::Dl2) {
        m_impl->policy.fc1 = makeDense(p, "policy.fc1");
        m_impl->policy.fc2 = makeDense(p, "policy.fc2");
        m_impl->policy.out = makeDense(p, "policy.out");
    } else {
        m_impl->pEnc.enc1 = makeDense(p, "policy.enc1");
        m_impl->pEnc.enc2 = makeDense(p, "policy.enc2");
        m_impl->jobHead = makeDense(p, "policy.jobhead");
        m_impl->stop1 = makeDense(p, "policy.stop1");
        m_impl->stop2 = makeDense(p, "policy.stop2");
    }
}

void PolicyNetwork::Impl::buildValue(PolicyKind kind)
{
    if (valueBuilt)
        return;
    const auto &p = params;
    if (!hasValue)
        throw Error("policy network: no value network to estimate V(s) with (the file left out "
                    "an untrained one)");
    if (kind == PolicyKind::Dl2) {
        value.fc1 = makeDense(p, "value.fc1");
        value.fc2 = makeDense(p, "value.fc2");
        value.out = makeDense(p, "value.out");
    } else {
        vEnc.enc1 = makeDense(p, "value.enc1");
        vEnc.enc2 = makeDense(p, "value.enc2");
        head1 = makeDense(p, "value.head1");
        head2 = makeDense(p, "value.head2");
    }
    valueBuilt = true;
}

PolicyNetwork::~PolicyNetwork() = default;

void PolicyNetwork::resetCache()
{
    m_impl->policy.cached = m_impl->value.cached = false;
    m_impl->pEnc.cache.clear();
    m_impl->pooling = {};
    m_impl->vEnc.cache.clear();
}

std::pair<std::vector<float>, std::vector<float>> PolicyNetwork::hiddenLayers(const EncodedState &s)
{
    if (m_spec.kind != PolicyKind::Dl2)
        throw Error("policy network: hidden layers are read for the flat dl2 network only");
    std::vector<float> out;
    m_impl->policy.run(s.jobs, out);
    return {m_impl->policy.h1, m_impl->policy.h2};
}

void PolicyNetwork::logits(const EncodedState &s, std::vector<float> &out)
{
    Impl &m = *m_impl;
    if (m_spec.kind == PolicyKind::Dl2) {
        m.policy.run(s.jobs, out);
        return;
    }
    const int h2 = m.pEnc.enc2.out;
    m.pEnc.pool(s, m.rows, m.pooled, &m.entries, &m.pooling);
    // Job head: W [phi, g] + b = W_phi phi + (W_g g + b); the second part once per call.
    m.headG = m.jobHead.b;
    for (int j = 0; j < s.globalDim; ++j)
        m.jobHead.addColumn(h2 + j, s.global[j], m.headG.data());
    out.assign(s.actionCount(), 0.0f);
    for (int r = 0; r < s.rows; ++r) {
        if (!m.rows[r])
            continue;
        auto &head = m.entries[size_t(r)]->head;
        if (head.empty()) {
            head.assign(3, 0.0f);
            const auto &phi = *m.rows[r];
            for (int j = 0; j < h2; ++j)
                if (phi[j] != 0.0f)
                    m.jobHead.addColumn(j, phi[j], head.data());
        }
        float *y = out.data() + 3 * r;
        for (int k = 0; k < 3; ++k)
            y[k] = m.headG[k] + head[size_t(k)];
    }
    m.in = m.pooled;
    m.in.insert(m.in.end(), s.global.begin(), s.global.end());
    m.hidden.resize(m.stop1.out);
    m.stop1.forward(m.in.data(), m.hidden.data());
    relu(m.hidden);
    float stop = 0.0f;
    m.stop2.forward(m.hidden.data(), &stop);
    out[s.stopAction()] = stop;
}

void PolicyNetwork::probabilities(const EncodedState &s, std::vector<float> &out)
{
    logits(s, out);
    maskedSoftmax(s.mask, out);
}

float PolicyNetwork::value(const EncodedState &s)
{
    Impl &m = *m_impl;
    m.buildValue(m_spec.kind);
    std::vector<float> y;
    if (m_spec.kind == PolicyKind::Dl2) {
        m.value.run(s.jobs, y);
        return y[0];
    }
    std::vector<const std::vector<float> *> rows;
    std::vector<float> pooled, hidden(m.head1.out);
    m.vEnc.pool(s, rows, pooled);
    pooled.insert(pooled.end(), s.global.begin(), s.global.end());
    m.head1.forward(pooled.data(), hidden.data());
    relu(hidden);
    float v = 0.0f;
    m.head2.forward(hidden.data(), &v);
    return v;
}

void maskedSoftmax(const std::vector<std::uint8_t> &mask, std::vector<float> &v)
{
    float mx = -std::numeric_limits<float>::infinity();
    for (size_t i = 0; i < v.size(); ++i)
        if (mask[i])
            mx = std::max(mx, v[i]);
    double sum = 0.0;
    for (size_t i = 0; i < v.size(); ++i) {
        v[i] = mask[i] ? std::exp(v[i] - mx) : 0.0f;
        sum += v[i];
    }
    if (sum > 0)
        for (auto &x : v)
            x = float(x / sum);
}

} // namespace dl2
