#pragma once
// The acting policy of online learning (dl2 operate --learn, the console's Learn toggle): the
// learned policy as offline RL trains and deploys it while learning (it samples; job-aware
// exploration off on a live cluster), reseeded every slot from the slot's number, so that its
// frozen reference draws the same random numbers on the same state. Torch-free: the console
// acts with it while its learner (dl2-train) trains the next version in another process.

#include "dl2policy.h"

#include <cstdint>
#include <functional>
#include <memory>

namespace dl2 {

// The start checkpoint's spec as online learning samples it (dl2: decode by sampling).
PolicySpec onlineActingSpec(const PolicySpec &spec);

// `onDecision` (optional) sees every inference: the state, the action, its probability under
// the acting policy and the acted-on job index (-1: stop). `epsilon`: job-aware exploration
// (offline training's; 0 on a live cluster).
std::unique_ptr<Dl2Policy> makeOnlineActingPolicy(
    const Checkpoint &start, std::uint64_t seed,
    std::function<void(const EncodedState &, int, float, int)> onDecision = {},
    double epsilon = 0.0);

// The sampling seed of slot `slot` (the acting policy and its reference are reseeded with it
// before they plan the slot).
std::uint64_t onlineSlotSeed(std::uint64_t seed, int slot);

} // namespace dl2
