#include "auditfilterproxymodel.h"

namespace dl2console {

AuditFilterProxyModel::AuditFilterProxyModel(QObject *parent) : QSortFilterProxyModel(parent) {}

void AuditFilterProxyModel::setJob(int job)
{
    if (job == m_job)
        return;
    m_job = job;
    invalidateFilter();
}

void AuditFilterProxyModel::setAction(const QString &action)
{
    if (action == m_action)
        return;
    m_action = action;
    invalidateFilter();
}

void AuditFilterProxyModel::setTimeRange(const QDateTime &from, const QDateTime &to)
{
    if (from == m_from && to == m_to)
        return;
    m_from = from;
    m_to = to;
    invalidateFilter();
}

void AuditFilterProxyModel::setText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateFilter();
}

bool AuditFilterProxyModel::filterAcceptsRow(int row, const QModelIndex &parent) const
{
    const QAbstractItemModel *m = sourceModel();
    auto value = [&](int column) { return m->index(row, column, parent).data(); };
    if (m_job >= 0 && (value(JobColumn).isNull() || value(JobColumn).toInt() != m_job))
        return false;
    if (!m_action.isEmpty() && value(ActionColumn).toString() != m_action)
        return false;
    if (m_from.isValid() || m_to.isValid()) {
        const QDateTime t = QDateTime::fromString(value(TimeColumn).toString(), Qt::ISODateWithMs);
        if (m_from.isValid() && t < m_from)
            return false;
        if (m_to.isValid() && t > m_to)
            return false;
    }
    if (!m_text.isEmpty()) {
        for (int c = 0; c < ColumnCount; ++c)
            if (value(c).toString().contains(m_text, Qt::CaseInsensitive))
                return true;
        return false;
    }
    return true;
}

} // namespace dl2console
