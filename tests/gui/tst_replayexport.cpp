// Replay export and presentation mode. dl2-console --export-video writes, without a display,
// a video that libavformat decodes back to one frame per slot of --slots (WebM, MP4, GIF,
// APNG; single replay and side by side); bad arguments fail with a message and no file; the
// GUI path can be cancelled (no file) and leaves the window as it was. Presentation mode hides
// the bars and the unchosen docks, enlarges the fonts, captions the slot, steps with the keys
// alone and restores everything on Esc. At the larger font of a slide or a video, tables
// still show every job id whole, the side-by-side table its columns and the headers their
// line, no view tells what the mouse does, and the cluster view fills the room it has.

#include "captionbar.h"
#include "clusteroccupancyview.h"
#include "consolefixture.h"
#include "instructortools.h"
#include "jobspeedplot.h"
#include "jobtablemodel.h"
#include "jobtablepanel.h"
#include "lockstepreplay.h"
#include "pairjobtablemodel.h"
#include "presentationmode.h"
#include "replayexporter.h"
#include "scheduler.h"
#include "sessiontoolbar.h"
#include "sidebysidepage.h"
#include "videodecode.h"
#include "viewrefresher.h"

#include <QDir>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QProcess>
#include <QStatusBar>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextDocument>
#include <QToolBar>

using namespace dl2console;

class TestReplayExport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cliExportDecodes_data();
    void cliExportDecodes();
    void cliRejectsBadArguments_data();
    void cliRejectsBadArguments();
    void guiExportMatchesAndRestores();
    void guiExportCancelLeavesNoFile();
    void presentationMode();
    void presentationSideBySide();
    void presentationFitsTheSlide();
    void exportFramesFitTheirFont();
    void pairExportFitsTheFrame();
};

namespace {
struct Run
{
    int exitCode = -1;
    QString out, err;
};

Run runConsole(const QStringList &args)
{
    QProcess p;
    p.setProgram(qEnvironmentVariable("DL2_CONSOLE"));
    p.setArguments(args);
    p.start();
    Run r;
    if (!p.waitForFinished(240000)) {
        p.kill();
        r.err = QStringLiteral("timed out");
        return r;
    }
    r.exitCode = p.exitCode();
    r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
    r.err = QString::fromLocal8Bit(p.readAllStandardError());
    return r;
}

double meanDifference(const QImage &a, const QImage &b)
{
    double sum = 0;
    int n = 0;
    for (int y = 0; y < a.height(); y += 4)
        for (int x = 0; x < a.width(); x += 4) {
            const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
            sum += std::abs(qRed(p) - qRed(q)) + std::abs(qGreen(p) - qGreen(q)) +
                   std::abs(qBlue(p) - qBlue(q));
            ++n;
        }
    return n ? sum / n : 0.0;
}
// Empty when every job id in `column` shows whole: the column is at least as wide as the
// colour swatch beside the widest id's text at the view's font, and as the view's own measure
// of what the column needs; else what is missing. Ids of two digits and more must be there.
QString idsCutOff(const QTableView *view, int column)
{
    const QFontMetrics fm(view->font());
    QString widest;
    for (int row = 0; row < view->model()->rowCount(); ++row) {
        const QString text = view->model()->index(row, column).data().toString();
        if (fm.horizontalAdvance(text) > fm.horizontalAdvance(widest))
            widest = text;
    }
    if (widest.size() < 2)
        return QStringLiteral("no job id of two digits listed (widest '%1')").arg(widest);
    const int swatch = view->style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, view);
    const QAbstractItemView *asItemView = view; // sizeHintForColumn is public here
    const int need =
        std::max(fm.horizontalAdvance(widest) + swatch, asItemView->sizeHintForColumn(column));
    if (view->columnWidth(column) < need)
        return QStringLiteral("job %1 at %2 pt needs %3 px; the column is %4 px")
            .arg(widest)
            .arg(view->font().pointSizeF())
            .arg(need)
            .arg(view->columnWidth(column));
    return {};
}

// Empty when every column not hidden ends inside the table's viewport.
QString columnsCutOff(const QTableView *view)
{
    const QHeaderView *header = view->horizontalHeader();
    QStringList cut;
    for (int c = 0; c < header->count(); ++c)
        if (!view->isColumnHidden(c) &&
            header->sectionViewportPosition(c) + header->sectionSize(c) > view->viewport()->width())
            cut << view->model()->headerData(c, Qt::Horizontal).toString();
    return cut.isEmpty() ? QString()
                         : QStringLiteral("cut off at %1 px: %2")
                               .arg(view->viewport()->width())
                               .arg(cut.join(QStringLiteral(", ")));
}

