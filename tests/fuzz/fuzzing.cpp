#include "fuzzing.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace dl2::fuzz {

namespace {
struct Scratch
{
    std::string dir;
    Scratch()
    {
        std::string pattern = (std::filesystem::temp_directory_path() / "dl2-fuzz-XXXXXX").string();
        if (!mkdtemp(pattern.data()))
            throw std::runtime_error("cannot create a scratch directory");
        dir = pattern;
    }
    ~Scratch()
    {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};
} // namespace

const std::string &scratchDir()
{
    static const Scratch scratch;
    return scratch.dir;
}

std::string writeScratch(const std::string &name, const std::string &content)
{
    const std::string path = scratchDir() + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    if (!out)
        throw std::runtime_error("cannot write " + path);
    return path;
}

} // namespace dl2::fuzz
