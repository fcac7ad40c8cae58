// dl2-console: the operations console. Interactive by default; with --screenshot it renders
// the main window at a given slot to a PNG and exits (works on QT_QPA_PLATFORM=offscreen).

#include "appicon.h"
#include "clusteroccupancyview.h"
#include "comparisonpage.h"
#include "consolesession.h"
#include "decisioninspector.h"
#include "decisionqueuepanel.h"
#include "fileio.h"
#include "liveoperations.h"
#include "instructortools.h"
#include "jobtablepanel.h"
#include "lockstepreplay.h"
#include "mainwindow.h"
#include "modelprofile.h"
#include "policyfiles.h"
#include "replayexporter.h"
#include "scenario.h"
#include "scheduler.h"
#ifdef DL2_HAVE_LEARNING
#include "registerpolicies.h"
#endif
#include "settings.h"
#include "sidebysidepage.h"
#include "trainingpage.h"
#include "videowriter.h"
#include "viewrefresher.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QPalette>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>

using namespace dl2console;

namespace {

void settle(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

int fail(const QString &message)
{
    std::fprintf(stderr, "dl2-console: %s\n", qPrintable(message));
    return 2;
}

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
                             QStringLiteral("Cluster size in nodes (default: the scenario's, "
                                            "also for --trace)."),
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

    void configure(QCommandLineParser &parser) const
    {
        parser.setApplicationDescription(
            QStringLiteral("Replay, inspect and compare deep-learning cluster schedulers."));
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addOptions({scenario, seed, trace, policy, checkpoint, speedModel, speedTable, nodes,
                           slot, shot, size, compare, select, dark,
                           showDock, inference, zoom, gate, rules, reviewDeadline, atDeadline, audit, agent,
                           tokenFile, firstFrame, trainingCurves, trainingBaselines,
                           historySlot, sideBySide, presentation, views, exportVideo, slotRange,
                           fps, noCaptions});
    }
};

void setApplicationNames()
{
    QCoreApplication::setOrganizationName(QStringLiteral("dl2console"));
    QCoreApplication::setApplicationName(QStringLiteral("dl2-console")); // settings file name
    QCoreApplication::setApplicationVersion(QStringLiteral(DL2_VERSION));
}

// Quits the application once any widget has painted (the first frame is on screen).
class FirstFrameWatcher : public QObject
{
public:
    using QObject::QObject;
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint && !m_seen) {
            m_seen = true;
            QTimer::singleShot(0, qApp, &QCoreApplication::quit); // after this paint completes
        }
        return QObject::eventFilter(watched, event);
    }

private:
    bool m_seen = false;
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
                  const Settings &settings)
    {
        if (parser.isSet(o.sideBySide)) {
            pair = parser.value(o.sideBySide).split(QLatin1Char(','));
            if (pair.size() != 2)
                return QStringLiteral("--side-by-side needs two policies, e.g. drf,dl2");
            for (const QString &p : std::as_const(pair))
                if (!dl2::isScheduler(p.toStdString()))
                    return QStringLiteral("--side-by-side: unknown policy '%1'").arg(p);
        }
        const QStringList known = pair.isEmpty() ? InstructorTools::replayViewNames()
                                                 : SideBySidePage::sectionNames();
        if (parser.isSet(o.views)) {
            views = parser.value(o.views).split(QLatin1Char(','), Qt::SkipEmptyParts);
            for (const QString &v : std::as_const(views))
                if (!known.contains(v))
                    return QStringLiteral("--views: unknown view '%1' (one of %2)")
                        .arg(v, known.join(QStringLiteral(", ")));
        } else {
            views = pair.isEmpty() ? settings.presentationViews() : known;
        }
        presentation = parser.isSet(o.presentation);
        if (parser.isSet(o.slotRange) &&
            !ReplayExporter::parseSlotRange(parser.value(o.slotRange), &firstSlot, &lastSlot))
            return QStringLiteral("--slots must look like 10-40 (first <= last)");
        if (parser.isSet(o.fps)) {
            bool ok = false;
            fps = parser.value(o.fps).toDouble(&ok);
            if (!ok || fps < 0.1 || fps > 60)
                return QStringLiteral("--fps must be a number from 0.1 to 60");
        }
        captions = !parser.isSet(o.noCaptions);
        if (parser.isSet(o.exportVideo) &&
            !VideoWriter::formatForFile(parser.value(o.exportVideo), nullptr))
            return QStringLiteral("--export-video %1: unknown format; use %2")
                .arg(parser.value(o.exportVideo), VideoWriter::supportedExtensions());
        return {};
    }
};

