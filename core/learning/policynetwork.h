#pragma once
// Torch-free inference of the learned policies: the weights are copied out of the libtorch
// modules (ParameterSet) and evaluated with small dense float loops. The first layer is
// updated incrementally (only the inputs that changed since the last call), and dl2-plus
// caches each job's embedding, so one inference costs a few microseconds.
// Training uses the libtorch modules in learner.cpp; both compute the same function
// (tests compare them through the SL agreement).

#include "policyspec.h"
#include "stateencoder.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dl2 {

struct ParameterTensor
{
    std::vector<std::int64_t> shape;
    std::vector<float> data;
};
using ParameterSet = std::map<std::string, ParameterTensor>;

// Names and shapes (torch layout: Linear weight [out, in]) the reference's networks have.
std::vector<std::pair<std::string, std::vector<std::int64_t>>>
expectedParameters(const PolicySpec &spec);
// A parameter of the value network (V(s)), not of the policy.
bool isValueParameter(const std::string &name);

class PolicyNetwork
{
public:
    // Throws dl2::Error when a parameter is missing or has the wrong shape.
    PolicyNetwork(const PolicySpec &spec, std::shared_ptr<const ParameterSet> parameters);
    ~PolicyNetwork();
    PolicyNetwork(const PolicyNetwork &) = delete;
    PolicyNetwork &operator=(const PolicyNetwork &) = delete;

    const PolicySpec &spec() const { return m_spec; }
    // Raw logits over state.actionCount().
    void logits(const EncodedState &state, std::vector<float> &out);
    // Masked, renormalised probabilities (0 for masked actions).
    void probabilities(const EncodedState &state, std::vector<float> &out);
    float value(const EncodedState &state);
    // dl2 (flat): the policy's two hidden layers (after ReLU) for `state`, as logits() computes
    // them. Throws dl2::Error for dl2-plus.
    std::pair<std::vector<float>, std::vector<float>> hiddenLayers(const EncodedState &state);
    // Drop incremental caches (call at the start of a slot).
    void resetCache();

private:
    struct Impl;
    PolicySpec m_spec;
    std::unique_ptr<Impl> m_impl;
};

// Masked softmax in place (masked entries become 0).
void maskedSoftmax(const std::vector<std::uint8_t> &mask, std::vector<float> &values);

} // namespace dl2
