#pragma once
// One row per policy of a finished comparison (dl2::PolicySummary), for the comparison page.

#include "experiment.h"

#include <QAbstractTableModel>

namespace dl2console {

class ComparisonSummaryModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        PolicyColumn,
        RunsColumn,
        MeanJctColumn,
        StdJctColumn,
        RatioDrfColumn,
        RatioLowerBoundColumn,
        MakespanColumn,
        CompletedColumn,
        ColumnCount
    };
    enum Role
    {
        SortRole = Qt::UserRole + 1
    };

    explicit ComparisonSummaryModel(QObject *parent = nullptr);

    void setSummary(std::vector<dl2::PolicySummary> summary);
    const std::vector<dl2::PolicySummary> &summary() const { return m_summary; }
    // The table as CSV (header + one line per policy).
    QString toCsv() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant value(const dl2::PolicySummary &s, int column) const;

    std::vector<dl2::PolicySummary> m_summary;
};

} // namespace dl2console