// Empty when the label shows its whole rich text on one line.
QString headerCutOff(const QLabel *label)
{
    QTextDocument doc;
    doc.setDefaultFont(label->font());
    doc.setDocumentMargin(0);
    doc.setHtml(label->text());
    const int lines = label->height() / QFontMetrics(label->font()).lineSpacing();
    if (doc.idealWidth() > label->contentsRect().width() || lines > 1)
        return QStringLiteral("'%1': %2 px of text in %3 px, %4 lines")
            .arg(doc.toPlainText())
            .arg(doc.idealWidth())
            .arg(label->contentsRect().width())
            .arg(lines);
    return {};
}

// How much of its viewport the cluster view's nodes fill, along the side they fill best.
double clusterFill(const ClusterOccupancyView *view)
{
    const QSize content = view->contentSize(), vp = view->viewport()->size();
    return std::max(double(content.height()) / vp.height(), double(content.width()) / vp.width());
}
} // namespace

void TestReplayExport::initTestCase()
{
    dl2::registerBaselines();
    QVERIFY2(!qEnvironmentVariableIsEmpty("DL2_CONSOLE"), "run through CTest (DL2_CONSOLE)");
}

void TestReplayExport::cliExportDecodes_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<int>("frames");
    QTest::addColumn<QString>("codec");
    QTest::newRow("webm") << QStringLiteral("drf.webm")
                          << QStringList{QStringLiteral("--slots"), QStringLiteral("3-9")} << 7
                          << QStringLiteral("vp9");
    QTest::newRow("mp4 fast") << QStringLiteral("drf.mp4")
                              << QStringList{QStringLiteral("--slots"), QStringLiteral("10-14"),
                                             QStringLiteral("--fps"), QStringLiteral("4"),
                                             QStringLiteral("--views"),
                                             QStringLiteral("utilisation,jobs")}
                              << 5 << QStringLiteral("h264");
    QTest::newRow("gif side by side")
        << QStringLiteral("pair.gif")
        << QStringList{QStringLiteral("--side-by-side"), QStringLiteral("drf,srtf"),
                       QStringLiteral("--slots"), QStringLiteral("0-4")}
        << 5 << QStringLiteral("gif");
    QTest::newRow("gif smaller than the window")
        << QStringLiteral("small.gif")
        << QStringList{QStringLiteral("--slots"), QStringLiteral("30-32"), QStringLiteral("--size"),
                       QStringLiteral("480x300")}
        << 3 << QStringLiteral("gif");
    QTest::newRow("apng no captions")
        << QStringLiteral("drf.apng")
        << QStringList{QStringLiteral("--slots"), QStringLiteral("20-23"),
                       QStringLiteral("--no-captions")}
        << 4 << QStringLiteral("apng");
}

void TestReplayExport::cliExportDecodes()
{
    QFETCH(QString, file);
    QFETCH(QStringList, extra);
    QFETCH(int, frames);
    QFETCH(QString, codec);
    QTemporaryDir dir;
    const QString path = dir.filePath(file);
    QStringList args{QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                     QStringLiteral("--policy"),   QStringLiteral("drf"),
                     QStringLiteral("--size"),     QStringLiteral("1024x640"),
                     QStringLiteral("--export-video"), path};
    args << extra;
    const Run r = runConsole(args);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const int sizeAt = args.lastIndexOf(QStringLiteral("--size"));
    const QStringList wh = args[sizeAt + 1].split(u'x');
    const QSize size(wh[0].toInt(), wh[1].toInt());
    // Too small for the window: scaled down, exactly the requested size, and said so.
    QCOMPARE(r.err.contains(u"scaled down"_qs), size.width() < 800);
    QVERIFY2(r.out.contains(QStringLiteral("%1 frames").arg(frames)), qPrintable(r.out));

    const test::DecodedVideo video = test::decodeVideo(path);
    QVERIFY2(video.error.isEmpty(), qPrintable(video.error));
    QCOMPARE(video.codec, codec);
    QCOMPARE(video.frames.size(), frames);
    QCOMPARE(video.frames.front().size(), size);
    // The replay moves: the first and the last frame are different pictures.
    QVERIFY2(meanDifference(video.frames.front(), video.frames.back()) > 1.0,
             qPrintable(QString::number(meanDifference(video.frames.front(),
                                                       video.frames.back()))));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1); // no temporary left
}

