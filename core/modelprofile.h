#pragma once
// Model profiles: what a job type needs (worker and PS demand), how long an epoch is
// (steps per epoch) and how fast it trains (a SpeedModel). A ProfileSet is the ordered list
// of types a scenario uses; a job refers to its profile by index (type id = index + 1).

#include "speed/speedmodel.h"
#include "types.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dl2 {

// Which speed the simulation runs on (the true speed of every job). The fitted model stays
// the estimate that estimate-based policies (optimus-paper, best-config-est, dl2-plus) see.
enum class SpeedModelChoice {
    Measured, // the measured table with the reference's exact linear RBF ("rbf"; the default)
    Fitted,   // the fitted Optimus model ("optimus")
};
// "rbf" / "optimus", as the command-line options spell them.
const char *toString(SpeedModelChoice choice);
// Accepts rbf (or measured) and optimus (or fitted); throws dl2::Error naming the value.
SpeedModelChoice speedModelChoiceFromString(const std::string &name);

struct ModelProfile
{
    std::string name;           // e.g. "resnet-50"
    Demand workerDemand{2, 4};  // slots (CPU, GPU)
    Demand psDemand{2, 0};
    double stepsPerEpoch = 1.0; // the reference's epoch_size divisor
    double epochFraction = 1.0; // total epochs = fraction x max epochs (trace generators)
    SpeedModelPtr speed;        // true speed the simulator runs on
    SpeedModelPtr estimate;     // fitted parametric model (what optimus-paper etc. see); may be null
    double fitRmse = 0.0;       // relative RMS error of the fit, recorded with the coefficients
};

class ProfileSet
{
public:
    ProfileSet() = default;
    explicit ProfileSet(std::vector<ModelProfile> profiles);

    int size() const { return static_cast<int>(m_profiles.size()); }
    const ModelProfile &operator[](int index) const { return m_profiles[index]; }
    const std::vector<ModelProfile> &all() const { return m_profiles; }
    std::optional<int> indexOf(const std::string &name) const;

    // The eight reference profiles (built-in resources): our fitted Optimus coefficients as
    // the estimate and, by default, the built-in measured table (exact linear RBF) as the
    // true speed; SpeedModelChoice::Fitted makes the fitted model the true speed too.
    static ProfileSet reference(SpeedModelChoice speed = SpeedModelChoice::Measured);
    // Text-format dl2.ProfileSet file (see core/proto/profiles.proto).
    static ProfileSet loadText(const std::string &path);
    static ProfileSet parseText(const std::string &text, const std::string &origin);
    std::string toText() const;
    // Where the coefficients came from (the file's `source` field).
    const std::string &source() const { return m_source; }
    void setSource(std::string source) { m_source = std::move(source); }

    // Replace every profile's true speed by the measured table (exact linear RBF), keyed by
    // model name; throws if a profile has no measurements.
    void useMeasuredSpeeds(const std::vector<SpeedSample> &samples, const std::string &origin);
    // Make the fitted parametric model the true speed too (speed model "optimus").
    void useEstimatedSpeeds();

private:
    std::vector<ModelProfile> m_profiles;
    std::string m_source;
};

// The profiles a run uses (what `--speed-model`, `--speed-table` and `--profiles` select):
// the built-in profiles or `profilesFile`; with Measured the true speed is the exact RBF over
// `speedTable` (empty: the built-in table), with Fitted the fitted model (refitted to
// `speedTable` when given). Throws dl2::Error naming the file and what is missing.
ProfileSet profilesFor(SpeedModelChoice speed, const std::string &speedTable = {},
                       const std::string &profilesFile = {});

} // namespace dl2