// --export-video: the window at `size`, offscreen; one frame per slot.
int exportVideo(MainWindow &window, const InstructorOptions &options, const QString &file,
                QSize size, const QString &loadError)
{
    InstructorTools *tools = window.instructorTools();
    if (!options.pair.isEmpty()) {
        tools->sideBySidePage()->setPolicyPair(options.pair[0], options.pair[1]);
        tools->showSideBySide();
    }
    InstructorTools::ExportRequest request;
    request.fileName = file;
    request.firstSlot = options.firstSlot;
    request.lastSlot = options.lastSlot;
    request.fps = options.fps;
    request.size = size;
    request.views = options.views;
    request.captions = options.captions;
    ReplayExporter exporter;
    if (!tools->exportReplay(request, &exporter))
        return fail(loadError.isEmpty() ? exporter.error() : loadError);
    const QSize rendered = tools->lastRenderSize();
    if (rendered.width() > size.width() || rendered.height() > size.height())
        std::fprintf(stderr,
                     "dl2-console: these views need at least %dx%d; the frames are scaled "
                     "down to %dx%d (a larger --size or fewer --views reads better)\n",
                     rendered.width(), rendered.height(), size.width(), size.height());
    std::printf("%s: %d frames (slots %d-%d) at %g slots/s, %s\n", qPrintable(file),
                exporter.framesWritten(), options.firstSlot,
                options.firstSlot + exporter.framesWritten() - 1, options.fps,
                qPrintable(exporter.codecName()));
    return 0;
}

// The offscreen platform warns about every window size-hint change (a presentation layout
// makes many): noise on the terminal of a headless export.
QtMessageHandler g_defaultHandler = nullptr;
void quietOffscreen(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (message == QLatin1String("This plugin does not support propagateSizeHints()"))
        return;
    g_defaultHandler(type, context, message);
}

bool hasArgument(int argc, char *argv[], std::initializer_list<const char *> names)
{
    for (int i = 1; i < argc; ++i)
        for (const char *n : names)
            if (qstrcmp(argv[i], n) == 0 ||
                QByteArray(argv[i]).startsWith(QByteArray(QByteArray(n) + "=")))
                return true;
    return false;
}

} // namespace

