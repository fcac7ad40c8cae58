#pragma once
// The reference's speed surface: SciPy's scipy.interpolate.Rbf(ps, workers, speed,
// function='linear') over one model's measurements, i.e. phi(r) = r with the Euclidean distance
// in the (p, w) plane, no smoothing and no polynomial term. Exact at every measured point
// (including failed all-zero measurements, which the reference keeps).

#include "speedmodel.h"

#include <string>
#include <vector>

namespace dl2 {

class RbfSpeedModel : public SpeedModel
{
public:
    // `samples` are the measurements of one model. Throws dl2::Error (naming `origin` and the
    // lines) on no samples, non-positive (p, w) or two measurements of the same (p, w): the
    // interpolation matrix would be singular (SciPy would raise LinAlgError there).
    explicit RbfSpeedModel(const std::vector<SpeedSample> &samples, const std::string &origin = {});

    double speed(int ps, int workers) const override;
    std::string kind() const override { return "rbf"; }

    // The interpolant at any real (p, w), without the zero rule for p <= 0 or w <= 0.
    double evaluate(double ps, double workers) const;
    int centres() const { return static_cast<int>(m_nodes.size()); }

private:
    struct Node
    {
        double p;
        double w;
        double weight;
    };
    std::vector<Node> m_nodes;
};

} // namespace dl2
