#include "trainingpage.h"

#include "plot.h"
#include "policyfiles.h"
#include "settings.h"
#include "trainingcurvesmodel.h"
#include "typeprobedialog.h"
#include "validationbaselines.h"

#include "scenario.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDoubleValidator>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace dl2console {

namespace {

QString clock(double seconds)
{
    const long long s = (long long)(seconds + 0.5);
    const QString ms = QStringLiteral("%1:%2")
                           .arg(s >= 3600 ? (s / 60) % 60 : s / 60, s >= 3600 ? 2 : 1, 10,
                                QLatin1Char('0'))
                           .arg(s % 60, 2, 10, QLatin1Char('0'));
    return s >= 3600 ? QString::number(s / 3600) + QLatin1Char(':') + ms : ms;
}

// A path that word-wraps in a narrow label: break opportunities after / - . _
QString breakablePath(const QString &path)
{
    QString out;
    for (const QChar c : QDir::toNativeSeparators(path)) {
        out += c;
        if (c == u'/' || c == u'-' || c == u'.' || c == u'_' || c == u'\\')
            out += QChar(0x200B);
    }
    return out;
}

// Shows `path` in `model` (following it if `follow`); when it cannot be read the previous file,
// if any, stays. Returns the error ("" when it opened).
QString switchFile(TrainingCurvesModel *model, const QString &path, bool follow)
{
    const QString previous = model->file();
    model->setFollowing(follow);
    if (model->setFile(path))
        return {};
    const QString error = model->errorString().isEmpty()
                              ? QDir::toNativeSeparators(path) + QStringLiteral(": cannot be read")
                              : model->errorString();
    if (previous.isEmpty() || previous == path || !model->setFile(previous)) {
        model->setFollowing(false);
        model->clear();
    }
    return error;
}

// The checkpoint a curves file was written for: <checkpoint>.curves.csv ("" if not so named).
QString checkpointOfCurves(const QString &curves)
{
    const QString suffix = QStringLiteral(".curves.csv");
    return curves.endsWith(suffix) ? curves.left(curves.size() - suffix.size()) : QString();
}

// A choice of the form: each item's text is shown, its data is the option's value.
QComboBox *choiceBox(QWidget *parent, const char *objectName,
                     std::initializer_list<std::pair<QString, const char *>> items,
                     const QString &toolTip)
{
    auto *box = new QComboBox(parent);
    box->setObjectName(QString::fromLatin1(objectName));
    for (const auto &[text, value] : items)
        box->addItem(text, QString::fromLatin1(value));
    box->setToolTip(toolTip);
    return box;
}

} // namespace

TrainingPage::TrainingPage(Settings *settings, QWidget *parent)
    : QWidget(parent), m_settings(settings), m_model(new TrainingCurvesModel(this)),
      m_run(new TrainingRun(this)), m_compare(new TrainingCurvesModel(this)),
      m_controlRun(new TrainingRun(this)), m_baselines(new ValidationBaselines(this))
{
    auto *layout = new QHBoxLayout(this);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(buildControls());
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(scroll->widget()->sizeHint().width() + 16);
    scroll->setMaximumWidth(300);
    layout->addWidget(scroll);
    layout->addWidget(buildCharts(), 1);

    m_replot.setSingleShot(true);
    m_replot.setInterval(40);
    connect(&m_replot, &QTimer::timeout, this, &TrainingPage::refresh);
    m_ticker.setInterval(1000);
    connect(&m_ticker, &QTimer::timeout, this, &TrainingPage::updateProgress);
    // The run's curves and the compared run's: replot on news, show and pass on their errors.
    auto follow = [this](TrainingCurvesModel *model, QString *error) {
        connect(model, &TrainingCurvesModel::curvesChanged, this, [this, error] {
            error->clear();
            scheduleReplot();
            updateProgress();
        });
        connect(model, &TrainingCurvesModel::errorOccurred, this, [this, error](const QString &message) {
            *error = message;
            updateProgress();
            Q_EMIT errorOccurred(message);
        });
    };
    follow(m_model, &m_curvesError);
    follow(m_compare, &m_comparisonError);
    connect(m_run, &TrainingRun::progressChanged, this, &TrainingPage::updateProgress);
    connect(m_run, &TrainingRun::finished, this, &TrainingPage::onRunFinished);
    connect(m_controlRun, &TrainingRun::progressChanged, this, &TrainingPage::updateProgress);
    connect(m_controlRun, &TrainingRun::finished, this, &TrainingPage::onControlFinished);
    connect(m_baselines, &ValidationBaselines::ready, this, [this] {
        scheduleReplot();
        Q_EMIT referencesReady();
    });
    connect(m_baselines, &ValidationBaselines::errorOccurred, this, &TrainingPage::errorOccurred);
    updateControls();
    refresh();
}

TrainingPage::~TrainingPage() = default;

