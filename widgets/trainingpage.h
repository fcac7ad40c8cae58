#pragma once
// Learning, shown: the curves of a training run over updates (validation JCT with DRF /
// Optimus / lower-bound reference lines, policy entropy, value loss, the action mix stacked)
// from its curves file, followed while the run writes it; a second run's validation JCT
// beside it (its shuffled-advantage control, or any other run); and a short training started
// in the background (`dl2 train rl|sl` as a child process, optionally with its control beside
// it) with progress and cancel; and what the run's checkpoint learnt about job types
// (`dl2 policy probe`, in a TypeProbeDialog).

#include "policyfiles.h"
#include "trainingplots.h"
#include "trainingrun.h"

#include <QFutureWatcher>
#include <QTimer>
#include <QWidget>

#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QDoubleSpinBox;
class QSpinBox;

namespace dl2console {

class Plot;
class Settings;
class TrainingCurvesModel;
class TypeProbeDialog;
class ValidationBaselines;

class TrainingPage : public QWidget
{
    Q_OBJECT
public:
    explicit TrainingPage(Settings *settings, QWidget *parent = nullptr);
    ~TrainingPage() override;

    void setScenarios(const QStringList &names);
    // Shows and follows a curves file; false (message shown, errorOccurred, curvesError()) if
    // unreadable or malformed: the previous file, if any, stays.
    bool openCurves(const QString &path);
    QString curvesError() const { return m_curvesError; }
    // Draws a second run's validation JCT beside the first (followed too); false (message
    // shown, errorOccurred, comparisonError()) if unreadable: the previous comparison stays.
    bool openComparison(const QString &path);
    void clearComparison();
    QString comparisonError() const { return m_comparisonError; }
    // With it on, an actor-critic training started here also runs its shuffled-advantage
    // control (`--control`, <name>-control.dl2ckpt) beside it, drawn as the comparison.
    void setRunControl(bool on);
    // Starts the short training the controls describe (or `request`); its checkpoint goes to
    // outputDirectory() unless the request names one.
    bool startTraining();
    bool startTraining(TrainingRequest request);
    // Two stages: the SL warm-up, then RL from its best checkpoint (rl.init is replaced).
    bool startTraining(const TrainingRequest &warmup, const TrainingRequest &rl);
    int stage() const { return m_stage; }
    void cancelTraining();
    void setOutputDirectory(const QString &dir) { m_outputDirectory = dir; }
    QString outputDirectory() const;
    // Reference lines: DRF, Optimus and the no-contention lower bound on `scenario`'s traces
    // for `seeds` ("100-104", "100,102"), computed in the background (empty scenario: none).
    void computeReferences(const QString &scenario, const QString &seeds);
    bool isComputingReferences() const;
    // The file's reference columns, then the computed ones.
    TrainingReferences references() const;
    // Replots now (tests, screenshots); otherwise replots are batched.
    void refresh();
    bool exportImage(const QString &fileName);

    TrainingCurvesModel *model() const { return m_model; }
    TrainingRun *run() const { return m_run; }
    TrainingCurvesModel *comparison() const { return m_compare; }
    TrainingRun *controlRun() const { return m_controlRun; }
    Plot *jctPlot() const { return m_jctPlot; }
    Plot *entropyPlot() const { return m_entropyPlot; }
    Plot *lossPlot() const { return m_lossPlot; }
    Plot *actionPlot() const { return m_actionPlot; }
    QString statusText() const;
    // The checkpoint "Probe types…" probes: the one the curves shown were written for, else
    // the one to start from ("" if neither exists).
    QString probeCandidate() const;
    // Shows what a checkpoint (default: probeCandidate(), else one the user picks) has learnt
    // about job types, probed in the background, in a window of its own.
    void probeTypes(const QString &nameOrPath = {});
    TypeProbeDialog *typeProbeDialog() const { return m_probe; }

Q_SIGNALS:
    void errorOccurred(const QString &message);
    void referencesReady();

protected:
    void showEvent(QShowEvent *event) override;

private:
    QWidget *buildControls();
    QWidget *buildCharts();
    void scheduleReplot();
    void updateControls();
    void updateWindowChoices(); // the scenario's J; the window teachers only for dl2
    void updateKindChoices();   // every row's kind only with a row credit
    void updateProgress();
    void updateRecipe();
    void onRunFinished(TrainingRun::State state);
    void onControlFinished(TrainingRun::State state);
    void startControl(const TrainingRequest &request);
    QString controlStatus() const;
    ComparedCurves compared() const;
    QString askForCurves(const QString &title); // a file dialog; "" if cancelled
    void openWithDialog();
    void compareWithDialog();
    void browseInit();
    void inspectInit(); // reads the start checkpoint in the background (tied, counts)
    // The start checkpoint as inspectInit read it, if it has read the one now named.
    std::optional<PolicyFile> startFile() const;
    void exportWithDialog();

    Settings *m_settings;
    TrainingCurvesModel *m_model;
    TrainingRun *m_run;
    TrainingCurvesModel *m_compare;
    TrainingRun *m_controlRun;
    ValidationBaselines *m_baselines;
    QLabel *m_fileLabel, *m_compareLabel, *m_recipe, *m_summary, *m_status, *m_command;
    QCheckBox *m_follow, *m_withControl, *m_tieWindow, *m_rowPerDecision, *m_stopBest, *m_lrAnneal;
    QComboBox *m_algorithm, *m_scenario, *m_policy, *m_teacher, *m_labels, *m_exploration,
        *m_taskCredit, *m_kindCredit, *m_rowCredit, *m_refScenario, *m_tieInit, *m_counts,
        *m_optimizer;
    QDoubleSpinBox *m_typeStep, *m_countStep;
    QLineEdit *m_init, *m_seeds, *m_refSeeds, *m_learningRate;
    QSpinBox *m_window, *m_warmup, *m_steps, *m_validateEvery;
    QPushButton *m_start, *m_cancel, *m_compareClear;
    QProgressBar *m_progress;
    TypeProbeDialog *m_probe = nullptr; // made on first use
    QWidget *m_charts;
    Plot *m_jctPlot, *m_entropyPlot, *m_lossPlot, *m_actionPlot;
    QTimer m_replot, m_ticker;
    bool m_stale = true; // data changed while hidden
    QString m_outputDirectory;
    QString m_curvesError, m_comparisonError;
    QString m_recipeStamp; // the checkpoint m_recipe was read from, its time and size
    std::optional<TrainingRequest> m_next; // the RL stage after a warm-up
    // The start checkpoint as read (inspectInit): its path, what it holds or why it could not
    // be read. An actor-critic from a checkpoint trained tied can keep it tied.
    struct InitInspection
    {
        QString path;
        std::optional<PolicyFile> file;
        QString error;
    };
    InitInspection m_initInspection;
    QFutureWatcher<InitInspection> m_initWatcher;
    QTimer m_initDelay; // inspect once typing pauses
    int m_stage = 1, m_stages = 1;
};

} // namespace dl2console
