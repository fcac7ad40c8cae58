#pragma once
// The reference lines of the training page: DRF's and Optimus's average JCT and the
// no-contention lower bound on a scenario's validation traces (the seeds a training validates
// on), simulated in the background. A new request cancels the one still running.

#include "trainingcurvesmodel.h"

#include <QFutureWatcher>
#include <QObject>
#include <QVector>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace dl2console {

class ValidationBaselines : public QObject
{
    Q_OBJECT
public:
    using Reference = TrainingCurvesModel::Reference;

    explicit ValidationBaselines(QObject *parent = nullptr);
    ~ValidationBaselines() override; // cancels and waits

    // `seeds` as dl2 train takes them: "100-104", "100,102", "7". An empty scenario clears.
    void compute(const QString &scenario, const QString &seeds);
    bool isRunning() const { return m_watcher.isRunning(); }
    QString scenario() const { return m_scenario; }
    QString seeds() const { return m_seeds; }
    // drf, optimus, lower_bound (empty until computed).
    QVector<Reference> references() const { return m_references; }

    // Empty for a malformed list (or more than 1001 seeds in one range).
    static std::vector<std::uint64_t> parseSeeds(const QString &text);

Q_SIGNALS:
    void ready();
    void errorOccurred(const QString &message);

private:
    struct Outcome
    {
        QVector<Reference> references;
        QString error;
    };

    QString m_scenario, m_seeds;
    QVector<Reference> m_references;
    QFutureWatcher<Outcome> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancel;
};

} // namespace dl2console
