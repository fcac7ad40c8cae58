#include "decisionqueuemodel.h"

#include <QBrush>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>
#include <set>

namespace dl2console {

DecisionQueueModel::DecisionQueueModel(QObject *parent)
    : QAbstractTableModel(parent), m_profiles(dl2::ProfileSet::reference())
{
}

void DecisionQueueModel::setBatch(const GateBatch &batch)
{
    auto ids = [](const GateBatch &b) {
        std::vector<std::string> out;
        if (b.open || b.history)
            for (const auto &e : b.entries)
                out.push_back(e.decision.id);
        return out;
    };
    const bool sameRows = ids(batch) == ids(m_batch);
    if (!sameRows) {
        beginResetModel();
        m_batch = batch;
        if (!m_batch.open && !m_batch.history)
            m_batch.entries.clear();
        endResetModel();
        return;
    }
    m_batch = batch;
    if (!m_batch.open && !m_batch.history)
        m_batch.entries.clear();
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int DecisionQueueModel::rowOf(const QString &id) const
{
    const std::string key = id.toStdString();
    for (size_t i = 0; i < m_batch.entries.size(); ++i)
        if (m_batch.entries[i].decision.id == key)
            return static_cast<int>(i);
    return -1;
}

const dl2::GateEntry *DecisionQueueModel::entry(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    return &m_batch.entries[static_cast<size_t>(row)];
}

int DecisionQueueModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_batch.entries.size());
}

int DecisionQueueModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString DecisionQueueModel::allocationText(const dl2::Allocation &a, bool withNodes)
{
    if (a.ps == 0 && a.workers == 0)
        return tr("none");
    QString text = tr("%1 PS · %2 W").arg(a.ps).arg(a.workers);
    if (withNodes && !a.tasks.empty()) {
        std::set<int> nodes;
        for (const auto &t : a.tasks)
            if (t.node >= 0)
                nodes.insert(t.node);
        QStringList names;
        for (int n : nodes)
            names << QString::number(n);
        if (names.size() > 3)
            text += tr(" · %1 nodes").arg(names.size());
        else if (!names.isEmpty())
            text += tr(" on n%1").arg(names.join(QStringLiteral(", n")));
    }
    return text;
}

QString DecisionQueueModel::verdictText(const dl2::GateEntry &e)
{
    const QString reason = QString::fromStdString(e.reason);
    switch (e.verdict) {
    case dl2::GateEntry::Verdict::Pending:
        return tr("pending");
    case dl2::GateEntry::Verdict::Approved:
        if (reason == QLatin1String("operator override"))
            return tr("overridden");
        return reason == QLatin1String("operator") || reason.isEmpty()
                   ? tr("approved")
                   : tr("approved (%1)").arg(reason);
    case dl2::GateEntry::Verdict::Rejected:
        return reason == QLatin1String("operator") || reason.isEmpty()
                   ? tr("rejected")
                   : tr("rejected (%1)").arg(reason);
    }
    return {};
}

QString DecisionQueueModel::speedUpText(const dl2::ResizeDecision &d)
{
    if (d.speedAfter <= 0.0)
        return d.speedBefore > 0.0 ? tr("stops") : tr("—");
    if (d.speedBefore <= 0.0)
        return tr("starts");
    return QStringLiteral("×%1").arg(d.speedAfter / d.speedBefore, 0, 'f', 2);
}

QVariant DecisionQueueModel::data(const QModelIndex &index, int role) const
{
    const dl2::GateEntry *e = index.isValid() ? entry(index.row()) : nullptr;
    if (!e || index.column() >= ColumnCount)
        return {};
    const dl2::ResizeDecision &d = e->decision;
    const int type = static_cast<size_t>(index.row()) < m_batch.jobTypes.size()
                         ? m_batch.jobTypes[static_cast<size_t>(index.row())]
                         : -1;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case JobColumn:
            return QString::number(d.job);
        case ModelColumn:
            return type >= 0 && type < m_profiles.size()
                       ? QString::fromStdString(m_profiles[type].name)
                       : QStringLiteral("?");
        case CurrentColumn:
            return allocationText(d.from, true);
        case ProposedColumn:
            return allocationText(d.to, true);
        case SpeedUpColumn:
            return speedUpText(d);
        case ConfidenceColumn:
            return d.probability ? QStringLiteral("%1 %").arg(100.0 * *d.probability, 0, 'f', 0)
                                 : QStringLiteral("—");
        case VerdictColumn: {
            const size_t row = static_cast<size_t>(index.row());
            if (m_batch.history && row < m_batch.acks.size() && !m_batch.acks[row].isEmpty())
                return tr("%1 · %2").arg(verdictText(*e), m_batch.acks[row]);
            return verdictText(*e);
        }
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == SpeedUpColumn)
            return tr("Predicted by the speed model: %1 → %2 steps/s")
                .arg(d.speedBefore, 0, 'f', 2)
                .arg(d.speedAfter, 0, 'f', 2);
        if (index.column() == ConfidenceColumn) {
            // Filled by the planner for learned policies (PolicyPlanner::lastConfidence).
            QString tip = d.probability
                              ? tr("Mean probability of the policy's actions on this job")
                          : d.value ? tr("No inference placed a task for this job (a forced "
                                         "bundle or a scale-down)")
                                    : tr("This policy reports no action probability");
            if (d.value)
                tip += tr("\nValue estimate V(s): %1").arg(*d.value, 0, 'f', 3);
            return tip;
        }
        return QString::fromStdString(d.id);
    case Qt::TextAlignmentRole:
        if (index.column() == JobColumn || index.column() == SpeedUpColumn ||
            index.column() == ConfidenceColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::FontRole:
        if (index.column() == VerdictColumn && e->verdict == dl2::GateEntry::Verdict::Pending) {
            QFont f;
            f.setBold(true);
            return f;
        }
        break;
    case Qt::ForegroundRole:
        if (e->verdict == dl2::GateEntry::Verdict::Rejected)
            return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        break;
    case DecisionIdRole:
        return QString::fromStdString(d.id);
    case JobIdRole:
        return d.job;
    case PendingRole:
        return e->verdict == dl2::GateEntry::Verdict::Pending;
    case SortRole:
        switch (index.column()) {
        case JobColumn:
            return d.job;
        case SpeedUpColumn:
            return d.speedBefore > 0 ? d.speedAfter / d.speedBefore : d.speedAfter;
        case ConfidenceColumn:
            return d.probability.value_or(-1.0);
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    return {};
}

QVariant DecisionQueueModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case JobColumn:
            return tr("Job");
        case ModelColumn:
            return tr("Model");
        case CurrentColumn:
            return tr("Current");
        case ProposedColumn:
            return tr("Proposed");
        case SpeedUpColumn:
            return tr("Speed-up");
        case ConfidenceColumn:
            return tr("Confidence");
        case VerdictColumn:
            return tr("Verdict");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case CurrentColumn:
            return tr("Allocation that ran in the last slot (parameter servers · workers, nodes)");
        case ProposedColumn:
            return tr("Allocation the policy proposes, or the operator's override");
        case SpeedUpColumn:
            return tr("Predicted training speed after / before");
        case ConfidenceColumn:
            return tr("Probability of the policy's action, when the policy has one");
        }
    }
    return {};
}

} // namespace dl2console
