// Measured speeds: the first byte picks the DL2 tuple format or CSV; what parses is then
// turned into the measured-speed surface of the reference profiles (the RBF interpolation
// `--speed-table` builds), which must give finite speeds.
#include "fuzzing.h"
#include "modelprofile.h"
#include "speed/measurements.h"

#include <cmath>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size == 0)
        return 0;
    const bool csv = data[0] & 1;
    const std::string text = dl2::fuzz::bytes(data + 1, size - 1);
    dl2::fuzz::expectParsedOrError([&] {
        const auto samples = csv ? dl2::parseCsvMeasurements(text, "fuzz.csv")
                                 : dl2::parseDl2Measurements(text, "fuzz.txt");
        dl2::measuredModels(samples);
        dl2::ProfileSet profiles = dl2::ProfileSet::reference();
        profiles.useMeasuredSpeeds(samples, csv ? "fuzz.csv" : "fuzz.txt");
        for (const auto &p : profiles.all())
            for (int ps = 1; ps <= 16; ps += 3)
                for (int w = 1; w <= 16; w += 3)
                    if (!std::isfinite(p.speed->speed(ps, w)))
                        std::abort(); // an accepted table must not yield NaN or inf
    });
    return 0;
}
