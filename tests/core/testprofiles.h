#pragma once
// Tiny hand-made profiles for hand-computed test scenarios.

#include "modelprofile.h"

#include <functional>
#include <memory>

namespace dl2::test {

// f(p, w) given by a lambda (steps per second), 0 when p or w is 0.
class FunctionSpeed final : public SpeedModel
{
public:
    explicit FunctionSpeed(std::function<double(int, int)> f) : m_f(std::move(f)) {}
    double speed(int ps, int workers) const override
    {
        return ps > 0 && workers > 0 ? m_f(ps, workers) : 0.0;
    }
    std::string kind() const override { return "test"; }

private:
    std::function<double(int, int)> m_f;
};

inline ModelProfile makeProfile(const std::string &name, Demand worker, Demand ps,
                                std::function<double(int, int)> f, double stepsPerEpoch = 1.0)
{
    ModelProfile p;
    p.name = name;
    p.workerDemand = worker;
    p.psDemand = ps;
    p.stepsPerEpoch = stepsPerEpoch;
    p.speed = std::make_shared<FunctionSpeed>(std::move(f));
    return p;
}

} // namespace dl2::test
