#pragma once
// The text helpers of core: trimming, lines, CSV fields, exact numbers. Shared by the
// line-oriented readers (trace CSV, the public trace importers, measurements).

#include <string>
#include <string_view>
#include <vector>

namespace dl2 {

// Without leading and trailing blanks (space, tab, CR, LF).
std::string_view trimmed(std::string_view s);
std::string trim(const std::string &s);
// Lines of `text`, split at \n with a trailing \r removed (CRLF files).
std::vector<std::string> splitLines(const std::string &text);
// Comma-separated fields of one line, each trimmed; "a," gives {"a", ""}. No quoting.
std::vector<std::string> splitCsvFields(const std::string &line);
// `v` with 17 significant digits: reads back as the same double (traces, error messages).
std::string formatNumber(double v);

// What is wrong with a CSV line (CsvProblem::None: nothing).
enum class CsvProblem { None, UnterminatedQuote, TextAfterQuote };
const char *describe(CsvProblem problem); // "unterminated quoted field", ...
// The fields of one CSV line, each trimmed; a field may be double-quoted (then it may hold
// commas, and "" is a quote inside). The first `count` entries of `fields` are the line's:
// the vector is reused from line to line, so reading a large file allocates once.
CsvProblem splitCsvLine(std::string_view line, std::vector<std::string> &fields, size_t &count);

} // namespace dl2
