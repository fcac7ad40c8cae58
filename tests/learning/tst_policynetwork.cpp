// The torch-free network (PolicyNetwork) against a plain reading of its weights: the full
// forward pass, the first layer updated incrementally over many small changes (as a slot's
// inferences make them), the value layers, which are built at their first use, and the
// transposed weights networks of one parameter set share. On a
// window-60 dl2 with per-type count features, the largest input the product ships.
#include "checkpoint.h"
#include "policynetwork.h"
#include "policyspec.h"
#include "rng.h"
#include "stateencoder.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>

using namespace dl2;

namespace {

// y = W x + b in torch's layout (W is out x in), the obvious way.
std::vector<float> linear(const ParameterSet &p, const std::string &name, const std::vector<float> &x)
{
    const ParameterTensor &w = p.at(name + ".weight");
    const ParameterTensor &b = p.at(name + ".bias");
    const size_t out = size_t(w.shape[0]), in = size_t(w.shape[1]);
    std::vector<float> y(b.data);
    for (size_t o = 0; o < out; ++o) {
        double sum = 0.0;
        for (size_t i = 0; i < in; ++i)
            sum += double(w.data[o * in + i]) * double(x[i]);
        y[o] += float(sum);
    }
    return y;
}

std::vector<float> relu(std::vector<float> v)
{
    for (float &x : v)
        x = std::max(0.0f, x);
    return v;
}

std::vector<float> mlp(const ParameterSet &p, const std::string &net, const std::vector<float> &x)
{
    return linear(p, net + ".out", relu(linear(p, net + ".fc2", relu(linear(p, net + ".fc1", x)))));
}

float largestGap(const std::vector<float> &a, const std::vector<float> &b)
{
    float gap = a.size() == b.size() ? 0.0f : INFINITY;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        gap = std::max(gap, std::abs(a[i] - b[i]));
    return gap;
}

} // namespace

class TestPolicyNetwork : public QObject
{
    Q_OBJECT

    PolicySpec m_spec;
    std::shared_ptr<const ParameterSet> m_params;
    EncodedState m_state;
    Rng m_rng{17};

    // A value as the encoder writes them: mostly 0, else a fraction or a bit.
    float draw() { return m_rng.below(3) == 0 ? 0.0f : float(m_rng.below(17)) / 16.0f; }

private Q_SLOTS:
    void initTestCase()
    {
        m_spec = defaultSpec(PolicyKind::Dl2, 60, 8);
        m_spec.features.normalise = true;
        m_spec.features.counts = CountFeatures::PerType;
        m_params = std::make_shared<const ParameterSet>(initialParameters(m_spec, 3));
        m_state.rows = m_spec.window;
        m_state.jobDim = m_spec.jobDim();
        m_state.jobs.assign(size_t(m_state.rows * m_state.jobDim), 0.0f);
        for (int r = 0; r < 45; ++r) // 15 empty positions at the end, as in a short queue
            for (int k = 0; k < 20; ++k)
                m_state.jobs[size_t(r * m_state.jobDim) + m_rng.below(size_t(m_state.jobDim))] = draw();
        m_state.mask.assign(size_t(m_state.actionCount()), 1);
    }

    void fullForwardIsTheNetwork()
    {
        PolicyNetwork net(m_spec, m_params);
        std::vector<float> logits;
        net.logits(m_state, logits);
        const std::vector<float> expected = mlp(*m_params, "policy", m_state.jobs);
        QCOMPARE(int(logits.size()), m_state.actionCount());
        QVERIFY2(largestGap(logits, expected) < 1e-4f,
                 qPrintable(QString::number(double(largestGap(logits, expected)))));
    }

    // Between two calls only a few inputs change; the network adds just their columns. Over
    // 1,200 calls (past the full recompute every 512), with changes at the first and last
    // input and on both sides of every 64-input block edge, it stays the full forward pass.
    void incrementalEqualsFullForward()
    {
        PolicyNetwork incremental(m_spec, m_params), full(m_spec, m_params);
        EncodedState s = m_state;
        const size_t n = s.jobs.size();
        const std::vector<size_t> edges{0, 63, 64, 127, 128, n - 65, n - 64, n - 1};
        std::vector<float> a, b;
        float worst = 0.0f;
        for (int step = 0; step < 1200; ++step) {
            if (step % 7 == 3) {
                // nothing changed: the cached answer
            } else if (step % 5 == 0) {
                s.jobs[edges[size_t(step / 5) % edges.size()]] = draw();
            } else {
                const size_t row = m_rng.below(size_t(s.rows));
                for (int k = 0; k < 3; ++k)
                    s.jobs[row * size_t(s.jobDim) + m_rng.below(size_t(s.jobDim))] = draw();
            }
            incremental.logits(s, a);
            full.resetCache();
            full.logits(s, b);
            worst = std::max(worst, largestGap(a, b));
        }
        qInfo("largest gap between the incremental and the full first layer's logits: %.2e",
              double(worst));
        QVERIFY(worst < 1e-4f);
    }

