#pragma once
// What a dl2 checkpoint has learnt about job types, as `dl2 policy probe` finds it
// (core/learning/policyprobe.h), for the console: q(worker | row) by the row's own type (rows)
// and the type it is given (columns), for rows in one band of allocation (setBand), probed in
// the background. A DRF-taught network gives every type the same q; the shipped window-60
// policy does not.

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QList>
#include <QStringList>

namespace dl2console {

struct TypeProbeResult
{
    QString checkpoint; // as given: a file or a shipped policy's name
    QString scenario;   // whose trace was played: the checkpoint's (dl2-reference if none)
    quint64 seed = 0;
    int firstSlot = 0, lastSlot = 0, states = 0;
    QStringList types;
    // Per band (TypeProbeModel::Band): rows[band][own]: rows of that type seen;
    // q[band][own][given]: their mean q(worker | row) given that type.
    static constexpr int kBands = 4;
    QList<int> rows[kBands];
    QList<QList<double>> q[kBands];
    bool tied = false; // a network tied across the window: the figures below are filled
    struct Layer
    {
        int own = 0, global = 0;
        double ownActive = 0, globalActive = 0;
        int ownVarying = 0;
    } layers[2];
    double typeWeight = 0, otherWeight = 0;
    // Per band: the largest change of one type's mean q when its rows are given another type
    // (dl2::TypeProbe::spread).
    double spreads[kBands] = {};
    double spread(int band) const { return spreads[band]; }
};

// Probes as `dl2 policy probe CHECKPOINT` does with its defaults, on the calling thread;
// throws std::exception whose message names the checkpoint and what is wrong.
TypeProbeResult probeCheckpointTypes(const QString &nameOrPath);

class TypeProbeModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    // By the row's job's allocation when its state was kept (dl2::TypeProbe::Band).
    enum Band
    {
        OneWorkerOnePs,
        OneWorkerFewPs,  // 2-8 PSs
        OneWorkerManyPs, // 9 or more
        MoreWorkers
    };
    static QString bandTitle(Band band); // "1 worker, 1 PS", ... (a tab's title)
    static QByteArray
    bandKey(Band band); // one_worker_one_ps, ... (as in `dl2 policy probe --json`)
    enum Role
    {
        ValueRole = Qt::UserRole, // the cell's q as a double; none for a type without rows
        RowsRole,                 // rows of the row's own type seen
    };

    explicit TypeProbeModel(QObject *parent = nullptr);
    ~TypeProbeModel() override; // waits for a probe still running (well under a second)

    // Probes in the background; the table keeps the previous result until probed(), or is
    // emptied before errorOccurred() (a later call supersedes a running one).
    void probe(const QString &nameOrPath);
    bool isProbing() const { return m_watcher.isRunning(); }
    void setResult(const TypeProbeResult &result);
    const TypeProbeResult &result() const { return m_result; }
    void setBand(Band band);
    Band band() const { return m_band; }
    // Every band: band,type,rows, then q given each type.
    QByteArray toCsv() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    void probed();
    void errorOccurred(const QString &message);

private:
    struct Outcome
    {
        TypeProbeResult result;
        QString error;
    };
    TypeProbeResult m_result;
    Band m_band = OneWorkerOnePs;
    QFutureWatcher<Outcome> m_watcher;
};

} // namespace dl2console