int main(int argc, char *argv[])
{
    // --help and --version need no display; --screenshot falls back to the offscreen platform
    // when there is none (the app boots headless for CLI-only use).
    if (hasArgument(argc, argv, {"--help", "-h", "--help-all", "--version", "-v"})) {
        QCoreApplication core(argc, argv);
        setApplicationNames();
        QCommandLineParser parser;
        ConsoleOptions().configure(parser);
        parser.process(core); // prints and exits
        return 0;
    }
    if (hasArgument(argc, argv, {"--screenshot", "--export-video"}) &&
        qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");

    QApplication app(argc, argv);
    if (QGuiApplication::platformName() == QLatin1String("offscreen"))
        g_defaultHandler = qInstallMessageHandler(quietOffscreen);
    setApplicationNames();
    QApplication::setApplicationDisplayName(QStringLiteral("DL2 Console"));
    QApplication::setDesktopFileName(QStringLiteral("io.github.dl2console.DL2Console"));
    QApplication::setWindowIcon(appIcon());
    dl2::registerBaselines();
#ifdef DL2_HAVE_LEARNING
    dl2::registerLearnedPolicies(); // "dl2", "dl2-plus": the default policy when present
#endif

    QCommandLineParser parser;
    const ConsoleOptions o;
    o.configure(parser);
    parser.process(app);

    const bool screenshot = parser.isSet(o.shot);
    const bool exporting = parser.isSet(o.exportVideo);
    if (parser.isSet(o.dark)) {
        QApplication::setStyle(QStringLiteral("Fusion"));
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(37, 40, 45));
        dark.setColor(QPalette::WindowText, QColor(220, 222, 225));
        dark.setColor(QPalette::Base, QColor(28, 30, 34));
        dark.setColor(QPalette::AlternateBase, QColor(40, 43, 48));
        dark.setColor(QPalette::Text, QColor(220, 222, 225));
        dark.setColor(QPalette::PlaceholderText, QColor(140, 144, 150));
        dark.setColor(QPalette::Button, QColor(45, 48, 54));
        dark.setColor(QPalette::ButtonText, QColor(220, 222, 225));
        dark.setColor(QPalette::Highlight, QColor(61, 142, 230));
        dark.setColor(QPalette::HighlightedText, Qt::white);
        dark.setColor(QPalette::ToolTipBase, QColor(45, 48, 54));
        dark.setColor(QPalette::ToolTipText, QColor(220, 222, 225));
        QApplication::setPalette(dark);
    }
    // Screenshots and exports use a throw-away settings file: reproducible layout, user
    // settings untouched.
    QTemporaryDir scratch;
    Settings settings(screenshot || exporting ? scratch.filePath(QStringLiteral("settings.ini"))
                                              : QString());

    SessionSetup setup;
    setup.scenario = parser.isSet(o.scenario) ? parser.value(o.scenario) : settings.scenario();
    bool ok = true;
    setup.seed = parser.isSet(o.seed) ? parser.value(o.seed).toULongLong(&ok) : settings.seed();
    if (!ok || setup.seed == 0)
        return fail(QStringLiteral("--seed needs a positive integer"));
    setup.traceFile = parser.isSet(o.trace)      ? parser.value(o.trace)
                      : parser.isSet(o.scenario) ? QString()
                                                 : settings.traceFile();
    setup.policy = parser.isSet(o.policy) ? parser.value(o.policy) : settings.policy();
    if (parser.isSet(o.policy) && !dl2::isScheduler(setup.policy.toStdString()))
        return fail(QStringLiteral("unknown policy '%1'").arg(setup.policy));
    // A policy file: its kind is the policy (and must agree with --policy).
    const bool fromCommandLine = parser.isSet(o.scenario) || parser.isSet(o.trace) || parser.isSet(o.policy);
    setup.checkpoint = parser.isSet(o.checkpoint) ? parser.value(o.checkpoint)
                       : fromCommandLine           ? QString()
                                                   : settings.checkpoint();
    if (!setup.checkpoint.isEmpty()) {
        try {
            const PolicyFile file = inspectPolicyFile(setup.checkpoint);
            if (parser.isSet(o.policy) && file.kind != setup.policy)
                return fail(QStringLiteral("--checkpoint %1 holds a %2 policy, not %3")
                                .arg(setup.checkpoint, file.kind, setup.policy));
            setup.policy = file.kind;
        } catch (const std::exception &e) {
            if (parser.isSet(o.checkpoint))
                return fail(QString::fromStdString(e.what()));
            setup.checkpoint.clear(); // a remembered file that went away: the shipped default
        }
    }
    setup.speedModel = parser.isSet(o.speedModel) ? parser.value(o.speedModel) : settings.speedModel();
    setup.speedTable = parser.isSet(o.speedTable) ? parser.value(o.speedTable) : settings.speedTable();
    try {
        setup.speedModel = QString::fromLatin1(
            dl2::toString(dl2::speedModelChoiceFromString(setup.speedModel.toStdString())));
        if (parser.isSet(o.speedTable) || parser.isSet(o.speedModel)) // a bad table fails here, not later
            dl2::profilesFor(dl2::speedModelChoiceFromString(setup.speedModel.toStdString()),
                             setup.speedTable.toStdString());
    } catch (const std::exception &e) {
        return fail(QStringLiteral("--speed-model/--speed-table: %1").arg(QString::fromStdString(e.what())));
    }
    setup.nodes = parser.isSet(o.nodes) ? parser.value(o.nodes).toInt(&ok)
                  : fromCommandLine     ? 0
                                        : settings.nodes();
    if (!ok || setup.nodes < 0 || (parser.isSet(o.nodes) && setup.nodes < 1) || setup.nodes > 1000000)
        return fail(QStringLiteral("--nodes needs an integer from 1 to 1000000"));
    const int slot = parser.isSet(o.slot) ? parser.value(o.slot).toInt(&ok) : 0;
    if (!ok || slot < 0)
        return fail(QStringLiteral("--slot needs a non-negative integer"));
    QSize size = exporting ? QSize(1280, 720) : QSize(1600, 1000);
    if (parser.isSet(o.size)) {
        const QStringList wh = parser.value(o.size).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (wh.size() == 2)
            size = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
        if (!okW || !okH || size.width() < 200 || size.height() < 150)
            return fail(QStringLiteral("--size must look like 1600x1000"));
    }

    const QString dockName = parser.value(o.showDock);
    if (!dockName.isEmpty() && !MainWindow::dockNames().contains(dockName))
        return fail(QStringLiteral("--show-dock must be one of %1")
                        .arg(MainWindow::dockNames().join(QStringLiteral(", "))));
    InstructorOptions instructor;
    if (const QString error = instructor.parse(parser, o, settings); !error.isEmpty())
        return fail(error);
    int inferenceNumber = 0;
    if (parser.isSet(o.inference)) {
        inferenceNumber = parser.value(o.inference).toInt(&ok);
        if (!ok || inferenceNumber < 1)
            return fail(QStringLiteral("--inference needs a positive integer"));
    }

    QString baselineScenario, baselineSeeds = QStringLiteral("100-109");
    if (parser.isSet(o.trainingBaselines)) {
        const QString v = parser.value(o.trainingBaselines);
        const qsizetype colon = v.indexOf(QLatin1Char(':'));
        baselineScenario = colon < 0 ? v : v.left(colon);
        if (colon >= 0)
            baselineSeeds = v.mid(colon + 1);
        try {
            dl2::scenarioByName(baselineScenario.toStdString());
        } catch (const std::exception &e) {
            return fail(QStringLiteral("--training-baselines: %1").arg(QString::fromUtf8(e.what())));
        }
    }

    LiveSetup live;
    bool liveMode = false;
    try {
        live.mode = parser.isSet(o.gate) ? dl2::gateModeFromString(parser.value(o.gate).toStdString())
                    : parser.isSet(o.rules) ? dl2::GateMode::Rules
                                            : dl2::GateMode::Automatic;
        live.rulesFile = parser.value(o.rules);
        if (!live.rulesFile.isEmpty())
            dl2::GateRules::load(live.rulesFile.toStdString()); // fail early on a bad file
        if (parser.isSet(o.reviewDeadline)) {
            const int s = parser.value(o.reviewDeadline).toInt(&ok);
            if (!ok || s < 1)
                return fail(QStringLiteral("--review-deadline needs a positive number of seconds"));
            live.reviewDeadlineMs = s * 1000;
        }
        const QString at = parser.value(o.atDeadline);
        if (!at.isEmpty() && at != QLatin1String("keep") && at != QLatin1String("apply"))
            return fail(QStringLiteral("--at-deadline must be keep or apply"));
        live.atDeadline = at == QLatin1String("apply") ? dl2::DeadlineDefault::Apply
                                                       : dl2::DeadlineDefault::KeepCurrent;
        live.auditFile = parser.value(o.audit);
        live.agentAddress = parser.value(o.agent);
        if (!live.agentAddress.isEmpty()) {
            if (!parser.isSet(o.tokenFile))
                return fail(QStringLiteral("--agent needs --token-file"));
            live.token = QString::fromStdString(
                dl2::readFile(parser.value(o.tokenFile).toStdString())).trimmed();
            if (live.token.isEmpty())
                return fail(QStringLiteral("the token file is empty"));
        }
        liveMode = live.mode != dl2::GateMode::Automatic || !live.agentAddress.isEmpty();
    } catch (const std::exception &e) {
        return fail(QString::fromStdString(e.what()));
    }
    if (exporting && screenshot)
        return fail(QStringLiteral("--export-video and --screenshot do not go together"));
    if (exporting && liveMode)
        return fail(QStringLiteral("--export-video replays a run; it does not operate a cluster "
                                   "(--gate, --agent)"));

    MainWindow window(&settings, !screenshot);
    window.setLiveDefaults(live);
    if (!dockName.isEmpty())
        window.raiseDock(dockName);
    InstructorTools *tools = window.instructorTools();
    if (!screenshot && !exporting) {
        if (parser.isSet(o.firstFrame))
            app.installEventFilter(new FirstFrameWatcher(&app));
        window.show();
        window.load(setup);
        if (liveMode)
            window.startLive();
        else if (slot > 0)
            window.session()->seek(slot);
        if (parser.isSet(o.trainingCurves) || !baselineScenario.isEmpty()) {
            window.showTraining();
            if (parser.isSet(o.trainingCurves))
                window.trainingPage()->openCurves(parser.value(o.trainingCurves));
            window.trainingPage()->computeReferences(baselineScenario, baselineSeeds);
        }
        if (!instructor.pair.isEmpty()) {
            tools->sideBySidePage()->setPolicyPair(instructor.pair[0], instructor.pair[1]);
            tools->showSideBySide();
            tools->sideBySidePage()->replay()->seek(slot);
        }
        if (instructor.presentation)
            tools->enterPresentation(instructor.views);
        return app.exec();
    }

    window.setInteractiveErrors(false);
    QString error;
    QObject::connect(&window, &MainWindow::errorShown, [&error](const QString &m) { error = m; });
    window.resize(size);
    window.show();
    settle(20); // let the dock layout settle before sizing docks by fractions
    window.applyDefaultDockSizes();

    window.load(setup);
    if (liveMode) {
        // Live: approve and commit every batch before --slot, then show the batch of that slot.
        QTemporaryDir auditDir;
        if (live.auditFile.isEmpty()) {
            live.auditFile = auditDir.filePath(QStringLiteral("audit.sqlite"));
            window.setLiveDefaults(live);
        }
        window.startLive();
        ConsoleSession *session = window.session();
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 120000 && error.isEmpty()) {
            LiveOperations *ops = session->live();
            if (!ops || ops->runComplete())
                break;
            const GateBatch &b = ops->batch();
            if (b.open && b.slot >= slot && b.pending() > 0)
                break;
            if (b.open && b.pending() > 0) {
                ops->approveAll();
            } else if (b.open) {
                ops->commit();
            } else if (ops->canRunSlot()) {
                ops->runSlot();
            }
            settle(20);
            if (ops->connector().state == ConnectorStatus::State::RejectedToken ||
                ops->connector().state == ConnectorStatus::State::Reconnecting)
                break; // show the connector state
        }
        if (!error.isEmpty())
            return fail(error);
        if (auto *d = window.findChild<QDockWidget *>(QStringLiteral("decisionQueueDock")))
            d->raise();
        if (parser.isSet(o.historySlot)) {
            const int k = parser.value(o.historySlot).toInt(&ok);
            if (!ok || k < 0 || k >= session->liveSlot())
                return fail(QStringLiteral("--history-slot: slot %1 is not in the live history "
                                           "(slots 0..%2)")
                                .arg(parser.value(o.historySlot))
                                .arg(session->liveSlot() - 1));
            session->seek(k);
        }
    } else if (!window.session()->waitForSlot(exporting ? instructor.firstSlot : slot, 120000))
        return fail(error.isEmpty() ? QStringLiteral("timed out reaching slot %1").arg(slot)
                                    : error);
    if (exporting)
        return exportVideo(window, instructor, parser.value(o.exportVideo), size, error);
    if (parser.isSet(o.zoom))
        window.occupancyView()->setZoomLevel(parser.value(o.zoom).toInt());
    if (!dockName.isEmpty())
        window.raiseDock(dockName); // after the live batch raised the queue
    if (inferenceNumber > 0) {
        window.refresher()->flush();
        window.decisionInspector()->setCurrentStep(inferenceNumber - 1);
    }
    if (parser.isSet(o.select)) {
        window.refresher()->flush();
        window.jobPanel()->selectJob(parser.value(o.select).toInt());
    }
    if (parser.isSet(o.compare)) {
        window.showComparison();
        bool done = false;
        QObject::connect(window.comparisonPage(), &ComparisonPage::finished,
                         [&done](bool) { done = true; });
        window.comparisonPage()->run();
        while (!done)
            settle(20);
        if (!error.isEmpty())
            return fail(error);
    }
    if (parser.isSet(o.trainingCurves) || !baselineScenario.isEmpty()) {
        TrainingPage *training = window.trainingPage();
        window.showTraining();
        const QString curves = parser.value(o.trainingCurves);
        if (!curves.isEmpty() && !QFileInfo::exists(curves))
            return fail(QStringLiteral("%1: no such curves file").arg(curves));
        if (!curves.isEmpty() && !training->openCurves(curves))
            return fail(training->curvesError());
        training->computeReferences(baselineScenario, baselineSeeds);
        while (training->isComputingReferences())
            settle(20);
        if (!error.isEmpty())
            return fail(error);
        training->refresh();
    }
    if (!instructor.pair.isEmpty()) {
        SideBySidePage *page = tools->sideBySidePage();
        page->setPolicyPair(instructor.pair[0], instructor.pair[1]);
        tools->showSideBySide();
        if (!page->replay()->waitForSlot(slot, 120000))
            return fail(error.isEmpty() ? QStringLiteral("timed out reaching slot %1").arg(slot)
                                        : error);
        page->refresher()->flush(); // the jobs table must hold the slot's rows first
        if (parser.isSet(o.select))
            page->selectJob(parser.value(o.select).toInt());
    }
    if (instructor.presentation)
        tools->enterPresentation(instructor.views, false);
    window.refresher()->flush();
    settle(80); // queued replots and layout
    window.refresher()->flush();
    settle(40);
    if (window.size() != size)
        std::fprintf(stderr, "dl2-console: the window needs at least %dx%d; rendered at %dx%d\n",
                     window.minimumSizeHint().width(), window.minimumSizeHint().height(),
                     window.width(), window.height());
    if (!window.grab().save(parser.value(o.shot)))
        return fail(QStringLiteral("could not write %1").arg(parser.value(o.shot)));
    return 0;
}
