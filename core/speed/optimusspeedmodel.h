#pragma once
// Optimus parametric speed model (Peng et al., EuroSys'18), the job's total step rate:
//   sync:  f(p,w) = 1 / (t0*M/w + t1 + t2*w/p + t3*w + t4*p)
//   async: f(p,w) = w / (t0 + t1*w/p + t2*w + t3*p)
// with all t >= 0 and M the global batch. Stored as dl2.pb.OptimusCoefficients (profiles.proto).

#include "speedmodel.h"

#include <string>
#include <vector>

namespace dl2 {

namespace pb {
class OptimusCoefficients; // profiles.pb.h
}

enum class OptimusForm
{
    Sync,
    Async
};

class OptimusSpeedModel : public SpeedModel
{
public:
    // Throws dl2::Error when theta has the wrong size for the form or a negative/non-finite entry.
    explicit OptimusSpeedModel(const pb::OptimusCoefficients &coefficients);
    OptimusSpeedModel(OptimusForm form, double globalBatch, std::vector<double> theta);

    double speed(int ps, int workers) const override;
    std::string kind() const override
    {
        return m_form == OptimusForm::Sync ? "optimus-sync" : "optimus-async";
    }

    // The model at real (p, w) > 0.
    double evaluate(double ps, double workers) const;
    OptimusForm form() const { return m_form; }
    double globalBatch() const { return m_globalBatch; }
    const std::vector<double> &theta() const { return m_theta; }
    // Coefficients plus the fit statistics this model was built with (if any).
    pb::OptimusCoefficients toProto() const;

private:
    OptimusForm m_form = OptimusForm::Sync;
    double m_globalBatch = 1.0;
    std::vector<double> m_theta;
    double m_fitRelRmse = 0.0;
    double m_fitMaxRelError = 0.0;
    int m_fitPoints = 0;
    int m_droppedPoints = 0;
};

// Fits the form by non-negative least squares to the samples (one model). Failed measurements
// (speed <= 0) are dropped and counted in dropped_points. Throws dl2::Error when fewer usable
// points than coefficients remain.
pb::OptimusCoefficients fitOptimus(const std::vector<SpeedSample> &samples, OptimusForm form,
                                   double globalBatch);

} // namespace dl2
