#include "viewrefresher.h"

#include <QEvent>
#include <QWidget>

namespace dl2console {

ViewRefresher::ViewRefresher(QObject *parent) : QObject(parent)
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(33);
    connect(&m_timer, &QTimer::timeout, this, &ViewRefresher::flush);
}

void ViewRefresher::add(QWidget *view, std::function<void()> refresh)
{
    view->installEventFilter(this);
    m_entries.push_back({view, std::move(refresh), true});
}

void ViewRefresher::markDirty()
{
    for (auto &e : m_entries)
        e.stale = true;
    if (!m_timer.isActive())
        m_timer.start();
}

void ViewRefresher::flush()
{
    m_timer.stop();
    ++m_refreshes;
    for (auto &e : m_entries) {
        if (!e.view || !e.stale || !e.view->isVisible())
            continue;
        e.stale = false;
        e.refresh();
    }
}

bool ViewRefresher::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Show) {
        for (auto &e : m_entries)
            if (e.view == watched && e.stale) {
                e.stale = false;
                e.refresh();
            }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace dl2console
