#pragma once
// Filters the audit log's events (source: AuditEventsModel, columns in Column order) by job,
// action, time range and free text.

#include <QDateTime>
#include <QSortFilterProxyModel>

namespace dl2console {

class AuditFilterProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    enum Column
    {
        SeqColumn,
        TimeColumn,
        JobColumn,
        ActionColumn,
        ActorColumn,
        DecisionColumn,
        BeforeColumn,
        AfterColumn,
        DetailColumn,
        PolicyVersionColumn, // of the policy that proposed the event's decision (schema 3)
        ColumnCount
    };
    explicit AuditFilterProxyModel(QObject *parent = nullptr);

    void setJob(int job); // -1: every job
    int job() const { return m_job; }
    void setAction(const QString &action); // empty: every action; else exact kind
    void setTimeRange(const QDateTime &from, const QDateTime &to); // invalid = open end
    void setText(const QString &text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    int m_job = -1;
    QString m_action;
    QDateTime m_from, m_to;
    QString m_text;
};

} // namespace dl2console