void TestReplayExport::cliRejectsBadArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("reversed slots") << QStringList{QStringLiteral("--slots"), QStringLiteral("9-3")}
                                    << QStringLiteral("--slots");
    QTest::newRow("format") << QStringList{QStringLiteral("--export-video"),
                                           QStringLiteral("OUT/replay.avi")}
                            << QStringLiteral("replay.avi");
    QTest::newRow("fps") << QStringList{QStringLiteral("--fps"), QStringLiteral("0")}
                         << QStringLiteral("--fps");
    QTest::newRow("pair") << QStringList{QStringLiteral("--side-by-side"), QStringLiteral("drf")}
                          << QStringLiteral("two policies");
    QTest::newRow("policy") << QStringList{QStringLiteral("--side-by-side"),
                                           QStringLiteral("drf,nonesuch")}
                            << QStringLiteral("nonesuch");
    QTest::newRow("view") << QStringList{QStringLiteral("--views"), QStringLiteral("radar")}
                          << QStringLiteral("radar");
    QTest::newRow("with screenshot")
        << QStringList{QStringLiteral("--screenshot"), QStringLiteral("OUT/x.png")}
        << QStringLiteral("--screenshot");
}

void TestReplayExport::cliRejectsBadArguments()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    for (QString &a : args)
        a.replace(QStringLiteral("OUT"), dir.path());
    QStringList all{QStringLiteral("--scenario"), QStringLiteral("dl2-small"),
                    QStringLiteral("--policy"), QStringLiteral("drf")};
    if (!args.contains(QStringLiteral("--export-video")))
        all << QStringLiteral("--export-video") << dir.filePath(QStringLiteral("r.webm"));
    all << args;
    const Run r = runConsole(all);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    QVERIFY2(QDir(dir.path()).entryList(QDir::Files).isEmpty(),
             qPrintable(QDir(dir.path()).entryList(QDir::Files).join(u' ')));
}

void TestReplayExport::guiExportMatchesAndRestores()
{
    QTemporaryDir dir;
    Settings settings(dir.filePath(QStringLiteral("s.ini")));
    std::unique_ptr<MainWindow> window;
    test::openConsole(window, &settings, QSize(1300, 850));
    if (QTest::currentTestFailed())
        return;
    const QSize before = window->size();
    const QStringList docksBefore = [&] {
        QStringList v;
        for (QDockWidget *d : window->findChildren<QDockWidget *>())
            if (d->isVisible())
                v << d->objectName();
        return v;
    }();
    InstructorTools::ExportRequest request;
    request.fileName = dir.filePath(QStringLiteral("gui.webm"));
    request.firstSlot = 5;
    request.lastSlot = 11;
    request.size = QSize(640, 400);
    request.views = {QStringLiteral("reward")};
    ReplayExporter exporter;
    QList<int> progress;
    connect(&exporter, &ReplayExporter::progress, this, [&](int done, int) { progress << done; });
    QVERIFY2(window->instructorTools()->exportReplay(request, &exporter),
             qPrintable(exporter.error()));
    QCOMPARE(exporter.framesWritten(), 7);
    QCOMPARE(progress.front(), 0);
    QCOMPARE(progress.back(), 8); // 7 frames, then finishing
    const auto video = test::decodeVideo(request.fileName);
    QVERIFY2(video.error.isEmpty(), qPrintable(video.error));
    QCOMPARE(video.frames.size(), 7);
    QCOMPARE(video.frames.front().size(), QSize(640, 400));
    // The window is back: size, bars, docks; the replay rests on the last exported slot.
    QVERIFY(!window->instructorTools()->presentation()->isActive());
    QCOMPARE(window->size(), before);
    QVERIFY(window->menuBar()->isVisible());
    QStringList docksAfter;
    for (QDockWidget *d : window->findChildren<QDockWidget *>())
        if (d->isVisible())
            docksAfter << d->objectName();
    QCOMPARE(docksAfter, docksBefore);
    QCOMPARE(window->session()->currentSlot(), 11);
}

