#pragma once
// The decisions of the gate's open batch, one row each: job, model, current -> proposed
// allocation, predicted speed-up, the policy's confidence and the verdict so far. The batch
// arrives whole (GateBatch copies from the operations worker): same decision ids -> the rows
// are updated in place (dataChanged), a different set -> model reset. A batch of the live
// history (GateBatch::history) shows its final verdicts with the cluster's acknowledgment.

#include "livetypes.h"
#include "modelprofile.h"

#include <QAbstractTableModel>

namespace dl2console {

class DecisionQueueModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        JobColumn,
        VerdictColumn,
        ModelColumn,
        CurrentColumn,
        ProposedColumn,
        SpeedUpColumn,
        ConfidenceColumn,
        ColumnCount
    };
    enum Role
    {
        DecisionIdRole = Qt::UserRole, // QString
        JobIdRole,                     // int
        PendingRole,                   // bool
        SortRole,                      // numeric value of sortable columns
    };

    explicit DecisionQueueModel(QObject *parent = nullptr);
    void setProfiles(const dl2::ProfileSet &profiles) { m_profiles = profiles; }
    void setBatch(const GateBatch &batch);
    const GateBatch &batch() const { return m_batch; }
    // Row of a decision id, -1 if not in the batch.
    int rowOf(const QString &id) const;
    const dl2::GateEntry *entry(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    static QString allocationText(const dl2::Allocation &a, bool withNodes);
    static QString verdictText(const dl2::GateEntry &e);
    // Predicted speed-up "×1.85", "starts" for a job that had no allocation, "stops".
    static QString speedUpText(const dl2::ResizeDecision &d);

private:
    GateBatch m_batch;
    dl2::ProfileSet m_profiles;
};

} // namespace dl2console
