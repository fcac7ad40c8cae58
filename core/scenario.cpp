#include "scenario.h"

#include "error.h"
#include "modelprofile.h"

namespace dl2 {

Trace Scenario::trace(const ProfileSet &profiles, std::uint64_t seed) const
{
    GeneratorOptions g = generator;
    g.seed = seed;
    Trace t = generateTrace(profiles, g);
    t.name = name + "-seed" + std::to_string(seed);
    return t;
}

const std::vector<Scenario> &builtinScenarios()
{
    static const std::vector<Scenario> scenarios = [] {
        std::vector<Scenario> s;

        Scenario reference;
        reference.name = "dl2-reference";
        reference.description = "The published DL2 simulation: 500 nodes of 8 CPU + 8 GPU slots, "
                                "200 jobs, Google arrivals capped at 10 per slot, 20-minute "
                                "slots, at most 16 workers and 16 PSs per job, window 40";
        reference.cluster = {500, {8, 8}};
        reference.generator.pattern = ArrivalPattern::Google;
        reference.generator.jobs = 200;
        reference.generator.cap = 10;
        reference.window = 40;
        s.push_back(reference);

        Scenario contended = reference;
        contended.name = "dl2-contended";
        contended.description = "dl2-reference on 100 nodes instead of 500 (same jobs, same "
                                 "arrivals): capacity binds";
        contended.cluster.nodes = 100;
        s.push_back(contended);

        Scenario small;
        small.name = "dl2-small";
        small.description = "The reference's smaller setting: 96 nodes, 60 jobs, Google "
                            "arrivals capped at 3 per slot, window 20";
        small.cluster = {96, {8, 8}};
        small.generator.pattern = ArrivalPattern::Google;
        small.generator.jobs = 60;
        small.generator.cap = 3;
        small.window = 20;
        s.push_back(small);

        Scenario burst;
        burst.name = "dl2-burst";
        burst.description = "Stress (the agent soak): 30,000 short jobs arriving 10,000 per "
                            "slot in slots 0-2 on 12,000 nodes, at most 2 workers and 2 PSs per "
                            "job, so an arrival slot carries 10,000 decisions and more";
        burst.cluster = {12'000, {8, 8}};
        burst.generator.pattern = ArrivalPattern::Uniform;
        burst.generator.jobs = 30'000;
        burst.generator.cap = 10'000;
        burst.generator.maxEpochs = 3000.0;
        burst.simulation.maxWorkers = 2;
        burst.simulation.maxPs = 2;
        burst.window = 40;
        s.push_back(burst);
        return s;
    }();
    return scenarios;
}

const Scenario &scenarioByName(const std::string &name)
{
    std::string known;
    for (const auto &s : builtinScenarios()) {
        if (s.name == name)
            return s;
        known += (known.empty() ? "" : ", ") + s.name;
    }
    throw Error("unknown scenario '" + name + "' (known: " + known + ")");
}

} // namespace dl2
