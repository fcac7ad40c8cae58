#pragma once
// The state the learned policy's network saw at one inference: one row per job of the window
// (empty window positions left out), the probability of each of its three actions (masked
// ones marked, the chosen one flagged), then its named features.

#include "decisionadapter.h"

#include <QAbstractTableModel>
#include <QStringList>

namespace dl2console {

class DecisionStateModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        JobColumn,
        WorkerColumn, // P(add a worker)
        PsColumn,     // P(add a PS)
        BundleColumn, // P(add a worker and a PS)
        FirstFeatureColumn
    };
    enum Role
    {
        SortRole = Qt::UserRole + 1, // the number behind the cell
        MaskedRole,                  // bool: the action is masked (probability 0)
        ChosenRole,                  // bool: the cell / row of the chosen action
        StateRowRole,                // int: row in the network's state (window position)
    };

    explicit DecisionStateModel(QObject *parent = nullptr);

    // `step` may be null (no inference): the model is empty.
    void setStep(const DecisionLog &log, const dl2::DecisionRecord *step);
    // Model names per job type index (shown next to a one-hot type).
    void setTypeNames(const QStringList &names);
    // Row of the job the chosen action acts on, -1 for stop.
    int chosenRow() const;
    int rowOfJob(int jobId) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    double featureValue(int row, const FeatureColumn &column) const;
    // A one-hot group shown as the name it encodes (the job's model), not a number.
    bool isNameColumn(int column) const;

    std::vector<FeatureColumn> m_columns;
    QString m_policy;
    dl2::DecisionRecord m_step;
    bool m_haveStep = false;
    std::vector<int> m_stateRows; // model row -> state row (occupied positions only)
    QStringList m_typeNames;
};

} // namespace dl2console
