#include "pairjobtablemodel.h"

#include "jobpalette.h"
#include "sessiontypes.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>
#include <cstdlib>

namespace dl2console {

PairJobTableModel::PairJobTableModel(QObject *parent)
    : QAbstractTableModel(parent), m_profiles(dl2::ProfileSet::reference())
{
}

void PairJobTableModel::setProfiles(const dl2::ProfileSet &profiles)
{
    beginResetModel();
    m_profiles = profiles;
    endResetModel();
}

void PairJobTableModel::setPolicies(const QString &left, const QString &right)
{
    m_policies = {left, right};
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

void PairJobTableModel::clear()
{
    if (m_jobs[0].empty() && m_jobs[1].empty())
        return;
    beginResetModel();
    m_jobs = {};
    m_slots = {-1, -1};
    m_rowOfJob.clear();
    endResetModel();
}

void PairJobTableModel::setSnapshots(const dl2::SlotSnapshot &left, const dl2::SlotSnapshot &right)
{
    // Both sides replay the same trace: same jobs in the same order. A mismatch (one side not
    // loaded yet) shows the side that has jobs and leaves the other empty.
    const auto &rows = left.jobs.size() >= right.jobs.size() ? left.jobs : right.jobs;
    const bool sameJobs =
        rows.size() == static_cast<size_t>(rowCount()) &&
        std::equal(rows.begin(), rows.end(), m_jobs[0].size() >= m_jobs[1].size() ? m_jobs[0].begin()
                                                                                  : m_jobs[1].begin(),
                   [](const auto &a, const auto &b) { return a.id == b.id; });
    if (!sameJobs) {
        beginResetModel();
        m_jobs = {left.jobs, right.jobs};
        m_slots = {left.slot, right.slot};
        m_rowOfJob.clear();
        for (size_t i = 0; i < rows.size(); ++i)
            m_rowOfJob[rows[i].id] = static_cast<int>(i);
        endResetModel();
        return;
    }
    m_jobs = {left.jobs, right.jobs};
    m_slots = {left.slot, right.slot};
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int PairJobTableModel::rowOfJob(int jobId) const
{
    const auto it = m_rowOfJob.find(jobId);
    return it == m_rowOfJob.end() ? -1 : it->second;
}

const dl2::JobState *PairJobTableModel::job(int side, int row) const
{
    const auto &jobs = m_jobs[side];
    return row >= 0 && row < static_cast<int>(jobs.size()) ? &jobs[row] : nullptr;
}

int PairJobTableModel::jobAt(int row) const
{
    const dl2::JobState *j = job(0, row) ? job(0, row) : job(1, row);
    return j ? j->id : -1;
}

PairJobTableModel::Allocation PairJobTableModel::allocation(int side, int row) const
{
    const dl2::JobState *j = job(side, row);
    if (!j || !heldAllocation(*j, m_slots[side]))
        return {};
    return {j->workers, j->ps};
}

bool PairJobTableModel::differs(int row) const
{
    const dl2::JobState *a = job(0, row), *b = job(1, row);
    if (!a || !b)
        return false;
    const Allocation x = allocation(0, row), y = allocation(1, row);
    const bool doneA = a->status == dl2::JobStatus::Finished,
               doneB = b->status == dl2::JobStatus::Finished;
    return x.workers != y.workers || x.ps != y.ps || doneA != doneB;
}

int PairJobTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0
                            : static_cast<int>(std::max(m_jobs[0].size(), m_jobs[1].size()));
}

int PairJobTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString PairJobTableModel::allocationText(int side, int row) const
{
    const dl2::JobState *j = job(side, row);
    if (!j)
        return {};
    const Allocation a = allocation(side, row);
    switch (j->status) {
    case dl2::JobStatus::Pending:
        return tr("not arrived");
    case dl2::JobStatus::Queued:
        return tr("queued");
    case dl2::JobStatus::Running:
        return tr("%1 w · %2 ps").arg(a.workers).arg(a.ps);
    case dl2::JobStatus::Finished:
        return j->finishTime >= m_slots[side] ? tr("%1 w · %2 ps, done").arg(a.workers).arg(a.ps)
                                             : tr("done at %1").arg(j->finishTime, 0, 'f', 1);
    }
    return {};
}

QString PairJobTableModel::differenceText(int row) const
{
    const dl2::JobState *a = job(0, row), *b = job(1, row);
    if (!a || !b || a->status == dl2::JobStatus::Pending)
        return {};
    const bool doneA = a->status == dl2::JobStatus::Finished,
               doneB = b->status == dl2::JobStatus::Finished;
    if (doneA != doneB)
        return tr("only %1 done").arg(doneA ? m_policies[0] : m_policies[1]);
    const Allocation x = allocation(0, row), y = allocation(1, row);
    if (x.workers == y.workers && x.ps == y.ps)
        return doneA ? QString() : tr("same");
    auto signedText = [](int d) { return d > 0 ? QStringLiteral("+%1").arg(d) : QString::number(d); };
    QStringList parts;
    if (y.workers != x.workers)
        parts << tr("%1 w").arg(signedText(y.workers - x.workers));
    if (y.ps != x.ps)
        parts << tr("%1 ps").arg(signedText(y.ps - x.ps));
    return parts.join(QStringLiteral(", "));
}

QVariant PairJobTableModel::sortValue(int row, int column) const
{
    const dl2::JobState *a = job(0, row), *b = job(1, row);
    const dl2::JobState *any = a ? a : b;
    if (!any)
        return {};
    auto progress = [](const dl2::JobState *j) {
        return j && j->totalEpochs > 0 ? j->doneEpochs / j->totalEpochs : 0.0;
    };
    auto tasks = [this, row](int side) {
        const Allocation x = allocation(side, row);
        return x.workers + x.ps;
    };
    switch (column) {
    case IdColumn:
        return any->id;
    case ModelColumn:
        return any->type;
    case ArrivalColumn:
        return any->arrivalSlot;
    case LeftAllocationColumn:
        return tasks(0);
    case LeftProgressColumn:
        return progress(a);
    case RightAllocationColumn:
        return tasks(1);
    case RightProgressColumn:
        return progress(b);
    case DifferenceColumn: {
        const Allocation x = allocation(0, row), y = allocation(1, row);
        return std::abs(y.workers - x.workers) + std::abs(y.ps - x.ps) +
               (differs(row) && x.workers == y.workers && x.ps == y.ps ? 0.5 : 0.0);
    }
    }
    return {};
}

QVariant PairJobTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const int row = index.row(), column = index.column();
    const dl2::JobState *a = job(0, row), *b = job(1, row);
    const dl2::JobState *any = a ? a : b;
    if (!any)
        return {};
    switch (role) {
    case JobIdRole:
        return any->id;
    case SortRole:
        return sortValue(row, column);
    case DiffersRole:
        return differs(row);
    case ActiveRole:
        return (a && a->active()) || (b && b->active());
    case Qt::DisplayRole:
        switch (column) {
        case IdColumn:
            return any->id;
        case ModelColumn:
            return any->type >= 0 && any->type < m_profiles.size()
                       ? QString::fromStdString(m_profiles[any->type].name)
                       : QString::number(any->type);
        case ArrivalColumn:
            return any->arrivalSlot;
        case LeftAllocationColumn:
            return allocationText(0, row);
        case RightAllocationColumn:
            return allocationText(1, row);
        case LeftProgressColumn:
        case RightProgressColumn: {
            const dl2::JobState *j = column == LeftProgressColumn ? a : b;
            return j && j->totalEpochs > 0
                       ? QStringLiteral("%1 %").arg(100.0 * j->doneEpochs / j->totalEpochs, 0, 'f', 0)
                       : QString();
        }
        case DifferenceColumn:
            return differenceText(row);
        }
        return {};
    case Qt::DecorationRole:
        if (column == IdColumn)
            return JobPalette::color(any->id, JobPalette::isDark(
                                                  QGuiApplication::palette().color(QPalette::Window)));
        return {};
    case Qt::FontRole:
        if (column == DifferenceColumn && differs(row)) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole:
        return column == ModelColumn || column == LeftAllocationColumn ||
                       column == RightAllocationColumn || column == DifferenceColumn
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (column == DifferenceColumn)
            return tr("%1 minus %2: workers (w) and parameter servers (ps)")
                .arg(m_policies[1], m_policies[0]);
        return {};
    }
    return {};
}

QVariant PairJobTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IdColumn:
        return tr("Job");
    case ModelColumn:
        return tr("Model");
    case ArrivalColumn:
        return tr("Arrival");
    case LeftAllocationColumn:
        return m_policies[0].isEmpty() ? tr("Left") : m_policies[0];
    case LeftProgressColumn:
        return tr("%1 done").arg(m_policies[0].isEmpty() ? tr("left") : m_policies[0]);
    case RightProgressColumn:
        return tr("%1 done").arg(m_policies[1].isEmpty() ? tr("right") : m_policies[1]);
    case RightAllocationColumn:
        return m_policies[1].isEmpty() ? tr("Right") : m_policies[1];
    case DifferenceColumn:
        return tr("%1 − %2").arg(m_policies[1].isEmpty() ? tr("right") : m_policies[1],
                                 m_policies[0].isEmpty() ? tr("left") : m_policies[0]);
    }
    return {};
}

PairJobFilterProxyModel::PairJobFilterProxyModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(PairJobTableModel::SortRole);
}

void PairJobFilterProxyModel::setFilter(Filter filter)
{
    if (filter == m_filter)
        return;
    m_filter = filter;
    invalidateFilter();
}

bool PairJobFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex i = sourceModel()->index(sourceRow, 0, sourceParent);
    switch (m_filter) {
    case Filter::Active:
        return i.data(PairJobTableModel::ActiveRole).toBool();
    case Filter::Differing:
        return i.data(PairJobTableModel::DiffersRole).toBool();
    case Filter::All:
        return true;
    }
    return true;
}

} // namespace dl2console
