#pragma once
// A one-line progress bar with rate and ETA for long commands; prints only when stderr is a
// terminal (plain periodic lines otherwise, so logs stay readable: every 10 s, or every
// DL2_PROGRESS_SECONDS seconds when that is set).

#include <chrono>
#include <string>

namespace dl2::cli {

class ProgressBar
{
public:
    // `start`: work already done before (a resumed training), left out of the rate.
    ProgressBar(std::string label, long long total, std::string unit = "it", long long start = 0);
    ~ProgressBar();
    void update(long long done, const std::string &extra = {});
    void finish(const std::string &extra = {});
    // Ends the bar where the work stopped early (Ctrl-C): `done` of the total, its real rate.
    void stopAt(long long done, const std::string &extra = {});

private:
    void print(long long done, const std::string &extra);

    std::string m_label;
    long long m_total;
    long long m_start0 = 0;
    std::string m_unit;
    bool m_tty;
    bool m_finished = false;
    long long m_lastDone = -1;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_lastPrint;
    double m_plainInterval; // seconds between plain lines (not a terminal)
};

} // namespace dl2::cli
