#pragma once
// Shared by the fuzz targets (tests/fuzz/fuzz_*.cpp). Each target is one
// LLVMFuzzerTestOneInput: built with libFuzzer in the `fuzz` preset (clang, ASan + UBSan), and
// with fuzzmain.cpp in every other build, where CTest replays the seed corpus and the kept
// crash inputs (label "fuzz-regression").
//
// The contract every parser is held to: any input either parses or throws dl2::Error (a
// clear message naming the origin); anything else (a crash, a sanitizer report, another
// exception type, a hang) is a bug.

#include "error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dl2::fuzz {

inline std::string bytes(const std::uint8_t *data, std::size_t size)
{
    return std::string(reinterpret_cast<const char *>(data), size);
}

// Splits `in` at every occurrence of `separator` (at most `parts` pieces; the last keeps the
// rest), so one fuzz input can carry several files or responses.
inline std::vector<std::string> split(const std::string &in, std::string_view separator,
                                      std::size_t parts)
{
    std::vector<std::string> out;
    std::size_t at = 0;
    while (out.size() + 1 < parts) {
        const std::size_t next = in.find(separator, at);
        if (next == std::string::npos)
            break;
        out.push_back(in.substr(at, next - at));
        at = next + separator.size();
    }
    out.push_back(in.substr(at));
    return out;
}

// A private directory for targets whose parser reads files (removed at exit).
const std::string &scratchDir();
// Writes `content` to scratchDir()/name and returns the path.
std::string writeScratch(const std::string &name, const std::string &content);

// Runs `parse`; a dl2::Error is the expected outcome for bad input.
template <typename F> void expectParsedOrError(F parse)
{
    try {
        parse();
    } catch (const dl2::Error &) {
    }
}

} // namespace dl2::fuzz
