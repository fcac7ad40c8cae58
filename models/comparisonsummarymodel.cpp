#include "comparisonsummarymodel.h"

namespace dl2console {

ComparisonSummaryModel::ComparisonSummaryModel(QObject *parent) : QAbstractTableModel(parent) {}

void ComparisonSummaryModel::setSummary(std::vector<dl2::PolicySummary> summary)
{
    beginResetModel();
    m_summary = std::move(summary);
    endResetModel();
}

int ComparisonSummaryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_summary.size());
}

int ComparisonSummaryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ComparisonSummaryModel::value(const dl2::PolicySummary &s, int column) const
{
    switch (column) {
    case PolicyColumn:
        return QString::fromStdString(s.policy);
    case RunsColumn:
        return s.runs;
    case MeanJctColumn:
        return s.meanAvgJct;
    case StdJctColumn:
        return s.stdAvgJct;
    case RatioDrfColumn:
        return s.ratioToDrf;
    case RatioLowerBoundColumn:
        return s.ratioToLowerBound;
    case MakespanColumn:
        return s.meanMakespan;
    case CompletedColumn:
        return s.meanCompleted;
    }
    return {};
}

QVariant ComparisonSummaryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto &s = m_summary[index.row()];
    const QVariant v = value(s, index.column());
    switch (role) {
    case SortRole:
        return v;
    case Qt::DisplayRole:
        switch (index.column()) {
        case PolicyColumn:
        case RunsColumn:
            return v;
        case RatioDrfColumn:
            return s.ratioToDrf > 0 ? QVariant(QString::number(v.toDouble(), 'f', 3)) : QVariant();
        case RatioLowerBoundColumn:
            return QString::number(v.toDouble(), 'f', 3);
        case CompletedColumn:
            return QString::number(v.toDouble(), 'f', 1);
        default:
            return QString::number(v.toDouble(), 'f', 2);
        }
    case Qt::TextAlignmentRole:
        return index.column() == PolicyColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                              : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant ComparisonSummaryModel::headerData(int section, Qt::Orientation orientation,
                                            int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
        section >= ColumnCount)
        return {};
    static const char *const names[] = {QT_TR_NOOP("Policy"),     QT_TR_NOOP("Runs"),
                                        QT_TR_NOOP("Avg JCT"),    QT_TR_NOOP("\u00b1 std"),
                                        QT_TR_NOOP("\u00f7 DRF"), QT_TR_NOOP("\u00f7 lower bound"),
                                        QT_TR_NOOP("Makespan"),   QT_TR_NOOP("Completed")};
    return tr(names[section]);
}

QString ComparisonSummaryModel::toCsv() const
{
    QString out = QStringLiteral(
        "policy,runs,mean_avg_jct,std_avg_jct,ratio_to_drf,ratio_to_lower_bound,mean_makespan,"
        "mean_completed\n");
    for (const auto &s : m_summary)
        out += QString::fromStdString(s.policy) + u',' + QString::number(s.runs) + u',' +
               QString::number(s.meanAvgJct, 'g', 8) + u',' + QString::number(s.stdAvgJct, 'g', 8) +
               u',' + QString::number(s.ratioToDrf, 'g', 8) + u',' +
               QString::number(s.ratioToLowerBound, 'g', 8) + u',' +
               QString::number(s.meanMakespan, 'g', 8) + u',' +
               QString::number(s.meanCompleted, 'g', 8) + u'\n';
    return out;
}

} // namespace dl2console
