// Text-format Protobuf traces (*.textproto): parse and validate.
#include "fuzzing.h"
#include "modelprofile.h"
#include "trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const dl2::ProfileSet profiles = dl2::ProfileSet::reference();
    dl2::fuzz::expectParsedOrError([&] {
        const dl2::Trace trace = dl2::Trace::parse(dl2::fuzz::bytes(data, size),
                                                   dl2::TraceFormat::Text, "fuzz.textproto");
        trace.validate(profiles, "fuzz.textproto");
    });
    return 0;
}
