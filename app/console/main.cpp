// dl2-console: the operations console. Interactive by default; with --screenshot it renders
// the main window at a given slot to a PNG and exits, with --export-video it writes the replay
// as a video (both work on QT_QPA_PLATFORM=offscreen, see ScreenshotDriver).

#include "appicon.h"
#include "consoleoptions.h"
#include "consolesession.h"
#include "instructortools.h"
#include "lockstepreplay.h"
#include "mainwindow.h"
#include "scheduler.h"
#ifdef DL2_HAVE_LEARNING
#include "registerpolicies.h"
#endif
#include "screenshotdriver.h"
#include "settings.h"
#include "sidebysidepage.h"
#include "trainingpage.h"

#include <QApplication>
#include <QPalette>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>

using namespace dl2console;

namespace {

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

void useDarkPalette()
{
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

// The interactive console: the window shown, the run loaded, the requested pages open.
int runInteractive(QApplication &app, MainWindow &window, const ConsoleRun &run,
                   const QCommandLineParser &parser, const ConsoleOptions &o)
{
    if (parser.isSet(o.firstFrame))
        app.installEventFilter(new FirstFrameWatcher(&app));
    window.show();
    window.load(run.setup);
    if (run.liveMode)
        window.startLive();
    else if (run.slot > 0)
        window.session()->seek(run.slot);
    if (parser.isSet(o.trainingCurves) || parser.isSet(o.trainingCompare) ||
        !run.baselineScenario.isEmpty()) {
        window.showTraining();
        if (parser.isSet(o.trainingCurves))
            window.trainingPage()->openCurves(parser.value(o.trainingCurves));
        if (parser.isSet(o.trainingCompare))
            window.trainingPage()->openComparison(parser.value(o.trainingCompare));
        window.trainingPage()->computeReferences(run.baselineScenario, run.baselineSeeds);
    }
    if (parser.isSet(o.probeTypes)) {
        window.showTraining();
        window.trainingPage()->probeTypes(parser.value(o.probeTypes));
    }
    InstructorTools *tools = window.instructorTools();
    if (!run.instructor.pair.isEmpty()) {
        tools->sideBySidePage()->setPolicyPair(run.instructor.pair[0], run.instructor.pair[1]);
        tools->showSideBySide();
        tools->sideBySidePage()->replay()->seek(run.slot);
    }
    if (run.instructor.presentation)
        tools->enterPresentation(run.instructor.views);
    return app.exec();
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
    if (parser.isSet(o.dark))
        useDarkPalette();
    // Screenshots and exports use a throw-away settings file: reproducible layout, user
    // settings untouched.
    const bool headless = parser.isSet(o.shot) || parser.isSet(o.exportVideo);
    QTemporaryDir scratch;
    Settings settings(headless ? scratch.filePath(QStringLiteral("settings.ini")) : QString());
    ConsoleRun run;
    if (const QString error = run.parse(parser, o, settings); !error.isEmpty()) {
        std::fprintf(stderr, "dl2-console: %s\n", qPrintable(error));
        return 2;
    }

    MainWindow window(&settings, !run.screenshot);
    window.setLiveDefaults(run.live);
    if (!run.dockName.isEmpty())
        window.raiseDock(run.dockName);
    if (!headless)
        return runInteractive(app, window, run, parser, o);
    return ScreenshotDriver(window, run, parser, o).run();
}
