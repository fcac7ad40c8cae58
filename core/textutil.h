#pragma once
// Small text helpers shared by the line-oriented importers (traces, measurements).

#include <string>
#include <vector>

namespace dl2 {

// Without leading and trailing blanks (space, tab, CR, LF).
std::string trim(const std::string &s);
// Lines of `text`, split at \n with a trailing \r removed (CRLF files).
std::vector<std::string> splitLines(const std::string &text);
// Comma-separated fields of one line, each trimmed; "a," gives {"a", ""}. No quoting.
std::vector<std::string> splitCsvFields(const std::string &line);

} // namespace dl2
