#pragma once
// Dense epochs-per-slot tables of every profile, built once per run from the speed models
// (true speed or fitted estimate) for 0..maxPs+1 PSs x 0..maxWorkers+1 workers: one past
// the caps because the reference Optimus asks for the speed with one task beyond the cap,
// which the simulator's tables (capped) report as 0.

#include "modelprofile.h"

#include <vector>

namespace dl2 {

class SlotContext;

class EpochTable
{
public:
    enum class Source { True, Estimate }; // Estimate falls back to the true speed
    explicit EpochTable(Source source) : m_source(source) {}

    // Rebuilds the tables when the profiles' models, the caps or the slot length changed
    // (returns true then); a no-op otherwise (a handful of comparisons per slot).
    bool prepare(const SlotContext &context);
    // Epochs per slot of profile `type` at (ps, workers); 0 outside the table.
    double operator()(int type, int ps, int workers) const
    {
        if (ps <= 0 || workers <= 0 || ps > m_maxPs + 1 || workers > m_maxWorkers + 1)
            return 0.0;
        return m_values[static_cast<size_t>(type)][static_cast<size_t>(ps * m_stride + workers)];
    }
    int maxPs() const { return m_maxPs; }
    int maxWorkers() const { return m_maxWorkers; }

private:
    Source m_source;
    std::vector<SpeedModelPtr> m_models; // held so that pointer identity stays a valid key
    std::vector<double> m_stepsPerEpoch;
    std::vector<std::vector<double>> m_values;
    double m_slotSeconds = 0.0;
    int m_maxPs = -1;
    int m_maxWorkers = -1;
    int m_stride = 0;
};

} // namespace dl2