void TestReplayExport::guiExportCancelLeavesNoFile()
{
    QTemporaryDir dir;
    Settings settings(dir.filePath(QStringLiteral("s.ini")));
    std::unique_ptr<MainWindow> window;
    test::openConsole(window, &settings, QSize(1300, 850));
    if (QTest::currentTestFailed())
        return;
    for (const char *name : {"cancel.mp4", "cancel.gif"}) {
        InstructorTools::ExportRequest request;
        request.fileName = dir.filePath(QLatin1String(name));
        request.firstSlot = 0;
        request.lastSlot = 30;
        request.size = QSize(480, 320);
        ReplayExporter exporter;
        connect(&exporter, &ReplayExporter::progress, &exporter, [&exporter](int done, int) {
            if (done == 3)
                exporter.cancel(); // as the progress dialog's Cancel button does
        });
        QVERIFY(!window->instructorTools()->exportReplay(request, &exporter));
        QVERIFY(exporter.wasCancelled());
        QCOMPARE(exporter.framesWritten(), 3);
        QVERIFY(!QFile::exists(request.fileName));
    }
    QStringList left = QDir(dir.path()).entryList(QDir::Files);
    left.removeAll(QStringLiteral("s.ini"));
    QVERIFY2(left.isEmpty(), qPrintable(left.join(u' ')));
}

void TestReplayExport::presentationMode()
{
    QTemporaryDir dir;
    Settings settings(dir.filePath(QStringLiteral("s.ini")));
    std::unique_ptr<MainWindow> window;
    test::openConsole(window, &settings, QSize(1300, 850));
    if (QTest::currentTestFailed())
        return;
    ConsoleSession *session = window->session();
    session->seek(4);
    QVERIFY(session->waitForSlot(4));
    const qreal fontBefore = window->font().pointSizeF();
    InstructorTools *tools = window->instructorTools();
    PresentationMode *mode = tools->presentation();
    tools->enterPresentation({QStringLiteral("utilisation")}, false, 1.5);
    QVERIFY(mode->isActive());
    QVERIFY(!window->menuBar()->isVisible());
    QVERIFY(!window->toolBar()->isVisible());
    QVERIFY(!window->statusBar()->isVisible());
    const auto tabBars = window->findChildren<QTabBar *>();
    for (QTabBar *bar : tabBars)
        if (bar->count() > 3) // the main window's pages
            QVERIFY(!bar->isVisible());
    QCOMPARE(window->font().pointSizeF(), fontBefore * 1.5);
    for (QDockWidget *d : window->findChildren<QDockWidget *>())
        QCOMPARE(d->isVisible(), d->objectName() == u"utilisationDock"_qs);
    QVERIFY(mode->captionBar()->isVisible());
    QVERIFY2(mode->captionBar()->plainText().contains(u"Slot 4"_qs),
             qPrintable(mode->captionBar()->plainText()));

    // The caption strip keeps its height from slot to slot (room for two wrapped lines, never
    // shrinking), so the views above it stay put on a slide and in a video.
    CaptionBar *strip = mode->captionBar();
    QVERIFY2(strip->height() >= 2 * strip->fontMetrics().lineSpacing(),
             qPrintable(QString::number(strip->height())));
    int stripHeight = strip->height();
    auto stripSteady = [&](int slot) {
        if (!QTest::qWaitFor([&] { return strip->plainText().contains(u"Slot %1"_qs.arg(slot)); }))
            return false;
        const bool steady = strip->height() >= stripHeight;
        stripHeight = strip->height();
        return steady;
    };

    // Keys alone: a clicker's Page Down / Page Up, arrows, Home / End.
    QTest::keyClick(window.get(), Qt::Key_PageDown);
    QVERIFY(session->waitForSlot(5));
    QVERIFY(stripSteady(5));
    QTest::keyClick(window.get(), Qt::Key_Right);
    QVERIFY(session->waitForSlot(6));
    QVERIFY(stripSteady(6));
    QTest::keyClick(window.get(), Qt::Key_Space); // next slot here, not play
    QVERIFY(session->waitForSlot(7));
    QVERIFY(stripSteady(7));
    QVERIFY(!session->isPlaying());
    QTest::keyClick(window.get(), Qt::Key_PageUp);
    QVERIFY(session->waitForSlot(6));
    QTRY_VERIFY(mode->captionBar()->plainText().contains(u"Slot 6"_qs));
    QVERIFY(stripSteady(6));
    QTest::keyClick(window.get(), Qt::Key_Home);
    QVERIFY(session->waitForSlot(0));
    QTest::keyClick(window.get(), Qt::Key_P);
    QVERIFY(session->isPlaying());
    QTest::keyClick(window.get(), Qt::Key_P);
    QVERIFY(!session->isPlaying());

    QTest::keyClick(window.get(), Qt::Key_Escape);
    QTRY_VERIFY(!mode->isActive());
    QVERIFY(window->menuBar()->isVisible());
    QVERIFY(window->toolBar()->isVisible());
    for (QTabBar *bar : tabBars)
        if (bar->count() > 3)
            QVERIFY(bar->isVisible());
    QCOMPARE(window->font().pointSizeF(), fontBefore);
    QVERIFY(!mode->captionBar()->isVisible());
    // The main toolbar's Space plays again.
    QTest::keyClick(window.get(), Qt::Key_Space);
    QVERIFY(session->isPlaying());
    session->setPlaying(false);
}

