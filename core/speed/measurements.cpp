#include "measurements.h"

#include "error.h"
#include "textutil.h"
#include "fileio.h"

#include <QFile>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>

namespace dl2 {

namespace {


bool parseDouble(const std::string &s, double &out)
{
    const std::string t = trim(s);
    if (t.empty())
        return false;
    const char *first = t.data();
    if (*first == '+')
        ++first;
    const auto [ptr, ec] = std::from_chars(first, t.data() + t.size(), out);
    return ec == std::errc() && ptr == t.data() + t.size() && std::isfinite(out);
}

bool parseInt(const std::string &s, int &out)
{
    const std::string t = trim(s);
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return !t.empty() && ec == std::errc() && ptr == t.data() + t.size();
}

// A tiny reader for one Python tuple literal of strings, numbers and lists of numbers.
class TupleReader
{
public:
    TupleReader(const std::string &text, const std::string &file, int line)
        : m_s(text), m_file(file), m_line(line)
    {
    }

    [[noreturn]] void fail(const std::string &what) const
    {
        throw Error::at(m_file, m_line,
                        "expected " + what + " at column " + std::to_string(m_pos + 1) +
                            " (format: ('model', 'dist_sync', batch, ps, workers, [speeds], [ps "
                            "cpu], [worker cpu]))");
    }
    void skipSpace()
    {
        while (m_pos < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_pos])))
            ++m_pos;
    }
    void expect(char c, const std::string &what)
    {
        skipSpace();
        if (m_pos >= m_s.size() || m_s[m_pos] != c)
            fail(what);
        ++m_pos;
    }
    bool peek(char c)
    {
        skipSpace();
        return m_pos < m_s.size() && m_s[m_pos] == c;
    }
    std::string string(const std::string &what)
    {
        skipSpace();
        if (m_pos >= m_s.size() || (m_s[m_pos] != '\'' && m_s[m_pos] != '"'))
            fail(what + " (a quoted string)");
        const char quote = m_s[m_pos++];
        const size_t end = m_s.find(quote, m_pos);
        if (end == std::string::npos)
            fail("closing quote of " + what);
        std::string value = m_s.substr(m_pos, end - m_pos);
        m_pos = end + 1;
        return value;
    }
    double number(const std::string &what)
    {
        skipSpace();
        const size_t start = m_pos;
        while (m_pos < m_s.size() && (std::isalnum(static_cast<unsigned char>(m_s[m_pos])) ||
                                      m_s[m_pos] == '.' || m_s[m_pos] == '-' || m_s[m_pos] == '+'))
            ++m_pos;
        double v = 0.0;
        if (!parseDouble(m_s.substr(start, m_pos - start), v)) {
            m_pos = start;
            fail(what + " (a number)");
        }
        return v;
    }
    int integer(const std::string &what)
    {
        skipSpace();
        const size_t start = m_pos;
        const double v = number(what);
        if (v != std::floor(v) || std::abs(v) > 1e9) {
            m_pos = start;
            fail(what + " (an integer)");
        }
        return static_cast<int>(v);
    }
    std::vector<double> list(const std::string &what)
    {
        expect('[', what + " (a list [..])");
        std::vector<double> values;
        if (peek(']')) {
            ++m_pos;
            return values;
        }
        for (;;) {
            values.push_back(number("a number in " + what));
            if (peek(',')) {
                ++m_pos;
                if (peek(']')) { // trailing comma
                    ++m_pos;
                    return values;
                }
                continue;
            }
            expect(']', "',' or ']' in " + what);
            return values;
        }
    }
    void comma(const std::string &what) { expect(',', "',' before " + what); }
    void end()
    {
        if (peek(','))
            ++m_pos; // Python allows a trailing comma
        expect(')', "')' closing the tuple (8 fields)");
        skipSpace();
        if (m_pos != m_s.size())
            fail("end of line after the tuple");
    }

private:
    const std::string &m_s;
    const std::string &m_file;
    int m_line;
    size_t m_pos = 0;
};

} // namespace

