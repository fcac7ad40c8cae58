#pragma once
// The inferences of the slot on display, one row each: which action the learned policy took,
// on which job, with what probability, V(s) before it and whether the task was placed.

#include "decisionadapter.h"

#include <QAbstractTableModel>

namespace dl2console {

class DecisionStepsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        InferenceColumn,
        ActionColumn,
        JobColumn,
        ProbabilityColumn,
        ValueColumn,
        ResultColumn,
        ColumnCount
    };
    enum Role
    {
        SortRole = Qt::UserRole + 1, // numeric value
        JobIdRole,                   // -1 for stop
    };

    explicit DecisionStepsModel(QObject *parent = nullptr);

    void setLog(const DecisionLog &log);
    const DecisionLog &log() const { return m_log; }
    const dl2::DecisionRecord *step(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // "62 %" / "4.5 %" / "<0.1 %": how the console shows a probability.
    static QString percent(double p);
    // "placed", "no capacity: slot ends", "slot ends" (stop).
    static QString resultText(const dl2::DecisionRecord &step);

private:
    DecisionLog m_log;
};

} // namespace dl2console
