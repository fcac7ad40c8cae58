#pragma once
// Policies side by side: pick policies and seeds (or trace files), run dl2::runExperiment in
// the background (QtConcurrent, progress, cancel), then average JCT per policy with spread,
// JCT CDFs, GPU utilisation, reward and completed jobs over time per policy, and the ratios
// to DRF and to the lower bound, and (a second tab beside the table) the mean JCT of each job
// type per policy. Exports CSV, PNG and PDF.

#include "experiment.h"
#include "jobtracker.h"
#include "sessiontypes.h"

#include <QFutureWatcher>
#include <QWidget>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QRadioButton;
class QSpinBox;
class QTableView;
class QTabWidget;

namespace dl2console {

class ComparisonByModelModel;
class ComparisonSummaryModel;
class Plot;
class Settings;

class ComparisonPage : public QWidget
{
    Q_OBJECT
public:
    explicit ComparisonPage(Settings *settings, QWidget *parent = nullptr);
    ~ComparisonPage() override;

    void setPolicies(const QStringList &names, const QStringList &checked);
    QStringList checkedPolicies() const;
    void setScenarios(const QStringList &names);
    void setSeedCount(int count);
    void setTraceFiles(const QStringList &paths); // switches to "trace files" mode
    // What the session runs on, and the comparison with it: speed model and table, cluster
    // size (0: the scenario's) and the policy file of a learned policy (for that kind only).
    void setRunSettings(const SessionSetup &setup);
    void run();
    void cancel();
    bool isRunning() const;
    const dl2::ExperimentResult &result() const { return m_result; }
    // Arrival slots of every job of trace t (trace order), for the completed-jobs chart.
    const std::vector<std::vector<int>> &arrivals() const { return m_arrivals; }
    ComparisonSummaryModel *summaryModel() const { return m_summary; }
    // By job type; empty, with byModelError() saying why, when a run stopped before every job
    // finished (its unfinished jobs would drop out of some policies' means only).
    ComparisonByModelModel *byModelModel() const { return m_byModel; }
    QString byModelError() const { return m_byModelError; }

    bool exportCsv(const QString &fileName) const;
    bool exportImage(const QString &fileName); // .png or .pdf

Q_SIGNALS:
    void finished(bool ok);
    void errorOccurred(const QString &message);

private:
    struct Outcome
    {
        dl2::ExperimentResult result;
        std::vector<std::vector<int>> arrivals;
        std::vector<std::string> policies;
        std::vector<dl2::ModelBreakdown> byModel;
        QString byModelError;
        QString error;
    };
    QWidget *buildControls();
    QWidget *buildResults();
    void onFinished();
    void showResult();
    void updateButtons();
    void exportWithDialog();

    Settings *m_settings;
    QListWidget *m_policies;
    QRadioButton *m_useSeeds, *m_useFiles;
    QComboBox *m_scenario;
    QSpinBox *m_firstSeed, *m_seedCount;
    QListWidget *m_files;
    QPushButton *m_run, *m_cancel, *m_export;
    QProgressBar *m_progress;
    QLabel *m_status;
    QLabel *m_runOn;
    SessionSetup m_runSettings;
    QWidget *m_results;
    Plot *m_jctPlot, *m_cdfPlot, *m_utilPlot, *m_rewardPlot, *m_completedPlot;
    QTableView *m_table, *m_byModelTable;
    QTabWidget *m_tables;
    ComparisonSummaryModel *m_summary;
    ComparisonByModelModel *m_byModel;
    QString m_byModelError;
    QFutureWatcher<Outcome> m_watcher;
    JobTracker m_jobs; // the running experiment: progress of an earlier one is dropped
    dl2::ExperimentResult m_result;
    std::vector<std::vector<int>> m_arrivals;
};

} // namespace dl2console
