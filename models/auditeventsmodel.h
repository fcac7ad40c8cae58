#pragma once
// The audit log's events as a table (columns in AuditFilterProxyModel::Column order, newest
// first), read through core's read-only reader (auditevents.h): no SQL above core.

#include "auditlog.h"

#include <QAbstractTableModel>
#include <QStringList>
#include <vector>

namespace dl2console {

class AuditEventsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    explicit AuditEventsModel(QObject *parent = nullptr);

    // Re-reads the log at `path`; on failure keeps the rows it had and returns why.
    QString reload(const QString &path);
    void clear();
    // The actions (event kinds) present, sorted.
    QStringList kinds() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<dl2::AuditLog::EventRow> m_events; // newest first
};

} // namespace dl2console