QWidget *TrainingPage::buildControls()
{
    auto *panel = new QWidget(this);
    panel->setMaximumWidth(280);
    auto *v = new QVBoxLayout(panel);
    v->setContentsMargins(0, 0, 0, 0);

    auto *curves = new QGroupBox(tr("Curves"), panel);
    auto *cv = new QVBoxLayout(curves);
    m_fileLabel = new QLabel(tr("No curves file"), curves);
    m_fileLabel->setWordWrap(true);
    m_fileLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *open = new QPushButton(tr("Open curves file…"), curves);
    open->setToolTip(tr("A <checkpoint>.curves.csv written by dl2 train"));
    m_follow = new QCheckBox(tr("Follow (reload as the run writes it)"), curves);
    m_follow->setChecked(true);
    cv->addWidget(m_fileLabel);
    // How the run was trained: read from the checkpoint next to the curves file.
    m_recipe = new QLabel(curves);
    m_recipe->setObjectName(QStringLiteral("trainingRecipe"));
    m_recipe->setWordWrap(true);
    m_recipe->setTextFormat(Qt::RichText);
    m_recipe->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_recipe->setVisible(false);
    cv->addWidget(m_recipe);
    // What the run's network learnt about job types (dl2 policy probe).
    auto *probe = new QPushButton(tr("Probe types…"), curves);
    probe->setObjectName(QStringLiteral("trainingProbeTypes"));
    probe->setToolTip(tr("Whether the network tells job types apart: q(worker | row) for rows "
                         "of each type given each type (dl2 policy probe). Probes the checkpoint "
                         "of the curves shown, else the one to start from; another checkpoint or a "
                         "shipped policy can be picked in its window"));
    auto *openRow = new QHBoxLayout;
    openRow->addWidget(open, 1);
    openRow->addWidget(probe);
    cv->addLayout(openRow);
    cv->addWidget(m_follow);
    // A second run beside the first: its control, or any run to compare with.
    auto *compare = new QPushButton(tr("Compare with…"), curves);
    compare->setObjectName(QStringLiteral("trainingCompare"));
    compare->setToolTip(tr("Draw another run's validation JCT beside this one, e.g. its "
                           "shuffled-advantage control (<checkpoint>-control.curves.csv)"));
    m_compareLabel = new QLabel(curves);
    m_compareLabel->setObjectName(QStringLiteral("trainingCompareLabel"));
    m_compareLabel->setWordWrap(true);
    m_compareLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_compareLabel->setVisible(false);
    m_compareClear = new QPushButton(tr("Clear comparison"), curves);
    m_compareClear->setObjectName(QStringLiteral("trainingCompareClear"));
    m_compareClear->setEnabled(false);
    auto *compareRow = new QHBoxLayout;
    compareRow->addWidget(compare, 1);
    compareRow->addWidget(m_compareClear);
    cv->addWidget(m_compareLabel);
    cv->addLayout(compareRow);
    v->addWidget(curves);

    auto *train = new QGroupBox(tr("Short training"), panel);
    auto *tv = new QVBoxLayout(train);
    m_algorithm =
        choiceBox(train, "trainingAlgorithm",
                  {{tr("SL, then RL"), "sl+rl"}, {tr("RL only"), "rl"}, {tr("SL only"), "sl"}},
                  tr("SL imitates the teacher; RL (the paper's actor-critic) then "
                     "improves on it from the simulated rewards"));
    m_scenario = new QComboBox(train);
    m_scenario->setObjectName(QStringLiteral("trainingScenario"));
    m_policy = new QComboBox(train);
    m_policy->setObjectName(QStringLiteral("trainingPolicy"));
    m_policy->addItems({QStringLiteral("dl2"), QStringLiteral("dl2-plus")});
    m_policy->setToolTip(tr("dl2: the paper's policy; dl2-plus: this project's extension "
                            "(a fresh network; a checkpoint brings its own kind)"));
    m_teacher = new QComboBox(train);
    m_teacher->setObjectName(QStringLiteral("trainingTeacher"));
    m_teacher->addItems({QStringLiteral("optimus"), QStringLiteral("drf"), QStringLiteral("srtf"),
                         QStringLiteral("fifo"), QStringLiteral("best-config"),
                         QStringLiteral("best-config-window-25"),
                         QStringLiteral("optimus-window-nocap")});
    m_teacher->setToolTip(
        tr("The scheduler the SL warm-up imitates. The window teachers (dl2 only) allocate like "
           "their base scheduler within dl2's window of J jobs, which a dl2 network can copy; "
           "best-config-window-25 taught the shipped dl2 policies"));
    m_labels = choiceBox(
        train, "trainingLabels",
        {{tr("next task (paper)"), "sequence"},
         {tr("needed tasks"), "set"},
         {tr("needed tasks, yes/no"), "multi"}},
        tr("What SL teaches at each decision: the task the teacher added next (the paper), or "
           "any task its allocation still needs, the order among jobs left free (--labels set; "
           "multi: one yes/no per task). The window teachers are taught with set or multi."));
    m_tieWindow = new QCheckBox(tr("tied"), train);
    m_tieWindow->setObjectName(QStringLiteral("trainingTieWindow"));
    m_tieWindow->setToolTip(
        tr("SL for a fresh dl2 network: every window position shares its weights while it "
           "learns (--tie-window all), so each learns the same per-job rule instead of its own. "
           "The network is still the paper's; the shipped window-60 policy was trained so. "
           "In SL, then RL, and in RL from a checkpoint trained so, the actor-critic keeps "
           "them tied (--tie-window)."));
    m_tieInit = choiceBox(
        train, "trainingTieInit", {{tr("layer's (default)"), "layer"}, {tr("each job's"), "job"}},
        tr("SL for a fresh tied dl2 network: the scale its tied weights start at. The whole "
           "layer's (the default) leaves each window position's own units with weights sqrt(J) "
           "times smaller than a per-job network's; each job's starts them at a per-job "
           "network's (--tie-init job: the actor-critic from a DRF warm-up so started left the "
           "warm-up's plateau about 1,000 updates sooner). In SL, then RL, only the warm-up is "
           "given it."));
    m_counts = choiceBox(
        train, "trainingCounts",
        {{tr("scalar (paper)"), "scalar"}, {tr("per type, normalised"), "per-type"}},
        tr("How a fresh dl2 network is fed each job's workers and PSs: the two counts, as the "
           "paper; or also one bit per job type and level (type = t and count >= c) with the "
           "features normalised (--count-features per-type --normalise), through which a tied "
           "network can stop at each type's own counts. The shipped window-60 policy and the "
           "best actor-critic from a DRF warm-up were trained so."));
    const auto stepScale = [train](const char *objectName, const QString &tip) {
        auto *box = new QDoubleSpinBox(train);
        box->setObjectName(QLatin1String(objectName));
        box->setRange(0.1, 1000.0);
        box->setDecimals(1);
        box->setValue(1.0);
        box->setPrefix(QStringLiteral("× "));
        box->setToolTip(tip);
        return box;
    };
    m_typeStep = stepScale(
        "trainingTypeStepScale",
        tr("RL of a tied dl2 network (SL, then RL, or RL from a tied checkpoint): the weights "
           "from each window position's type one-hot to its own first-layer units take this "
           "many times the policy's step (--type-step-scale; beyond the paper). A DRF warm-up "
           "leaves that path small."));
    m_countStep = stepScale(
        "trainingCountStepScale",
        tr("RL of a tied dl2 network fed per-type counts: the same for the weights from the "
           "per-type count bits (--count-step-scale; beyond the paper). With 10 the "
           "actor-critic from a DRF warm-up passed its plateau and told the types apart "
           "(core/learning/README.md)."));
    m_window = new QSpinBox(train);
    m_window->setObjectName(QStringLiteral("trainingWindow"));
    m_window->setRange(0, 1024);
    m_window->setToolTip(
        tr("dl2's window J: the jobs (first by arrival) the network sees and gives tasks to; "
           "the window teachers use the same J. A checkpoint to start from brings its own"));
    m_exploration = choiceBox(
        train, "trainingExploration",
        {{tr("the paper's rules"), "paper"}, {tr("the authors' code"), "reference"}},
        tr("Job-aware exploration while RL trains: the paper's rules correct only poor states "
           "(a few % of the decisions); the authors' code's rules try PS-heavy settings and "
           "the least-resourced job in about a fifth of them and learn much further from a "
           "DRF warm-up. The action-mix chart draws the share they replace (explored)."));
    m_taskCredit = choiceBox(
        train, "trainingTaskCredit",
        {{tr("progress (paper)"), "progress"},
         {tr("work its job has left"), "remaining"},
         {tr("time its job saves"), "time"}},
        tr("How RL credits each choice of a task: with the paper's reward, by the share of its "
           "job's whole training the task adds in the slot; or that share divided by what the "
           "job still had to train, as shortest-remaining-time ranks jobs; or divided by the "
           "job's progress per slot, the slots of its training the task saves, which counts a "
           "long job's tasks as much as a short one's (departures from the paper; "
           "core/learning/README.md compares them)"));
    m_kindCredit = choiceBox(
        train, "trainingKindCredit",
        {{tr("its own (paper)"), "sampled"},
         {tr("all kinds' gains"), "expected"},
         {tr("all kinds, balanced"), "expected-balanced"},
         {tr("every row's kind"), "every-row"}},
        tr("dl2: how RL credits the kind of task (worker, PS or both) it gave a job: by the "
           "chosen task's own gain, as the paper; or by the exact gain of each kind at the "
           "allocation the task was added to, so the kinds a job did not get are compared too "
           "(--kind-credit expected, with --task-marginal added; the best actor-critic from a "
           "DRF warm-up had this as its first stage); or the same with every job type weighted "
           "equally, so the rare types are not taught the common types' kind. Every row's kind "
           "(--kind-credit every-row, only with a row credit other than its own): for every "
           "window row with an allowed task, at every decision, the row's worker/PS/both mix is "
           "credited by the row credit's gains, however unlikely the row is to be picked"));
    m_rowCredit = choiceBox(
        train, "trainingRowCredit",
        {{tr("its own (paper)"), "sampled"},
         {tr("every job's gains"), "expected"},
         {tr("every job's, and stop"), "expected-stop"},
         {tr("lookahead, and stop"), "lookahead-stop"},
         {tr("window, and stop"), "window-stop"},
         {tr("regret, and stop"), "regret-stop"}},
        tr("dl2: how RL credits the choice of which job gets the next task: by the chosen "
           "task's own gain, as the paper; or by the exact gain every task of every job in "
           "the window would have had at that moment, so the jobs not chosen are compared too "
           "(--row-credit expected, with --task-marginal added); or that and also the choice "
           "to stop, credited with the gain of the task it gave up (expected-stop); or that "
           "with each task's gain taken to the best allocation its job can still reach after "
           "it, so that jobs stop growing at their best (lookahead-stop); or that where jobs "
           "trained the slot outside the window, with a job's way out of it counted too: at "
           "both caps it leaves the window to a job that waits (window-stop); or the lookahead "
           "with each task scored by what it gives up of its job's best, so that which job "
           "grows next is not taught, only not to grow a job past its best (regret-stop)"));
    m_rowPerDecision = new QCheckBox(tr("each decision alike"), train);
    m_rowPerDecision->setObjectName(QStringLiteral("trainingRowScale"));
    m_rowPerDecision->setToolTip(
        tr("dl2, with a job credit other than the paper's: divide each decision's gains by "
           "their own spread (--row-scale decision; beyond the paper), so that the last tasks "
           "of a slot, which gain a few per cent of a job's speed and set where it stops, are "
           "taught as firmly as the first"));
    m_stopBest = new QCheckBox(tr("stop at no gain"), train);
    m_stopBest->setObjectName(QStringLiteral("trainingStopCredit"));
    m_stopBest->setToolTip(
        tr("dl2, with a job credit that also credits stop: credit continuing with the gain of "
           "the best task the policy could add, not of the one it would (--stop-credit best; "
           "beyond the paper). Stop ends the slot for every job, so a policy that favours a "
           "task past its job's best is taught to pick another task, not to stop the others "
           "short"));
    m_optimizer = new QComboBox(train);
    m_optimizer->setObjectName(QStringLiteral("trainingOptimizer"));
    m_optimizer->addItem(tr("Adam (the paper's)"), QStringLiteral("adam"));
    m_optimizer->addItem(tr("gradient descent"), QStringLiteral("sgd"));
    m_optimizer->setToolTip(
        tr("How the actor-critic steps the policy (--optimizer). Adam moves every weight by "
           "about the learning rate whatever its gradient, so weights whose gradient is mostly "
           "noise drift as fast as the others; gradient descent moves each by the learning rate "
           "times its gradient (beyond the paper; try 1e-3). The value network keeps its Adam"));
    m_learningRate = new QLineEdit(train);
    m_learningRate->setObjectName(QStringLiteral("trainingLearningRate"));
    m_learningRate->setPlaceholderText(tr("the trainer's (1e-4)"));
    auto *rate = new QDoubleValidator(1e-9, 1.0, 12, m_learningRate);
    rate->setNotation(QDoubleValidator::ScientificNotation);
    rate->setLocale(QLocale::c()); // as the trainer reads it: 1e-4, 0.001
    m_learningRate->setValidator(rate);
    m_learningRate->setToolTip(tr("The actor-critic's learning rate (--lr; with SL first, the "
                                  "RL stage's); empty: the trainer's default, 1e-4"));
    m_lrAnneal = new QCheckBox(tr("anneal to 0"), train);
    m_lrAnneal->setObjectName(QStringLiteral("trainingLrAnneal"));
    m_lrAnneal->setToolTip(tr("The actor-critic's learning rate falls linearly from the rate above "
                              "at its first update towards 0 at its last (--lr-anneal linear; "
                              "beyond the paper), so the late steps that drift a policy past its "
                              "best shrink"));
    m_init = new QLineEdit(train);
    m_init->setObjectName(QStringLiteral("trainingInit"));
    m_init->setPlaceholderText(tr("fresh network"));
    m_init->setToolTip(tr("Start from this checkpoint (e.g. an SL warm-up); empty: a fresh "
                          "network"));
    auto *browse = new QPushButton(tr("…"), train);
    browse->setMaximumWidth(32);
    auto *initRow = new QHBoxLayout;
    initRow->addWidget(m_init, 1);
    initRow->addWidget(browse);
    m_warmup = new QSpinBox(train);
    m_warmup->setRange(1, 1000000);
    m_warmup->setValue(300);
    m_warmup->setToolTip(tr("Updates of the SL warm-up before RL"));
    m_steps = new QSpinBox(train);
    m_steps->setRange(1, 1000000);
    m_steps->setValue(800);
    m_steps->setToolTip(tr("Updates of the training (RL: one simulated slot each)"));
    m_validateEvery = new QSpinBox(train);
    m_validateEvery->setRange(1, 100000);
    m_validateEvery->setValue(40);
    m_seeds = new QLineEdit(QStringLiteral("100-104"), train);
    m_seeds->setToolTip(tr("Validation trace seeds (A-B or a comma list)"));
    auto *form = new QFormLayout;
    form->addRow(tr("Algorithm"), m_algorithm);
    form->addRow(tr("Scenario"), m_scenario);
    form->addRow(tr("Policy"), m_policy);
    form->addRow(tr("Window"), m_window);
    form->addRow(tr("Job counts"), m_counts);
    form->addRow(tr("Teacher"), m_teacher);
    form->addRow(tr("Labels"), m_labels);
    form->addRow(tr("Window weights"), m_tieWindow);
    form->addRow(tr("Tied start"), m_tieInit);
    form->addRow(tr("Exploration"), m_exploration);
    form->addRow(tr("Credit a task by"), m_taskCredit);
    form->addRow(tr("Credit its kind by"), m_kindCredit);
    form->addRow(tr("Credit its job by"), m_rowCredit);
    form->addRow(QString(), m_rowPerDecision);
    form->addRow(QString(), m_stopBest);
    form->addRow(tr("Type's step"), m_typeStep);
    form->addRow(tr("Counts' step"), m_countStep);
    form->addRow(tr("Policy steps by"), m_optimizer);
    form->addRow(tr("Learning rate"), m_learningRate);
    form->addRow(QString(), m_lrAnneal);
    form->addRow(tr("Start from"), initRow);
    form->addRow(tr("Warm-up updates"), m_warmup);
    form->addRow(tr("Updates"), m_steps);
    form->addRow(tr("Validate every"), m_validateEvery);
    form->addRow(tr("Validation seeds"), m_seeds);
    tv->addLayout(form);
    m_withControl = new QCheckBox(tr("Also run its control"), train);
    m_withControl->setObjectName(QStringLiteral("trainingWithControl"));
    m_withControl->setToolTip(
        tr("Runs the same actor-critic beside it with each batch's advantages shuffled "
           "(--control) and draws the two together: what the real run gains over its control "
           "is learnt, the rest is drift. Each run uses one core."));
    tv->addWidget(m_withControl);
    m_start = new QPushButton(tr("Start training"), train);
    m_cancel = new QPushButton(tr("Cancel"), train);
    m_start->setObjectName(QStringLiteral("trainingStart"));
    m_cancel->setObjectName(QStringLiteral("trainingCancel"));
    m_cancel->setToolTip(tr("Stops the training after its current update; the best checkpoint "
                            "and the curves so far are kept"));
    auto *row = new QHBoxLayout;
    row->addWidget(m_start, 1);
    row->addWidget(m_cancel);
    tv->addLayout(row);
    m_progress = new QProgressBar(train);
    m_progress->setObjectName(QStringLiteral("trainingProgress"));
    m_status = new QLabel(train);
    m_status->setObjectName(QStringLiteral("trainingStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_command = new QLabel(train);
    m_command->setWordWrap(true);
    m_command->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont small = m_command->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    m_command->setFont(small);
    tv->addWidget(m_progress);
    tv->addWidget(m_status);
    tv->addWidget(m_command);
    v->addWidget(train);

    auto *refs = new QGroupBox(tr("Reference lines"), panel);
    refs->setToolTip(tr("DRF, Optimus and the no-contention lower bound, simulated on the same "
                        "validation traces"));
    auto *rf = new QFormLayout(refs);
    m_refScenario = new QComboBox(refs);
    m_refSeeds = new QLineEdit(QStringLiteral("100-104"), refs);
    rf->addRow(tr("Scenario"), m_refScenario);
    rf->addRow(tr("Seeds"), m_refSeeds);
    v->addWidget(refs);

    auto *exportButton = new QPushButton(tr("Export charts…"), panel);
    v->addWidget(exportButton);
    v->addStretch(1);

    connect(open, &QPushButton::clicked, this, &TrainingPage::openWithDialog);
    connect(compare, &QPushButton::clicked, this, &TrainingPage::compareWithDialog);
    connect(probe, &QPushButton::clicked, this, [this] { probeTypes(); });
    connect(m_compareClear, &QPushButton::clicked, this, &TrainingPage::clearComparison);
    connect(m_follow, &QCheckBox::toggled, this, [this](bool on) { m_model->setFollowing(on); });
    connect(browse, &QPushButton::clicked, this, &TrainingPage::browseInit);
    connect(m_init, &QLineEdit::textChanged, this, &TrainingPage::updateControls);
    m_initDelay.setSingleShot(true);
    m_initDelay.setInterval(300);
    connect(m_init, &QLineEdit::textChanged, &m_initDelay, qOverload<>(&QTimer::start));
    connect(&m_initDelay, &QTimer::timeout, this, &TrainingPage::inspectInit);
    connect(&m_initWatcher, &QFutureWatcher<InitInspection>::finished, this, [this] {
        const InitInspection read = m_initWatcher.result();
        if (read.path != m_init->text().trimmed()) { // typed on meanwhile
            inspectInit();
            return;
        }
        m_initInspection = read;
        // A checkpoint trained tied is kept tied, as the recipes that start from one do.
        if (read.file && read.file->tied)
            m_tieWindow->setChecked(true);
        const QString prefix = tr("Start checkpoint: ");
        if (!read.error.isEmpty() && !m_run->isRunning())
            m_status->setText(prefix + read.error);
        else if (read.error.isEmpty() && m_status->text().startsWith(prefix))
            m_status->clear(); // the last file's error, now mended
        updateControls();
    });
    connect(m_algorithm, &QComboBox::currentIndexChanged, this, &TrainingPage::updateControls);
    connect(m_policy, &QComboBox::currentIndexChanged, this, &TrainingPage::updateControls);
    connect(m_tieWindow, &QCheckBox::toggled, this, &TrainingPage::updateControls);
    connect(m_counts, &QComboBox::currentIndexChanged, this, &TrainingPage::updateControls);
    connect(m_rowCredit, &QComboBox::currentIndexChanged, this, &TrainingPage::updateControls);
    connect(m_scenario, &QComboBox::currentIndexChanged, this, &TrainingPage::updateWindowChoices);
    connect(m_start, &QPushButton::clicked, this, [this] { startTraining(); });
    connect(m_cancel, &QPushButton::clicked, this, &TrainingPage::cancelTraining);
    connect(exportButton, &QPushButton::clicked, this, &TrainingPage::exportWithDialog);
    auto recompute = [this] {
        computeReferences(m_refScenario->currentData().toString(), m_refSeeds->text());
    };
    connect(m_refScenario, &QComboBox::activated, this, recompute);
    connect(m_refSeeds, &QLineEdit::editingFinished, this, recompute);
    return panel;
}

QWidget *TrainingPage::buildCharts()
{
    m_charts = new QWidget(this);
    auto *v = new QVBoxLayout(m_charts);
    v->setContentsMargins(0, 0, 0, 0);
    m_summary = new QLabel(m_charts);
    m_summary->setObjectName(QStringLiteral("trainingSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    v->addWidget(m_summary);
    auto *grid = new QGridLayout;
    auto make = [this](const char *name, const QString &title) {
        auto *p = new Plot(m_charts);
        p->setObjectName(QLatin1String(name));
        p->setTitle(title);
        p->placeLegendAbove();
        connect(p, &Plot::colorsChanged, this, &TrainingPage::scheduleReplot);
        return p;
    };
    m_jctPlot = make("training-jct", tr("Validation average JCT (lower is better)"));
    m_entropyPlot = make("training-entropy", tr("Policy entropy (exploration left)"));
    m_lossPlot = make("training-loss", tr("Value loss"));
    m_actionPlot = make("training-actions", tr("Action mix of the trained policy"));
    // The saw-tooth an actor-critic run draws: it trains one slot per update, playing each
    // training trace from its first slot to its last, and the entropy (a mean over every
    // action of the window, the masked ones included) and the critic's error follow how many
    // jobs the slot has. A dl2-reference trace lasts 229 slots under the DRF warm-up and 139
    // under the best actor-critic, the teeth's 240 and 140-160 updates.
    const QString perTrace = tr("RL trains one simulated slot per update, playing each training "
                                "trace from its first slot to its last: each tooth of the "
                                "saw-tooth is one trace, and its width how long that trace "
                                "took the policy (fewer jobs at a trace's start and end, more "
                                "in between)");
    m_entropyPlot->setToolTip(perTrace);
    m_lossPlot->setToolTip(perTrace);
    grid->addWidget(m_jctPlot, 0, 0);
    grid->addWidget(m_entropyPlot, 0, 1);
    grid->addWidget(m_lossPlot, 1, 0);
    grid->addWidget(m_actionPlot, 1, 1);
    for (int i = 0; i < 2; ++i) {
        grid->setRowStretch(i, 1);
        grid->setColumnStretch(i, 1);
    }
    v->addLayout(grid, 1);
    return m_charts;
}

void TrainingPage::setScenarios(const QStringList &names)
{
    m_scenario->clear();
    m_scenario->addItems(names);
    const int small = int(names.indexOf(QStringLiteral("dl2-small")));
    m_scenario->setCurrentIndex(std::max(0, small));
    m_refScenario->clear();
    m_refScenario->addItem(tr("none"), QString());
    for (const QString &n : names)
        m_refScenario->addItem(n, n);
}

QString TrainingPage::outputDirectory() const
{
    if (!m_outputDirectory.isEmpty())
        return m_outputDirectory;
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
        .filePath(QStringLiteral("training"));
}

bool TrainingPage::openCurves(const QString &path)
{
    // Set after the switch: a previous file shown again clears the error.
    m_curvesError = switchFile(m_model, path, m_follow->isChecked());
    const QString shown = m_model->file();
    m_fileLabel->setText(shown.isEmpty() ? tr("No curves file") : breakablePath(shown));
    m_fileLabel->setToolTip(QDir::toNativeSeparators(QFileInfo(shown).absoluteFilePath()));
    updateRecipe();
    updateProgress();
    scheduleReplot();
    return m_curvesError.isEmpty();
}

bool TrainingPage::openComparison(const QString &path)
{
    m_comparisonError = switchFile(m_compare, path, true);
    const QString shown = m_compare->file();
    m_compareLabel->setText(shown.isEmpty() ? QString()
                                            : tr("Compared with %1").arg(breakablePath(shown)));
    m_compareLabel->setToolTip(shown.isEmpty() ? QString()
                                               : QDir::toNativeSeparators(QFileInfo(shown).absoluteFilePath()));
    m_compareLabel->setVisible(!shown.isEmpty());
    m_compareClear->setEnabled(!shown.isEmpty());
    updateProgress();
    scheduleReplot();
    return m_comparisonError.isEmpty();
}

void TrainingPage::clearComparison()
{
    m_compare->setFollowing(false);
    m_compare->clear();
    m_comparisonError.clear();
    m_compareLabel->clear();
    m_compareLabel->setVisible(false);
    m_compareClear->setEnabled(false);
    updateProgress();
    scheduleReplot();
}

ComparedCurves TrainingPage::compared() const
{
    if (m_compare->file().isEmpty())
        return {};
    if (m_controlRun->state() != TrainingRun::State::Idle &&
        m_compare->file() == m_controlRun->request().curvesFile())
        return {m_compare, tr("its control (advantages shuffled)")};
    QString name = QFileInfo(m_compare->file()).fileName();
    for (const char *suffix : {".curves.csv", ".csv", ".dl2ckpt"})
        if (name.endsWith(QLatin1String(suffix)))
            name.chop(int(qstrlen(suffix)));
    return {m_compare, name};
}

void TrainingPage::setRunControl(bool on)
{
    m_withControl->setChecked(on);
}

void TrainingPage::updateRecipe()
{
    const QString curves = m_model->file();
    const QString checkpoint = checkpointOfCurves(curves);
    const QFileInfo info(checkpoint);
    // Re-read only when the checkpoint changed (a running trainer rewrites it at each best).
    const QString stamp = checkpoint.isEmpty() || !info.exists()
                              ? checkpoint
                              : checkpoint + QString::number(info.lastModified().toMSecsSinceEpoch()) +
                                    QLatin1Char('/') + QString::number(info.size());
    if (stamp == m_recipeStamp && !curves.isEmpty())
        return;
    m_recipeStamp = stamp;
    QString text;
    if (curves.isEmpty()) {
        text.clear();
    } else if (checkpoint.isEmpty()) {
        text = tr("Not named <i>checkpoint</i>.curves.csv: how the run was trained is unknown");
    } else if (!info.exists()) {
        text = tr("No checkpoint %1 next to the curves (a run writes it at its first validation): "
                  "how the run was trained is unknown")
                   .arg(info.fileName().toHtmlEscaped());
    } else {
        try {
            text = describeTraining(checkpoint);
        } catch (const std::exception &e) {
            text = tr("How the run was trained cannot be read: %1")
                       .arg(QString::fromLocal8Bit(e.what()).toHtmlEscaped());
        }
    }
    m_recipe->setText(text);
    m_recipe->setToolTip(checkpoint.isEmpty() ? QString() : QDir::toNativeSeparators(info.absoluteFilePath()));
    m_recipe->setVisible(!text.isEmpty());
}

QString TrainingPage::askForCurves(const QString &title)
{
    const QString path = QFileDialog::getOpenFileName(
        this, title, m_settings ? m_settings->lastDirectory() : QString(),
        tr("Training curves (*.curves.csv *.csv);;All files (*)"));
    if (!path.isEmpty() && m_settings)
        m_settings->setLastDirectory(QFileInfo(path).absolutePath());
    return path;
}

void TrainingPage::openWithDialog()
{
    const QString path = askForCurves(tr("Open training curves"));
    if (!path.isEmpty())
        openCurves(path);
}

void TrainingPage::compareWithDialog()
{
    const QString path = askForCurves(tr("Compare with training curves"));
    if (!path.isEmpty())
        openComparison(path);
}

QString TrainingPage::probeCandidate() const
{
    const QString ofCurves = checkpointOfCurves(m_model->file());
    if (!ofCurves.isEmpty() && QFileInfo::exists(ofCurves))
        return ofCurves;
    const QString init = m_init->text().trimmed();
    return QFileInfo::exists(init) ? init : QString();
}

void TrainingPage::probeTypes(const QString &nameOrPath)
{
    if (!m_probe)
        m_probe = new TypeProbeDialog(m_settings, this);
    m_probe->show();
    m_probe->raise();
    const QString checkpoint = nameOrPath.isEmpty() ? probeCandidate() : nameOrPath;
    if (checkpoint.isEmpty())
        m_probe->browse();
    else
        m_probe->probe(checkpoint);
}

void TrainingPage::browseInit()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Start from checkpoint"), m_settings ? m_settings->lastDirectory() : QString(),
        tr("DL2 checkpoints (*.dl2ckpt);;All files (*)"));
    if (!path.isEmpty())
        m_init->setText(path);
}

void TrainingPage::inspectInit()
{
    const QString path = m_init->text().trimmed();
    if (m_initWatcher.isRunning() || path == m_initInspection.path)
        return; // the watcher's handler inspects the latest text when done
    if (path.isEmpty()) {
        m_initInspection = {};
        updateControls();
        return;
    }
    m_initWatcher.setFuture(QtConcurrent::run([path] {
        InitInspection read{path, std::nullopt, QString()};
        try {
            read.file = inspectPolicyFile(path);
        } catch (const std::exception &e) {
            read.error = QString::fromUtf8(e.what());
        }
        return read;
    }));
}

std::optional<PolicyFile> TrainingPage::startFile() const
{
    const QString path = m_init->text().trimmed();
    return !path.isEmpty() && path == m_initInspection.path ? m_initInspection.file : std::nullopt;
}

bool TrainingPage::startTraining()
{
    const QString algorithm = m_algorithm->currentData().toString();
    TrainingRequest r;
    r.algorithm = algorithm == QLatin1String("sl") ? QStringLiteral("sl") : QStringLiteral("rl");
    r.scenario = m_scenario->currentText();
    r.teacher = m_teacher->currentText();
    r.labels = m_labels->currentData().toString();
    r.tieWindow = m_tieWindow->isChecked() && m_tieWindow->isEnabled();
    r.exploration = m_exploration->currentData().toString();
    r.taskCredit = m_taskCredit->currentData().toString();
    if (m_kindCredit->isEnabled())
        r.kindCredit = m_kindCredit->currentData().toString();
    if (m_rowCredit->isEnabled())
        r.rowCredit = m_rowCredit->currentData().toString();
    r.rowScalePerDecision = m_rowPerDecision->isEnabled() && m_rowPerDecision->isChecked();
    r.stopCreditBest = m_stopBest->isEnabled() && m_stopBest->isChecked();
    r.policy = m_policy->currentText();
    r.init = m_init->text().trimmed();
    if (const std::optional<PolicyFile> start = startFile())
        r.policy = start->kind; // the checkpoint brings its own
    r.window = m_window->value();
    r.perTypeCounts =
        m_counts->isEnabled() && m_counts->currentData().toString() == QLatin1String("per-type");
    if (m_typeStep->isEnabled())
        r.typeStepScale = m_typeStep->value();
    if (m_countStep->isEnabled())
        r.countStepScale = m_countStep->value();
    if (m_optimizer->isEnabled())
        r.optimizer = m_optimizer->currentData().toString();
    if (m_learningRate->isEnabled() && !m_learningRate->text().trimmed().isEmpty()) {
        if (!m_learningRate->hasAcceptableInput()) {
            m_status->setText(
                tr("Learning rate: expected a number in (0, 1] such as 1e-4, got '%1'")
                    .arg(m_learningRate->text()));
            return false;
        }
        r.learningRate = QLocale::c().toDouble(m_learningRate->text().trimmed());
    }
    r.lrAnnealLinear = m_lrAnneal->isEnabled() && m_lrAnneal->isChecked();
    r.steps = m_steps->value();
    r.validateEvery = std::min(m_validateEvery->value(), m_steps->value());
    r.validationSeeds = m_seeds->text().trimmed();
    // Given to the SL run only: the trainer has no --tie-init for the actor-critic.
    QStringList tieInit;
    if (m_tieInit->isEnabled() && m_tieInit->currentData().toString() == QLatin1String("job"))
        tieInit = {QStringLiteral("--tie-init"), QStringLiteral("job")};
    if (algorithm != QLatin1String("sl+rl")) {
        r.extraArguments << tieInit; // none for RL: the choice is greyed out
        return startTraining(r);
    }
    TrainingRequest sl = r;
    sl.algorithm = QStringLiteral("sl");
    sl.extraArguments << tieInit;
    sl.init.clear();
    sl.steps = m_warmup->value();
    sl.validateEvery = std::min(m_validateEvery->value(), sl.steps);
    return startTraining(sl, r);
}

bool TrainingPage::startTraining(const TrainingRequest &warmup, const TrainingRequest &rl)
{
    if (!startTraining(warmup))
        return false;
    m_next = rl;
    m_next->init = m_run->request().output; // RL starts from the warm-up's best checkpoint
    m_stage = 1;
    m_stages = 2;
    updateProgress();
    return true;
}

bool TrainingPage::startTraining(TrainingRequest r)
{
    m_next.reset();
    m_stage = m_stages = 1;
    if (ValidationBaselines::parseSeeds(r.validationSeeds).empty()) {
        m_status->setText(tr("Validation seeds: expected A-B or a comma list, got '%1'")
                              .arg(r.validationSeeds));
        return false;
    }
    if (r.output.isEmpty())
        r.output = QDir(outputDirectory())
                       .filePath(QStringLiteral("%1-%2-%3.dl2ckpt")
                                     .arg(r.algorithm, r.scenario,
                                          QDateTime::currentDateTime().toString(
                                              QStringLiteral("yyyyMMdd-HHmmss"))));
    if (!m_run->start(r)) {
        m_status->setText(m_run->errorString());
        Q_EMIT errorOccurred(m_run->errorString());
        return false;
    }
    m_command->setText(breakablePath(m_run->commandLine()));
    m_follow->setChecked(true);
    m_model->setFollowing(true);
    openCurves(r.curvesFile());
    if (r.scenario != m_baselines->scenario() || r.validationSeeds != m_baselines->seeds())
        computeReferences(r.scenario, r.validationSeeds);
    if (r.algorithm == QLatin1String("rl") && !r.control && m_withControl->isChecked())
        startControl(r);
    m_ticker.start();
    updateControls();
    updateProgress();
    return true;
}

void TrainingPage::startControl(const TrainingRequest &request)
{
    const TrainingRequest control = request.controlRequest();
    m_controlRun->setSearchDirectories(m_run->searchDirectories());
    if (!m_controlRun->start(control)) { // the real run goes on alone
        Q_EMIT errorOccurred(tr("Control: %1").arg(m_controlRun->errorString()));
        return;
    }
    openComparison(control.curvesFile());
}

void TrainingPage::onControlFinished(TrainingRun::State state)
{
    m_compare->reload(); // the final curves
    if (state == TrainingRun::State::Failed)
        Q_EMIT errorOccurred(tr("Control: %1").arg(m_controlRun->errorString()));
    if (!m_run->isRunning())
        m_ticker.stop();
    updateControls();
    updateProgress();
    scheduleReplot();
}

void TrainingPage::cancelTraining()
{
    m_next.reset();
    m_run->cancel();
    m_controlRun->cancel();
    updateControls();
    updateProgress();
}

void TrainingPage::onRunFinished(TrainingRun::State state)
{
    if (!m_controlRun->isRunning())
        m_ticker.stop();
    m_model->reload(); // the final curves
    if (state == TrainingRun::State::Finished && m_next) {
        const TrainingRequest next = *m_next;
        const int stage = m_stage + 1, stages = m_stages;
        if (startTraining(next)) {
            m_stage = stage;
            m_stages = stages;
            updateProgress();
            return;
        }
    }
    m_next.reset();
    if (state == TrainingRun::State::Failed)
        Q_EMIT errorOccurred(m_run->errorString());
    updateControls();
    updateProgress();
}

void TrainingPage::computeReferences(const QString &scenarioName, const QString &seedText)
{
    {
        const QSignalBlocker a(m_refScenario), b(m_refSeeds);
        m_refScenario->setCurrentIndex(std::max(0, m_refScenario->findData(scenarioName)));
        if (!seedText.isEmpty())
            m_refSeeds->setText(seedText);
    }
    m_baselines->compute(scenarioName, seedText);
    scheduleReplot();
}

bool TrainingPage::isComputingReferences() const
{
    return m_baselines->isRunning();
}

TrainingReferences TrainingPage::references() const
{
    TrainingReferences out = m_model->references();
    for (const auto &r : m_baselines->references())
        if (std::none_of(out.begin(), out.end(), [&](const auto &o) { return o.name == r.name; }))
            out.push_back(r);
    return out;
}

void TrainingPage::scheduleReplot()
{
    if (!isVisible()) { // replotted when shown
        m_stale = true;
        return;
    }
    if (!m_replot.isActive())
        m_replot.start();
}

void TrainingPage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void TrainingPage::refresh()
{
    m_replot.stop();
    m_stale = false;
    double xMax = std::max(m_model->lastStep(), m_compare->lastStep());
    if (m_run->isRunning() && m_model->file() == m_run->request().curvesFile())
        xMax = std::max(xMax, double(m_run->totalSteps()));
    if (m_controlRun->isRunning() && m_compare->file() == m_controlRun->request().curvesFile())
        xMax = std::max(xMax, double(m_controlRun->totalSteps()));
    const TrainingReferences refs = references();
    const ComparedCurves other = compared();
    plotValidationJct(m_jctPlot, *m_model, refs, xMax, other);
    plotEntropy(m_entropyPlot, *m_model, xMax);
    plotLosses(m_lossPlot, *m_model, xMax);
    plotActionMix(m_actionPlot, *m_model, xMax);
    if (m_model->file().isEmpty()) {
        const QString hint = tr("Open a curves file or start a training");
        for (Plot *p : {m_jctPlot, m_entropyPlot, m_lossPlot, m_actionPlot})
            p->setMessage(hint);
    }
    updateRecipe();
    const QString summary = trainingSummary(*m_model, refs, other);
    m_summary->setText(summary);
    m_summary->setVisible(!summary.isEmpty());
}

void TrainingPage::updateControls()
{
    const bool running = m_run->isRunning() || m_controlRun->isRunning();
    const QString algorithm = m_algorithm->currentData().toString();
    const bool pipeline = algorithm == QLatin1String("sl+rl");
    m_teacher->setEnabled(algorithm != QLatin1String("rl") && !running);
    // The actor-critic's own settings.
    for (QWidget *w : std::initializer_list<QWidget *>{m_exploration, m_taskCredit, m_withControl,
                                                       m_optimizer, m_learningRate, m_lrAnneal})
        w->setEnabled(algorithm != QLatin1String("sl") && !running);
    m_warmup->setEnabled(pipeline && !running);
    m_init->setEnabled(!pipeline && !running);
    const bool fresh = pipeline || m_init->text().trimmed().isEmpty();
    m_policy->setEnabled(!running && fresh);
    m_window->setEnabled(!running && fresh && m_policy->currentText() == QLatin1String("dl2"));
    m_labels->setEnabled(algorithm != QLatin1String("rl") && !running);
    // RL from a checkpoint trained tied (as read by inspectInit) can keep it tied.
    const bool rl = algorithm == QLatin1String("rl");
    const std::optional<PolicyFile> start = startFile();
    const bool tiedStart = rl && start && start->tied;
    m_tieWindow->setEnabled(!running && ((!rl && fresh && m_policy->currentText() == QLatin1String("dl2")) ||
                                         tiedStart));
    m_tieInit->setEnabled(!rl && m_tieWindow->isEnabled() && m_tieWindow->isChecked());
    m_counts->setEnabled(!running && fresh && m_policy->currentText() == QLatin1String("dl2"));
    // The trainer takes the step scales only for a tied actor-critic (the second stage of
    // SL, then RL, or RL from a tied checkpoint), and the count scale only with per-type
    // counts.
    const bool tiedRl = (pipeline || tiedStart) && m_tieWindow->isEnabled() && m_tieWindow->isChecked();
    const bool perTypeCounts =
        pipeline ? m_counts->currentData().toString() == QLatin1String("per-type") : tiedStart && start->perTypeCounts;
    m_typeStep->setEnabled(tiedRl);
    m_countStep->setEnabled(tiedRl && perTypeCounts);
    // A checkpoint brings its own kind; the trainer refuses the kind credits for dl2-plus.
    const bool dl2Credits = algorithm != QLatin1String("sl") && !running &&
                            (!fresh || m_policy->currentText() == QLatin1String("dl2"));
    m_kindCredit->setEnabled(dl2Credits);
    m_rowCredit->setEnabled(dl2Credits);
    const QString rowCredit = m_rowCredit->currentData().toString();
    m_rowPerDecision->setEnabled(dl2Credits && rowCredit != QLatin1String("sampled"));
    m_stopBest->setEnabled(dl2Credits && TrainingRequest::rowCreditCreditsStop(rowCredit));
    updateKindChoices();
    updateWindowChoices();
    for (QWidget *w : std::initializer_list<QWidget *>{m_algorithm, m_scenario, m_steps,
                                                       m_validateEvery, m_seeds})
        w->setEnabled(!running);
    m_start->setEnabled(!running);
    m_cancel->setEnabled(m_run->state() == TrainingRun::State::Running ||
                         m_controlRun->state() == TrainingRun::State::Running);
}

void TrainingPage::updateKindChoices()
{
    // Every row's kind is credited by the row credit's gains: the trainer refuses it without one.
    const bool rowCredit = m_rowCredit->currentData().toString() != QLatin1String("sampled");
    auto *items = qobject_cast<QStandardItemModel *>(m_kindCredit->model());
    const int everyRow = m_kindCredit->findData(QStringLiteral("every-row"));
    if (items && everyRow >= 0) {
        items->item(everyRow)->setEnabled(rowCredit);
        items->item(everyRow)->setToolTip(
            rowCredit ? QString()
                      : tr("Needs a row credit: choose every job's gains, or every job's and stop, "
                           "under Credit its job by"));
    }
    if (!rowCredit && m_kindCredit->currentIndex() == everyRow)
        m_kindCredit->setCurrentIndex(m_kindCredit->findData(QStringLiteral("sampled")));
}

void TrainingPage::updateWindowChoices()
{
    int window = 0;
    try {
        window = dl2::scenarioByName(m_scenario->currentText().toStdString()).window;
    } catch (const std::exception &) {
        // not a built-in scenario: the trainer names the problem when started
    }
    m_window->setSpecialValueText(window > 0 ? tr("scenario's (%1)").arg(window)
                                             : tr("scenario's"));
    // The window teachers exist for dl2 only; dl2-plus sees every job.
    const bool dl2 = m_policy->currentText() == QLatin1String("dl2");
    auto *items = qobject_cast<QStandardItemModel *>(m_teacher->model());
    for (int i = 0; items && i < m_teacher->count(); ++i)
        if (m_teacher->itemText(i).contains(QLatin1String("-window-")))
            items->item(i)->setEnabled(dl2);
    if (!dl2 && m_teacher->currentText().contains(QLatin1String("-window-")))
        m_teacher->setCurrentIndex(0);
}

void TrainingPage::updateProgress()
{
    const TrainingRun::State state = m_run->state();
    long long step = m_run->step();
    if (m_model->file() == m_run->request().curvesFile())
        step = std::max(step, (long long)m_model->lastStep());
    const long long total = std::max(1LL, m_run->totalSteps());
    m_progress->setRange(0, int(std::min<long long>(total, 1 << 30)));
    m_progress->setValue(int(std::min(step, total)));
    m_progress->setVisible(state != TrainingRun::State::Idle);
    const double elapsed = m_run->elapsedSeconds();
    QString text;
    switch (state) {
    case TrainingRun::State::Idle: {
        QStringList command = m_run->trainCommand();
        if (!command.isEmpty())
            command.front() = QFileInfo(command.front()).fileName();
        text = command.isEmpty()
                   ? tr("Neither dl2-train nor dl2 was found next to this program.")
                   : tr("Runs %1 in the background.").arg(command.join(QLatin1Char(' ')));
        break;
    }
    case TrainingRun::State::Running:
        if (m_stages > 1)
            text = tr("Stage %1 of %2 (%3): ")
                       .arg(m_stage)
                       .arg(m_stages)
                       .arg(m_run->request().algorithm.toUpper());
        text += tr("update %1 of %2 · %3 elapsed").arg(step).arg(total).arg(clock(elapsed));
        if (step > 0)
            text += tr(" · about %1 left").arg(clock(elapsed * double(total - step) / double(step)));
        break;
    case TrainingRun::State::Cancelling:
        text = tr("Cancelling after the current update…");
        break;
    case TrainingRun::State::Finished:
        text = tr("Finished in %1. %2").arg(clock(elapsed), m_run->summary());
        break;
    case TrainingRun::State::Cancelled:
        text = tr("Cancelled at update %1 after %2; the best checkpoint so far is kept.")
                   .arg(step)
                   .arg(clock(elapsed));
        break;
    case TrainingRun::State::Failed:
        text = tr("Failed: %1").arg(m_run->errorString());
        break;
    }
    const QString control = controlStatus();
    if (!control.isEmpty())
        text += QLatin1Char('\n') + control;
    if (!m_comparisonError.isEmpty())
        text = m_comparisonError + QLatin1Char('\n') + text;
    if (!m_curvesError.isEmpty())
        text = m_curvesError + QLatin1Char('\n') + text;
    m_status->setText(text);
}

QString TrainingPage::controlStatus() const
{
    const long long step = m_controlRun->step(), total = std::max(1LL, m_controlRun->totalSteps());
    switch (m_controlRun->state()) {
    case TrainingRun::State::Idle:
        return {};
    case TrainingRun::State::Running:
        return tr("Control (advantages shuffled): update %1 of %2").arg(step).arg(total);
    case TrainingRun::State::Cancelling:
        return tr("Control: cancelling after the current update…");
    case TrainingRun::State::Finished:
        return tr("Control finished in %1.").arg(clock(m_controlRun->elapsedSeconds()));
    case TrainingRun::State::Cancelled:
        return tr("Control cancelled at update %1; its best checkpoint so far is kept.").arg(step);
    case TrainingRun::State::Failed:
        return tr("Control failed: %1").arg(m_controlRun->errorString());
    }
    return {};
}

QString TrainingPage::statusText() const
{
    return m_status->text();
}

bool TrainingPage::exportImage(const QString &fileName)
{
    refresh();
    return m_charts->grab().save(fileName);
}

void TrainingPage::exportWithDialog()
{
    const QString name = QFileDialog::getSaveFileName(this, tr("Export training charts"),
                                                      QStringLiteral("training.png"),
                                                      tr("PNG image (*.png)"));
    if (!name.isEmpty() && !exportImage(name))
        Q_EMIT errorOccurred(tr("Could not write %1").arg(name));
}

} // namespace dl2console
