#pragma once
// What the console offers instructors, wired into the main window: the "Side by side" tab
// (two policies in lockstep), presentation mode (View > Presentation mode, F11) with the
// views chosen in View > Presentation views, and replay export (File > Export replay…, and
// dl2-console --export-video on the command line) of the tab on display.

#include "presentationmode.h"

#include <QObject>
#include <QPointer>
#include <QSize>
#include <QStringList>

class QAction;
class QMenu;
class QTabWidget;

namespace dl2console {

class ClusterOccupancyView;
class MainWindow;
class ReplayExporter;
class Settings;
class SideBySidePage;

class InstructorTools : public QObject
{
    Q_OBJECT
public:
    struct ExportRequest
    {
        QString fileName;
        int firstSlot = 0;
        int lastSlot = -1; // -1: the end of the run
        double fps = 2.0;
        QSize size{1280, 720};
        QStringList views;       // of viewNames(); the cluster view is always in
        bool captions = true;
        double fontScale = 1.3;
    };

    InstructorTools(MainWindow *window, QTabWidget *tabs, Settings *settings);

    SideBySidePage *sideBySidePage() const { return m_page; }
    PresentationMode *presentation() const { return m_presentation; }
    void showSideBySide();
    bool sideBySideShown() const;

    // Views presentation mode and export can show for the tab on display.
    QStringList viewNames() const;
    static QStringList replayViewNames();
    // Presentation mode with these views (default: the ones in View > Presentation views).
    void enterPresentation(const QStringList &views, bool fullScreen = true, double fontScale = 1.5,
                           bool captions = true);
    void togglePresentation();

    // Exports the tab on display (the side-by-side replay, else the single replay). Blocking;
    // false with exporter->error() set, or exporter->wasCancelled().
    bool exportReplay(const ExportRequest &request, ReplayExporter *exporter);
    void exportWithDialog();
    // The window's size in the last export: larger than the frames when it could not shrink
    // to them (the frames are then scaled down).
    QSize lastRenderSize() const { return m_lastRenderSize; }

    QAction *sideBySideAction() const { return m_sideBySideAction; }
    QAction *presentAction() const { return m_presentAction; }
    QAction *exportAction() const { return m_exportAction; }

private:
    void buildMenus();
    void onTabChanged();
    PresentationMode::Controls controls() const;
    bool showSlot(int slot, QString *error);
    QString dockOf(const QString &view) const;

    MainWindow *m_window;
    QTabWidget *m_tabs;
    Settings *m_settings;
    SideBySidePage *m_page;
    PresentationMode *m_presentation;
    QAction *m_sideBySideAction = nullptr;
    QAction *m_presentAction = nullptr;
    QAction *m_exportAction = nullptr;
    QMenu *m_viewsMenu = nullptr;
    QSize m_lastRenderSize;
    // Zoom steps the user chose before presentation mode fitted the cluster views (-1: fitted).
    QList<QPair<QPointer<ClusterOccupancyView>, int>> m_zoomBefore;
};

} // namespace dl2console