std::vector<SpeedSample> parseDl2Measurements(const std::string &text, const std::string &origin)
{
    std::vector<SpeedSample> samples;
    const std::vector<std::string> lines = splitLines(text);
    for (size_t i = 0; i < lines.size(); ++i) {
        const int lineNo = static_cast<int>(i) + 1;
        const std::string line = trim(lines[i]);
        if (line.empty() || line[0] == '#')
            continue;
        TupleReader r(line, origin, lineNo);
        r.expect('(', "a tuple starting with '('");
        SpeedSample s;
        s.line = lineNo;
        s.model = r.string("the model name");
        r.comma("the sync mode");
        r.string("the sync mode");
        r.comma("the total batch size");
        s.globalBatch = r.integer("the total batch size");
        r.comma("the number of PSs");
        s.ps = r.integer("the number of PSs");
        r.comma("the number of workers");
        s.workers = r.integer("the number of workers");
        r.comma("the worker speeds");
        const std::vector<double> speeds = r.list("the worker speeds");
        r.comma("the PS cpu usage");
        const std::vector<double> psCpu = r.list("the PS cpu usage");
        r.comma("the worker cpu usage");
        const std::vector<double> workerCpu = r.list("the worker cpu usage");
        r.end();

        if (s.model.empty())
            throw Error::at(origin, lineNo, "expected a non-empty model name");
        if (s.globalBatch <= 0)
            throw Error::at(origin, lineNo,
                            "expected a positive total batch size, got " +
                                std::to_string(s.globalBatch));
        if (s.ps <= 0 || s.workers <= 0)
            throw Error::at(origin, lineNo,
                            "expected ps >= 1 and workers >= 1, got ps=" + std::to_string(s.ps) +
                                " workers=" + std::to_string(s.workers));
        if (speeds.size() != static_cast<size_t>(s.workers))
            throw Error::at(origin, lineNo,
                            "expected " + std::to_string(s.workers) + " worker speeds, got " +
                                std::to_string(speeds.size()));
        (void)psCpu;
        (void)workerCpu;
        for (double v : speeds) {
            if (v < 0.0)
                throw Error::at(origin, lineNo,
                                "expected non-negative worker speeds, got " + std::to_string(v));
            s.speed += v;
        }
        samples.push_back(std::move(s));
    }
    return samples;
}

std::vector<SpeedSample> readDl2Measurements(const std::string &path)
{
    return parseDl2Measurements(readFile(path), path);
}

std::vector<SpeedSample> parseCsvMeasurements(const std::string &text, const std::string &origin)
{
    const std::vector<std::string> lines = splitLines(text);
    size_t i = 0;
    while (i < lines.size() && (trim(lines[i]).empty() || trim(lines[i])[0] == '#'))
        ++i;
    if (i == lines.size())
        throw Error::at(origin, 0,
                        "expected a header line model,ps,workers,speed; the file is empty");
    const std::vector<std::string> header = splitCsvFields(lines[i]);
    const int headerLine = static_cast<int>(i) + 1;
    std::map<std::string, size_t> column;
    for (size_t c = 0; c < header.size(); ++c)
        column[header[c]] = c;
    for (const char *name : {"model", "ps", "workers", "speed"})
        if (!column.count(name))
            throw Error::at(
                origin, headerLine,
                std::string("expected a header with columns model,ps,workers,speed; '") + name +
                    "' is missing");
    const bool hasBatch = column.count("global_batch") > 0;

    std::vector<SpeedSample> samples;
    for (++i; i < lines.size(); ++i) {
        const int lineNo = static_cast<int>(i) + 1;
        if (trim(lines[i]).empty() || trim(lines[i])[0] == '#')
            continue;
        const std::vector<std::string> f = splitCsvFields(lines[i]);
        if (f.size() < header.size())
            throw Error::at(origin, lineNo,
                            "expected " + std::to_string(header.size()) + " columns, got " +
                                std::to_string(f.size()));
        SpeedSample s;
        s.line = lineNo;
        s.model = f[column["model"]];
        if (s.model.empty())
            throw Error::at(origin, lineNo, "expected a model name in column 'model'");
        if (!parseInt(f[column["ps"]], s.ps) || s.ps <= 0)
            throw Error::at(origin, lineNo,
                            "expected a positive integer in column 'ps', got '" + f[column["ps"]] +
                                "'");
        if (!parseInt(f[column["workers"]], s.workers) || s.workers <= 0)
            throw Error::at(origin, lineNo,
                            "expected a positive integer in column 'workers', got '" +
                                f[column["workers"]] + "'");
        if (!parseDouble(f[column["speed"]], s.speed))
            throw Error::at(origin, lineNo,
                            "expected a number in column 'speed', got '" + f[column["speed"]] +
                                "'");
        if (s.speed < 0.0)
            throw Error::at(origin, lineNo,
                            "expected a non-negative speed, got " + f[column["speed"]]);
        if (hasBatch && !f[column["global_batch"]].empty() &&
            (!parseInt(f[column["global_batch"]], s.globalBatch) || s.globalBatch <= 0))
            throw Error::at(origin, lineNo,
                            "expected a positive integer in column 'global_batch', got '" +
                                f[column["global_batch"]] + "'");
        samples.push_back(std::move(s));
    }
    return samples;
}

