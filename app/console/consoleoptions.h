#pragma once
// dl2-console's command line: the options (shared by the GUI start and the display-less
// --help/--version path) and what they ask for, checked (ConsoleRun::parse).

#include "livetypes.h"
#include "sessiontypes.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QSize>
#include <QStringList>

namespace dl2console {

class Settings;

// The command line, shared by the GUI start and the display-less --help/--version path.
struct ConsoleOptions
{
    QCommandLineOption scenario{QStringLiteral("scenario"),
                                QStringLiteral("Built-in scenario (default dl2-reference)."),
                                QStringLiteral("S")};
    QCommandLineOption seed{QStringLiteral("seed"), QStringLiteral("Trace seed (default 1)."),
                            QStringLiteral("N")};
    QCommandLineOption trace{QStringLiteral("trace"),
                             QStringLiteral("Trace file (.csv, .pb, .textproto) instead of the "
                                            "scenario's generated trace."),
                             QStringLiteral("FILE")};
    QCommandLineOption policy{QStringLiteral("policy"),
                              QStringLiteral("Scheduling policy (default dl2 if available, else "
                                             "drf)."),
                              QStringLiteral("P")};
    QCommandLineOption checkpoint{QStringLiteral("checkpoint"),
                                  QStringLiteral("Policy file (.dl2ckpt) or shipped policy name "
                                                 "(dl2 policy list) for dl2 / dl2-plus; sets the "
                                                 "policy to the file's kind."),
                                  QStringLiteral("FILE")};
    QCommandLineOption speedModel{QStringLiteral("speed-model"),
                                  QStringLiteral("rbf: the measured table, exactly interpolated "
                                                 "(default, the published setting); optimus: the "
                                                 "fitted parametric model. Remembered."),
                                  QStringLiteral("MODEL")};
    QCommandLineOption speedTable{QStringLiteral("speed-table"),
                                  QStringLiteral("Measured speeds to use instead of the built-in "
                                                 "table (DL2 tuple format or CSV "
                                                 "model,ps,workers,speed). Remembered."),
                                  QStringLiteral("FILE")};
    QCommandLineOption nodes{QStringLiteral("nodes"),
                             QStringLiteral("Cluster size in nodes (default: the scenario's; "
                                            "with --trace, the trace's own cluster when it "
                                            "records one, and then --nodes sets only its node "
                                            "count)."),
                             QStringLiteral("N")};
    QCommandLineOption slot{QStringLiteral("slot"), QStringLiteral("Slot to open at."),
                            QStringLiteral("K")};
    QCommandLineOption shot{QStringLiteral("screenshot"),
                            QStringLiteral("Render the window to a PNG and exit (no display "
                                           "needed)."),
                            QStringLiteral("FILE.png")};
    QCommandLineOption size{QStringLiteral("size"),
                            QStringLiteral("Window size for --screenshot (default 1600x1000)."),
                            QStringLiteral("WxH")};
    QCommandLineOption compare{QStringLiteral("compare"),
                               QStringLiteral("Show the comparison page and run it first (with "
                                              "--screenshot).")};
    QCommandLineOption select{QStringLiteral("select"),
                              QStringLiteral("Select a job (highlighted in every view)."),
                              QStringLiteral("ID")};
    QCommandLineOption dark{QStringLiteral("dark"), QStringLiteral("Use a dark Fusion palette.")};
    QCommandLineOption showDock{QStringLiteral("show-dock"),
                                QStringLiteral("Raise a tabbed dock: jobs, queue, decisions or "
                                               "audit."),
                                QStringLiteral("NAME")};
    QCommandLineOption inference{QStringLiteral("inference"),
                                 QStringLiteral("Decision inspector: show this inference of the "
                                                "slot (1-based; learned policies)."),
                                 QStringLiteral("N")};
    QCommandLineOption zoom{QStringLiteral("cluster-zoom"),
                            QStringLiteral("Cluster view zoom level (0-2 heat map, 3-11 slots; "
                                           "default: fit)."),
                            QStringLiteral("LEVEL")};

    QCommandLineOption gate{QStringLiteral("gate"),
                            QStringLiteral("Operate the cluster through the decision gate: "
                                           "automatic (replay, the default), review or rules."),
                            QStringLiteral("MODE")};
    QCommandLineOption rules{QStringLiteral("rules"),
                             QStringLiteral("Auto-approval rules (JSON) for --gate rules."),
                             QStringLiteral("FILE")};
    QCommandLineOption reviewDeadline{QStringLiteral("review-deadline"),
                                      QStringLiteral("Seconds a batch waits for review (default "
                                                     "120)."),
                                      QStringLiteral("S")};
    QCommandLineOption atDeadline{QStringLiteral("at-deadline"),
                                  QStringLiteral("At the deadline: keep (current allocation, "
                                                 "default) or apply (the proposal)."),
                                  QStringLiteral("D")};
    QCommandLineOption audit{QStringLiteral("audit"),
                             QStringLiteral("Audit log (SQLite) of live operations (default: "
                                            "audit.sqlite in the application data directory)."),
                             QStringLiteral("FILE")};
    QCommandLineOption agent{QStringLiteral("agent"),
                             QStringLiteral("Operate a remote cluster through the dl2-agent at "
                                            "HOST:PORT instead of the embedded simulator."),
                             QStringLiteral("ADDR")};
    QCommandLineOption tokenFile{QStringLiteral("token-file"),
                                 QStringLiteral("File holding the agent's bearer token."),
                                 QStringLiteral("F")};
    QCommandLineOption learn{QStringLiteral("learn"),
                             QStringLiteral("Live operations with online learning on from the start "
                                            "(Operations > Learn online; policy dl2 or dl2-plus): "
                                            "a dl2-train learner fine-tunes the policy between "
                                            "slots.")};
    QCommandLineOption learnSabotage = [] {
        QCommandLineOption o(QStringLiteral("learn-debug-sabotage-version"),
                             QStringLiteral("Testing: learned versions from N on are sabotaged "
                                            "(to see the rollback)."),
                             QStringLiteral("N"));
        o.setFlags(QCommandLineOption::HiddenFromHelp);
        return o;
    }();
    // For bench_startup: start as usual, exit once the first frame is painted.
    QCommandLineOption firstFrame = [] {
        QCommandLineOption o(QStringLiteral("exit-after-first-frame"),
                             QStringLiteral("Exit after painting the first frame (start-up benchmark)."));
        o.setFlags(QCommandLineOption::HiddenFromHelp);
        return o;
    }();

