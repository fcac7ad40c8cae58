#include "jobtablemodel.h"

#include "jobpalette.h"
#include "sessiontypes.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>
#include <cmath>

namespace dl2console {

JobTableModel::JobTableModel(QObject *parent)
    : QAbstractTableModel(parent), m_profiles(dl2::ProfileSet::reference())
{
    m_hasData.fill(true);
    for (int c : {SourceIdColumn, UserColumn, VcColumn, GpusColumn})
        m_hasData[c] = false;
}

void JobTableModel::setProfiles(const dl2::ProfileSet &profiles, double slotSeconds)
{
    beginResetModel();
    m_profiles = profiles;
    m_slotSeconds = slotSeconds;
    endResetModel();
}

void JobTableModel::setSources(
    std::shared_ptr<const std::vector<std::pair<int, dl2::JobSource>>> sources)
{
    beginResetModel();
    m_sources = std::move(sources);
    m_sourceOfJob.clear();
    m_hasData.fill(true);
    for (int c : {SourceIdColumn, UserColumn, VcColumn, GpusColumn})
        m_hasData[c] = false;
    if (m_sources) {
        for (const auto &[id, source] : *m_sources) {
            m_sourceOfJob[id] = &source;
            m_hasData[SourceIdColumn] = m_hasData[SourceIdColumn] || !source.id.empty();
            m_hasData[UserColumn] = m_hasData[UserColumn] || !source.user.empty();
            m_hasData[VcColumn] = m_hasData[VcColumn] || !source.vc.empty();
            m_hasData[GpusColumn] = m_hasData[GpusColumn] || source.gpus.has_value();
        }
    }
    endResetModel();
}

const dl2::JobSource *JobTableModel::sourceOf(int jobId) const
{
    const auto it = m_sourceOfJob.find(jobId);
    return it == m_sourceOfJob.end() ? nullptr : it->second;
}

bool JobTableModel::hasColumnData(int column) const
{
    return column >= 0 && column < ColumnCount && m_hasData[column];
}

QVariant JobTableModel::sourceValue(const dl2::JobState &job, int column) const
{
    const dl2::JobSource *source = sourceOf(job.id);
    if (!source)
        return {};
    switch (column) {
    case SourceIdColumn:
        return source->id.empty() ? QVariant() : QVariant(QString::fromStdString(source->id));
    case UserColumn:
        return source->user.empty() ? QVariant() : QVariant(QString::fromStdString(source->user));
    case VcColumn:
        return source->vc.empty() ? QVariant() : QVariant(QString::fromStdString(source->vc));
    case GpusColumn:
        return source->gpus ? QVariant(*source->gpus) : QVariant();
    }
    return {};
}

void JobTableModel::clear()
{
    if (m_jobs.empty() && !m_sources)
        return;
    beginResetModel();
    m_sources.reset();
    m_sourceOfJob.clear();
    for (int c : {SourceIdColumn, UserColumn, VcColumn, GpusColumn})
        m_hasData[c] = false;
    m_jobs.clear();
    m_rowOfJob.clear();
    endResetModel();
}

void JobTableModel::setSnapshot(const dl2::SlotSnapshot &snapshot)
{
    const bool sameJobs = snapshot.jobs.size() == m_jobs.size() &&
                          std::equal(snapshot.jobs.begin(), snapshot.jobs.end(), m_jobs.begin(),
                                     [](const auto &a, const auto &b) { return a.id == b.id; });
    if (!sameJobs) {
        beginResetModel();
        m_jobs = snapshot.jobs;
        m_slot = snapshot.slot;
        m_rowOfJob.clear();
        for (size_t i = 0; i < m_jobs.size(); ++i)
            m_rowOfJob[m_jobs[i].id] = static_cast<int>(i);
        endResetModel();
        return;
    }
    m_jobs = snapshot.jobs;
    m_slot = snapshot.slot;
    if (!m_jobs.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int JobTableModel::rowOfJob(int jobId) const
{
    auto it = m_rowOfJob.find(jobId);
    return it == m_rowOfJob.end() ? -1 : it->second;
}

const dl2::JobState *JobTableModel::jobAt(int row) const
{
    return row >= 0 && row < rowCount() ? &m_jobs[row] : nullptr;
}

int JobTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_jobs.size());
}

int JobTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

bool JobTableModel::held(const dl2::JobState &job) const
{
    return heldAllocation(job, m_slot);
}

double JobTableModel::epochsPerSlot(const dl2::JobState &job) const
{
    if (!held(job) || job.type < 0 || job.type >= m_profiles.size())
        return 0.0;
    return job.speed * m_slotSeconds / m_profiles[job.type].stepsPerEpoch;
}

QString JobTableModel::statusText(dl2::JobStatus status)
{
    switch (status) {
    case dl2::JobStatus::Pending:
        return tr("pending");
    case dl2::JobStatus::Queued:
        return tr("queued");
    case dl2::JobStatus::Running:
        return tr("running");
    case dl2::JobStatus::Finished:
        return tr("done");
    }
    return {};
}

QVariant JobTableModel::sortValue(const dl2::JobState &job, int column) const
{
    switch (column) {
    case IdColumn:
        return job.id;
    case ModelColumn:
        return job.type;
    case SourceIdColumn:
    case UserColumn:
    case VcColumn: {
        const QVariant v = sourceValue(job, column);
        return v.isValid() ? v : QVariant(QString());
    }
    case GpusColumn: {
        const QVariant v = sourceValue(job, column);
        return v.isValid() ? v : QVariant(-1.0);
    }
    case ArrivalColumn:
        return job.arrivalSlot;
    case WorkersColumn:
        return held(job) ? job.workers : 0;
    case PsColumn:
        return held(job) ? job.ps : 0;
    case SpeedColumn:
        return epochsPerSlot(job);
    case ProgressColumn:
        return job.totalEpochs > 0 ? job.doneEpochs / job.totalEpochs : 0.0;
    case RemainingColumn:
        return std::max(0.0, job.totalEpochs - job.doneEpochs);
    case EtaColumn: {
        const double e = epochsPerSlot(job);
        return job.status == dl2::JobStatus::Finished ? 0.0
               : e > 0                                ? (job.totalEpochs - job.doneEpochs) / e
                                                      : 1e12;
    }
    case JctColumn:
        return job.jct() < 0 ? 1e12 : job.jct();
    case StateColumn:
        return static_cast<int>(job.status);
    }
    return {};
}

QVariant JobTableModel::displayValue(const dl2::JobState &job, int column) const
{
    const bool finished = job.status == dl2::JobStatus::Finished;
    const bool pending = job.status == dl2::JobStatus::Pending;
    switch (column) {
    case IdColumn:
        return job.id;
    case ModelColumn:
        return job.type >= 0 && job.type < m_profiles.size()
                   ? QString::fromStdString(m_profiles[job.type].name)
                   : QString::number(job.type + 1);
    case SourceIdColumn:
    case UserColumn:
    case VcColumn:
        return sourceValue(job, column);
    case GpusColumn: {
        const QVariant v = sourceValue(job, column);
        return v.isValid() ? QVariant(QString::number(v.toDouble(), 'g', 4)) : QVariant();
    }
    case ArrivalColumn:
        return job.arrivalSlot;
    case WorkersColumn:
        return held(job) && !pending ? QVariant(job.workers) : QVariant();
    case PsColumn:
        return held(job) && !pending ? QVariant(job.ps) : QVariant();
    case SpeedColumn:
        return !held(job) || pending ? QVariant()
                                     : QVariant(QString::number(epochsPerSlot(job), 'f', 1));
    case ProgressColumn:
        return QString(QString::number(100.0 * sortValue(job, column).toDouble(), 'f', 1) +
                       QStringLiteral(" %"));
    case RemainingColumn:
        return QString::number(sortValue(job, column).toDouble(), 'f', 0);
    case EtaColumn: {
        if (finished || pending)
            return {};
        const double eta = sortValue(job, column).toDouble();
        return eta >= 1e11 ? QStringLiteral("\u221e") : QString::number(eta, 'f', 1);
    }
    case JctColumn:
        return finished ? QVariant(QString::number(job.jct(), 'f', 2)) : QVariant();
    case StateColumn:
        return job.outsideViewThisSlot ? tr("%1, outside window").arg(statusText(job.status))
                                       : statusText(job.status);
    }
    return {};
}

QVariant JobTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const dl2::JobState &job = m_jobs[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        return displayValue(job, index.column());
    case SortRole:
        return sortValue(job, index.column());
    case JobIdRole:
        return job.id;
    case StatusRole:
        return static_cast<int>(job.status);
    case ProgressRole:
        return sortValue(job, ProgressColumn);
    case OutsideWindowRole:
        return job.outsideViewThisSlot;
    case Qt::FontRole:
        if (job.outsideViewThisSlot) { // the whole row, so that it shows whatever is scrolled
            QFont italic;
            italic.setItalic(true);
            return italic;
        }
        return {};
    case Qt::DecorationRole:
        if (index.column() == IdColumn) {
            const bool gui = qobject_cast<QGuiApplication *>(QCoreApplication::instance());
            return JobPalette::color(
                job.id,
                gui && JobPalette::isDark(QGuiApplication::palette().color(QPalette::Base)));
        }
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == ModelColumn || index.column() == StateColumn ||
                       index.column() == SourceIdColumn || index.column() == UserColumn ||
                       index.column() == VcColumn
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (index.column() == EtaColumn || index.column() == SpeedColumn)
            return tr("At the current allocation (%1 workers, %2 PSs)")
                .arg(job.workers)
                .arg(job.ps);
        if (job.outsideViewThisSlot)
            return tr("The policy decides for a window of jobs (dl2: the first jobs by arrival "
                      "not at both caps) and this job was not in it this slot: it got only the "
                      "one bundle every job gets first, if that fitted.");
        return {};
    }
    return {};
}

