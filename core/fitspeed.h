#pragma once
// Fitting model profiles to measurements (`dl2 fit-speed MEASUREMENTS -o PROFILES`): every base
// profile with measurements gets fresh Optimus coefficients (see fitOptimus); the others keep
// theirs. The result carries a per-model report.

#include "modelprofile.h"
#include "speed/optimusspeedmodel.h"

#include <string>
#include <vector>

namespace dl2 {

struct SpeedFitRow
{
    std::string model;
    bool fitted = false;  // false: no measurements, base coefficients kept
    int points = 0;       // measurements used
    int dropped = 0;      // failed (all-zero) measurements left out
    double relRmse = 0.0; // relative RMS error of the speed over the used points
    double maxRelError = 0.0;
    double globalBatch = 0.0;
    std::vector<double> theta;
};

struct SpeedFitResult
{
    ProfileSet profiles;
    std::vector<SpeedFitRow> rows;
    std::vector<std::string> ignoredModels; // measured but not in the base profiles

    // Human-readable table, one line per model.
    std::string report() const;
    // The text-format profile file: a comment header (how it was produced, the fit table)
    // followed by profiles.toText(). `command` is the command line to record.
    std::string toText(const std::string &command) const;
};

// `origin` names the measurement file (recorded as the profile set's source). The global batch
// M of a model is the one its measurements record (DL2 file: total_batch_size), else the base
// profile's, else 32.
SpeedFitResult fitProfiles(const std::vector<SpeedSample> &samples, const ProfileSet &base,
                           const std::string &origin, OptimusForm form = OptimusForm::Sync);

} // namespace dl2
