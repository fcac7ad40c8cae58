#pragma once
// The jobs of one slot under two policies, one row per job of the trace (trace order, stable
// across slots): each side's allocation (workers / PSs, or its state when it holds none) and
// progress, and the difference right - left. A proxy filters to active or differing jobs.

#include "jobstate.h"
#include "modelprofile.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <array>
#include <unordered_map>
#include <vector>

namespace dl2console {

class PairJobTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        IdColumn,
        LeftAllocationColumn,
        RightAllocationColumn,
        DifferenceColumn,
        LeftProgressColumn,
        RightProgressColumn,
        ModelColumn, // last: what differs matters more than what the job trains
        ArrivalColumn,
        ColumnCount
    };
    enum Role
    {
        JobIdRole = Qt::UserRole + 1,
        SortRole,
        DiffersRole, // the two allocations (or finished states) differ
        ActiveRole,  // arrived and unfinished under at least one policy
    };

    // Workers and PSs a job holds in the slot (0 when it holds nothing).
    struct Allocation
    {
        int workers = 0;
        int ps = 0;
    };

    explicit PairJobTableModel(QObject *parent = nullptr);

    void setProfiles(const dl2::ProfileSet &profiles);
    void setPolicies(const QString &left, const QString &right);
    void setSnapshots(const dl2::SlotSnapshot &left, const dl2::SlotSnapshot &right);
    void clear();

    int rowOfJob(int jobId) const;
    int jobAt(int row) const;
    Allocation allocation(int side, int row) const;
    bool differs(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    const dl2::JobState *job(int side, int row) const;
    QString allocationText(int side, int row) const;
    QString differenceText(int row) const;
    QVariant sortValue(int row, int column) const;

    dl2::ProfileSet m_profiles;
    std::array<QString, 2> m_policies;
    std::array<std::vector<dl2::JobState>, 2> m_jobs;
    std::array<int, 2> m_slots{-1, -1};
    std::unordered_map<int, int> m_rowOfJob;
};

class PairJobFilterProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    enum class Filter
    {
        Active,
        Differing,
        All
    };
    explicit PairJobFilterProxyModel(QObject *parent = nullptr);
    void setFilter(Filter filter);
    Filter filter() const { return m_filter; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    Filter m_filter = Filter::Active;
};

} // namespace dl2console
