// Gate rules JSON ({"approve_scale_down", "max_task_change", "jobs"}): parse, then match a
// few decisions against what parsed.
#include "fuzzing.h"
#include "gaterules.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    dl2::fuzz::expectParsedOrError([&] {
        const dl2::GateRules rules =
            dl2::GateRules::parse(dl2::fuzz::bytes(data, size), "fuzz-rules.json");
        for (int job : {0, 3, -1, 2147483647}) {
            dl2::ResizeDecision d;
            d.id = "run/1/" + std::to_string(job);
            d.job = job;
            d.from = {{2, 4}, {}};
            d.to = {{job & 3, 2147483647}, {}};
            rules.match(d);
            std::swap(d.from, d.to);
            rules.match(d);
        }
    });
    return 0;
}
