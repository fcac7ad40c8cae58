#include "textutil.h"

#include <algorithm>
#include <sstream>

namespace dl2 {

namespace {
bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
} // namespace

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && blank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && blank(s.back()))
        s.remove_suffix(1);
    return s;
}

std::string trim(const std::string &s) { return std::string(trimmed(s)); }

std::string formatNumber(double v)
{
    std::ostringstream out;
    out.precision(17);
    out << v;
    return out.str();
}

std::vector<std::string> splitLines(const std::string &text)
{
    std::vector<std::string> lines;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = text.find('\n', start);
        std::string line =
            text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        lines.push_back(std::move(line));
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return lines;
}

std::vector<std::string> splitCsvFields(const std::string &line)
{
    std::vector<std::string> fields;
    size_t start = 0;
    for (;;) {
        const size_t comma = line.find(',', start);
        fields.push_back(
            trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
        if (comma == std::string::npos)
            return fields;
        start = comma + 1;
    }
}

const char *describe(CsvProblem problem)
{
    switch (problem) {
    case CsvProblem::None: return "no problem";
    case CsvProblem::UnterminatedQuote: return "unterminated quoted field";
    case CsvProblem::TextAfterQuote: return "text after a closing quote";
    }
    return "?";
}

CsvProblem splitCsvLine(std::string_view line, std::vector<std::string> &fields, size_t &count)
{
    count = 0;
    size_t i = 0;
    for (;;) {
        if (count == fields.size())
            fields.emplace_back();
        std::string &field = fields[count++];
        field.clear();
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        if (i < line.size() && line[i] == '"') {
            for (++i; i < line.size(); ++i) {
                if (line[i] == '"' && i + 1 < line.size() && line[i + 1] == '"')
                    field += line[++i];
                else if (line[i] == '"')
                    break;
                else
                    field += line[i];
            }
            if (i >= line.size())
                return CsvProblem::UnterminatedQuote;
            const size_t comma = std::min(line.find(',', i), line.size());
            if (!trimmed(line.substr(i + 1, comma - i - 1)).empty())
                return CsvProblem::TextAfterQuote;
            i = comma;
        } else {
            const size_t comma = std::min(line.find(',', i), line.size());
            field.assign(trimmed(line.substr(i, comma - i)));
            i = comma;
        }
        if (i >= line.size())
            return CsvProblem::None;
        ++i; // the comma
    }
}

} // namespace dl2
