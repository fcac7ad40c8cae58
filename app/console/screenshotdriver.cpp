#include "screenshotdriver.h"

#include "clusteroccupancyview.h"
#include "comparisonpage.h"
#include "consolesession.h"
#include "decisioninspector.h"
#include "instructortools.h"
#include "jobtablepanel.h"
#include "liveoperations.h"
#include "lockstepreplay.h"
#include "mainwindow.h"
#include "replayexporter.h"
#include "sidebysidepage.h"
#include "trainingpage.h"
#include "typeprobedialog.h"
#include "typeprobemodel.h"
#include "viewrefresher.h"

#include <QCoreApplication>
#include <QDockWidget>
#include <QEventLoop>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>

namespace dl2console {

namespace {
constexpr int kTimeoutMs = 120000;
} // namespace

ScreenshotDriver::ScreenshotDriver(MainWindow &window, const ConsoleRun &run,
                                   const QCommandLineParser &parser, const ConsoleOptions &options)
    : m_window(window), m_run(run), m_parser(parser), m_options(options)
{
    connect(&m_window, &MainWindow::errorShown, this, [this](const QString &m) { m_error = m; });
}

int ScreenshotDriver::fail(const QString &message) const
{
    std::fprintf(stderr, "dl2-console: %s\n", qPrintable(message));
    return 2;
}

bool ScreenshotDriver::waitUntil(
    const std::function<bool()> &done, int timeoutMs,
    const std::function<void(QObject *context, std::function<void()> check)> &watch)
{
    if (done() || !m_error.isEmpty())
        return m_error.isEmpty();
    QEventLoop loop;
    QObject context; // its connections end with the wait
    bool reached = false;
    watch(&context, [&] {
        if (!reached && (done() || !m_error.isEmpty())) {
            reached = true;
            loop.quit();
        }
    });
    connect(&m_window, &MainWindow::errorShown, &context, [&loop] { loop.quit(); });
    QTimer::singleShot(timeoutMs, &context, [&loop] { loop.quit(); });
    loop.exec();
    return reached && m_error.isEmpty();
}

bool ScreenshotDriver::advanceLive()
{
    LiveOperations *ops = m_window.session()->live();
    if (!ops || ops->runComplete())
        return true;
    const auto state = ops->connector().state;
    if (state == ConnectorStatus::State::RejectedToken ||
        state == ConnectorStatus::State::Reconnecting)
        return true; // show the connector state
    const GateBatch &b = ops->batch();
    if (b.open && b.slot >= m_run.slot && b.pending() > 0)
        return true;
    if (b.open && b.pending() > 0)
        ops->approveAll();
    else if (b.open)
        ops->commit();
    else if (ops->canRunSlot() &&
             (!ops->isLearningWanted() ||
              int(ops->learningCurve().size()) + 2 >= m_window.session()->liveSlot()))
        ops->runSlot(); // learning: the learner keeps up with the slots (a live slot is minutes)
    return false;
}

QString ScreenshotDriver::driveLive()
{
    m_window.startLive();
    LiveOperations *ops = m_window.session()->live();
    waitUntil([this] { return advanceLive(); }, kTimeoutMs,
              [ops](QObject *context, std::function<void()> check) {
                  if (!ops)
                      return;
                  for (auto signal : {&LiveOperations::connectorChanged,
                                      &LiveOperations::batchChanged, &LiveOperations::finished})
                      connect(ops, signal, context, check);
                  connect(ops, &LiveOperations::started, context, check);
                  connect(ops, &LiveOperations::slotCompleted, context, check);
                  connect(ops, &LiveOperations::commandFailed, context, check);
                  connect(ops, &LiveOperations::learningChanged, context, check);
              });
    if (!m_error.isEmpty())
        return m_error;
    if (auto *d = m_window.findChild<QDockWidget *>(QStringLiteral("decisionQueueDock")))
        d->raise();
    if (m_parser.isSet(m_options.historySlot)) {
        ConsoleSession *session = m_window.session();
        bool ok = false;
        const int k = m_parser.value(m_options.historySlot).toInt(&ok);
        if (!ok || k < 0 || k >= session->liveSlot())
            return QStringLiteral("--history-slot: slot %1 is not in the live history "
                                  "(slots 0..%2)")
                .arg(m_parser.value(m_options.historySlot))
                .arg(session->liveSlot() - 1);
        session->seek(k);
    }
    return {};
}

QString ScreenshotDriver::showPages()
{
    const QCommandLineParser &parser = m_parser;
    const ConsoleOptions &o = m_options;
    if (parser.isSet(o.zoom))
        m_window.occupancyView()->setZoomLevel(parser.value(o.zoom).toInt());
    if (!m_run.dockName.isEmpty())
        m_window.raiseDock(m_run.dockName); // after the live batch raised the queue
    if (m_run.inferenceNumber > 0) {
        m_window.refresher()->flush();
        m_window.decisionInspector()->setCurrentStep(m_run.inferenceNumber - 1);
    }
    if (parser.isSet(o.select)) {
        m_window.refresher()->flush();
        m_window.jobPanel()->selectJob(parser.value(o.select).toInt());
    }
    if (parser.isSet(o.compare)) {
        m_window.showComparison();
        ComparisonPage *page = m_window.comparisonPage();
        bool done = false;
        QObject guard; // connected before run(): it may finish at once (a bad setup)
        connect(page, &ComparisonPage::finished, &guard, [&done](bool) { done = true; });
        page->run();
        waitUntil([&done] { return done; }, kTimeoutMs,
                  [page](QObject *context, std::function<void()> check) {
                      connect(page, &ComparisonPage::finished, context, check);
                  });
        if (!m_error.isEmpty())
            return m_error;
    }
    if (parser.isSet(o.trainingCurves) || parser.isSet(o.trainingCompare) ||
        !m_run.baselineScenario.isEmpty()) {
        TrainingPage *training = m_window.trainingPage();
        m_window.showTraining();
        const QString curves = parser.value(o.trainingCurves);
        if (!curves.isEmpty() && !QFileInfo::exists(curves))
            return QStringLiteral("%1: no such curves file").arg(curves);
        if (!curves.isEmpty() && !training->openCurves(curves))
            return training->curvesError();
        const QString compare = parser.value(o.trainingCompare);
        if (!compare.isEmpty() && !QFileInfo::exists(compare))
            return QStringLiteral("%1: no such curves file").arg(compare);
        if (!compare.isEmpty() && !training->openComparison(compare))
            return training->comparisonError();
        training->computeReferences(m_run.baselineScenario, m_run.baselineSeeds);
        waitUntil([training] { return !training->isComputingReferences(); }, kTimeoutMs,
                  [training](QObject *context, std::function<void()> check) {
                      connect(training, &TrainingPage::referencesReady, context, check);
                      connect(training, &TrainingPage::errorOccurred, context, check);
                  });
        if (!m_error.isEmpty())
            return m_error;
        training->refresh();
    }
    if (parser.isSet(o.probeTypes)) {
        m_window.showTraining();
        TrainingPage *training = m_window.trainingPage();
        training->probeTypes(parser.value(o.probeTypes));
        TypeProbeDialog *dialog = training->typeProbeDialog();
        TypeProbeModel *model = dialog->model();
        waitUntil([model] { return !model->isProbing(); }, kTimeoutMs,
                  [model](QObject *context, std::function<void()> check) {
                      connect(model, &TypeProbeModel::probed, context, check);
                      connect(model, &TypeProbeModel::errorOccurred, context, check);
                  });
        if (model->result().types.isEmpty())
            return dialog->message();
    }
    const InstructorOptions &instructor = m_run.instructor;
    InstructorTools *tools = m_window.instructorTools();
    if (!instructor.pair.isEmpty()) {
        SideBySidePage *page = tools->sideBySidePage();
        page->setPolicyPair(instructor.pair[0], instructor.pair[1]);
        tools->showSideBySide();
        if (!page->replay()->waitForSlot(m_run.slot, kTimeoutMs))
            return m_error.isEmpty()
                       ? QStringLiteral("timed out reaching slot %1").arg(m_run.slot)
                       : m_error;
        page->refresher()->flush(); // the jobs table must hold the slot's rows first
        if (parser.isSet(o.select))
            page->selectJob(parser.value(o.select).toInt());
    }
    if (instructor.presentation)
        tools->enterPresentation(instructor.views, false);
    return {};
}

// Queued replots and layout requests run now, not after a guessed delay.
void ScreenshotDriver::flushViews()
{
    for (int pass = 0; pass < 2; ++pass) {
        m_window.refresher()->flush();
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
    }
}

int ScreenshotDriver::run()
{
    m_window.setInteractiveErrors(false);
    m_window.resize(m_run.size);
    m_window.show();
    flushViews(); // the dock layout settles before docks are sized by fractions
    m_window.applyDefaultDockSizes();

    m_window.load(m_run.setup);
    QTemporaryDir auditDir;
    if (m_run.liveMode) {
        // Live: approve and commit every batch before --slot, then show the batch of that slot.
        if (m_run.live.auditFile.isEmpty()) {
            m_run.live.auditFile = auditDir.filePath(QStringLiteral("audit.sqlite"));
            m_window.setLiveDefaults(m_run.live);
        }
        if (const QString error = driveLive(); !error.isEmpty())
            return fail(error);
    } else if (!m_window.session()->waitForSlot(
                   m_run.exporting ? m_run.instructor.firstSlot : m_run.slot, kTimeoutMs)) {
        return fail(m_error.isEmpty() ? QStringLiteral("timed out reaching slot %1").arg(m_run.slot)
                                      : m_error);
    }
    if (m_run.exporting)
        return exportVideo(m_window, m_run.instructor, m_parser.value(m_options.exportVideo),
                           m_run.size, m_error);
    if (const QString error = showPages(); !error.isEmpty())
        return fail(error);
    flushViews();
    const QSize size = m_run.size;
    if (m_window.size() != size)
        std::fprintf(stderr, "dl2-console: the window needs at least %dx%d; rendered at %dx%d\n",
                     m_window.minimumSizeHint().width(), m_window.minimumSizeHint().height(),
                     m_window.width(), m_window.height());
    const QString file = m_parser.value(m_options.shot);
    // With --probe-types the picture is of the probe window.
    TypeProbeDialog *probe = m_window.trainingPage()->typeProbeDialog();
    QWidget *shown = probe && probe->isVisible() ? static_cast<QWidget *>(probe) : &m_window;
    if (!shown->grab().save(file))
        return fail(QStringLiteral("could not write %1").arg(file));
    return 0;
}

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
    {
        std::fprintf(stderr, "dl2-console: %s\n",
                     qPrintable(loadError.isEmpty() ? exporter.error() : loadError));
        return 2;
    }
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

} // namespace dl2console
