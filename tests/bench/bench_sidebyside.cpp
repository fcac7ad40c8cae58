// Side-by-side benchmark: two policies on dl2-reference (seed 1) in lockstep on the real main
// window's Side by side tab, offscreen. Prints the seek latency to random slots (request ->
// both replays show the slot and every view of the page has rendered it), the rendered pair
// slots per second when playing every slot, and the export rate (frames/s, WebM, 1280x720).
// --json FILE writes {seek_ms{p50,p95,max}, pair_slots_per_second, frame_ms{p50,p95},
// export_frames_per_second, ...}. Not a test: no timed assertions.

#include "benchstats.h"
#include "consolesession.h"
#include "instructortools.h"
#include "lockstepreplay.h"
#include "mainwindow.h"
#include "replayexporter.h"
#include "scheduler.h"
#ifdef DL2_HAVE_LEARNING
#include "registerpolicies.h"
#endif
#include "settings.h"
#include "sidebysidepage.h"
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
#include <ctime>

using namespace dl2console;

namespace {
using dl2bench::percentile;
double processCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct SlotTiming
{
    double wallMs = 0;      // request -> both shown -> every view rendered
    double simulateMs = 0;  // request -> both sessions show the slot
    double cpuMs = 0;       // CPU time of all threads (GUI + both workers) for it
};

// Request -> both sides show `slot` -> the page's views have refreshed and painted.
SlotTiming showSlot(LockstepReplay *replay, SideBySidePage *page, int slot)
{
    SlotTiming r;
    const double cpu0 = processCpuMs();
    QElapsedTimer t;
    t.start();
    replay->seek(slot);
    while (!(replay->isIdle() && replay->currentSlot() == slot))
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
    r.simulateMs = t.nsecsElapsed() / 1e6;
    page->refresher()->flush();
    QCoreApplication::sendPostedEvents(); // queued replots, layout, paint requests
    QCoreApplication::processEvents();
    r.wallMs = t.nsecsElapsed() / 1e6;
    r.cpuMs = processCpuMs() - cpu0;
    return r;
}
} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    dl2::registerBaselines();
#ifdef DL2_HAVE_LEARNING
    dl2::registerLearnedPolicies();
