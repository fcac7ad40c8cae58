// The only translation unit that includes libtorch (library dl2training): network modules,
// batch construction, SL and actor-critic updates, the optimizer archive of checkpoints and
// the reader of format-version-1 checkpoints.

#include "learner.h"

#include "error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <sstream>
#include <torch/torch.h>

namespace dl2 {

namespace {

namespace nn = torch::nn;

// dl2: input (J x F) -> fc1 -> ReLU -> fc2 -> ReLU -> out.
struct FlatNetImpl : nn::Module
{
    FlatNetImpl(int in, int h1, int h2, int out)
        : fc1(register_module("fc1", nn::Linear(in, h1))),
          fc2(register_module("fc2", nn::Linear(h1, h2))),
          out(register_module("out", nn::Linear(h2, out)))
    {
    }
    torch::Tensor forward(const torch::Tensor &x)
    {
        return out(torch::relu(fc2(torch::relu(fc1(x)))));
    }
    nn::Linear fc1, fc2, out;
};
TORCH_MODULE(FlatNet);

// dl2-plus policy: shared per-job encoder, job head on [phi, global], stop head on
// [mean phi, global].
struct SetPolicyImpl : nn::Module
{
    SetPolicyImpl(int d, int g, int h1, int h2)
        : enc1(register_module("enc1", nn::Linear(d, h1))),
          enc2(register_module("enc2", nn::Linear(h1, h2))),
          jobhead(register_module("jobhead", nn::Linear(h2 + g, 3))),
          stop1(register_module("stop1", nn::Linear(h2 + g, h2))),
          stop2(register_module("stop2", nn::Linear(h2, 1)))
    {
    }
    // x [B, N, d], valid [B, N], g [B, G] -> logits [B, 3N + 1]
    torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &valid, const torch::Tensor &g)
    {
        const auto B = x.size(0), N = x.size(1);
        auto phi = torch::relu(enc2(torch::relu(enc1(x))));
        auto gexp = g.unsqueeze(1).expand({B, N, g.size(1)});
        auto job = jobhead(torch::cat({phi, gexp}, 2)).reshape({B, 3 * N});
        auto cnt = valid.sum(1, true).clamp_min(1.0);
        auto pooled = (phi * valid.unsqueeze(2)).sum(1) / cnt;
        auto stop = stop2(torch::relu(stop1(torch::cat({pooled, g}, 1))));
        return torch::cat({job, stop}, 1);
    }
    nn::Linear enc1, enc2, jobhead, stop1, stop2;
};
TORCH_MODULE(SetPolicy);

struct SetValueImpl : nn::Module
{
    SetValueImpl(int d, int g, int h1, int h2)
        : enc1(register_module("enc1", nn::Linear(d, h1))),
          enc2(register_module("enc2", nn::Linear(h1, h2))),
          head1(register_module("head1", nn::Linear(h2 + g, h2))),
          head2(register_module("head2", nn::Linear(h2, 1)))
    {
    }
    torch::Tensor forward(const torch::Tensor &x, const torch::Tensor &valid, const torch::Tensor &g)
    {
        auto phi = torch::relu(enc2(torch::relu(enc1(x))));
        auto cnt = valid.sum(1, true).clamp_min(1.0);
        auto pooled = (phi * valid.unsqueeze(2)).sum(1) / cnt;
        return head2(torch::relu(head1(torch::cat({pooled, g}, 1)))).squeeze(1);
    }
    nn::Linear enc1, enc2, head1, head2;
};
TORCH_MODULE(SetValue);

struct ActorCriticImpl : nn::Module
{
    explicit ActorCriticImpl(const PolicySpec &s) : spec(s)
    {
        if (s.kind == PolicyKind::Dl2) {
            flatPolicy = register_module("policy", FlatNet(s.stateDim(), s.hidden1, s.hidden2, s.actionDim()));
            flatValue = register_module("value", FlatNet(s.stateDim(), s.hidden1, s.hidden2, 1));
        } else {
            setPolicy = register_module("policy", SetPolicy(s.jobDim(), s.globalDim(), s.hidden1, s.hidden2));
            setValue = register_module("value", SetValue(s.jobDim(), s.globalDim(), s.hidden1, s.hidden2));
        }
    }
    PolicySpec spec;
    FlatNet flatPolicy{nullptr}, flatValue{nullptr};
    SetPolicy setPolicy{nullptr};
    SetValue setValue{nullptr};
};
TORCH_MODULE(ActorCritic);

struct Batch
{
    torch::Tensor x, valid, g, mask, actions;
    torch::Tensor target; // soft labels (undefined when every sample is one-hot)
    int rows = 0;
};

Batch makeBatch(const PolicySpec &spec, const std::vector<const Sample *> &samples)
{
    const int B = int(samples.size());
    const int d = spec.jobDim(), G = spec.globalDim();
    int N = spec.kind == PolicyKind::Dl2 ? spec.window : 1;
    if (spec.kind == PolicyKind::Dl2Plus)
        for (const Sample *s : samples)
            N = std::max(N, s->rows);
    const int A = 3 * N + 1;
    // The inputs go straight into the batch tensor (zeroed: sparse samples write their nonzeros).
    torch::Tensor xt = torch::zeros({B, N, d});
    float *x = xt.data_ptr<float>();
    std::vector<float> valid(size_t(B) * N, 0.0f), g(size_t(B) * std::max(G, 1), 0.0f);
    std::vector<std::uint8_t> mask(size_t(B) * A, 0);
    std::vector<std::int64_t> actions(static_cast<size_t>(B), 0);
    bool soft = false;
    for (const Sample *s : samples)
        soft = soft || !s->target.empty();
    std::vector<float> target(soft ? size_t(B) * A : 0, 0.0f);
    for (int b = 0; b < B; ++b) {
        const Sample &s = *samples[size_t(b)];
        if (s.rows > N || int(s.jobs.size()) != s.rows * d || int(s.mask.size()) != 3 * s.rows + 1)
            throw Error("learner: sample does not match the policy's dimensions");
        s.jobs.writeTo(x + size_t(b) * N * d, true);
        for (int r = 0; r < s.rows; ++r)
            valid[size_t(b) * N + r] = 1.0f;
        for (int k = 0; k < G && k < int(s.global.size()); ++k)
            g[size_t(b) * G + k] = s.global[size_t(k)];
        std::copy(s.mask.begin(), s.mask.end() - 1, mask.begin() + size_t(b) * A);
        mask[size_t(b) * A + A - 1] = s.mask.back();
        actions[size_t(b)] = s.action >= 3 * s.rows ? A - 1 : s.action;
        if (soft) {
            float *t = target.data() + size_t(b) * A;
            if (s.target.empty()) {
                t[actions[size_t(b)]] = 1.0f;
            } else {
                if (int(s.target.size()) != 3 * s.rows + 1)
                    throw Error("learner: sample target does not match its rows");
                std::copy(s.target.begin(), s.target.end() - 1, t);
                t[A - 1] = s.target.back();
            }
        }
    }
    Batch out;
    out.rows = N;
    out.x = xt;
    out.valid = torch::from_blob(valid.data(), {B, N}).clone();
    out.g = torch::from_blob(g.data(), {B, std::max(G, 1)}).clone();
    if (G == 0)
        out.g = torch::zeros({B, 0});
    out.mask = torch::from_blob(mask.data(), {B, A}, torch::kUInt8).clone().to(torch::kBool);
    out.actions = torch::from_blob(actions.data(), {B}, torch::kInt64).clone();
    if (soft)
        out.target = torch::from_blob(target.data(), {B, A}).clone();
    return out;
}

std::pair<torch::Tensor, torch::Tensor> forward(ActorCritic &m, const Batch &b, bool withValue,
                                                torch::Tensor *rawLogits = nullptr)
{
    torch::Tensor logits, value;
    if (m->spec.kind == PolicyKind::Dl2) {
        auto flat = b.x.reshape({b.x.size(0), -1});
        logits = m->flatPolicy->forward(flat);
        if (withValue)
            value = m->flatValue->forward(flat).squeeze(1);
    } else {
        logits = m->setPolicy->forward(b.x, b.valid, b.g);
        if (withValue)
            value = m->setValue->forward(b.x, b.valid, b.g);
    }
    if (rawLogits)
        *rawLogits = logits;
    auto logp = torch::log_softmax(logits.masked_fill(b.mask.logical_not(), -1e9), 1);
    return {logp, value};
}

ParameterSet copyOut(ActorCritic &m)
{
    ParameterSet p;
    for (const auto &item : m->named_parameters()) {
        auto t = item.value().detach().contiguous().to(torch::kFloat32);
        ParameterTensor pt;
        pt.shape.assign(t.sizes().begin(), t.sizes().end());
        pt.data.assign(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
        p[item.key()] = std::move(pt);
    }
    return p;
}

// Copies `p` into the model; every policy parameter must be there. A value network `p`
// lacks (a file that left out an untrained one) comes from `value` when given, else the
// model keeps its own.
void copyIn(ActorCritic &m, const ParameterSet &p, const ParameterSet *value = nullptr)
{
    torch::NoGradGuard guard;
    for (auto &item : m->named_parameters()) {
        const std::string &name = item.key();
        const bool missingValue = !p.contains(name) && isValueParameter(name);
        if (missingValue && (!value || !value->contains(name)))
            continue;
        const auto &src = (missingValue ? *value : p).at(name);
        auto t = torch::from_blob(const_cast<float *>(src.data.data()),
                                  std::vector<std::int64_t>(src.shape.begin(), src.shape.end()));
        item.value().copy_(t);
    }
}

std::mutex &seedMutex()
{
    static std::mutex m;
    return m;
}

ActorCritic makeModel(const PolicySpec &spec, std::uint64_t seed)
{
    std::lock_guard lock(seedMutex());
    torch::manual_seed(seed);
    return ActorCritic(spec);
}

std::vector<torch::Tensor> policyParameters(ActorCritic &m)
{
    return m->spec.kind == PolicyKind::Dl2 ? m->flatPolicy->parameters() : m->setPolicy->parameters();
}

std::vector<torch::Tensor> valueParameters(ActorCritic &m)
{
    return m->spec.kind == PolicyKind::Dl2 ? m->flatValue->parameters() : m->setValue->parameters();
}

// Weights of the flat dl2 policy tied across window positions (Learner::setTiedWindow).
// Every unit of a layer is either a position's own (hidden layers: the first J x u units,
// u = hidden / J, position k owning units k u .. k u + u - 1; inputs: position k's features;
// outputs: position k's worker, PS and bundle) or global (the other hidden units; the stop
// output). An entry's class is what a permutation of the positions leaves it: position to
// same position (by offsets), position to other position, position to global and global to
// position (by offsets), global to global (its own). Entries of a class share one value,
// which makes the network permutation-equivariant (a DeepSets layer written as a flat one).
struct TieClasses
{
    torch::Tensor ids;    // class of each entry (flattened), int64
    torch::Tensor counts; // entries per class, float
    torch::Tensor first;  // an entry of each class
    torch::Tensor stepScale; // per entry: 1, or 1 / the positions a pooled weight sums over
    std::vector<int> kind; // per class: 0 same position, 1 other position, 2 global to
                           // position, 3 position to global, 4 global to global, 5 and 6 biases
    std::int64_t classes = 0;
};

struct UnitLayout
{
    int positions = 0, perPosition = 0;
    // (position or -1 for global, offset within the position's units or among the globals)
    std::pair<int, int> of(int unit) const
    {
        if (unit < positions * perPosition)
            return {unit / perPosition, unit % perPosition};
        return {-1, unit - positions * perPosition};
    }
};

TieClasses tieClasses(const UnitLayout &out, const UnitLayout *in, std::int64_t inSize, std::int64_t outSize)
{
    TieClasses t;
    std::map<std::array<int, 3>, std::int64_t> index;
    std::vector<std::int64_t> ids, first;
    auto classOf = [&](std::array<int, 3> key, std::int64_t entry) {
        auto [it, fresh] = index.emplace(key, std::int64_t(index.size()));
        if (fresh) {
            t.kind.push_back(key[0]);
            first.push_back(entry);
        }
        return it->second;
    };
    for (int o = 0; o < int(outSize); ++o) {
        const auto [po, oo] = out.of(o);
        if (!in) { // bias
            ids.push_back(classOf(po >= 0 ? std::array{5, oo, 0} : std::array{6, o, 0}, o));
            continue;
        }
        for (int i = 0; i < int(inSize); ++i) {
            const auto [pi, io] = in->of(i);
            const std::int64_t entry = std::int64_t(o) * inSize + i;
            if (po >= 0 && pi >= 0)
                ids.push_back(classOf({po == pi ? 0 : 1, oo, io}, entry));
            else if (po >= 0)
                ids.push_back(classOf({2, oo, io}, entry));
            else if (pi >= 0)
                ids.push_back(classOf({3, oo, io}, entry));
            else
                ids.push_back(classOf({4, o, i}, entry));
        }
    }
    t.classes = std::int64_t(index.size());
    t.ids = torch::tensor(ids, torch::kInt64);
    t.first = torch::tensor(first, torch::kInt64);
    t.counts = torch::zeros({t.classes}).index_add_(0, t.ids, torch::ones({std::int64_t(ids.size())}));
    // A weight shared by the positions a unit pools over moves its pre-activation by that
    // many times Adam's step: its steps are scaled down by as much.
    std::vector<float> scale(ids.size(), 1.0f);
    for (size_t e = 0; e < ids.size(); ++e) {
        const int kind = t.kind[size_t(ids[e])];
        if (kind == 1 && out.positions > 1)
            scale[e] = 1.0f / float(out.positions - 1);
        else if (kind == 3)
            scale[e] = 1.0f / float(in->positions);
    }
    t.stepScale = torch::tensor(scale);
    return t;
}

// Per sample: the mean, over the window rows with an allowed task, of perRow(logq, allowed),
// where logq is each row's worker/PS/bundle mix (its task probabilities renormalised; masked
// entries are at about -1e9 already) as [B, J, 3] log-probabilities and allowed its mask as
// 0/1 floats. `logp`: [B, 3J + 1] log-probabilities; `mask` the same shape.
template <typename PerRow>
torch::Tensor meanOverRows(const torch::Tensor &logp, const torch::Tensor &mask, PerRow perRow)
{
    const auto B = logp.size(0), J = (logp.size(1) - 1) / 3;
    auto allowed = mask.narrow(1, 0, 3 * J).reshape({B, J, 3}).to(torch::kFloat);
    auto logq = torch::log_softmax(logp.narrow(1, 0, 3 * J).reshape({B, J, 3}), 2);
    auto rows = allowed.amax(2); // a fully masked row is left out
    return (perRow(logq, allowed) * rows).sum(1) / rows.sum(1).clamp_min(1.0f);
}

// The entropy of each row's kind mix (RlLossOptions::kindEntropyWeight).
torch::Tensor kindEntropy(const torch::Tensor &logp, const torch::Tensor &mask)
{
    return meanOverRows(logp, mask, [](const torch::Tensor &logq, const torch::Tensor &allowed) {
        return -(logq.exp() * logq * allowed).sum(2);
    });
}

// kindCredit "every-row": each row's expected return under its own kind mix,
// sum_k q(k | row) G_(row, k) (G: [B, 3J], 0 where not allowed), differentiated through q
// only: the all-actions gradient of each row's choice of kind.
torch::Tensor everyRowKindTerm(const torch::Tensor &logp, const torch::Tensor &mask, const torch::Tensor &G)
{
    return meanOverRows(logp, mask, [&G](const torch::Tensor &logq, const torch::Tensor &allowed) {
        return (logq.exp() * G.reshape_as(logq) * allowed).sum(2);
    });
}

// The mean of each class, written back to its entries.
torch::Tensor classMeans(const TieClasses &t, const torch::Tensor &v)
{
    const auto sums = torch::zeros({t.classes}).index_add_(0, t.ids, v.reshape({-1}));
    return (sums / t.counts).index_select(0, t.ids).view_as(v);
}

// Permutes the entries of `v` where `where` is 1 among themselves, in the order `perm`
// visits them.
torch::Tensor shuffledAmong(const torch::Tensor &v, const torch::Tensor &where, const torch::Tensor &perm)
{
    auto idx = torch::nonzero(where > 0).squeeze(1);
    if (idx.numel() < 2)
        return v;
    auto order = perm.index_select(0, torch::nonzero(where.index_select(0, perm) > 0).squeeze(1));
    auto out = v.clone();
    out.index_put_({idx}, v.index_select(0, order));
    return out;
}

// Kind credit "expected-balanced": a weight per sample such that each job type's task samples
// (hasTask 1) carry the same total weight and all of them together as many as they are: n / (T
// x n_type) for n task samples of T types. Samples without a task or a type keep weight 1.
torch::Tensor typeBalance(const std::vector<const Sample *> &samples, const std::vector<float> &hasTask)
{
    std::map<int, int> count;
    int n = 0;
    for (size_t i = 0; i < samples.size(); ++i)
        if (hasTask[i] > 0 && samples[i]->jobType >= 0) {
            ++count[samples[i]->jobType];
            ++n;
        }
    std::vector<float> w(samples.size(), 1.0f);
    for (size_t i = 0; i < samples.size(); ++i)
        if (hasTask[i] > 0 && samples[i]->jobType >= 0)
            w[i] = float(n) / float(count.size() * size_t(count[samples[i]->jobType]));
    return torch::from_blob(w.data(), {long(w.size())}).clone();
}

// Adam's state by parameter position, not libtorch's own save(), which keys it by the
// parameters' memory addresses: the same training then writes the same bytes (the same
// seed and world size give bit-identical checkpoints).
std::string adamKey(const torch::Tensor &p) { return c10::guts::to_string(p.unsafeGetTensorImpl()); }

// "p<i>.": the archive keys of the i-th parameter's Adam state begin with it.
std::string adamPrefix(size_t i)
{
    std::string k = "p"; // not "p" + std::to_string(): a false -Wrestrict in GCC 12
    k += std::to_string(i);
    k += '.';
    return k;
}

void saveAdam(const torch::optim::Adam &opt, torch::serialize::OutputArchive &ar)
{
    ar.write("dl2.adam", torch::tensor(std::int64_t(1)));
    const auto &params = opt.param_groups().at(0).params();
    for (size_t i = 0; i < params.size(); ++i) {
        const auto it = opt.state().find(adamKey(params[i]));
        if (it == opt.state().end())
            continue;
        const auto &st = static_cast<const torch::optim::AdamParamState &>(*it->second);
        const std::string k = adamPrefix(i);
        ar.write(k + "step", torch::tensor(st.step()));
        ar.write(k + "exp_avg", st.exp_avg());
        ar.write(k + "exp_avg_sq", st.exp_avg_sq());
    }
}

void loadAdam(torch::optim::Adam &opt, torch::serialize::InputArchive &ar)
{
    torch::Tensor format;
    if (!ar.try_read("dl2.adam", format)) { // written by libtorch's own save()
        opt.load(ar);
        return;
    }
    const auto &params = opt.param_groups().at(0).params();
    for (size_t i = 0; i < params.size(); ++i) {
        const std::string k = adamPrefix(i);
        torch::Tensor step, avg, avgSq;
        if (!ar.try_read(k + "step", step))
            continue;
        ar.read(k + "exp_avg", avg);
        ar.read(k + "exp_avg_sq", avgSq);
        if (!avg.sizes().equals(params[i].sizes()) || !avgSq.sizes().equals(params[i].sizes()))
            throw Error("optimizer state of parameter " + std::to_string(i) + " does not fit the network");
        auto st = std::make_unique<torch::optim::AdamParamState>();
        st->step(step.item<std::int64_t>());
        st->exp_avg(avg);
        st->exp_avg_sq(avgSq);
        opt.state()[adamKey(params[i])] = std::move(st);
    }
}

} // namespace

struct Learner::Impl
{
    PolicySpec spec;
    ActorCritic model{nullptr};
    std::unique_ptr<torch::optim::Adam> optimizer;      // policy network
    std::unique_ptr<torch::optim::Adam> valueOptimizer; // value network
    // setPlainGradientDescent: the policy steps by SGD instead (`optimizer` then keeps no state).
    std::unique_ptr<torch::optim::SGD> sgd;
    double policyLr = 0.0;
    bool multiLabel = false;
    GradientReducer reducer;
    ActorCritic reference{nullptr}; // frozen policy of the KL trust region
    bool tied = false;              // setTiedWindow
    std::vector<TieClasses> tie;    // per policy parameter, in registration order

