#pragma once
// Speed models f(p, w): a job's total training speed in steps per second with p parameter
// servers and w workers (the sum of its per-worker speeds, as the reference defines it).
// Concrete models: RbfSpeedModel (exact linear RBF over measurements, the reference's),
// OptimusSpeedModel (parametric, fitted by non-negative least squares).

#include <memory>
#include <string>
#include <vector>

namespace dl2 {

class SpeedModel
{
public:
    virtual ~SpeedModel() = default;
    // Steps per second at (ps, workers). Must return 0 when ps <= 0 or workers <= 0.
    virtual double speed(int ps, int workers) const = 0;
    // "rbf" or "optimus-sync" / "optimus-async".
    virtual std::string kind() const = 0;
};

using SpeedModelPtr = std::shared_ptr<const SpeedModel>;

// A speed that is no speed: the measured table keeps the configurations whose measurement
// failed (every worker reported 0), and the exact RBF returns them as rounding noise around 0
// (|f| ~ 1e-16, either sign), not as a slow but real speed. Anything below this fraction of
// the model's best speed is treated as none where a speed is turned into work (the trace
// importer's epochs); the simulator keeps the table as measured (a job placed there makes no
// progress, as in the authors' simulator).
inline constexpr double kNegligibleSpeedFraction = 1e-6;
// The model's best speed over 1..maxPs x 1..maxWorkers (the measured grid by default).
double bestSpeed(const SpeedModel &model, int maxPs = 16, int maxWorkers = 16);
// speed > kNegligibleSpeedFraction x best and finite (best: the model's bestSpeed).
bool isUsableSpeed(double speed, double best);

// One measured configuration: (ps, workers) -> summed speed.
struct SpeedSample
{
    std::string model;
    int ps = 0;
    int workers = 0;
    double speed = 0.0; // steps/s, summed over workers
    int line = 0;       // source line for error messages
    int globalBatch = 0; // total batch size M the source records (0 = unknown)
};

// A dense cache of f over 0..maxPs x 0..maxWorkers, so the simulator never evaluates an
// interpolant in its inner loop.
class SpeedTable
{
public:
    SpeedTable() = default;
    SpeedTable(const SpeedModel &model, int maxPs, int maxWorkers);
    double operator()(int ps, int workers) const
    {
        if (ps <= 0 || workers <= 0 || ps > m_maxPs || workers > m_maxWorkers)
            return 0.0;
        return m_values[static_cast<size_t>(ps * (m_maxWorkers + 1) + workers)];
    }
    int maxPs() const { return m_maxPs; }
    int maxWorkers() const { return m_maxWorkers; }

private:
    int m_maxPs = 0;
    int m_maxWorkers = 0;
    std::vector<double> m_values;
};

} // namespace dl2
