#pragma once
// Registers the learned schedulers "dl2" and "dl2-plus" with the core's registry, and knows
// the shipped policies (resources/policies/, compiled in as Qt resources).
// SchedulerConfig::checkpoint selects a policy file or a shipped policy by name
// ("dl2-plus-contended"); without one a kind loads the shipped policy for the scenario and the
// speed model: dl2-reference for dl2; for dl2-plus dl2-plus-contended on dl2-contended,
// dl2-plus-reference elsewhere, and their "-fitted" versions when the run uses the fitted
// speed model (SchedulerConfig::measuredSpeeds false).

#include "policyspec.h"

#include <memory>
#include <string>
#include <vector>

namespace dl2 {

class Dl2Policy;
struct SchedulerConfig;

void registerLearnedPolicies();

// One shipped policy: its name (the file name without .dl2ckpt) and what it was made for.
struct ShippedPolicy
{
    std::string name;
    PolicyKind kind;
    std::string speedModel;  // what it was trained and selected on: "rbf" or "optimus"
    std::string usedFor;     // when it is the default; empty: never (named with --checkpoint)
    std::string trainedOn;   // how it was made (the commands are in core/learning/README.md)
};
const std::vector<ShippedPolicy> &shippedPolicies();
// The checkpoint file of a shipped policy: the resource path, or a file under the source
// tree's resources/policies when the resource was not compiled in. Throws dl2::Error for an
// unknown name (listing the known ones) or one missing from this build.
std::string shippedPolicyFile(const std::string &name);
// A --checkpoint value: a shipped policy's name (with or without .dl2ckpt) or a file path.
std::string resolveCheckpoint(const std::string &nameOrPath);

// The shipped policy a kind uses for a scenario and speed model (its file, as above).
std::string shippedPolicyPath(PolicyKind kind, const std::string &scenario,
                              bool measuredSpeeds = true);
// Loads (cached per file) and builds the policy; throws dl2::Error naming the file.
std::unique_ptr<Dl2Policy> makeLearnedPolicy(PolicyKind kind, const SchedulerConfig &config);

} // namespace dl2