    // The value layers are built when first asked for, and then give the value network's V.
    void valueLayersBuiltOnFirstUse()
    {
        PolicyNetwork net(m_spec, m_params);
        std::vector<float> logits;
        net.logits(m_state, logits);
        const float v = net.value(m_state);
        const float expected = mlp(*m_params, "value", m_state.jobs).at(0);
        QVERIFY2(std::abs(v - expected) < 1e-4f,
                 qPrintable(QStringLiteral("%1 vs %2").arg(double(v)).arg(double(expected))));
        EncodedState changed = m_state;
        changed.jobs[5] = 0.75f;
        QVERIFY(std::abs(net.value(changed) - mlp(*m_params, "value", changed.jobs).at(0)) < 1e-4f);
        // A network that never built them still refuses a parameter set without them.
        ParameterSet partial = *m_params;
        partial.erase("value.fc2.weight");
        QVERIFY_THROWS_EXCEPTION(std::exception,
                                 PolicyNetwork(m_spec, std::make_shared<const ParameterSet>(partial)));
        // Without any value parameter (a file that left out an untrained value network) it
        // decides as before, and asked for V(s) it says what is missing.
        ParameterSet policyOnly = *m_params;
        std::erase_if(policyOnly, [](const auto &e) { return isValueParameter(e.first); });
        QVERIFY(policyOnly.size() < m_params->size());
        PolicyNetwork withoutValue(m_spec, std::make_shared<const ParameterSet>(policyOnly));
        std::vector<float> same;
        withoutValue.logits(m_state, same);
        QCOMPARE(same, logits);
        try {
            withoutValue.value(m_state);
            QFAIL("V(s) without a value network");
        } catch (const std::exception &e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("no value network")), e.what());
        }
    }

    // Networks share the transposed weights of the parameter set they are built from, and
    // only of that one, never of another set alive beside it.
    void eachParameterSetHasItsOwnWeights()
    {
        PolicyNetwork kept(m_spec, m_params), sharing(m_spec, m_params);
        std::vector<float> a, b;
        kept.logits(m_state, a);
        sharing.logits(m_state, b);
        QCOMPARE(a, b);
        // Sets made and dropped one after another while `kept` lives on, as ES does.
        for (std::uint64_t seed = 4; seed < 8; ++seed) {
            const auto other = std::make_shared<const ParameterSet>(initialParameters(m_spec, seed));
            PolicyNetwork net(m_spec, other);
            net.logits(m_state, b);
            QVERIFY(largestGap(b, mlp(*other, "policy", m_state.jobs)) < 1e-4f);
            QVERIFY(largestGap(b, a) > 1e-3f);
        }
        kept.logits(m_state, b);
        QCOMPARE(b, a);

        // Threads building networks at once (ES evaluates perturbations on several threads):
        // of one fresh set, and each of its own.
        const auto common = std::make_shared<const ParameterSet>(initialParameters(m_spec, 9));
        const std::vector<float> expected = mlp(*common, "policy", m_state.jobs);
        std::vector<float> gaps(4, INFINITY);
        std::vector<std::thread> threads;
        for (size_t t = 0; t < gaps.size(); ++t)
            threads.emplace_back([&, t] {
                const auto own = std::make_shared<const ParameterSet>(initialParameters(m_spec, 20 + t));
                PolicyNetwork mine(m_spec, own), shared(m_spec, common);
                std::vector<float> x, y;
                mine.logits(m_state, x);
                shared.logits(m_state, y);
                gaps[t] = std::max(largestGap(x, mlp(*own, "policy", m_state.jobs)), largestGap(y, expected));
            });
        for (auto &t : threads)
            t.join();
        for (float gap : gaps)
            QVERIFY2(gap < 1e-4f, qPrintable(QString::number(double(gap))));
    }
};

QTEST_GUILESS_MAIN(TestPolicyNetwork)
#include "tst_policynetwork.moc"
