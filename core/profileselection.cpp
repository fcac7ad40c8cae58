// profilesFor(): the speed-model choice shared by the CLI, the console and the trainers.
#include "error.h"
#include "modelprofile.h"
#include "fitspeed.h"
#include "speed/measurements.h"

namespace dl2 {

ProfileSet profilesFor(SpeedModelChoice speed, const std::string &speedTable,
                       const std::string &profilesFile)
{
    if (profilesFile.empty() && speedTable.empty())
        return ProfileSet::reference(speed);
    ProfileSet profiles = profilesFile.empty() ? ProfileSet::reference(SpeedModelChoice::Fitted)
                                               : ProfileSet::loadText(profilesFile);
    if (!speedTable.empty()) {
        const auto samples = loadMeasurements(speedTable);
        if (speed == SpeedModelChoice::Fitted) {
            profiles = fitProfiles(samples, profiles, speedTable).profiles;
            profiles.useEstimatedSpeeds();
        } else {
            profiles.useMeasuredSpeeds(samples, speedTable);
        }
    } else if (speed == SpeedModelChoice::Measured) {
        try {
            profiles.useMeasuredSpeeds(builtinMeasurements(), "the built-in speed table");
        } catch (const Error &e) {
            throw Error(std::string(e.what()) +
                        "; give a speed table with them, or use the fitted speed model (optimus)");
        }
    } else {
        profiles.useEstimatedSpeeds();
    }
    return profiles;
}

} // namespace dl2
