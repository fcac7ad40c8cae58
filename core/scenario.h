#pragma once
// Named presets: cluster + profiles + trace generator + simulation options + DL2 window.

#include "simulator.h"
#include "tracegenerator.h"

#include <string>
#include <vector>

namespace dl2 {

struct Scenario
{
    std::string name;
    std::string description;
    ClusterSpec cluster;
    GeneratorOptions generator;
    SimulationOptions simulation;
    int window = 40; // DL2 scheduling window J

    // The scenario's trace for a seed (generator options with that seed).
    Trace trace(const ProfileSet &profiles, std::uint64_t seed) const;
};

const std::vector<Scenario> &builtinScenarios();
// Throws dl2::Error naming the unknown scenario and listing the known ones.
const Scenario &scenarioByName(const std::string &name);

} // namespace dl2