QVariant JobTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[] = {
            QT_TR_NOOP("Job"),      QT_TR_NOOP("Model"),      QT_TR_NOOP("Source id"),
            QT_TR_NOOP("User"),     QT_TR_NOOP("VC"),         QT_TR_NOOP("GPUs"),
            QT_TR_NOOP("Arrival"),
            QT_TR_NOOP("Workers"),  QT_TR_NOOP("PSs"),        QT_TR_NOOP("Ep./slot"),
            QT_TR_NOOP("Progress"), QT_TR_NOOP("Left (ep.)"), QT_TR_NOOP("ETA"),
            QT_TR_NOOP("JCT"),      QT_TR_NOOP("State")};
        return tr(names[section]);
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case SpeedColumn:
            return tr("Epochs trained per slot at this slot's allocation");
        case EtaColumn:
            return tr("Slots until completion at the current speed");
        case RemainingColumn:
            return tr("Epochs left to train");
        case JctColumn:
            return tr("Job completion time: finish - arrival, in slots");
        case SourceIdColumn:
            return tr("The job's id in the source trace");
        case UserColumn:
            return tr("The user who submitted the job (source trace)");
        case VcColumn:
            return tr("Virtual cluster of the job (source trace)");
        case GpusColumn:
            return tr("GPUs the job requested in the source trace");
        default:
            return {};
        }
    }
    return {};
}

} // namespace dl2console
