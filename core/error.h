#pragma once
// The one exception type of the core: a message that names what was wrong and where
// (file, line, field). CLI front-ends print what() and exit with code 2.

#include <initializer_list>
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

// Throws "unknown WHAT 'value' (known: a, b, c)" unless value is one of `known`.
void checkKnown(const char *what, const std::string &value, std::initializer_list<const char *> known);

} // namespace dl2
