#pragma once
// Registers the learned schedulers "dl2" and "dl2-plus" with the core's registry.
// SchedulerConfig::checkpoint selects any checkpoint file; without one they load the shipped
// policy (resources/policies/, compiled in as Qt resources): dl2-reference.dl2ckpt for dl2,
// dl2-plus-contended.dl2ckpt for dl2-plus on the dl2-contended scenario,
// dl2-plus-reference-measured.dl2ckpt on measured speeds (SchedulerConfig::measuredSpeeds) and
// dl2-plus-reference.dl2ckpt otherwise.

#include "policyspec.h"

#include <memory>
#include <string>

namespace dl2 {

class Dl2Policy;
struct SchedulerConfig;

void registerLearnedPolicies();
// The shipped checkpoint a kind uses for a scenario (resource path, or a file under the
// source tree's resources/policies when the resource was not compiled in). Throws dl2::Error
// when none is available.
std::string shippedPolicyPath(PolicyKind kind, const std::string &scenario,
                              bool measuredSpeeds = false);
// Loads (cached per file) and builds the policy; throws dl2::Error naming the file.
std::unique_ptr<Dl2Policy> makeLearnedPolicy(PolicyKind kind, const SchedulerConfig &config);

} // namespace dl2
