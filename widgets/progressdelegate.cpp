#include "progressdelegate.h"

#include "jobpalette.h"
#include "jobtablemodel.h"

#include <QPainter>

namespace dl2console {

void ProgressDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                             const QModelIndex &index) const
{
    const double fraction = index.data(JobTableModel::ProgressRole).toDouble();
    const int id = index.data(JobTableModel::JobIdRole).toInt();
    QColor bar = JobPalette::color(id, JobPalette::isDark(option.palette.color(QPalette::Base)));
    bar.setAlphaF(0.45f);
    const QRect r = option.rect.adjusted(2, option.rect.height() - 5, -2, -2);
    painter->fillRect(QRect(r.left(), r.top(), static_cast<int>(r.width() * fraction), r.height()),
                      bar);
    QStyledItemDelegate::paint(painter, option, index);
}

} // namespace dl2console
