#pragma once
// The jobs of the current slot, one row per job of the trace (trace order, stable across
// slots so selections survive playback). Fed whole snapshots by the GUI. An imported trace's
// jobs also show what the source said (source job id, user, VC, requested GPUs); the view
// hides those columns when no job has them (hasColumnData()).

#include "jobstate.h"
#include "modelprofile.h"
#include "trace.h"

#include <QAbstractTableModel>
#include <array>
#include <memory>
#include <unordered_map>
#include <utility>
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
        SourceIdColumn, // the job's id in the source trace (imported traces)
        UserColumn,
        VcColumn,
        GpusColumn, // requested GPUs
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
        SortRole,          // numeric value for sorting
        StatusRole,        // dl2::JobStatus as int
        ProgressRole,      // fraction done, 0..1
        OutsideWindowRole, // bool: the policy's window (dl2) left the job out this slot
    };

    explicit JobTableModel(QObject *parent = nullptr);

    void setProfiles(const dl2::ProfileSet &profiles, double slotSeconds);
    void setSnapshot(const dl2::SlotSnapshot &snapshot);
    // What the trace's source said about its jobs, by job id (null or empty: nothing).
    void setSources(std::shared_ptr<const std::vector<std::pair<int, dl2::JobSource>>> sources);
    const dl2::JobSource *sourceOf(int jobId) const;
    // False for a source column no job has a value in (the view hides it).
    bool hasColumnData(int column) const;
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
    QVariant sourceValue(const dl2::JobState &job, int column) const;

    dl2::ProfileSet m_profiles;
    double m_slotSeconds = 1200.0;
    std::vector<dl2::JobState> m_jobs;
    int m_slot = -1;
    std::unordered_map<int, int> m_rowOfJob;
    std::shared_ptr<const std::vector<std::pair<int, dl2::JobSource>>> m_sources;
    std::unordered_map<int, const dl2::JobSource *> m_sourceOfJob;
    std::array<bool, ColumnCount> m_hasData{};
};

} // namespace dl2console
