#pragma once
// Batches view updates: producers call markDirty(), one ~33 ms single-shot timer later each
// registered view refreshes once, and only if it is visible; a hidden view refreshes when it
// is shown again (Wireshark's "skip hidden graphs", PlotJuggler's replot timer).

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <functional>
#include <vector>

class QWidget;

namespace dl2console {

class ViewRefresher : public QObject
{
    Q_OBJECT
public:
    explicit ViewRefresher(QObject *parent = nullptr);

    void add(QWidget *view, std::function<void()> refresh);
    void markDirty();
    // Refreshes every visible view now (screenshots, tests, benchmarks).
    void flush();
    int intervalMs() const { return m_timer.interval(); }
    int refreshCount() const { return m_refreshes; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Entry
    {
        QPointer<QWidget> view;
        std::function<void()> refresh;
        bool stale = true;
    };
    std::vector<Entry> m_entries;
    QTimer m_timer;
    int m_refreshes = 0;
};

} // namespace dl2console
