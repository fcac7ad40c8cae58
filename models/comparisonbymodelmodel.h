#pragma once
// A finished comparison broken down by job type (dl2::breakdownByModel), for the comparison
// page's "By job type" tab: one row per model and an "All" row; columns the number of jobs,
// their lower bound, then each policy's mean JCT of those jobs (the tooltip adds how far above
// the lower bound it is and the type's part of the policy's average JCT).

#include "experiment.h"

#include <QAbstractTableModel>
#include <QStringList>

namespace dl2console {

class ComparisonByModelModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        ModelColumn,
        JobsColumn,
        LowerBoundColumn,
        FirstPolicyColumn // then one column per policy
    };

    explicit ComparisonByModelModel(QObject *parent = nullptr);

    // `policies` in the order of ModelBreakdown::meanJct; an empty breakdown clears the table.
    void setBreakdown(std::vector<dl2::ModelBreakdown> models, const std::vector<std::string> &policies);
    const std::vector<dl2::ModelBreakdown> &breakdown() const { return m_models; }
    // The "All" row's value for policy p: its average JCT over all jobs (the sum of its parts).
    double pooledAverage(int policy) const { return m_all.meanJct[size_t(policy)]; }
    // As CSV: model,jobs,lower_bound, then "<policy> mean_jct" and "<policy> part_of_avg_jct"
    // per policy; the last line is "all".
    QString toCsv() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    const dl2::ModelBreakdown &row(int r) const { return r < int(m_models.size()) ? m_models[size_t(r)] : m_all; }

    std::vector<dl2::ModelBreakdown> m_models;
    dl2::ModelBreakdown m_all; // dl2::allModels(m_models): the "All" row
    QStringList m_policies;
};

} // namespace dl2console
