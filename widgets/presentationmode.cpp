#include "presentationmode.h"

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QMenuBar>
#include <QStatusBar>
#include <QToolBar>

namespace dl2console {

PresentationMode::PresentationMode(QMainWindow *window) : QObject(window), m_window(window) {}

PresentationMode::~PresentationMode() = default;

void PresentationMode::setControls(const Controls &controls)
{
    m_controls = controls;
    refreshCaptions();
}

QString PresentationMode::keyHelp()
{
    return tr("→ / Page Down / Space: next slot · ← / Page Up: previous · Home / End: first / "
              "last · P: play/pause · Esc: leave");
}

void PresentationMode::addKey(const QList<QKeySequence> &keys,
                              std::function<void()> Controls::*what)
{
    auto *a = new QAction(this);
    a->setShortcuts(keys);
    a->setShortcutContext(Qt::WindowShortcut);
    connect(a, &QAction::triggered, this, [this, what] {
        if (m_controls.*what)
            (m_controls.*what)();
    });
    m_window->addAction(a);
    m_keys << a;
}

void PresentationMode::silenceConflicts()
{
    QList<QKeySequence> mine;
    for (QAction *a : std::as_const(m_keys))
        mine << a->shortcuts();
    const auto actions = m_window->findChildren<QAction *>();
    for (QAction *a : actions) {
        if (m_keys.contains(a) || a->shortcuts().isEmpty())
            continue;
        const QList<QKeySequence> before = a->shortcuts();
        QList<QKeySequence> kept;
        for (const QKeySequence &k : before)
            if (!mine.contains(k))
                kept << k;
        if (kept.size() != before.size()) {
            m_silenced << qMakePair(QPointer<QAction>(a), before);
            a->setShortcuts(kept);
        }
    }
}

void PresentationMode::restoreConflicts()
{
    for (const auto &[action, keys] : std::as_const(m_silenced))
        if (action)
            action->setShortcuts(keys);
    m_silenced.clear();
}

void PresentationMode::enter(const Options &options)
{
    if (m_active)
        leave();
    m_options = options;
    m_state = m_window->saveState();
    m_geometry = m_window->saveGeometry();
    m_hadFont = m_window->testAttribute(Qt::WA_SetFont);
    m_font = m_window->font();
    m_menuBarVisible = m_window->menuBar()->isVisible();
    m_statusBarVisible = m_window->statusBar() && m_window->statusBar()->isVisible();

    if (!m_captionBar) {
        m_captionBar = new QToolBar(tr("Captions"), m_window);
        m_captionBar->setObjectName(QStringLiteral("presentationCaptions"));
        m_captionBar->setMovable(false);
        m_captionBar->setFloatable(false);
        m_captions = new CaptionBar(m_captionBar);
        m_captions->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
        m_captionBar->addWidget(m_captions);
        m_window->addToolBar(Qt::BottomToolBarArea, m_captionBar);
    }
    m_hiddenToolBars.clear();
    const auto bars = m_window->findChildren<QToolBar *>();
    for (QToolBar *bar : bars)
        if (bar != m_captionBar && bar->isVisible()) {
            bar->hide();
            m_hiddenToolBars << bar;
        }
    m_window->menuBar()->hide();
    if (m_window->statusBar())
        m_window->statusBar()->hide();
    const auto docks = m_window->findChildren<QDockWidget *>();
    for (QDockWidget *d : docks)
        d->setVisible(options.docks.contains(d->objectName()));

    QFont big = m_font;
    if (big.pointSizeF() > 0)
        big.setPointSizeF(big.pointSizeF() * options.fontScale);
    else
        big.setPixelSize(static_cast<int>(big.pixelSize() * options.fontScale));
    m_window->setFont(big);
    m_captionBar->setVisible(options.captions);
    m_captions->setSteady(true);

    addKey({QKeySequence(Qt::Key_Right), QKeySequence(Qt::Key_Down), QKeySequence(Qt::Key_PageDown),
            QKeySequence(Qt::Key_Space), QKeySequence(Qt::Key_Return), QKeySequence(Qt::Key_Period)},
           &Controls::stepForward);
    addKey({QKeySequence(Qt::Key_Left), QKeySequence(Qt::Key_Up), QKeySequence(Qt::Key_PageUp),
            QKeySequence(Qt::Key_Backspace), QKeySequence(Qt::Key_Comma)},
           &Controls::stepBack);
    addKey({QKeySequence(Qt::Key_Home)}, &Controls::first);
    addKey({QKeySequence(Qt::Key_End)}, &Controls::last);
    addKey({QKeySequence(Qt::Key_P)}, &Controls::togglePlaying);
    auto *leaveKey = new QAction(this);
    leaveKey->setShortcuts({QKeySequence(Qt::Key_Escape), QKeySequence(Qt::Key_F11)});
    connect(leaveKey, &QAction::triggered, this, &PresentationMode::leave, Qt::QueuedConnection);
    m_window->addAction(leaveKey);
    m_keys << leaveKey;
    silenceConflicts();

    if (options.fullScreen)
        m_window->showFullScreen();
    m_window->setFocus(Qt::OtherFocusReason); // no table or combo box eats the arrow keys
    m_active = true;
    refreshCaptions();
    Q_EMIT activeChanged(true);
}

void PresentationMode::leave()
{
    if (!m_active)
        return;
    m_active = false;
    restoreConflicts();
    qDeleteAll(m_keys);
    m_keys.clear();
    m_captionBar->hide();
    m_captions->setSteady(false);
    if (m_hadFont)
        m_window->setFont(m_font);
    else
        m_window->setFont(QFont());
    m_window->menuBar()->setVisible(m_menuBarVisible);
    if (m_window->statusBar())
        m_window->statusBar()->setVisible(m_statusBarVisible);
    for (const auto &bar : std::as_const(m_hiddenToolBars))
        if (bar)
            bar->show();
    m_hiddenToolBars.clear();
    if (m_options.fullScreen)
        m_window->showNormal();
    m_window->restoreState(m_state);
    m_window->restoreGeometry(m_geometry);
    m_captionBar->hide(); // restoreState does not know it
    Q_EMIT activeChanged(false);
}

void PresentationMode::refreshCaptions()
{
    if (!m_active || !m_options.captions || !m_controls.captions || !m_captions)
        return;
    m_captions->setLines(m_controls.captions());
}

} // namespace dl2console
