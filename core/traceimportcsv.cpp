// What the importers share: the collector, the CSV reader over a TraceInput, times and
// numbers, companion files, the homogeneous cluster a machine list becomes.
#include "traceimportformats.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>

namespace dl2::importing {

namespace {

constexpr size_t kMalformedExamples = 3;

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
long long daysFromCivil(int y, int m, int d)
{
    y -= m <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return static_cast<long long>(era) * 146097 + doe - 719468;
}

std::string withCommas(long long n)
{
    const std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out = n < 0 ? "-" : "";
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace

void Collector::malformed(const Error &error, bool isJob)
{
    if (!m_skip)
        throw error;
    m_report.records += isJob;
    ++m_report.malformed;
    if (m_report.malformedExamples.size() < kMalformedExamples)
        m_report.malformedExamples.emplace_back(error.what());
}

void Collector::checkLastLine(const CsvReader &r)
{
    if (r.endedWithoutLineEnd())
        warn(r.path() + ":" + std::to_string(r.line()) +
             ": the last line has no line end: a truncated file? (the line was read as it is: "
             "check its last record)");
}

void Collector::checkStream(const TraceInput &input)
{
    if (input.streamError().empty())
        return;
    const Error e(input.name() + ": the data ends early (" + input.streamError() +
                  "): a truncated download? Everything before the break was read");
    if (!m_skip)
        throw e;
    ++m_report.malformed;
    if (m_report.malformedExamples.size() < kMalformedExamples)
        m_report.malformedExamples.emplace_back(e.what());
}

// --- Times and numbers -----------------------------------------------------------------------

std::optional<double> parseDateTime(std::string_view s)
{
    // YYYY-MM-DD HH:MM:SS (a 'T' separator is accepted too)
    if (s.size() != 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
        s[13] != ':' || s[16] != ':')
        return std::nullopt;
    auto num = [&](size_t at, size_t len) -> int {
        int v = 0;
        for (size_t i = at; i < at + len; ++i) {
            if (s[i] < '0' || s[i] > '9')
                return -1;
            v = v * 10 + (s[i] - '0');
        }
        return v;
    };
    const int y = num(0, 4), mo = num(5, 2), d = num(8, 2);
    const int h = num(11, 2), mi = num(14, 2), se = num(17, 2);
    if (y < 0 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 ||
        se > 60)
        return std::nullopt;
    static constexpr std::array<int, 12> kDays{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > kDays[static_cast<size_t>(mo - 1)] || (mo == 2 && d == 29 && !leap))
        return std::nullopt;
    return static_cast<double>(daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se);
}

std::optional<double> parseNumber(std::string_view s)
{
    s = trimmed(s);
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

// --- CSV -------------------------------------------------------------------------------------

bool CsvReader::next()
{
    std::string_view line;
    while (m_input.nextLine(line)) {
        if (trimmed(line).empty())
            continue;
        split(line);
        return true;
    }
    return false;
}

Error CsvReader::error(const std::string &message) const
{
    return Error::at(path(), line(), message);
}

Error CsvReader::columnCountError(size_t expected, const std::string &layout) const
{
    if (truncated() && m_size < expected)
        return error("the file ends inside this line (" + std::to_string(m_size) + " of " +
                     std::to_string(expected) + " columns): a truncated file?");
    return error("expected " + std::to_string(expected) + " columns (" + layout + "), got " +
                 std::to_string(m_size));
}

double CsvReader::number(size_t column, const char *name, double min) const
{
    const auto v = optionalNumber(column, name, min);
    if (!v)
        throw error(std::string("column '") + name + "': missing value");
    return *v;
}

std::optional<double> CsvReader::optionalNumber(size_t column, const char *name, double min) const
{
    const std::string &f = m_fields[column];
    if (f.empty())
        return std::nullopt;
    const auto v = parseNumber(f);
    if (!v)
        throw error(std::string("column '") + name + "': not a number: '" + f + "'");
    if (*v < min)
        throw error(std::string("column '") + name + "': must be at least " +
                    std::to_string(static_cast<long long>(min)) + ", got '" + f + "'");
    return v;
}

std::optional<double> CsvReader::optionalTime(size_t column, const char *name) const
{
    const std::string &f = m_fields[column];
    if (f.empty())
        return std::nullopt;
    const auto v = parseTraceTime(f);
    if (!v)
        throw error(std::string("column '") + name +
                    "': expected YYYY-MM-DD HH:MM:SS or seconds, got '" + f + "'");
    return v;
}

void CsvReader::split(std::string_view line)
{
    const CsvProblem problem = splitCsvLine(line, m_fields, m_size);
    if (problem == CsvProblem::UnterminatedQuote && truncated())
        throw error("the file ends inside a quoted field: a truncated file?");
    if (problem != CsvProblem::None)
        throw error(describe(problem));
}

// --- Companions and clusters -------------------------------------------------------------

std::optional<InputRef> findCompanion(const InputRef &main, const std::vector<std::string> &names,
                                      const std::string &explicitPath)
{
    if (!explicitPath.empty())
        return InputRef{explicitPath, {}};
    namespace fs = std::filesystem;
    if (TraceInput::isCompressed(main.path)) {
        const std::vector<std::string> members = TraceInput::members(main.path);
        const std::string folder = main.member.substr(0, main.member.find_last_of('/') + 1);
        std::optional<std::string> elsewhere;
        for (const auto &m : members) {
            if (std::find(names.begin(), names.end(), baseName(m)) == names.end())
                continue;
            if (m.substr(0, m.find_last_of('/') + 1) == folder)
                return InputRef{main.path, m};
            if (!elsewhere)
                elsewhere = m;
        }
        if (elsewhere)
            return InputRef{main.path, *elsewhere};
    }
    const fs::path dir = fs::path(main.path).parent_path();
    std::error_code ec;
    for (const auto &name : names) {
        const std::string stem = fs::path(name).extension() == ".csv"
                                     ? fs::path(name).stem().string()
                                     : name;
        for (const std::string &candidate :
             {name, name + ".gz", stem + ".tar.gz", stem + ".tgz", stem + ".zip", name + ".zip"}) {
            const fs::path p = dir / candidate;
            if (fs::is_regular_file(p, ec) && fs::absolute(p, ec) != fs::absolute(main.path, ec))
                return InputRef{p.string(), {}};
        }
    }
    return std::nullopt;
}

int mostCommon(const std::vector<int> &values)
{
    std::map<int, int> count;
    for (const int v : values)
        ++count[v];
    int best = 0, bestCount = 0;
    for (const auto &[v, n] : count)
        if (n >= bestCount) {
            best = v;
            bestCount = n;
        }
    return best;
}

TraceCluster homogeneousCluster(const std::vector<int> &gpusPerMachine,
                                const std::vector<int> &cpusPerMachine, const std::string &what,
                                bool keepCount)
{
    std::vector<int> gpuMachines;
    long long totalGpus = 0;
    std::map<int, int, std::greater<>> shapes;
    for (const int g : gpusPerMachine)
        if (g > 0) {
            gpuMachines.push_back(g);
            totalGpus += g;
            ++shapes[g];
        }
    TraceCluster c;
    if (gpuMachines.empty())
        return c;
    c.gpusPerNode = mostCommon(gpuMachines);
    c.nodes = keepCount ? static_cast<int>(gpuMachines.size())
                        : static_cast<int>((totalGpus + c.gpusPerNode - 1) / c.gpusPerNode);
    std::vector<int> cpus;
    for (size_t i = 0; i < cpusPerMachine.size() && i < gpusPerMachine.size(); ++i)
        if (gpusPerMachine[i] == c.gpusPerNode && cpusPerMachine[i] > 0)
            cpus.push_back(cpusPerMachine[i]);
    c.cpusPerNode = cpus.empty() ? 4 * c.gpusPerNode : mostCommon(cpus);
    c.basis = what + ": " + withCommas(static_cast<long long>(gpuMachines.size())) +
              " GPU machines";
    if (shapes.size() > 1) {
        c.basis += " of ";
        const char *sep = "";
        for (const auto &[g, n] : shapes) {
            c.basis += sep + withCommas(n) + " x " + std::to_string(g);
            sep = ", ";
        }
        c.basis += keepCount ? " GPUs; one node each, of the most common size"
                             : " GPUs; the same total GPUs in nodes of the most common size";
    } else {
        c.basis += " of " + std::to_string(c.gpusPerNode) + " GPUs";
    }
    c.basis += cpus.empty() ? "; CPUs assumed 4 per GPU" : "";
    return c;
}

} // namespace dl2::importing
