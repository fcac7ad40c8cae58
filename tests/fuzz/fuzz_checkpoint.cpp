// Policy checkpoints (*.dl2ckpt) through the public reader.
#include "checkpoint.h"
#include "fuzzing.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    dl2::fuzz::expectParsedOrError(
        [&] { dl2::parseCheckpoint(dl2::fuzz::bytes(data, size), "fuzz.dl2ckpt"); });
    return 0;
}