    torch::optim::Optimizer &policyOptimizer()
    {
        if (sgd)
            return *sgd;
        return *optimizer;
    }

    // The policy optimizer's step; while tied, on the class means of the gradients (so
    // tied weights stay tied), with the pooled weights' steps scaled (TieClasses::stepScale).
    void tiedStep()
    {
        if (!tied) {
            policyOptimizer().step();
            return;
        }
        torch::NoGradGuard guard;
        auto params = policyParameters(model);
        std::vector<torch::Tensor> before;
        for (size_t k = 0; k < params.size(); ++k) {
            if (params[k].grad().defined())
                params[k].mutable_grad().copy_(classMeans(tie[k], params[k].grad()));
            before.push_back(params[k].clone());
        }
        policyOptimizer().step();
        // Back onto the class means: equal gradients give equal steps but for the last bit.
        for (size_t k = 0; k < params.size(); ++k)
            params[k].copy_(classMeans(tie[k], before[k] + (params[k] - before[k]) * tie[k].stepScale.view_as(params[k])));
    }

    // Replaces the gradients of `params` by the reducer's average (no-op in one process).
    void reduce(const std::vector<torch::Tensor> &params)
    {
        if (!reducer)
            return;
        size_t n = 0;
        for (const auto &p : params)
            n += size_t(p.numel());
        std::vector<float> flat(n, 0.0f);
        size_t off = 0;
        for (const auto &p : params) {
            if (p.grad().defined()) {
                const auto g = p.grad().contiguous();
                std::copy(g.data_ptr<float>(), g.data_ptr<float>() + g.numel(), flat.begin() + long(off));
            }
            off += size_t(p.numel());
        }
        reducer(flat);
        off = 0;
        torch::NoGradGuard guard;
        for (auto p : params) {
            auto src = torch::from_blob(flat.data() + off, p.sizes());
            if (!p.grad().defined())
                p.mutable_grad() = src.clone();
            else
                p.mutable_grad().copy_(src);
            off += size_t(p.numel());
        }
    }

