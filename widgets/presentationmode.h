#pragma once
// Presentation mode for a QMainWindow: full screen (or a fixed size, for exports), larger
// fonts, no menu, tool or status bars, only the chosen docks, a caption strip along the
// bottom saying what happened in the slot, and keyboard-only stepping that works with a
// presenter's clicker (Page Down / Page Up):
//   Right, Down, Page Down, Space, Return, "."  next slot      Home  first slot
//   Left, Up, Page Up, Backspace, ","           previous slot  End   last slot
//   P  play/pause      Esc or F11  leave
// While active, other actions bound to these keys are silenced (their shortcuts restored on
// leave), so a key never means two things.

#include "captionbar.h"

#include <QObject>
#include <QPointer>
#include <functional>

class QAction;
class QDockWidget;
class QMainWindow;
class QToolBar;

namespace dl2console {

class PresentationMode : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QStringList docks;      // objectNames of the docks to keep; others are hidden
        double fontScale = 1.5; // of the window's normal font
        bool captions = true;
        bool fullScreen = true; // false: keep the window's size (exports)
    };
    // What the keys do and what the captions say; set by the window for the page on show.
    struct Controls
    {
        std::function<void()> stepForward, stepBack, first, last, togglePlaying;
        std::function<QList<CaptionBar::Line>()> captions;
    };

    explicit PresentationMode(QMainWindow *window);
    ~PresentationMode() override;

    void setControls(const Controls &controls);
    void enter(const Options &options);
    void leave();
    bool isActive() const { return m_active; }
    const Options &options() const { return m_options; }
    // Re-reads the captions (call when the slot on display changed).
    void refreshCaptions();
    CaptionBar *captionBar() const { return m_captions; }
    static QString keyHelp();

Q_SIGNALS:
    void activeChanged(bool active);

private:
    void addKey(const QList<QKeySequence> &keys, std::function<void()> Controls::*what);
    void silenceConflicts();
    void restoreConflicts();

    QMainWindow *m_window;
    Controls m_controls;
    Options m_options;
    bool m_active = false;
    QToolBar *m_captionBar = nullptr;
    CaptionBar *m_captions = nullptr;
    QList<QAction *> m_keys;
    // Saved on enter, restored on leave.
    QByteArray m_state;
    QByteArray m_geometry;
    bool m_hadFont = false;
    QFont m_font;
    bool m_menuBarVisible = true;
    bool m_statusBarVisible = true;
    QList<QPointer<QToolBar>> m_hiddenToolBars;
    QList<QPair<QPointer<QAction>, QList<QKeySequence>>> m_silenced;
};

} // namespace dl2console
