#pragma once
// The running RMS of the actor-critic's advantages (the scale of its policy gradient) and of
// its split-credit task advantages: what the offline trainer (rltrainer.cpp) and the online
// learner (online/onlinelearner.cpp) keep across updates.

#include "learner.h"

namespace dl2 {

struct AdvantageScales
{
    double advantageStd = 1.0, taskStd = 1.0;
    bool advantageStdSet = false, taskStdSet = false;

    // The loss's scales: one over the running RMS.
    void applyTo(RlLossOptions &loss) const;
    // Folds in an update's advantages (0.99 old + 0.01 new; the first batch sets them). Task
    // advantages of 0 (stop decisions) do not count; without any the task scale stays.
    void track(const RlUpdateStats &st);
};

} // namespace dl2