std::vector<SpeedSample> readCsvMeasurements(const std::string &path)
{
    return parseCsvMeasurements(readFile(path), path);
}

std::vector<SpeedSample> loadMeasurements(const std::string &path)
{
    const std::string text = readFile(path);
    const bool csvExtension = path.size() >= 4 && [&] {
        std::string ext = path.substr(path.size() - 4);
        std::transform(ext.begin(), ext.end(), ext.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        return ext == ".csv";
    }();
    if (csvExtension)
        return parseCsvMeasurements(text, path);
    for (const std::string &line : splitLines(text)) {
        const std::string t = trim(line);
        if (t.empty() || t[0] == '#')
            continue;
        if (t[0] == '(')
            return parseDl2Measurements(text, path);
        return parseCsvMeasurements(text, path);
    }
    throw Error::at(path, 0, "expected measurements, the file is empty");
}

std::string measurementsToCsv(const std::vector<SpeedSample> &samples,
                              const std::vector<std::string> &comment)
{
    std::string out;
    for (const std::string &c : comment)
        out += (c.empty() ? "#" : "# " + c) + '\n';
    out += "model,ps,workers,speed\n";
    char buffer[64];
    for (const SpeedSample &s : samples) {
        const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, s.speed);
        if (ec != std::errc())
            throw Error("cannot format speed of " + s.model);
        out += s.model + ',' + std::to_string(s.ps) + ',' + std::to_string(s.workers) + ',' +
               std::string(buffer, end) + '\n';
    }
    return out;
}

const std::vector<SpeedSample> &builtinMeasurements()
{
    static const std::vector<SpeedSample> samples = [] {
        QFile file(QString::fromLatin1(kBuiltinSpeedTable));
        if (!file.open(QIODevice::ReadOnly))
            throw Error(std::string(kBuiltinSpeedTable) + ": built-in resource missing (" +
                        file.errorString().toStdString() + ")");
        const QByteArray data = file.readAll();
        return parseCsvMeasurements(std::string(data.constData(), size_t(data.size())),
                                    kBuiltinSpeedTable);
    }();
    return samples;
}

std::vector<std::string> measuredModels(const std::vector<SpeedSample> &samples)
{
    std::vector<std::string> names;
    for (const SpeedSample &s : samples)
        if (std::find(names.begin(), names.end(), s.model) == names.end())
            names.push_back(s.model);
    return names;
}

std::vector<SpeedSample> samplesOf(const std::vector<SpeedSample> &samples,
                                   const std::string &model)
{
    std::vector<SpeedSample> out;
    for (const SpeedSample &s : samples)
        if (s.model == model)
            out.push_back(s);
    return out;
}

} // namespace dl2
