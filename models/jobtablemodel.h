#pragma once
// The jobs of the current slot, one row per job of the trace (trace order, stable across
// slots so selections survive playback). Fed whole snapshots by the GUI.

#include "jobstate.h"
#include "modelprofile.h"

#include <QAbstractTableModel>
#include <unordered_map>
#include <vector>

namespace dl2console {

class JobTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column
    {
        IdColumn,
        ModelColumn,
        ArrivalColumn,
        WorkersColumn,
        PsColumn,
        SpeedColumn,    // epochs per slot at the current allocation
        ProgressColumn, // percent of epochs done
        RemainingColumn,
        EtaColumn, // slots to go at the current speed
        JctColumn,
        StateColumn,
        ColumnCount
    };
    enum Role
    {
        JobIdRole = Qt::UserRole + 1,
        SortRole,     // numeric value for sorting
        StatusRole,   // dl2::JobStatus as int
        ProgressRole, // fraction done, 0..1
    };

    explicit JobTableModel(QObject *parent = nullptr);

    void setProfiles(const dl2::ProfileSet &profiles, double slotSeconds);
    void setSnapshot(const dl2::SlotSnapshot &snapshot);
    void clear();

    int rowOfJob(int jobId) const;
    const dl2::JobState *jobAt(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // Epochs per slot of a job at its current speed.
    double epochsPerSlot(const dl2::JobState &job) const;
    static QString statusText(dl2::JobStatus status);

private:
    QVariant displayValue(const dl2::JobState &job, int column) const;
    bool held(const dl2::JobState &job) const;
    QVariant sortValue(const dl2::JobState &job, int column) const;

    dl2::ProfileSet m_profiles;
    double m_slotSeconds = 1200.0;
    std::vector<dl2::JobState> m_jobs;
    int m_slot = -1;
    std::unordered_map<int, int> m_rowOfJob;
};

} // namespace dl2console
