#include "instructortools.h"

#include "clusteroccupancyview.h"
#include "consolesession.h"
#include "exportreplaydialog.h"
#include "jobspeedplot.h"
#include "lockstepreplay.h"
#include "mainwindow.h"
#include "replayexporter.h"
#include "scheduler.h"
#include "sessiontoolbar.h"
#include "settings.h"
#include "sidebysidepage.h"
#include "slotcaption.h"
#include "videowriter.h"
#include "viewrefresher.h"

#include <QAction>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLayout>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QProgressDialog>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>

namespace dl2console {

namespace {
QMenu *menuNamed(QMenuBar *bar, const QString &title)
{
    const auto actions = bar->actions();
    for (QAction *a : actions)
        if (a->menu() && a->text() == title)
            return a->menu();
    return nullptr;
}

// Runs the event loop until `done` or the timeout; false on timeout.
template <typename Done>
bool spinUntil(Done done, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    while (!done() && clock.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
    return done();
}

void settleViews()
{
    for (int i = 0; i < 2; ++i) { // queued replots, then the layout they change
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
    }
}
} // namespace

InstructorTools::InstructorTools(MainWindow *window, QTabWidget *tabs, Settings *settings)
    : QObject(window), m_window(window), m_tabs(tabs), m_settings(settings),
      m_page(new SideBySidePage(window)), m_presentation(new PresentationMode(window))
{
    m_page->setObjectName(QStringLiteral("sideBySidePage"));
    QStringList policies, tips;
    for (const auto &p : dl2::registeredSchedulers()) {
        policies << QString::fromStdString(p.name);
        tips << QString::fromStdString(p.description);
    }
    m_page->setPolicies(policies, tips);
    m_page->setTrace(window->session()->setup());
    tabs->addTab(m_page, tr("Side b&y side"));

    ConsoleSession *session = window->session();
    connect(session, &ConsoleSession::loaded, this,
            [this, session] { m_page->setTrace(session->setup()); });
    connect(session, &ConsoleSession::snapshotChanged, m_presentation,
            &PresentationMode::refreshCaptions);
    connect(m_page->replay(), &LockstepReplay::slotChanged, m_presentation,
            &PresentationMode::refreshCaptions);
    connect(m_page, &SideBySidePage::errorOccurred, window, &MainWindow::reportError);
    connect(tabs, &QTabWidget::currentChanged, this, &InstructorTools::onTabChanged);
    connect(m_presentation, &PresentationMode::activeChanged, this, [this](bool active) {
        m_presentAction->setChecked(active);
        m_tabs->tabBar()->setVisible(!active); // the slide shows one page
        // What the mouse does is no help on a slide or in a video.
        m_window->occupancyView()->setHintsShown(!active);
        m_window->jobSpeedPlot()->setHintsShown(!active);
        if (!active) {
            m_page->setPresenting(false);
            m_page->setSectionsVisible(SideBySidePage::sectionNames());
            for (const auto &[view, level] : std::as_const(m_zoomBefore))
                if (view && level >= 0)
                    view->setZoomLevel(level);
            m_zoomBefore.clear();
        }
    });
    buildMenus();
    onTabChanged();
}

void InstructorTools::buildMenus()
{
    QMenuBar *bar = m_window->menuBar();
    if (QMenu *view = menuNamed(bar, tr("&View"))) {
        m_sideBySideAction = new QAction(tr("Side by side"), this);
        // Ctrl+<tab number>, like the pages before it; after them in the menu.
        const int tab = m_tabs->indexOf(m_page);
        if (tab >= 0 && tab < 9)
            m_sideBySideAction->setShortcut(QKeySequence(Qt::CTRL | (Qt::Key_1 + tab)));
        m_sideBySideAction->setToolTip(tr("Two policies on the same trace, in lockstep"));
        connect(m_sideBySideAction, &QAction::triggered, this, &InstructorTools::showSideBySide);
        QAction *firstSeparator = nullptr;
        const auto entries = view->actions();
        for (QAction *a : entries)
            if (a->isSeparator()) {
                firstSeparator = a;
                break;
            }
        view->insertAction(firstSeparator, m_sideBySideAction);

        view->addSeparator();
        m_presentAction = view->addAction(tr("Presentation mode"));
        m_presentAction->setCheckable(true);
        m_presentAction->setShortcut(Qt::Key_F11);
        m_presentAction->setToolTip(PresentationMode::keyHelp());
        connect(m_presentAction, &QAction::triggered, this, &InstructorTools::togglePresentation);
        m_viewsMenu = view->addMenu(tr("Presentation views"));
        const QStringList chosen = m_settings->presentationViews();
        for (const QString &name : replayViewNames()) {
            if (name == QLatin1String("cluster"))
                continue; // always shown
            QAction *a = m_viewsMenu->addAction(name);
            a->setCheckable(true);
            a->setChecked(chosen.contains(name));
            connect(a, &QAction::toggled, this, [this] {
                QStringList views;
                const auto actions = m_viewsMenu->actions();
                for (QAction *v : actions)
                    if (v->isChecked())
                        views << v->text();
                m_settings->setPresentationViews(views);
            });
        }
    }
    m_exportAction = new QAction(tr("Export replay…"), this);
    m_exportAction->setShortcut(Qt::CTRL | Qt::Key_E);
    m_exportAction->setToolTip(tr("Save a slot range as WebM, MP4, GIF or animated PNG"));
    connect(m_exportAction, &QAction::triggered, this, &InstructorTools::exportWithDialog);
    if (QMenu *file = menuNamed(bar, tr("&File"))) {
        const auto entries = file->actions();
        file->insertAction(entries.value(1), m_exportAction); // after "Open trace file…"
    }
}

void InstructorTools::showSideBySide()
{
    m_tabs->setCurrentWidget(m_page);
}

bool InstructorTools::sideBySideShown() const
{
    return m_tabs->currentWidget() == m_page;
}

void InstructorTools::onTabChanged()
{
    // Space, "," and "." belong to the replay on display: the main toolbar's outside the
    // Cluster tab, the page's on the Side by side tab (both enabled would make them ambiguous).
    const bool cluster = m_tabs->currentWidget() == m_window->occupancyView();
    SessionToolBar *tb = m_window->toolBar();
    for (QAction *a : {tb->playAction(), tb->stepBackAction(), tb->stepForwardAction(),
                       tb->firstAction(), tb->lastAction()})
        a->setEnabled(cluster);
    if (!cluster)
        m_window->session()->setPlaying(false);
    if (m_presentation->isActive())
        m_presentation->setControls(controls());
}

QStringList InstructorTools::replayViewNames()
{
    return {QStringLiteral("cluster"),   QStringLiteral("jobs"),  QStringLiteral("utilisation"),
            QStringLiteral("reward"),    QStringLiteral("speed"), QStringLiteral("decisions"),
            QStringLiteral("queue"),     QStringLiteral("audit")};
}

QStringList InstructorTools::viewNames() const
{
    return sideBySideShown() ? SideBySidePage::sectionNames() : replayViewNames();
}

QString InstructorTools::dockOf(const QString &view) const
{
    static const QHash<QString, QString> docks{
        {QStringLiteral("jobs"), QStringLiteral("jobsDock")},
        {QStringLiteral("utilisation"), QStringLiteral("utilisationDock")},
        {QStringLiteral("reward"), QStringLiteral("rewardDock")},
        {QStringLiteral("speed"), QStringLiteral("jobSpeedDock")},
        {QStringLiteral("decisions"), QStringLiteral("decisionsDock")},
        {QStringLiteral("queue"), QStringLiteral("decisionQueueDock")},
        {QStringLiteral("audit"), QStringLiteral("auditLogDock")}};
    return docks.value(view);
}

PresentationMode::Controls InstructorTools::controls() const
{
    PresentationMode::Controls c;
    if (sideBySideShown()) {
        LockstepReplay *r = m_page->replay();
        c.stepForward = [r] {
            r->setPlaying(false);
            r->stepForward();
        };
        c.stepBack = [r] { r->stepBack(); };
        c.first = [r] { r->seek(0); };
        c.last = [r] { r->seekToEnd(); };
        c.togglePlaying = [r] { r->togglePlaying(); };
        c.captions = [page = m_page] { return page->captionLines(); };
        return c;
    }
    ConsoleSession *s = m_window->session();
    c.stepForward = [s] {
        s->setPlaying(false);
        s->stepForward();
    };
    c.stepBack = [s] { s->stepBack(); };
    c.first = [s] { s->seek(0); };
    c.last = [s] { s->seek(s->lastKnownSlot()); };
    c.togglePlaying = [s] { s->togglePlaying(); };
    c.captions = [s] {
        QList<CaptionBar::Line> lines;
        if (s->currentSlot() >= 0)
            lines << CaptionBar::Line{s->setup().policy, QColor(),
                                      captionFor(s->snapshot(), s->profiles())};
        return lines;
    };
    return c;
}

void InstructorTools::enterPresentation(const QStringList &views, bool fullScreen,
                                        double fontScale, bool captions)
{
    if (m_presentation->isActive())
        m_presentation->leave(); // restores the page and the zoom it saved
    if (!sideBySideShown() && m_tabs->currentWidget() != m_window->occupancyView())
        m_tabs->setCurrentWidget(m_window->occupancyView()); // the comparison has no replay
    PresentationMode::Options o;
    o.fullScreen = fullScreen;
    o.fontScale = fontScale;
    o.captions = captions;
    if (sideBySideShown()) {
        QStringList sections;
        for (const QString &v : views)
            if (SideBySidePage::sectionNames().contains(v))
                sections << v;
        m_page->setSectionsVisible(sections.isEmpty() ? SideBySidePage::sectionNames() : sections);
        m_page->setPresenting(true);
    } else {
        for (const QString &v : views)
            if (!dockOf(v).isEmpty())
                o.docks << dockOf(v);
    }
    // Every node on the slide, in cells as large as the screen allows (re-fitted as the
    // window takes its presentation size); the user's zoom comes back on leave.
    m_zoomBefore.clear();
    for (ClusterOccupancyView *v :
         {m_window->occupancyView(), m_page->occupancy(0), m_page->occupancy(1)}) {
        m_zoomBefore << qMakePair(QPointer<ClusterOccupancyView>(v),
                                  v->isFitted() ? -1 : v->zoomLevel());
        v->zoomToFit();
    }
    m_presentation->setControls(controls());
    m_presentation->enter(o);
}

void InstructorTools::togglePresentation()
{
    if (m_presentation->isActive())
        m_presentation->leave();
    else
        enterPresentation(sideBySideShown() ? SideBySidePage::sectionNames()
                                            : m_settings->presentationViews());
}

bool InstructorTools::showSlot(int slot, QString *error)
{
    bool ok;
    QString failure;
    if (sideBySideShown()) {
        LockstepReplay *r = m_page->replay();
        r->setPlaying(false);
        ok = r->waitForSlot(slot, 120000);
        failure = r->error();
        m_page->refresher()->flush();
    } else {
        ConsoleSession *s = m_window->session();
        s->setPlaying(false);
        ok = s->waitForSlot(slot, 120000);
        m_window->refresher()->flush();
    }
    if (!ok) {
        *error = failure.isEmpty() ? tr("timed out reaching slot %1").arg(slot)
                                   : tr("slot %1: %2").arg(slot).arg(failure);
        return false;
    }
    m_presentation->refreshCaptions();
    settleViews();
    return true;
}

bool InstructorTools::exportReplay(const ExportRequest &request, ReplayExporter *exporter)
{
    if (!sideBySideShown() && m_tabs->currentWidget() != m_window->occupancyView())
        m_tabs->setCurrentWidget(m_window->occupancyView());
    const bool pair = sideBySideShown();
    // The run must be known up to the last slot (its end when none is given).
    auto complete = [&] {
        return pair ? m_page->replay()->runComplete() : m_window->session()->runComplete();
    };
    auto lastKnown = [&] {
        return pair ? m_page->replay()->lastKnownSlot() : m_window->session()->lastKnownSlot();
    };
    int last = request.lastSlot;
    if (last < 0 || !complete())
        spinUntil([&] { return complete() || (last >= 0 && lastKnown() >= last); }, 300000);
    if (complete() && (last < 0 || last > lastKnown()))
        last = lastKnown();

    VideoWriter::Format format = VideoWriter::Format::WebM;
    VideoWriter::formatForFile(request.fileName, &format);
    const QSize size = VideoWriter::adjustedSize(format, request.size);
    const QByteArray geometry = m_window->saveGeometry();
    const bool wasFullScreen = m_window->isFullScreen(), wasMaximized = m_window->isMaximized();
    if (m_presentation->isActive())
        m_presentation->leave();
    enterPresentation(request.views, false, request.fontScale, request.captions);
    if (wasFullScreen || wasMaximized)
        m_window->showNormal();
    // The window's minimum size follows its layout only once that is re-activated: without
    // it the resize would be clamped to the minimum of the full layout.
    m_window->layout()->activate();
    settleViews();
    m_window->resize(size);
    settleViews(); // the cluster views fit themselves to their size in the frame

    ReplayExporter::Range range{request.fileName, request.firstSlot, last, request.fps};
    ReplayExporter::Source source;
    source.show = [this](int slot, QString *error) { return showSlot(slot, error); };
    m_lastRenderSize = m_window->size();
    source.render = [this, size] {
        const QImage window = m_window->grab().toImage();
        m_lastRenderSize = window.size();
        if (window.size() == size)
            return window;
        // The window cannot shrink to the frame size: scaled down, centred on its background.
        QImage frame(size, QImage::Format_RGB32);
        frame.fill(m_window->palette().color(QPalette::Window));
        const QImage scaled = window.scaled(size, Qt::KeepAspectRatio, Qt::SmoothTransformation);
        QPainter p(&frame);
        p.drawImage((size.width() - scaled.width()) / 2, (size.height() - scaled.height()) / 2,
                    scaled);
        return frame;
    };
    const bool ok = exporter->run(range, source);

    m_presentation->leave();
    m_window->restoreGeometry(geometry);
    if (wasFullScreen)
        m_window->showFullScreen();
    else if (wasMaximized)
        m_window->showMaximized();
    return ok;
}

void InstructorTools::exportWithDialog()
{
    const bool pair = sideBySideShown();
    const int current =
        pair ? m_page->replay()->currentSlot() : m_window->session()->currentSlot();
    const int lastKnown =
        pair ? m_page->replay()->lastKnownSlot() : m_window->session()->lastKnownSlot();
    ExportReplayDialog::Choice initial;
    const QString dir = m_settings->lastDirectory().isEmpty() ? QDir::homePath()
                                                              : m_settings->lastDirectory();
    initial.fileName = QDir(dir).filePath(QStringLiteral("replay.webm"));
    initial.firstSlot = std::max(0, current);
    initial.lastSlot = std::min(lastKnown, initial.firstSlot + 30);
    initial.views = pair ? SideBySidePage::sectionNames() : m_settings->presentationViews();
    QStringList choosable = viewNames();
    choosable.removeAll(QStringLiteral("cluster")); // always shown on the cluster tab
    if (pair)
        choosable = SideBySidePage::sectionNames();
    ExportReplayDialog dialog(choosable, lastKnown, initial, m_window);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const ExportReplayDialog::Choice c = dialog.choice();
    m_settings->setLastDirectory(QFileInfo(c.fileName).absolutePath());

    ReplayExporter exporter;
    QProgressDialog progress(tr("Exporting slots %1-%2…").arg(c.firstSlot).arg(c.lastSlot),
                             tr("Cancel"), 0, c.lastSlot - c.firstSlot + 1, m_window);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(0);
    connect(&exporter, &ReplayExporter::progress, &progress, [&progress](int done, int total) {
        if (done > total)
            progress.setLabelText(tr("Finishing the file…"));
        progress.setValue(std::min(done, total));
    });
    connect(&progress, &QProgressDialog::canceled, &exporter, &ReplayExporter::cancel);
    ExportRequest request;
    request.fileName = c.fileName;
    request.firstSlot = c.firstSlot;
    request.lastSlot = c.lastSlot;
    request.fps = c.fps;
    request.size = c.size;
    request.views = c.views;
    request.captions = c.captions;
    const bool ok = exportReplay(request, &exporter);
    progress.reset();
    if (ok)
        m_window->statusBar()->showMessage(tr("Exported %1 frames to %2 (%3)")
                                               .arg(exporter.framesWritten())
                                               .arg(c.fileName, exporter.codecName()),
                                           10000);
    else if (exporter.wasCancelled())
        m_window->statusBar()->showMessage(tr("Export cancelled; no file written"), 10000);
    else
        m_window->reportError(exporter.error());
}

} // namespace dl2console
