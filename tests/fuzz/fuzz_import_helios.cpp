// The Helios importer (dl2 trace-import --format helios).
#include "fuzz_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    return dl2::fuzz::importOne(dl2::ImportFormat::Helios, data, size);
}
