#include "decisionstatemodel.h"

#include "decisionstepsmodel.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

namespace dl2console {

DecisionStateModel::DecisionStateModel(QObject *parent) : QAbstractTableModel(parent) {}

void DecisionStateModel::setStep(const DecisionLog &log, const dl2::DecisionRecord *step)
{
    beginResetModel();
    m_columns = log.columns;
    m_policy = log.policy;
    m_haveStep = step != nullptr;
    m_step = step ? *step : dl2::DecisionRecord{};
    m_stateRows.clear();
    for (int r = 0; r < m_step.rows(); ++r)
        if (m_step.jobIds[static_cast<size_t>(r)] >= 0)
            m_stateRows.push_back(r);
    endResetModel();
}

void DecisionStateModel::setTypeNames(const QStringList &names)
{
    if (names == m_typeNames)
        return;
    m_typeNames = names;
    if (!m_stateRows.empty())
        Q_EMIT dataChanged(index(0, FirstFeatureColumn), index(rowCount() - 1, columnCount() - 1));
}

int DecisionStateModel::chosenRow() const
{
    if (!m_haveStep || m_step.stop)
        return -1;
    const int stateRow = m_step.action / 3;
    for (size_t i = 0; i < m_stateRows.size(); ++i)
        if (m_stateRows[i] == stateRow)
            return static_cast<int>(i);
    return -1;
}

int DecisionStateModel::rowOfJob(int jobId) const
{
    for (size_t i = 0; i < m_stateRows.size(); ++i)
        if (m_step.jobIds[static_cast<size_t>(m_stateRows[i])] == jobId)
            return static_cast<int>(i);
    return -1;
}

int DecisionStateModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_stateRows.size());
}

int DecisionStateModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FirstFeatureColumn + static_cast<int>(m_columns.size());
}

bool DecisionStateModel::isNameColumn(int column) const
{
    if (column < FirstFeatureColumn)
        return false;
    const FeatureColumn &c = m_columns[static_cast<size_t>(column - FirstFeatureColumn)];
    return c.count > 1 && !c.bits;
}

double DecisionStateModel::featureValue(int stateRow, const FeatureColumn &c) const
{
    const size_t base = static_cast<size_t>(stateRow) * static_cast<size_t>(m_step.jobDim);
    if (c.count == 1)
        return m_step.feature(base + static_cast<size_t>(c.first));
    if (c.bits) {
        int set = 0;
        for (int k = 0; k < c.count; ++k)
            set += m_step.feature(base + static_cast<size_t>(c.first + k)) > 0.5f ? 1 : 0;
        return set;
    }
    for (int k = 0; k < c.count; ++k) // one-hot: the hot index
        if (m_step.feature(base + static_cast<size_t>(c.first + k)) > 0.5f)
            return k;
    return -1;
}

QVariant DecisionStateModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const int stateRow = m_stateRows[static_cast<size_t>(index.row())];
    const int jobId = m_step.jobIds[static_cast<size_t>(stateRow)];
    const int column = index.column();
    const bool action = column >= WorkerColumn && column <= BundleColumn;
    const int a = 3 * stateRow + (column - WorkerColumn);
    const bool masked = action && m_step.isMasked(a);
    const bool chosenRow = !m_step.stop && m_step.action / 3 == stateRow;
    const bool chosen = action && a == m_step.action;

    switch (role) {
    case Qt::DisplayRole:
        if (column == JobColumn)
            return QString::number(jobId);
        if (action)
            return masked
                       ? tr("masked")
                       : DecisionStepsModel::percent(m_step.probabilities[static_cast<size_t>(a)]);
        {
            const FeatureColumn &c = m_columns[static_cast<size_t>(column - FirstFeatureColumn)];
            const double v = featureValue(stateRow, c);
            if (c.count > 1 && !c.bits) {
                const int t = static_cast<int>(v);
                return t >= 0 && t < m_typeNames.size() ? m_typeNames[t] : QString::number(t);
            }
            return QString::number(v, 'g', 3);
        }
    case SortRole:
        if (column == JobColumn)
            return jobId;
        if (action)
            return m_step.probabilities[static_cast<size_t>(a)];
        return featureValue(stateRow, m_columns[static_cast<size_t>(column - FirstFeatureColumn)]);
    case MaskedRole:
        return masked;
    case ChosenRole:
        return action ? chosen : chosenRow;
    case StateRowRole:
        return stateRow;
    case Qt::TextAlignmentRole:
        if (isNameColumn(column))
            return QVariant(Qt::AlignLeft | Qt::AlignVCenter); // a model name
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (masked)
            return QGuiApplication::palette().brush(QPalette::PlaceholderText);
        if (chosen)
            return QGuiApplication::palette().brush(QPalette::HighlightedText);
        break;
    case Qt::BackgroundRole:
        if (chosen)
            return QGuiApplication::palette().brush(QPalette::Highlight);
        if (chosenRow) {
            QColor c = QGuiApplication::palette().color(QPalette::Highlight);
            c.setAlphaF(0.18f);
            return c;
        }
        break;
    case Qt::FontRole:
        if (chosen || (column == JobColumn && chosenRow)) {
            QFont f;
            f.setBold(true);
            return f;
        }
        if (masked) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        break;
    case Qt::ToolTipRole:
        if (masked)
            return m_policy == QLatin1String("dl2-plus")
                       ? tr("Masked: job %1 is at its cap for this task, or the task fits on "
                            "no node")
                             .arg(jobId)
                       : tr("Masked: job %1 is at its cap for this task").arg(jobId);
        if (chosen)
            return tr("The action the policy chose at this inference");
        if (isNameColumn(column))
            return data(index, Qt::DisplayRole); // a model name, which the view may elide
        break;
    default:
        break;
    }
    return {};
}

QVariant DecisionStateModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case JobColumn:
            return tr("Job");
        case WorkerColumn:
            return tr("P(worker)");
        case PsColumn:
            return tr("P(PS)");
        case BundleColumn:
            return tr("P(bundle)");
        default:
            return m_columns[static_cast<size_t>(section - FirstFeatureColumn)].name;
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case JobColumn:
            return tr("Job id (rows in the order of the network's input)");
        case WorkerColumn:
            return tr("Probability of adding one worker to this job");
        case PsColumn:
            return tr("Probability of adding one parameter server to this job");
        case BundleColumn:
            return tr("Probability of adding one worker and one PS to this job");
        default:
            return m_columns[static_cast<size_t>(section - FirstFeatureColumn)].description;
        }
    }
    return {};
}

} // namespace dl2console
