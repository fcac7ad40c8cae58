#include "jobfilterproxymodel.h"

#include "jobstate.h"
#include "jobtablemodel.h"

namespace dl2console {

JobFilterProxyModel::JobFilterProxyModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(JobTableModel::SortRole);
    setDynamicSortFilter(true);
}

void JobFilterProxyModel::setStateFilter(StateFilter filter)
{
    if (filter == m_state)
        return;
    m_state = filter;
    invalidateRowsFilter();
}

void JobFilterProxyModel::setText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text.trimmed();
    invalidateRowsFilter();
}

bool JobFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QAbstractItemModel *m = sourceModel();
    const QModelIndex idx = m->index(sourceRow, 0, sourceParent);
    const auto status =
        static_cast<dl2::JobStatus>(m->data(idx, JobTableModel::StatusRole).toInt());
    bool ok = true;
    switch (m_state) {
    case StateFilter::Arrived:
        ok = status != dl2::JobStatus::Pending;
        break;
    case StateFilter::Active:
        ok = status == dl2::JobStatus::Running || status == dl2::JobStatus::Queued;
        break;
    case StateFilter::Running:
        ok = status == dl2::JobStatus::Running;
        break;
    case StateFilter::Queued:
        ok = status == dl2::JobStatus::Queued;
        break;
    case StateFilter::Finished:
        ok = status == dl2::JobStatus::Finished;
        break;
    case StateFilter::All:
        break;
    case StateFilter::OutsideWindow:
        ok = m->data(idx, JobTableModel::OutsideWindowRole).toBool() &&
             status != dl2::JobStatus::Finished;
        break;
    }
    if (!ok || m_text.isEmpty())
        return ok;
    const QString id = m->data(idx, Qt::DisplayRole).toString();
    const QString model =
        m->data(m->index(sourceRow, JobTableModel::ModelColumn, sourceParent)).toString();
    if (id == m_text || model.contains(m_text, Qt::CaseInsensitive))
        return true;
    // Imported traces: the source's job id and user too.
    for (int column : {JobTableModel::SourceIdColumn, JobTableModel::UserColumn}) {
        const QString text = m->data(m->index(sourceRow, column, sourceParent)).toString();
        if (!text.isEmpty() && text.contains(m_text, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace dl2console
