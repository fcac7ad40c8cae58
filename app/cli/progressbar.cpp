#include "progressbar.h"

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace dl2::cli {

namespace {
// Seconds between plain progress lines when stderr is not a terminal: 10, or
// DL2_PROGRESS_SECONDS (0.1-3600; the console's training page follows a run with 0.5).
double plainInterval()
{
    const char *env = std::getenv("DL2_PROGRESS_SECONDS");
    if (!env || !*env)
        return 10.0;
    char *end = nullptr;
    const double v = std::strtod(env, &end);
    return end && *end == '\0' && v >= 0.1 && v <= 3600 ? v : 10.0;
}

std::string formatDuration(double s)
{
    char buf[32];
    if (s < 0 || s > 1e7)
        return "?";
    const int t = static_cast<int>(s + 0.5);
    if (t >= 3600)
        std::snprintf(buf, sizeof buf, "%dh%02dm", t / 3600, (t / 60) % 60);
    else
        std::snprintf(buf, sizeof buf, "%dm%02ds", t / 60, t % 60);
    return buf;
}
} // namespace

ProgressBar::ProgressBar(std::string label, long long total, std::string unit, long long start)
    : m_label(std::move(label)), m_total(total), m_start0(start), m_unit(std::move(unit)),
      m_tty(isatty(fileno(stderr)) != 0), m_start(std::chrono::steady_clock::now()),
      m_lastPrint(m_start), m_plainInterval(plainInterval())
{
}

ProgressBar::~ProgressBar()
{
    if (!m_finished && m_tty)
        std::fputc('\n', stderr);
}

void ProgressBar::update(long long done, const std::string &extra)
{
    const auto now = std::chrono::steady_clock::now();
    const double sinceLast = std::chrono::duration<double>(now - m_lastPrint).count();
    if (done < m_total && sinceLast < (m_tty ? 0.1 : m_plainInterval))
        return;
    print(done, extra);
}

void ProgressBar::print(long long done, const std::string &extra)
{
    const auto now = std::chrono::steady_clock::now();
    m_lastPrint = now;
    m_lastDone = done;
    const double elapsed = std::chrono::duration<double>(now - m_start).count();
    const double rate = elapsed > 0 ? double(done - m_start0) / elapsed : 0.0;
    const double eta = rate > 0 ? (m_total - done) / rate : -1;
    const double frac = m_total > 0 ? static_cast<double>(done) / m_total : 0.0;
    if (m_tty) {
        const int width = 30;
        const int filled = static_cast<int>(frac * width);
        std::string bar(static_cast<size_t>(filled), '#');
        bar.resize(width, '.');
        std::fprintf(stderr, "\r%s [%s] %lld/%lld %.1f %s/s ETA %s %s\033[K", m_label.c_str(),
                     bar.c_str(), done, m_total, rate, m_unit.c_str(), formatDuration(eta).c_str(),
                     extra.c_str());
    } else {
        std::fprintf(stderr, "%s %lld/%lld (%.0f%%) %.1f %s/s ETA %s %s\n", m_label.c_str(), done,
                     m_total, 100 * frac, rate, m_unit.c_str(), formatDuration(eta).c_str(),
                     extra.c_str());
    }
    std::fflush(stderr);
}

void ProgressBar::finish(const std::string &extra)
{
    if (m_finished)
        return;
    if (m_lastDone != m_total || !extra.empty())
        update(m_total, extra);
    if (m_tty && !m_finished)
        std::fputc('\n', stderr);
    m_finished = true;
}

void ProgressBar::stopAt(long long done, const std::string &extra)
{
    if (m_finished)
        return;
    print(done, extra);
    if (m_tty)
        std::fputc('\n', stderr);
    m_finished = true;
}

} // namespace dl2::cli