void TestReplayExport::presentationSideBySide()
{
    QTemporaryDir dir;
    Settings settings(dir.filePath(QStringLiteral("s.ini")));
    std::unique_ptr<MainWindow> window;
    test::openConsole(window, &settings, QSize(1300, 850));
    if (QTest::currentTestFailed())
        return;
    InstructorTools *tools = window->instructorTools();
    SideBySidePage *page = tools->sideBySidePage();
    page->setPolicyPair(QStringLiteral("drf"), QStringLiteral("srtf"));
    tools->showSideBySide();
    LockstepReplay *r = page->replay();
    QVERIFY(r->waitForSlot(0));
    tools->enterPresentation({QStringLiteral("cluster"), QStringLiteral("plot")}, false);
    QVERIFY(tools->presentation()->isActive());
    QTest::keyClick(window.get(), Qt::Key_PageDown);
    QTest::keyClick(window.get(), Qt::Key_PageDown);
    QVERIFY(r->waitForSlot(2));
    QCOMPARE(r->session(0)->currentSlot(), 2);
    QCOMPARE(r->session(1)->currentSlot(), 2);
    QTRY_VERIFY(tools->presentation()->captionBar()->plainText().contains(u"drf: Slot 2"_qs));
    QVERIFY(tools->presentation()->captionBar()->plainText().contains(u"srtf: Slot 2"_qs));
    QVERIFY(!page->jobView()->isVisible()); // "jobs" not chosen
    QTest::keyClick(window.get(), Qt::Key_Escape);
    QTRY_VERIFY(!tools->presentation()->isActive());
    QVERIFY(page->jobView()->isVisible());
}

void TestReplayExport::presentationFitsTheSlide()
{
    QTemporaryDir dir;
    Settings settings(dir.filePath(QStringLiteral("s.ini")));
    std::unique_ptr<MainWindow> window;
    test::openConsole(window, &settings, QSize(1300, 850));
    if (QTest::currentTestFailed())
        return;
    ConsoleSession *session = window->session();
    session->seek(20);
    QVERIFY(session->waitForSlot(20));
    window->refresher()->flush();
    QTableView *jobs = window->jobPanel()->view();
    ClusterOccupancyView *cluster = window->occupancyView();
    cluster->setZoomLevel(3); // a user's zoom: presentation fits anyway, and gives it back
    const qreal fontBefore = jobs->font().pointSizeF();
    QVERIFY(cluster->hintsShown());

    InstructorTools *tools = window->instructorTools();
    tools->enterPresentation({QStringLiteral("jobs"), QStringLiteral("speed")}, false, 1.5);
    QCoreApplication::processEvents();
    QCOMPARE(jobs->font().pointSizeF(), fontBefore * 1.5);
    const QString cut = idsCutOff(jobs, JobTableModel::IdColumn);
    QVERIFY2(cut.isEmpty(), qPrintable(cut));
    QVERIFY(!cluster->hintsShown());
    QVERIFY(cluster->isFitted());
    // Every node in view, and the nodes fill most of the height or width of the view.
    QVERIFY(cluster->contentSize().height() <= cluster->viewport()->height());
    QVERIFY2(clusterFill(cluster) > 0.8, qPrintable(QString::number(clusterFill(cluster))));
    QCOMPARE(window->jobSpeedPlot()->message(), u"No job selected"_qs);

    tools->presentation()->leave();
    QVERIFY(cluster->hintsShown());
    QCOMPARE(cluster->zoomLevel(), 3);
    QVERIFY(!cluster->isFitted());
    QCOMPARE(window->jobSpeedPlot()->message(),
             u"Select jobs in the Jobs table or the cluster view"_qs);
    QCOMPARE(jobs->font().pointSizeF(), fontBefore);
}

