#include "decisionstepsmodel.h"

#include <QFont>

namespace dl2console {

DecisionStepsModel::DecisionStepsModel(QObject *parent) : QAbstractTableModel(parent) {}

void DecisionStepsModel::setLog(const DecisionLog &log)
{
    beginResetModel();
    m_log = log;
    endResetModel();
}

const dl2::DecisionRecord *DecisionStepsModel::step(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_log.steps.size()))
        return nullptr;
    return &m_log.steps[static_cast<size_t>(row)];
}

int DecisionStepsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_log.steps.size());
}

int DecisionStepsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString DecisionStepsModel::percent(double p)
{
    if (p <= 0.0)
        return QStringLiteral("0 %");
    if (p < 0.001)
        return QStringLiteral("<0.1 %");
    return QStringLiteral("%1 %").arg(100.0 * p, 0, 'f', p < 0.1 ? 1 : 0);
}

QString DecisionStepsModel::resultText(const dl2::DecisionRecord &s)
{
    if (s.stop)
        return tr("slot ends");
    const QString result = taskResultText(s);
    QString text = result.isEmpty() ? tr("placed") : tr("%1: slot ends").arg(result);
    if (s.explored)
        text += tr(" (explored)");
    return text;
}

QVariant DecisionStepsModel::data(const QModelIndex &index, int role) const
{
    const dl2::DecisionRecord *s = step(index.row());
    if (!s || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const double p = s->probabilities[static_cast<size_t>(s->action)];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case InferenceColumn:
            return s->inference + 1;
        case ActionColumn:
            return actionKindName(s->action, s->rows());
        case JobColumn:
            return s->jobId < 0 ? QString() : QString::number(s->jobId);
        case ProbabilityColumn:
            return percent(p);
        case ValueColumn: // none when the value network was never trained (the notes say so)
            return s->value ? QString::number(*s->value, 'f', 2) : QStringLiteral("—");
        case ResultColumn:
            return resultText(*s);
        }
        break;
    case SortRole:
        switch (index.column()) {
        case InferenceColumn:
            return s->inference;
        case JobColumn:
            return s->jobId;
        case ProbabilityColumn:
            return p;
        case ValueColumn:
            return s->value ? QVariant(*s->value) : QVariant();
        default:
            return data(index, Qt::DisplayRole);
        }
    case JobIdRole:
        return s->jobId;
    case Qt::TextAlignmentRole:
        if (index.column() == ActionColumn || index.column() == ResultColumn)
            return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        if (s->stop || s->result != dl2::AddResult::Ok) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        break;
    case Qt::ToolTipRole:
        return tr("Inference %1: %2 of %3 valid actions had a probability > 0; the policy "
                  "took the most likely one (greedy).")
            .arg(s->inference + 1)
            .arg(s->validActions())
            .arg(s->probabilities.size());
    default:
        break;
    }
    return {};
}

QVariant DecisionStepsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case InferenceColumn:
            return tr("#");
        case ActionColumn:
            return tr("Action");
        case JobColumn:
            return tr("Job");
        case ProbabilityColumn:
            return tr("p");
        case ValueColumn:
            return tr("V(s)");
        case ResultColumn:
            return tr("Result");
        }
    } else if (role == Qt::ToolTipRole) {
        switch (section) {
        case InferenceColumn:
            return tr("Inference number within the slot");
        case ProbabilityColumn:
            return tr("Probability of the chosen action (masked softmax)");
        case ValueColumn:
            return tr("Value network's estimate V(s) of the state before the action");
        case ResultColumn:
            return tr("Whether the task was placed; a failed allocation or stop ends the slot");
        default:
            break;
        }
    }
    return {};
}

} // namespace dl2console
