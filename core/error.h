#pragma once
// The one exception type of the core: a message that names what was wrong and where
// (file, line, field). CLI front-ends print what() and exit with code 2.

#include <stdexcept>
#include <string>

namespace dl2 {

class Error : public std::runtime_error
{
public:
    explicit Error(const std::string &message) : std::runtime_error(message) {}
    // "FILE:LINE: message" (line <= 0 leaves it out).
    static Error at(const std::string &file, int line, const std::string &message);
};

} // namespace dl2