void TestReplayExport::exportFramesFitTheirFont()
{
    QTemporaryDir dir;
    Settings settings(dir.filePath(QStringLiteral("s.ini")));
    std::unique_ptr<MainWindow> window;
    test::openConsole(window, &settings, QSize(1300, 850));
    if (QTest::currentTestFailed())
        return;
    // On display before the export (as when exporting from the GUI): the table was sized at
    // the normal font, and the first frame brings no new job to size it again.
    window->session()->seek(18);
    QVERIFY(window->session()->waitForSlot(18));
    window->refresher()->flush();
    InstructorTools::ExportRequest request;
    request.fileName = dir.filePath(QStringLiteral("jobs.apng"));
    request.firstSlot = 18;
    request.lastSlot = 20;
    request.size = QSize(1280, 720);
    request.views = {QStringLiteral("jobs")};
    request.fontScale = 1.5;
    ReplayExporter exporter;
    // What each frame showed, checked while the window is in its export state.
    QStringList problems;
    int checked = 0;
    connect(&exporter, &ReplayExporter::progress, this, [&](int done, int total) {
        if (done < 1 || done > total)
            return;
        ++checked;
        QTableView *jobs = window->jobPanel()->view();
        if (jobs->font().pointSizeF() <= QApplication::font().pointSizeF())
            problems << QStringLiteral("frame %1 at the normal font").arg(done);
        if (const QString cut = idsCutOff(jobs, JobTableModel::IdColumn); !cut.isEmpty())
            problems << QStringLiteral("frame %1: %2").arg(done).arg(cut);
        if (window->occupancyView()->hintsShown())
            problems << QStringLiteral("frame %1: Ctrl+wheel hint").arg(done);
    });
    QVERIFY2(window->instructorTools()->exportReplay(request, &exporter),
             qPrintable(exporter.error()));
    QCOMPARE(checked, 3);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
    QVERIFY(window->occupancyView()->hintsShown()); // back after the export
}

void TestReplayExport::pairExportFitsTheFrame()
{
    QTemporaryDir dir;
    Settings settings(dir.filePath(QStringLiteral("s.ini")));
    std::unique_ptr<MainWindow> window;
    test::openConsole(window, &settings, QSize(1300, 850));
    if (QTest::currentTestFailed())
        return;
    InstructorTools *tools = window->instructorTools();
    SideBySidePage *page = tools->sideBySidePage();
    page->setPolicyPair(QStringLiteral("drf"), QStringLiteral("srtf"));
    tools->showSideBySide();
    QVERIFY(page->replay()->waitForSlot(0));
    InstructorTools::ExportRequest request;
    request.fileName = dir.filePath(QStringLiteral("pair.gif"));
    request.firstSlot = 20;
    request.lastSlot = 21;
    request.size = QSize(1280, 720); // the CLI's default
    request.views = SideBySidePage::sectionNames();
    ReplayExporter exporter;
    QStringList problems;
    int checked = 0, rows = 0;
    connect(&exporter, &ReplayExporter::progress, this, [&](int done, int total) {
        if (done < 1 || done > total)
            return;
        ++checked;
        QTableView *table = page->jobView();
        for (const QString &cut :
             {idsCutOff(table, PairJobTableModel::IdColumn), columnsCutOff(table),
              headerCutOff(page->findChild<QLabel *>(u"leftHeader"_qs)),
              headerCutOff(page->findChild<QLabel *>(u"rightHeader"_qs))})
            if (!cut.isEmpty())
                problems << QStringLiteral("frame %1: %2").arg(done).arg(cut);
        for (int c :
             {PairJobTableModel::LeftProgressColumn, PairJobTableModel::RightProgressColumn})
            if (table->isColumnHidden(c))
                problems << QStringLiteral("frame %1: no progress column %2").arg(done).arg(c);
        for (int side : {0, 1})
            if (page->occupancy(side)->hintsShown())
                problems << QStringLiteral("frame %1: Ctrl+wheel hint").arg(done);
        rows = table->viewport()->height() / table->verticalHeader()->defaultSectionSize();
    });
    QVERIFY2(tools->exportReplay(request, &exporter), qPrintable(exporter.error()));
    QCOMPARE(checked, 2);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(u'\n')));
    // The audit's 1280x720 frame listed 7 jobs; a slide's table shows more of them.
    QVERIFY2(rows >= 10, qPrintable(QString::number(rows)));
    // Back to the page as it was: its controls, every column.
    QVERIFY(!page->isPresenting());
    QVERIFY(!page->jobView()->isColumnHidden(PairJobTableModel::ModelColumn));
    QVERIFY(page->occupancy(0)->hintsShown());
}

QTEST_MAIN(TestReplayExport)
#include "tst_replayexport.moc"