    QCommandLineOption trainingCurves{
        QStringLiteral("training-curves"),
        QStringLiteral("Show the Training page with this curves file (<checkpoint>.curves.csv "
                       "of dl2 train), followed while it grows."),
        QStringLiteral("FILE")};
    QCommandLineOption trainingCompare{
        QStringLiteral("training-compare"),
        QStringLiteral("Training page: draw this second curves file's validation JCT beside "
                       "the first (e.g. its shuffled-advantage control, <checkpoint>-control"
                       ".curves.csv)."),
        QStringLiteral("FILE")};
    QCommandLineOption probeTypes{
        QStringLiteral("probe-types"),
        QStringLiteral("Training page: open \"Probe types…\" on this checkpoint or shipped dl2 "
                       "policy (what it learnt of job types, as dl2 policy probe); with "
                       "--screenshot the picture is of the probe window."),
        QStringLiteral("CHECKPOINT")};
    QCommandLineOption trainingBaselines{
        QStringLiteral("training-baselines"),
        QStringLiteral("Training page: reference lines (DRF, Optimus, lower bound) simulated on "
                       "SCENARIO's validation traces (seeds A-B, default 100-109 as dl2 train)."),
        QStringLiteral("SCENARIO[:A-B]")};
    QCommandLineOption historySlot{QStringLiteral("history-slot"),
                                   QStringLiteral("Live, with --screenshot: once at --slot, show "
                                                  "slot K of the live history (read-only)."),
                                   QStringLiteral("K")};

    QCommandLineOption sideBySide{QStringLiteral("side-by-side"),
                                  QStringLiteral("Replay the trace under two policies side by "
                                                 "side, in lockstep (e.g. drf,dl2)."),
                                  QStringLiteral("LEFT,RIGHT")};
    QCommandLineOption presentation{QStringLiteral("presentation"),
                                    QStringLiteral("Start in presentation mode (full screen, "
                                                   "large fonts, captions, keyboard stepping).")};
    QCommandLineOption views{QStringLiteral("views"),
                             QStringLiteral("Views for presentation mode and --export-video: "
                                            "jobs, utilisation, reward, speed, decisions, queue, "
                                            "audit (the cluster is always shown); with "
                                            "--side-by-side: cluster, jobs, plot."),
                             QStringLiteral("LIST")};
    QCommandLineOption exportVideo{QStringLiteral("export-video"),
                                   QStringLiteral("Export the replay as a video (.webm, .mp4) or "
                                                  "animation (.gif, .apng) and exit (no display "
                                                  "needed)."),
                                   QStringLiteral("FILE")};
    QCommandLineOption slotRange{QStringLiteral("slots"),
                             QStringLiteral("Slot range for --export-video (default: the whole "
                                            "run)."),
                             QStringLiteral("A-B")};
    QCommandLineOption fps{QStringLiteral("fps"),
                           QStringLiteral("Slots per second of exported video (default 2)."),
                           QStringLiteral("N")};
    QCommandLineOption noCaptions{QStringLiteral("no-captions"),
                                  QStringLiteral("Leave the slot captions out of the export.")};

    void configure(QCommandLineParser &parser) const;
};

// The instructor options: side by side, presentation mode, video export.
struct InstructorOptions
{
    QStringList pair; // two policies, or empty
    QStringList views;
    bool presentation = false;
    int firstSlot = 0;
    int lastSlot = -1; // -1: the end of the run
    double fps = 2.0;
    bool captions = true;

    QString parse(const QCommandLineParser &parser, const ConsoleOptions &o,
                  const Settings &settings);
};

// Everything the command line asks for, checked.
struct ConsoleRun
{
    bool screenshot = false; // --screenshot FILE
    bool exporting = false;  // --export-video FILE
    SessionSetup setup;
    LiveSetup live;
    bool liveMode = false;
    int slot = 0;
    QSize size;
    QString dockName;
    InstructorOptions instructor;
    int inferenceNumber = 0;
    QString baselineScenario;
    QString baselineSeeds = QStringLiteral("100-109");

    // Returns what is wrong ("" when nothing); `settings` fills what is not given.
    QString parse(const QCommandLineParser &parser, const ConsoleOptions &o,
                  const Settings &settings);

private:
    QString parseSession(const QCommandLineParser &parser, const ConsoleOptions &o,
                         const Settings &settings);
    QString parseView(const QCommandLineParser &parser, const ConsoleOptions &o,
                      const Settings &settings);
    QString parseLive(const QCommandLineParser &parser, const ConsoleOptions &o);
};

} // namespace dl2console