    void makeOptimizers(double lr, double valueLr)
    {
        policyLr = lr;
        optimizer = std::make_unique<torch::optim::Adam>(policyParameters(model),
                                                         torch::optim::AdamOptions(lr));
        valueOptimizer = std::make_unique<torch::optim::Adam>(
            valueParameters(model), torch::optim::AdamOptions(valueLr > 0 ? valueLr : lr));
    }
};

Learner::Learner(const PolicySpec &spec, double lr, std::uint64_t seed, double valueLr)
    : m_impl(std::make_unique<Impl>())
{
    m_impl->spec = spec;
    m_impl->model = makeModel(spec, seed);
    m_impl->makeOptimizers(lr, valueLr);
}

Learner::Learner(const Checkpoint &c, double lr, bool loadOptimizer, double valueLr)
    : m_impl(std::make_unique<Impl>())
{
    m_impl->spec = c.spec;
    m_impl->model = makeModel(c.spec, 1);
    const ParameterSet fresh = freshValueNetwork(c); // empty unless the file left it out
    copyIn(m_impl->model, *c.parameters, &fresh);
    m_impl->makeOptimizers(lr, valueLr);
    if (loadOptimizer && c.hasOptimizer) {
        try {
            std::istringstream in(c.archive);
            torch::serialize::InputArchive ar;
            ar.load_from(in);
            torch::serialize::InputArchive opt, valueOpt;
            // Files from before the two optimizers hold one state over both networks: it
            // does not fit either optimizer, so training resumes with fresh moments.
            if (ar.try_read("value_optimizer", valueOpt) && ar.try_read("optimizer", opt)) {
                loadAdam(*m_impl->optimizer, opt);
                loadAdam(*m_impl->valueOptimizer, valueOpt);
            }
            auto setLr = [](torch::optim::Adam &o, double rate) {
                for (auto &group : o.param_groups())
                    static_cast<torch::optim::AdamOptions &>(group.options()).lr(rate);
            };
            setLr(*m_impl->optimizer, lr);
            setLr(*m_impl->valueOptimizer, valueLr > 0 ? valueLr : lr);
        } catch (const c10::Error &e) {
            throw Error(c.origin + ": optimizer state does not load (" + e.what_without_backtrace() + ")");
        } catch (const Error &e) {
            throw Error(c.origin + ": " + e.what());
        }
    }
}

Learner::~Learner() = default;

void Learner::setSlMultiLabel(bool on) { m_impl->multiLabel = on; }

void checkTiedWindow(const PolicySpec &s)
{
    if (s.kind != PolicyKind::Dl2 || s.window <= 0)
        throw Error("tied window: only for the dl2 network");
    if (s.hidden1 < s.window || s.hidden2 < s.window)
        throw Error("tied window: the hidden layers (" + std::to_string(s.hidden1) + ", " +
                    std::to_string(s.hidden2) + ") need at least one unit per window position (" +
                    std::to_string(s.window) + ")");
}

void Learner::setTiedWindow(bool on, bool perJobScale)
{
    auto &m = *m_impl;
    if (on && m.tie.empty()) {
        const PolicySpec &s = m.spec;
        checkTiedWindow(s);
        const int J = s.window, d = s.jobDim();
        const UnitLayout input{J, d}, h1{J, s.hidden1 / J}, h2{J, s.hidden2 / J}, out{J, 3};
        m.tie = {tieClasses(h1, &input, J * d, s.hidden1), tieClasses(h1, nullptr, 0, s.hidden1),
                 tieClasses(h2, &h1, s.hidden1, s.hidden2), tieClasses(h2, nullptr, 0, s.hidden2),
                 tieClasses(out, &h2, s.hidden2, s.actionDim()), tieClasses(out, nullptr, 0, s.actionDim())};
        // Untied weights (a fresh network) start from one entry of each class; the weights
        // between different positions start at 0 and a global unit's pooled weights are scaled
        // by 1 / sqrt(J), so the layers keep the scale of the default initialisation. Weights
        // that are already tied (a tied checkpoint) are kept, projected onto their class means.
        // Per layer: the flat fan-in, and a position's own unit's (its position's inputs and
        // the layer's global inputs).
        const int g1 = s.hidden1 - J * (s.hidden1 / J), g2 = s.hidden2 - J * (s.hidden2 / J);
        const std::array<int, 3> fanIn{J * d, s.hidden1, s.hidden2};
        const std::array<int, 3> ownFanIn{d, s.hidden1 / J + g1, s.hidden2 / J + g2};
        torch::NoGradGuard guard;
        auto params = policyParameters(m.model);
        for (size_t k = 0; k < params.size(); ++k) {
            const TieClasses &t = m.tie[k];
            // Tied weights drift apart by rounding (Adam's vectorised and scalar loops differ
            // in the last bit): a network that is tied but for that is projected back onto its
            // class means, not started again.
            const auto means = classMeans(t, params[k]);
            if ((means - params[k]).abs().max().item<float>() <=
                1e-4f * std::max(1.0f, params[k].abs().max().item<float>())) {
                params[k].copy_(means);
                continue;
            }
            auto rep = params[k].reshape({-1}).index_select(0, t.first).clone();
            // perJobScale: a position's own unit sees only its own position's inputs (and the
            // globals), not the whole layer's: its weights and bias start at the scale of
            // that fan-in (default init: 1 / sqrt(fan-in)), as in a per-job network.
            const float ownScale = perJobScale ? std::sqrt(float(fanIn[k / 2]) / float(ownFanIn[k / 2])) : 1.0f;
            for (std::int64_t c = 0; c < t.classes; ++c) {
                const int kind = t.kind[size_t(c)];
                if (kind == 1)
                    rep[c] = 0.0f;
                else if (kind == 3)
                    rep[c] = rep[c] / std::sqrt(float(J));
                else if (kind == 0 || kind == 2 || kind == 5)
                    rep[c] = rep[c] * ownScale;
            }
            params[k].copy_(rep.index_select(0, t.ids).view_as(params[k]));
        }
    }
    m.tied = on;
}

void Learner::setTypeStepScale(double oneHot, double counts)
{
    auto &m = *m_impl;
    const PolicySpec &s = m.spec;
    if (!m.tied || m.tie.empty())
        throw Error("type step scale: only for a network tied across the window (--tie-window)");
    if (!s.features.oneHotType)
        throw Error("type step scale: the network feeds the raw type id (--raw-type), not the one-hot");
    if (counts != 1.0 && s.features.counts != CountFeatures::PerType)
        throw Error("count step scale: the network has no per-type count bits (--count-features per-type)");
    // Layer 1's weights (the first tied parameter): entry o x (J d) + i, input i is position
    // i / d's feature i % d: the type one-hot, the scalar features, then the per-type count
    // bits (policyspec.h). Same-position entries (kind 0) only.
    TieClasses &t = m.tie[0];
    const std::int64_t d = s.jobDim(), countsFrom = s.countBitsFrom();
    const auto ids = t.ids.accessor<std::int64_t, 1>();
    auto stepScale = t.stepScale.accessor<float, 1>();
    for (std::int64_t e = 0; e < ids.size(0); ++e) {
        if (t.kind[size_t(ids[e])] != 0)
            continue;
        const std::int64_t feature = (e % (s.window * d)) % d;
        if (feature < s.types)
            stepScale[e] = float(oneHot);
        else if (feature >= countsFrom)
            stepScale[e] = float(counts);
    }
}

void Learner::setGradientReducer(GradientReducer reducer) { m_impl->reducer = std::move(reducer); }

const PolicySpec &Learner::spec() const { return m_impl->spec; }

namespace {
// Cross-entropy against the one-hot action, or against the soft target when present.
torch::Tensor slCrossEntropy(const torch::Tensor &logp, const Batch &b, bool multiLabel,
                             const torch::Tensor &logits)
{
    if (multiLabel && b.target.defined()) {
        // Independent "is this task needed" classifiers over the valid actions; greedy
        // evaluation (arg max of the masked logits) then picks the most certainly needed
        // task, or stop when none is.
        const auto y = (b.target > 0).to(torch::kFloat);
        const auto valid = b.mask.to(torch::kFloat);
        const auto bce = torch::binary_cross_entropy_with_logits(
            logits, y, {}, {}, torch::Reduction::None);
        return ((bce * valid).sum(1) / valid.sum(1).clamp_min(1.0)).mean();
    }
    if (!b.target.defined())
        return torch::nll_loss(logp, b.actions);
    return -(b.target * logp).sum(1).mean();
}
} // namespace

double Learner::slUpdate(const std::vector<const Sample *> &samples)
{
    if (samples.empty()) {
        if (m_impl->reducer) { // a zero gradient, so the other ranks' step goes on
            m_impl->policyOptimizer().zero_grad();
            m_impl->reduce(policyParameters(m_impl->model));
            m_impl->tiedStep(); // the step every rank takes, tied or not
        }
        return 0.0;
    }
    auto b = makeBatch(m_impl->spec, samples);
    m_impl->model->train();
    torch::Tensor logits;
    auto [logp, value] = forward(m_impl->model, b, false, &logits);
    auto loss = slCrossEntropy(logp, b, m_impl->multiLabel, logits);
    m_impl->policyOptimizer().zero_grad();
    loss.backward();
    m_impl->reduce(policyParameters(m_impl->model));
    m_impl->tiedStep();
    return loss.item<double>();
}

double Learner::slLoss(const std::vector<const Sample *> &samples)
{
    if (samples.empty())
        return 0.0;
    torch::NoGradGuard guard;
    auto b = makeBatch(m_impl->spec, samples);
    torch::Tensor logits;
    auto [logp, value] = forward(m_impl->model, b, false, &logits);
    return slCrossEntropy(logp, b, m_impl->multiLabel, logits).item<double>();
}

RlUpdateStats Learner::rlUpdate(const std::vector<const Sample *> &samples,
                                const std::vector<float> &weights, const RlLossOptions &o)
{
    RlUpdateStats stats;
    if (samples.empty()) {
        if (m_impl->reducer) { // a zero gradient, so the other ranks' steps go on
            if (o.policyWeight > 0) {
                m_impl->policyOptimizer().zero_grad();
                m_impl->reduce(policyParameters(m_impl->model));
                torch::nn::utils::clip_grad_norm_(policyParameters(m_impl->model), 10.0);
                m_impl->tiedStep();
            }
            if (o.useValue) {
                m_impl->valueOptimizer->zero_grad();
                m_impl->reduce(valueParameters(m_impl->model));
                m_impl->valueOptimizer->step();
            }
        }
        return stats;
    }
    const int B = int(samples.size());
    auto b = makeBatch(m_impl->spec, samples);
    std::vector<float> ret(size_t(B), 0.0f), mu(size_t(B), 1.0f), w(weights);
    std::vector<float> taskRet(size_t(B), 0.0f), hasTask(size_t(B), 0.0f), kindRet(size_t(B) * 3, 0.0f);
    // Row credit "expected": every task action's return (0 where not allowed) and which
    // samples have them.
    const int taskActions = 3 * int(b.rows); // dl2-plus: padded to the batch's most jobs in view
    std::vector<float> actionRet, actionHeadroom, hasActions;
    if (o.rowExpected) {
        actionRet.assign(size_t(B) * size_t(taskActions), 0.0f);
        hasActions.assign(size_t(B), 0.0f);
        if (o.rowRegret)
            actionHeadroom.assign(size_t(B) * size_t(taskActions), 0.0f);
    }
    double taskSum = 0.0;
    int taskCount = 0;
    for (int i = 0; i < B; ++i) {
        const Sample &x = *samples[size_t(i)];
        ret[size_t(i)] = x.ret;
        mu[size_t(i)] = std::max(1e-6f, x.behaviourProb);
        if (o.split && std::isfinite(x.taskRet)) {
            taskRet[size_t(i)] = x.taskRet;
            hasTask[size_t(i)] = 1.0f;
            for (size_t k = 0; k < 3; ++k)
                if (std::isfinite(x.kindRet[k]))
                    kindRet[size_t(i) * 3 + k] = x.kindRet[k];
            taskSum += x.taskRet;
            ++taskCount;
        }
        if (o.rowExpected && int(x.actionRet.size()) == 3 * x.rows) {
            hasActions[size_t(i)] = 1.0f;
            for (int a = 0; a < 3 * x.rows; ++a)
                if (std::isfinite(x.actionRet[size_t(a)]))
                    actionRet[size_t(i) * size_t(taskActions) + size_t(a)] = x.actionRet[size_t(a)];
            if (o.rowRegret && x.actionHeadroom.size() == x.actionRet.size())
                std::copy(x.actionHeadroom.begin(), x.actionHeadroom.end(),
                          actionHeadroom.begin() + std::ptrdiff_t(i) * taskActions);
        }
    }
    auto R = torch::from_blob(ret.data(), {B}).clone();
    auto Mu = torch::from_blob(mu.data(), {B}).clone();
    auto W = torch::from_blob(w.data(), {B}).clone();
    m_impl->model->train();
    auto [logp, value] = forward(m_impl->model, b, o.useValue);
    const auto A = logp.size(1);
    auto logpA = logp.gather(1, b.actions.unsqueeze(1)).squeeze(1);
    auto probs = logp.exp();
    // Masked actions have p = 0 and contribute 0; the mean runs over the whole layout.
    auto entropy = -(probs * logp).sum(1) / float(A);
    torch::Tensor baseline = o.useValue ? value.detach() : torch::full({B}, float(o.baseline));
    auto adv = R - baseline;
    auto advN = adv * float(o.advantageScale);
    auto rho = o.importanceClip > 0 ? (logpA.detach().exp() / Mu).clamp_max(o.importanceClip)
                                    : torch::ones({B});
    torch::Tensor perm;
    if (!o.permutation.empty()) {
        if (int(o.permutation.size()) != B)
            throw Error("learner: control permutation does not match the batch");
        perm = torch::from_blob(const_cast<std::int64_t *>(o.permutation.data()), {B}, torch::kInt64).clone();
        advN = advN.index_select(0, perm);
    }
    torch::Tensor gain;
    torch::Tensor taskAdv = torch::zeros({B});
    if (o.split) {
        // Level 1: stop or continue, from the slot return. Level 2: which task, given that
        // the policy continues, from the task's own counterfactual return.
        auto isStop = b.actions.eq(A - 1);
        auto logStop = logp.select(1, A - 1);
        auto logCont = torch::log1p(-logStop.exp().clamp_max(1.0f - 1e-6f));
        auto level1 = torch::where(isStop, logStop, logCont);
        auto T = torch::from_blob(taskRet.data(), {B}).clone();
        auto H = torch::from_blob(hasTask.data(), {B}).clone();
        const float mean = taskCount > 0 ? float(taskSum / taskCount) : 0.0f;
        taskAdv = (T - mean) * H;
        const float scale = float(o.taskAdvantageScale);
        if (o.rowExpected) {
            // Which task, given that the policy continues: sum_a pi(a | continue) G_a over
            // every task of the window, differentiated through pi (the all-actions gradient).
            // Stop or continue (stopExpected): pi(continue) x the expected G of continuing,
            // stop's being 0.
            auto G = torch::from_blob(actionRet.data(), {B, long(taskActions)}).clone();
            auto Ha = torch::from_blob(hasActions.data(), {B}).clone();
            const auto allowed = b.mask.narrow(1, 0, taskActions); // G is 0 where a task is not
            // Regret: what each task gives up of its job's best against its row's headroom.
            auto Gtask = o.rowRegret
                             ? G - torch::from_blob(actionHeadroom.data(), {B, long(taskActions)})
                             : G;
            if (o.rowPerDecision) {
                const auto rms = ((G * G).sum(1) / allowed.to(torch::kFloat).sum(1).clamp_min(1.0f)).sqrt();
                const float n = std::max(1.0f, Ha.sum().item<float>());
                const float floor = std::max(1e-6f, 0.1f * (rms * Ha).sum().item<float>() / n);
                G = G / rms.clamp_min(floor).unsqueeze(1);
                Gtask = Gtask / rms.clamp_min(floor).unsqueeze(1);
            }
            auto logTask = logp.narrow(1, 0, taskActions) - logCont.unsqueeze(1);
            auto pTask = logTask.exp();
            auto expectedG = (pTask.detach() * G).sum(1);
            const float n = std::max(1.0f, Ha.sum().item<float>());
            taskAdv = (expectedG - (expectedG * Ha).sum() / n) * Ha;
            auto usedG = perm.defined() ? shuffledAmong(Gtask, Ha, perm) : Gtask;
            auto taskTerm = (pTask * usedG).sum(1);
            if (o.kindEveryRow)
                taskTerm = taskTerm + everyRowKindTerm(logp, b.mask, usedG);
            if (o.kindBalanced)
                taskTerm = taskTerm * typeBalance(samples, hasTask);
            torch::Tensor stopTerm = advN * level1;
            if (o.stopExpected) {
                auto continueG = expectedG;
                if (o.stopBest) {
                    const auto best = G.masked_fill(allowed.logical_not(), -1e30f).amax(1);
                    continueG = torch::where(allowed.any(1), best, torch::zeros_like(best));
                }
                auto usedE = perm.defined() ? shuffledAmong(continueG, Ha, perm) : continueG;
                stopTerm = scale * Ha * logCont.exp() * usedE;
            }
            gain = rho * (stopTerm + scale * Ha * taskTerm);
        } else if (o.kindExpected) {
            // Which row: its expected return under the row's kind mix against the batch mean,
            // on log pi(row | continue). Which kind: sum_k pi(k | row) G_k, differentiated
            // through pi (the all-actions gradient; its baseline is implicit).
            const auto J = (A - 1) / 3;
            auto G = torch::from_blob(kindRet.data(), {B, 3}).clone();
            auto rows = b.actions.clamp_max(3 * J - 1).div(3, "floor").to(torch::kInt64).view({B, 1, 1}).expand({B, 1, 3});
            auto rowLogp = logp.narrow(1, 0, 3 * J).reshape({B, J, 3}).gather(1, rows).squeeze(1);
            auto logRow = torch::logsumexp(rowLogp, 1);
            auto q = (rowLogp - logRow.unsqueeze(1)).exp();
            auto V = (q.detach() * G).sum(1);
            const float meanV = taskCount > 0 ? (V * H).sum().item<float>() / float(taskCount) : 0.0f;
            taskAdv = (V - meanV) * H;
            auto usedTaskAdv = taskAdv, usedG = G;
            if (perm.defined()) {
                usedTaskAdv = shuffledAmong(taskAdv, H, perm);
                usedG = shuffledAmong(G, H, perm);
            }
            auto kindTerm = (q * usedG).sum(1);
            if (o.kindBalanced)
                kindTerm = kindTerm * typeBalance(samples, hasTask);
            gain = rho * (advN * level1 + scale * H * (usedTaskAdv * (logRow - logCont) + kindTerm));
        } else {
            auto usedTaskAdv = taskAdv;
            if (perm.defined()) // shuffled among the task samples only (stops have none)
                usedTaskAdv = shuffledAmong(taskAdv, H, perm);
            auto level2 = (logpA - logCont) * H;
            gain = rho * (advN * level1 + usedTaskAdv * scale * level2);
        }
    } else {
        gain = rho * advN * logpA;
    }
    auto policyLoss = -(W * gain).sum();
    auto entropyMean = (W * entropy).sum();
    auto bonus = o.entropyWeight * entropyMean;
    if (o.kindEntropyWeight > 0.0)
        bonus = bonus + o.kindEntropyWeight * (W * kindEntropy(logp, b.mask)).sum();
    torch::Tensor kl = torch::zeros({});
    if (o.klWeight > 0 && m_impl->reference) {
        torch::Tensor refLogp;
        {
            torch::NoGradGuard guard;
            refLogp = forward(m_impl->reference, b, false).first;
        }
        // Masked actions have p = 0 under both and add nothing.
        auto pRef = refLogp.exp();
        kl = (W * torch::where(pRef > 0, pRef * (refLogp - logp), torch::zeros_like(logp)).sum(1)).sum();
    }
    if (o.policyWeight > 0) {
        auto loss = float(o.policyWeight) *
                    (policyLoss - bonus + float(o.klWeight) * kl);
        m_impl->policyOptimizer().zero_grad();
        loss.backward();
        m_impl->reduce(policyParameters(m_impl->model));
        torch::nn::utils::clip_grad_norm_(policyParameters(m_impl->model), 10.0);
        m_impl->tiedStep();
    }
    torch::Tensor valueLoss = torch::zeros({});
    if (o.useValue) {
        // The reference regresses V on the return with its own optimizer and no clipping.
        valueLoss = (W * (value - R).pow(2)).sum();
        m_impl->valueOptimizer->zero_grad();
        valueLoss.backward();
        m_impl->reduce(valueParameters(m_impl->model));
        m_impl->valueOptimizer->step();
    }
    stats.policyLoss = policyLoss.item<double>();
    stats.valueLoss = valueLoss.item<double>();
    stats.entropy = entropyMean.item<double>();
    stats.kl = kl.item<double>();
    auto a = adv.contiguous();
    stats.advantages.assign(a.data_ptr<float>(), a.data_ptr<float>() + B);
    auto t = taskAdv.contiguous();
    stats.taskAdvantages.assign(t.data_ptr<float>(), t.data_ptr<float>() + B);
    return stats;
}

void Learner::setPlainGradientDescent()
{
    if (m_impl->sgd)
        return;
    m_impl->sgd = std::make_unique<torch::optim::SGD>(policyParameters(m_impl->model),
                                                      torch::optim::SGDOptions(m_impl->policyLr));
    // Adam moments a checkpoint brought are no longer stepped by, nor written back.
    m_impl->optimizer = std::make_unique<torch::optim::Adam>(
        policyParameters(m_impl->model), torch::optim::AdamOptions(m_impl->policyLr));
}

void Learner::setPolicyLearningRate(double lr)
{
    m_impl->policyLr = lr;
    for (auto &group : m_impl->optimizer->param_groups())
        static_cast<torch::optim::AdamOptions &>(group.options()).lr(lr);
    if (m_impl->sgd)
        for (auto &group : m_impl->sgd->param_groups())
            static_cast<torch::optim::SGDOptions &>(group.options()).lr(lr);
}

void Learner::setReference(const ParameterSet &parameters)
{
    m_impl->reference = makeModel(m_impl->spec, 1);
    // Only its policy is used: the warm-up file may have left out its value network.
    copyIn(m_impl->reference, parameters);
    m_impl->reference->eval();
}

std::shared_ptr<const ParameterSet> Learner::parameters() const
{
    return std::make_shared<const ParameterSet>(copyOut(m_impl->model));
}

NetworkArchive Learner::archive(bool withOptimizer) const
{
    NetworkArchive a;
    a.parameters = copyOut(m_impl->model);
    if (withOptimizer) {
        torch::serialize::OutputArchive ar;
        torch::serialize::OutputArchive opt, valueOpt;
        saveAdam(*m_impl->optimizer, opt);
        saveAdam(*m_impl->valueOptimizer, valueOpt);
        ar.write("optimizer", opt);
        ar.write("value_optimizer", valueOpt);
        std::ostringstream out;
        ar.save_to(out);
        a.optimizer = out.str();
    }
    return a;
}

void setTorchThreads(int threads)
{
    at::set_num_threads(std::max(1, threads));
}

ParameterSet initialParameters(const PolicySpec &spec, std::uint64_t seed)
{
    auto m = makeModel(spec, seed);
    return copyOut(m);
}

namespace {

// Format version 1: the weights inside the libtorch archive.
ParameterSet parametersFromLegacyArchive(const std::string &archive, const PolicySpec &spec,
                                         const std::string &origin)
{
    ParameterSet p;
    try {
        std::istringstream in(archive);
        torch::serialize::InputArchive ar;
        ar.load_from(in);
        for (const auto &[name, shape] : expectedParameters(spec)) {
            torch::Tensor t;
            if (!ar.try_read(name, t))
                throw Error(origin + ": network archive lacks parameter '" + name + "'");
            t = t.contiguous().to(torch::kFloat32);
            ParameterTensor pt;
            pt.shape.assign(t.sizes().begin(), t.sizes().end());
            pt.data.assign(t.data_ptr<float>(), t.data_ptr<float>() + t.numel());
            p[name] = std::move(pt);
        }
    } catch (const c10::Error &e) {
        throw Error(origin + ": corrupt network archive (" + e.what_without_backtrace() + ")");
    } catch (const Error &) {
        throw;
    } catch (const std::exception &e) {
        throw Error(origin + ": corrupt network archive (" + e.what() + ")");
    }
    checkParameters(p, spec, origin);
    return p;
}

} // namespace

void enableLegacyCheckpoints() { setLegacyArchiveDecoder(&parametersFromLegacyArchive); }

std::string legacyCheckpointArchive(const ParameterSet &parameters)
{
    torch::serialize::OutputArchive ar;
    for (const auto &[name, t] : parameters) {
        auto tensor = torch::from_blob(const_cast<float *>(t.data.data()),
                                       std::vector<std::int64_t>(t.shape.begin(), t.shape.end()))
                          .clone();
        ar.write(name, tensor);
    }
    std::ostringstream out;
    ar.save_to(out);
    return out.str();
}

} // namespace dl2
