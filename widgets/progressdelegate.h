#pragma once
// Draws a job's progress as a thin bar in its palette colour behind the percentage text.

#include <QStyledItemDelegate>

namespace dl2console {

class ProgressDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
};

} // namespace dl2console
