#include "onlineacting.h"

namespace dl2 {

PolicySpec onlineActingSpec(const PolicySpec &spec)
{
    PolicySpec out = spec;
    if (out.kind == PolicyKind::Dl2)
        out.decode = Decode::Sample; // as offline RL trains and deploys dl2
    return out;
}

std::unique_ptr<Dl2Policy> makeOnlineActingPolicy(
    const Checkpoint &start, std::uint64_t seed,
    std::function<void(const EncodedState &, int, float, int)> onDecision, double epsilon)
{
    auto policy = std::make_unique<Dl2Policy>(onlineActingSpec(start.spec), start.parameters, seed);
    ActorOptions actor;
    actor.sample = true;
    actor.epsilon = epsilon;
    actor.onDecision = std::move(onDecision);
    policy->setActor(std::move(actor));
    policy->setValueEstimates(start.info.valueTrained); // until the learner's first update
    return policy;
}

std::uint64_t onlineSlotSeed(std::uint64_t seed, int slot)
{
    return seed * 1000003ULL + std::uint64_t(slot) * 7919ULL + 17ULL;
}

} // namespace dl2
