#include "auditeventsmodel.h"

#include "auditevents.h"
#include "auditfilterproxymodel.h"

#include <algorithm>
#include <set>

namespace dl2console {

AuditEventsModel::AuditEventsModel(QObject *parent) : QAbstractTableModel(parent) {}

QString AuditEventsModel::reload(const QString &path)
{
    std::vector<dl2::AuditLog::EventRow> events;
    try {
        events = dl2::readAuditEvents(path.toStdString());
    } catch (const std::exception &e) {
        return QString::fromStdString(e.what());
    }
    std::reverse(events.begin(), events.end());
    beginResetModel();
    m_events = std::move(events);
    endResetModel();
    return {};
}

void AuditEventsModel::clear()
{
    beginResetModel();
    m_events.clear();
    endResetModel();
}

QStringList AuditEventsModel::kinds() const
{
    std::set<std::string> kinds;
    for (const auto &e : m_events)
        kinds.insert(e.kind);
    QStringList out;
    for (const auto &k : kinds)
        out << QString::fromStdString(k);
    return out;
}

int AuditEventsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_events.size());
}

int AuditEventsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : AuditFilterProxyModel::ColumnCount;
}

QVariant AuditEventsModel::data(const QModelIndex &index, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const auto &e = m_events[static_cast<size_t>(index.row())];
    switch (index.column()) {
    case AuditFilterProxyModel::SeqColumn: return e.seq;
    case AuditFilterProxyModel::TimeColumn: return QString::fromStdString(e.time);
    case AuditFilterProxyModel::JobColumn: return e.job;
    case AuditFilterProxyModel::ActionColumn: return QString::fromStdString(e.kind);
    case AuditFilterProxyModel::ActorColumn: return QString::fromStdString(e.actor);
    case AuditFilterProxyModel::DecisionColumn: return QString::fromStdString(e.decisionId);
    case AuditFilterProxyModel::BeforeColumn: return QString::fromStdString(e.before);
    case AuditFilterProxyModel::AfterColumn: return QString::fromStdString(e.after);
    case AuditFilterProxyModel::DetailColumn: return QString::fromStdString(e.detail);
    case AuditFilterProxyModel::PolicyVersionColumn:
        return QString::fromStdString(e.policyVersion);
    }
    return {};
}

QVariant AuditEventsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case AuditFilterProxyModel::SeqColumn: return tr("#");
    case AuditFilterProxyModel::TimeColumn: return tr("Time (UTC)");
    case AuditFilterProxyModel::JobColumn: return tr("Job");
    case AuditFilterProxyModel::ActionColumn: return tr("Action");
    case AuditFilterProxyModel::ActorColumn: return tr("Actor");
    case AuditFilterProxyModel::DecisionColumn: return tr("Decision");
    case AuditFilterProxyModel::BeforeColumn: return tr("Before");
    case AuditFilterProxyModel::AfterColumn: return tr("After");
    case AuditFilterProxyModel::DetailColumn: return tr("Detail");
    case AuditFilterProxyModel::PolicyVersionColumn: return tr("Policy version");
    }
    return {};
}

} // namespace dl2console
