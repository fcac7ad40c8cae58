#pragma once
// The curves of a training run, read from the CSV that `dl2 train sl|rl` writes next to its
// checkpoint (<ckpt>.curves.csv): one row per curve point, one column per header field.
// Columns are taken from the header, whatever they are (trainers add columns over time,
// e.g. the action mix worker_share, ps_share, bundle_share, stop_share, workers_per_job);
// only "step" is required. Empty cells, "nan" and, in columns that cannot be negative
// (validation_avg_jct, entropy, *_share, ...), negative values mean "not measured here", and
// so do the update statistics (train_loss, value_loss, entropy, reward) of a row where they
// are all exactly 0 (RL's validation of its starting point, before any update).
// With following on, the file is re-read whenever it changes (a running training rewrites
// it at every validation): new rows are inserted, a rewritten history resets the model.

#include <QAbstractTableModel>
#include <QDateTime>
#include <QStringList>
#include <QTimer>
#include <QVector>

#include <vector>

namespace dl2console {

class TrainingCurvesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Role
    {
        ValueRole = Qt::UserRole + 1, // double; NaN when not measured
    };
    struct Series
    {
        QVector<double> steps;
        QVector<double> values;
        bool isEmpty() const { return steps.isEmpty(); }
    };
    struct Reference // a horizontal reference line (a baseline's validation JCT)
    {
        QString name;
        double value = 0.0;
    };

    explicit TrainingCurvesModel(QObject *parent = nullptr);

    // Reads `path` now. False (and errorString()) if it cannot be read or is malformed; with
    // following on, a file that does not exist yet is not an error (the run has not written
    // it yet): the model waits for it.
    bool setFile(const QString &path);
    QString file() const { return m_path; }
    void clear();
    bool reload();
    // Polls the file every `intervalMs` and reloads when its size or time stamp changes.
    void setFollowing(bool on, int intervalMs = 500);
    bool isFollowing() const { return m_poll.isActive(); }
    QString errorString() const { return m_error; }

    QStringList columns() const { return m_columns; }
    int columnIndex(const QString &name) const { return m_columns.indexOf(name); }
    bool hasColumn(const QString &name) const { return m_columns.contains(name); }
    double value(int row, int column) const; // NaN when not measured
    // (step, value) of every row where `column` was measured; empty for an absent column.
    Series series(const QString &column) const;
    // True if the column exists and holds at least one measured value other than 0 (an SL
    // run writes zeros for the RL-only columns).
    bool hasData(const QString &column) const;
    double lastStep() const;
    // Baselines stored in the file: columns baseline_<name> or <name>_avg_jct (other than
    // validation_avg_jct), each with its last measured value.
    QVector<Reference> references() const;
    // Whether a value in `column` counts as measured (see the file comment).
    static bool isMeasured(const QString &column, double value);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

Q_SIGNALS:
    // After every reload that changed the data (or the file).
    void curvesChanged();
    // A read or parse error (emitted once per distinct message while following).
    void errorOccurred(const QString &message);

private:
    struct Parsed
    {
        QStringList columns;
        std::vector<std::vector<double>> rows;
    };
    bool parse(const QByteArray &bytes, Parsed &out, QString &error) const;
    void apply(Parsed parsed);
    void fail(const QString &message);
    void poll();

    QString m_path;
    QStringList m_columns;
    std::vector<std::vector<double>> m_rows;
    QVector<int> m_updateColumns; // train_loss, value_loss, entropy, reward (those present)
    QString m_error;
    QString m_lastReported;
    QTimer m_poll;
    qint64 m_seenSize = -1;
    QDateTime m_seenModified;
};

} // namespace dl2console
