#pragma once
// Sorting (numeric, via JobTableModel::SortRole) and filtering of the job table: by state
// group and by a free-text match on job id or model name.

#include <QSortFilterProxyModel>

namespace dl2console {

class JobFilterProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    enum class StateFilter
    {
        Active,
        Arrived,
        Running,
        Queued,
        Finished,
        All,
        OutsideWindow // running or queued, left out of the policy's window (dl2) this slot
    };

    explicit JobFilterProxyModel(QObject *parent = nullptr);

    void setStateFilter(StateFilter filter);
    StateFilter stateFilter() const { return m_state; }
    void setText(const QString &text);
    QString text() const { return m_text; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    StateFilter m_state = StateFilter::Active;
    QString m_text;
};

} // namespace dl2console
