// Trace CSV (job_id,arrival_slot,model,epochs[,estimated_epochs]): parse, validate against the
// reference profiles; a trace that passes must survive its own CSV round trip unchanged.
#include "fuzzing.h"
#include "modelprofile.h"
#include "trace.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const dl2::ProfileSet profiles = dl2::ProfileSet::reference();
    dl2::fuzz::expectParsedOrError([&] {
        const dl2::Trace trace = dl2::Trace::parseCsv(dl2::fuzz::bytes(data, size), "fuzz.csv");
        trace.validate(profiles, "fuzz.csv");
        const dl2::Trace again = dl2::Trace::parseCsv(trace.toCsv(), "round-trip.csv");
        if (!(again.jobs == trace.jobs))
            std::abort(); // toCsv() lost or changed a job
    });
    return 0;
}