#endif
    QCommandLineParser parser;
    parser.addHelpOption();
    const QCommandLineOption jsonOpt(QStringLiteral("json"), QStringLiteral("Write figures as JSON."),
                                     QStringLiteral("FILE"));
    const QCommandLineOption scenarioOpt(QStringLiteral("scenario"), QStringLiteral("Scenario."),
                                         QStringLiteral("S"), QStringLiteral("dl2-reference"));
    const QCommandLineOption pairOpt(
        QStringLiteral("policies"), QStringLiteral("The two policies."), QStringLiteral("A,B"),
        dl2::isScheduler("dl2") ? QStringLiteral("drf,dl2") : QStringLiteral("drf,srtf"));
    const QCommandLineOption seeksOpt(QStringLiteral("seeks"), QStringLiteral("Random seeks."),
                                      QStringLiteral("N"), QStringLiteral("60"));
    const QCommandLineOption exportOpt(QStringLiteral("export-slots"),
                                       QStringLiteral("Slots to export as WebM."),
                                       QStringLiteral("N"), QStringLiteral("40"));
    parser.addOptions({jsonOpt, scenarioOpt, pairOpt, seeksOpt, exportOpt});
    parser.process(app);
    const QStringList pair = parser.value(pairOpt).split(QLatin1Char(','));
    if (pair.size() != 2 || !dl2::isScheduler(pair[0].toStdString()) ||
        !dl2::isScheduler(pair[1].toStdString())) {
        std::fprintf(stderr, "bench_sidebyside: --policies needs two known policies\n");
        return 2;
    }

    QTemporaryDir scratch;
    Settings settings(scratch.filePath(QStringLiteral("bench.ini")));
    MainWindow window(&settings, false);
    window.setInteractiveErrors(false);
    window.resize(1600, 1000);
    window.show();
    SessionSetup setup;
    setup.scenario = parser.value(scenarioOpt);
    setup.policy = pair[0];
    window.load(setup);
    InstructorTools *tools = window.instructorTools();
    SideBySidePage *page = tools->sideBySidePage();
    page->setPolicyPair(pair[0], pair[1]);
    tools->showSideBySide();
    LockstepReplay *replay = page->replay();
    QElapsedTimer loadClock;
    loadClock.start();
    if (!replay->waitForSlot(0, 120000)) {
        std::fprintf(stderr, "bench_sidebyside: could not load %s\n", qPrintable(setup.scenario));
        return 2;
    }
    while (!replay->runComplete())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    const int last = replay->lastKnownSlot();
    std::printf("%s, %s vs %s: runs of %d and %d slots (both scanned %lld ms after load)\n",
                qPrintable(replay->session(0)->runInfo().traceName), qPrintable(pair[0]),
                qPrintable(pair[1]), replay->session(0)->lastKnownSlot() + 1,
                replay->session(1)->lastKnownSlot() + 1,
                static_cast<long long>(loadClock.elapsed()));

    // Play every slot of the longer run, both sides and every view rendered per slot.
    std::vector<double> frames;
    QElapsedTimer total;
    total.start();
    for (int slot = 1; slot <= last; ++slot)
        frames.push_back(showSlot(replay, page, slot).wallMs);
    const double pairSlotsPerSecond = last / (total.nsecsElapsed() / 1e9);

    std::vector<double> seeks, seekSim, seekCpu;
    QRandomGenerator rng(42);
    const int seekCount = parser.value(seeksOpt).toInt();
    for (int i = 0; i < seekCount; ++i) {
        int slot = static_cast<int>(rng.bounded(last + 1));
        if (slot == replay->currentSlot())
            slot = (slot + 1) % (last + 1);
        const SlotTiming t = showSlot(replay, page, slot);
        seeks.push_back(t.wallMs);
        seekSim.push_back(t.simulateMs);
        seekCpu.push_back(t.cpuMs);
    }

    // Export: frames per second of the whole pipeline (seek, render, encode).
    const int exportSlots = std::min(parser.value(exportOpt).toInt(), last + 1);
    InstructorTools::ExportRequest request;
    request.fileName = scratch.filePath(QStringLiteral("bench.webm"));
    request.firstSlot = 0;
    request.lastSlot = exportSlots - 1;
    request.size = QSize(1280, 720);
    request.views = SideBySidePage::sectionNames();
    ReplayExporter exporter;
    QElapsedTimer exportClock;
    exportClock.start();
    const bool exported = tools->exportReplay(request, &exporter);
    const double exportSeconds = exportClock.nsecsElapsed() / 1e9;
    const double exportFps = exported ? exporter.framesWritten() / exportSeconds : 0.0;
    const qint64 exportBytes = QFile(request.fileName).size();

    const double s50 = percentile(seeks, 0.5), s95 = percentile(seeks, 0.95),
                 sMax = seeks.empty() ? 0.0 : *std::max_element(seeks.begin(), seeks.end());
    const double f50 = percentile(frames, 0.5), f95 = percentile(frames, 0.95);
    const double sim50 = percentile(seekSim, 0.5), sim95 = percentile(seekSim, 0.95);
    const double cpu50 = percentile(seekCpu, 0.5), cpu95 = percentile(seekCpu, 0.95);
    std::printf("seek both to a random slot, until rendered: p50 %.1f ms, p95 %.1f ms, max %.1f ms "
                "(%d seeks)\n",
                s50, s95, sMax, seekCount);
    std::printf("  of which until both replays show it: p50 %.1f ms, p95 %.1f ms\n", sim50, sim95);
    std::printf("  CPU time of all threads per seek: p50 %.1f ms, p95 %.1f ms (wall on an idle "
                "machine is at most this)\n",
                cpu50, cpu95);
    std::printf("play: %.1f rendered pair slots/s; per slot p50 %.1f ms, p95 %.1f ms\n",
                pairSlotsPerSecond, f50, f95);
    if (exported)
        std::printf("export: %d slots as WebM (%s) 1280x720 in %.1f s = %.1f frames/s, %.0f kB\n",
                    exporter.framesWritten(), qPrintable(exporter.codecName()), exportSeconds,
                    exportFps, exportBytes / 1024.0);
    else
        std::printf("export failed: %s\n", qPrintable(exporter.error()));

    if (parser.isSet(jsonOpt)) {
        QJsonObject o;
        o[QStringLiteral("scenario")] = setup.scenario;
        o[QStringLiteral("policies")] = pair.join(QLatin1Char(','));
        o[QStringLiteral("slots")] = last + 1;
        o[QStringLiteral("seek_ms")] = QJsonObject{
            {QStringLiteral("p50"), s50}, {QStringLiteral("p95"), s95}, {QStringLiteral("max"), sMax}};
        o[QStringLiteral("seek_until_both_shown_ms")] =
            QJsonObject{{QStringLiteral("p50"), sim50}, {QStringLiteral("p95"), sim95}};
        o[QStringLiteral("seek_cpu_ms")] =
            QJsonObject{{QStringLiteral("p50"), cpu50}, {QStringLiteral("p95"), cpu95}};
        o[QStringLiteral("pair_slots_per_second")] = pairSlotsPerSecond;
        o[QStringLiteral("frame_ms")] =
            QJsonObject{{QStringLiteral("p50"), f50}, {QStringLiteral("p95"), f95}};
        o[QStringLiteral("export_frames_per_second")] = exportFps;
        o[QStringLiteral("export_bytes")] = exportBytes;
        QFile f(parser.value(jsonOpt));
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return 2;
        f.write(QJsonDocument(o).toJson());
    }
    return exported ? 0 : 1;
}
