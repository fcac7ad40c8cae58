#include "comparisonbymodelmodel.h"

namespace dl2console {

ComparisonByModelModel::ComparisonByModelModel(QObject *parent) : QAbstractTableModel(parent) {}

void ComparisonByModelModel::setBreakdown(std::vector<dl2::ModelBreakdown> models,
                                          const std::vector<std::string> &policies)
{
    beginResetModel();
    m_models = std::move(models);
    m_all = dl2::allModels(m_models);
    m_policies.clear();
    if (!m_models.empty())
        for (const auto &p : policies)
            m_policies << QString::fromStdString(p);
    endResetModel();
}

int ComparisonByModelModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || m_models.empty() ? 0 : int(m_models.size()) + 1; // + "All"
}

int ComparisonByModelModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FirstPolicyColumn + int(m_policies.size());
}

QVariant ComparisonByModelModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const bool all = index.row() == int(m_models.size());
    const dl2::ModelBreakdown &m = row(index.row());
    const int column = index.column(), policy = column - FirstPolicyColumn;
    if (role == Qt::TextAlignmentRole)
        return column == ModelColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                     : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    const double bound = m.lowerBound;
    const double mean = policy < 0 ? 0.0 : m.meanJct[size_t(policy)];
    if (role == Qt::DisplayRole) {
        switch (column) {
        case ModelColumn:
            return all ? tr("All") : QString::fromStdString(m.model);
        case JobsColumn:
            return m.jobs;
        case LowerBoundColumn:
            return QString::number(bound, 'f', 2);
        default:
            return QString::number(mean, 'f', 2);
        }
    }
    if (role == Qt::ToolTipRole && policy >= 0) {
        const QString above = bound > 0 ? tr("%1 % above the lower bound")
                                              .arg(QString::number(100.0 * (mean / bound - 1.0), 'f', 1))
                                        : QString();
        if (all)
            return tr("%1: average JCT %2 over all jobs, %3").arg(m_policies[policy]).arg(mean, 0, 'f', 2).arg(above);
        return tr("%1 on %2: mean JCT %3, %4; this type's part of the average JCT: %5")
            .arg(m_policies[policy], QString::fromStdString(m.model))
            .arg(mean, 0, 'f', 2)
            .arg(above)
            .arg(m.part[size_t(policy)], 0, 'f', 2);
    }
    return {};
}

QVariant ComparisonByModelModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (role == Qt::ToolTipRole && section >= FirstPolicyColumn)
        return tr("Mean JCT (slots) of each type's jobs under %1").arg(m_policies[section - FirstPolicyColumn]);
    if (role == Qt::ToolTipRole && section == LowerBoundColumn)
        return tr("Mean JCT of each type's jobs alone on the cluster at their best setting");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ModelColumn:
        return tr("Job type");
    case JobsColumn:
        return tr("Jobs");
    case LowerBoundColumn:
        return tr("Lower bound");
    default:
        return m_policies[section - FirstPolicyColumn];
    }
}

QString ComparisonByModelModel::toCsv() const
{
    QString out = QStringLiteral("model,jobs,lower_bound");
    for (const QString &p : m_policies)
        out += QStringLiteral(",%1 mean_jct,%1 part_of_avg_jct").arg(p);
    out += u'\n';
    for (int r = 0; r < rowCount(); ++r) {
        const dl2::ModelBreakdown &m = row(r);
        out += QString::fromStdString(m.model) + u',' + QString::number(m.jobs) + u',' +
               QString::number(m.lowerBound, 'g', 8);
        for (int p = 0; p < m_policies.size(); ++p)
            out += u',' + QString::number(m.meanJct[size_t(p)], 'g', 8) + u',' +
                   QString::number(m.part[size_t(p)], 'g', 8);
        out += u'\n';
    }
    return out;
}

} // namespace dl2console
