// kubeconfig files (the YAML subset parser and the credential rules): relative file
// references resolve in an empty scratch directory.
#include "fuzzing.h"
#include "kubernetescredentials.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    dl2::fuzz::expectParsedOrError([&] {
        dl2::parseKubeconfig(dl2::fuzz::bytes(data, size), "fuzz-kubeconfig",
                             dl2::fuzz::scratchDir());
    });
    return 0;
}
