#pragma once
// dl2-console --screenshot / --export-video: drives the main window to what the command line
// asks (the slot, a live batch, a comparison, training references, a job, a dock), waiting on
// the session's and the pages' signals (no polling), then writes the PNG or the video.

#include "consoleoptions.h"

#include <QObject>
#include <functional>

namespace dl2console {

class MainWindow;

class ScreenshotDriver : public QObject
{
    Q_OBJECT
public:
    ScreenshotDriver(MainWindow &window, const ConsoleRun &run, const QCommandLineParser &parser,
                     const ConsoleOptions &options);

    // The process exit code: 0, or 2 after printing what went wrong.
    int run();

private:
    int fail(const QString &message) const;
    // Runs the event loop until done() holds, re-checked whenever a signal `watch` connects
    // (to the given context) fires: false after timeoutMs or once the window showed an error.
    bool waitUntil(const std::function<bool()> &done, int timeoutMs,
                   const std::function<void(QObject *context, std::function<void()> check)> &watch);
    // Approves and commits every live batch before --slot; the error when it fails.
    QString driveLive();
    // One live action towards --slot; true when there is nothing more to do.
    bool advanceLive();
    QString showPages();
    void flushViews();

    MainWindow &m_window;
    ConsoleRun m_run;
    const QCommandLineParser &m_parser;
    const ConsoleOptions &m_options;
    QString m_error; // the last error the window showed
};

// --export-video: the window at `size`, offscreen; one frame per slot. The exit code.
int exportVideo(MainWindow &window, const InstructorOptions &options, const QString &file,
                QSize size, const QString &loadError);

} // namespace dl2console
