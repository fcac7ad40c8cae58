// Model profiles (text-format dl2.ProfileSet): parse, then evaluate every profile's speed
// over the (ps, workers) grid the simulator uses; the speeds must be finite.
#include "fuzzing.h"
#include "modelprofile.h"

#include <cmath>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    dl2::fuzz::expectParsedOrError([&] {
        const dl2::ProfileSet set =
            dl2::ProfileSet::parseText(dl2::fuzz::bytes(data, size), "fuzz.textproto");
        for (const auto &p : set.all()) {
            if (!p.speed)
                std::abort(); // a parsed profile always has a speed model
            for (int ps = 0; ps <= 16; ps += 4)
                for (int w = 0; w <= 16; w += 4)
                    if (!std::isfinite(p.speed->speed(ps, w)))
                        std::abort(); // a parsed profile must not yield a NaN or inf speed
        }
        set.toText();
    });
    return 0;
}
