// Console benchmark: replays dl2-reference (seed 1, default policy) through the real main
// window with every panel visible, offscreen. Prints rendered slots per second, per-frame time
// (batched refresh + paint) p50/p95, seek latency p50/max to random slots, and memory.
// --json FILE writes {slots_per_second, frame_ms{p50,p95}, seek_ms{p50,max}, rss_mb, ...}.
// Not a test: no timed assertions.

#include "benchstats.h"
#include "consolesession.h"
#include "mainwindow.h"
#include "scheduler.h"
#ifdef DL2_HAVE_LEARNING
#include "registerpolicies.h"
#endif
#include "settings.h"
#include "viewrefresher.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>

using namespace dl2console;

namespace {
using dl2bench::percentile;
double memoryMb(const char *key)
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return 0.0;
    const QList<QByteArray> lines = f.readAll().split('\n');
    for (const QByteArray &line : lines)
        if (line.startsWith(key))
            return line.mid(static_cast<int>(qstrlen(key)))
                       .trimmed()
                       .split(' ')
                       .front()
                       .toDouble() /
                   1024.0;
    return 0.0;
}
} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    dl2::registerBaselines();
#ifdef DL2_HAVE_LEARNING
    dl2::registerLearnedPolicies(); // "dl2", "dl2-plus": the default policy when present
#endif
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption jsonOpt(
        QStringLiteral("json"), QStringLiteral("Write figures as JSON."), QStringLiteral("FILE"));
    const QCommandLineOption scenarioOpt(QStringLiteral("scenario"), QStringLiteral("Scenario."),
                                         QStringLiteral("S"), QStringLiteral("dl2-reference"));
    const QCommandLineOption seeksOpt(QStringLiteral("seeks"), QStringLiteral("Random seeks."),
                                      QStringLiteral("N"), QStringLiteral("60"));
    const QCommandLineOption checkpointOpt(
        QStringLiteral("checkpoint"),
        QStringLiteral("dl2 policy file or shipped name (default: the default policy, shipped), e.g. to "
                       "compare two policies' cost in the same build."),
        QStringLiteral("CKPT"));
    parser.addOptions({jsonOpt, scenarioOpt, seeksOpt, checkpointOpt});
    parser.process(app);

    QTemporaryDir scratch;
    Settings settings(scratch.filePath(QStringLiteral("bench.ini")));
    MainWindow window(&settings, false);
    window.setInteractiveErrors(false);
    window.resize(1600, 1000);
    window.show();
    SessionSetup setup;
    setup.scenario = parser.value(scenarioOpt);
    if (parser.isSet(checkpointOpt)) { // the window keeps a checkpoint only with its policy named
        setup.policy = QStringLiteral("dl2");
        setup.checkpoint = parser.value(checkpointOpt);
    }
    window.load(setup);
    ConsoleSession *session = window.session();
    if (!session->waitForSlot(0, 120000)) {
        std::fprintf(stderr, "bench_console: could not load %s\n", qPrintable(setup.scenario));
        return 2;
    }
    QElapsedTimer scanClock;
    scanClock.start();
    while (!session->runComplete())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    const int last = session->lastKnownSlot();
    std::printf("%s, policy %s: %d slots (scan-ahead finished %lld ms after slot 0)\n",
                qPrintable(session->runInfo().traceName), qPrintable(session->setup().policy),
                last + 1, static_cast<long long>(scanClock.elapsed()));

    // Replay: every slot is fetched from the worker and rendered by every panel.
    std::vector<double> frames;
    QElapsedTimer total;
    total.start();
    for (int slot = 0; slot <= last; ++slot) {
        session->seek(slot);
        while (!(session->isIdle() && session->currentSlot() == slot))
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
        QElapsedTimer frame;
        frame.start();
        window.refresher()->flush();
        QCoreApplication::sendPostedEvents(); // queued replots, layout, paint requests
        QCoreApplication::processEvents();
        frames.push_back(frame.nsecsElapsed() / 1e6);
    }
    const double replaySeconds = total.nsecsElapsed() / 1e9;
    const double slotsPerSecond = (last + 1) / replaySeconds;

    // Seeks to random slots: request -> every panel has rendered the new slot.
    std::vector<double> seeks;
    QRandomGenerator rng(42);
    const int seekCount = parser.value(seeksOpt).toInt();
    for (int i = 0; i < seekCount; ++i) {
        const int slot = static_cast<int>(rng.bounded(last + 1));
        QElapsedTimer t;
        t.start();
        session->seek(slot);
        while (!(session->isIdle() && session->currentSlot() == slot))
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
        window.refresher()->flush();
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        seeks.push_back(t.nsecsElapsed() / 1e6);
    }

    const double rss = memoryMb("VmRSS:"), peak = memoryMb("VmHWM:");
    const double f50 = percentile(frames, 0.5), f95 = percentile(frames, 0.95);
    const double s50 = percentile(seeks, 0.5),
                 sMax = seeks.empty() ? 0.0 : *std::max_element(seeks.begin(), seeks.end());
    std::printf("replay: %.1f rendered slots/s (%d slots in %.2f s)\n", slotsPerSecond, last + 1,
                replaySeconds);
    std::printf("frame (refresh + paint, all panels): p50 %.2f ms, p95 %.2f ms\n", f50, f95);
    std::printf("seek to random slot, until rendered: p50 %.2f ms, max %.2f ms (%d seeks)\n", s50,
                sMax, seekCount);
    std::printf("memory: rss %.1f MB, peak %.1f MB\n", rss, peak);

    if (parser.isSet(jsonOpt)) {
        QJsonObject o;
        o[QStringLiteral("scenario")] = setup.scenario;
        o[QStringLiteral("policy")] = session->setup().policy;
        o[QStringLiteral("checkpoint")] = setup.checkpoint; // empty: the shipped one
        o[QStringLiteral("slots")] = last + 1;
        o[QStringLiteral("slots_per_second")] = slotsPerSecond;
        o[QStringLiteral("frame_ms")] =
            QJsonObject{{QStringLiteral("p50"), f50}, {QStringLiteral("p95"), f95}};
        o[QStringLiteral("seek_ms")] =
            QJsonObject{{QStringLiteral("p50"), s50}, {QStringLiteral("max"), sMax}};
        o[QStringLiteral("rss_mb")] = rss;
        o[QStringLiteral("peak_rss_mb")] = peak;
        QFile f(parser.value(jsonOpt));
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return 2;
        f.write(QJsonDocument(o).toJson());
    }
    return 0;
}
