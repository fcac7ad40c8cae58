#include "tablefit.h"

#include <QEvent>
#include <QHeaderView>
#include <QTableView>

namespace dl2console {

namespace {
class FontFitter : public QObject
{
public:
    explicit FontFitter(QTableView *view) : QObject(view), m_view(view) {}

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        // Children (the header) have their new font before the view hears of its own.
        if (watched == m_view && event->type() == QEvent::FontChange)
            refitTable(m_view);
        return false;
    }

private:
    QTableView *m_view;
};
} // namespace

void refitTable(QTableView *view)
{
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->resizeColumnsToContents();
}

void fitTableToFont(QTableView *view)
{
    view->installEventFilter(new FontFitter(view));
    // Only the row height now: measuring the columns here would polish the view and its
    // headers before they are in the window (the columns are sized on each model reset).
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
}

} // namespace dl2console
