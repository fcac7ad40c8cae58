#include "comparisonpage.h"

#include "comparisonbymodelmodel.h"
#include "comparisonplots.h"
#include "comparisonsummarymodel.h"
#include "error.h"
#include "plot.h"
#include "scenario.h"
#include "settings.h"
#include "trace.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPdfWriter>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <map>

namespace dl2console {

namespace {

QString byModelHint()
{
    return ComparisonPage::tr("Mean JCT of each job type's jobs per policy; hover a cell for its "
                              "distance to the lower bound and its part of the average");
}

} // namespace

ComparisonPage::ComparisonPage(Settings *settings, QWidget *parent)
    : QWidget(parent), m_settings(settings), m_summary(new ComparisonSummaryModel(this)),
      m_byModel(new ComparisonByModelModel(this))
{
    auto *layout = new QHBoxLayout(this);
    // Scrollable controls: the page must not impose its height on the main window.
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(buildControls());
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setMinimumWidth(scroll->widget()->sizeHint().width() + 16);
    scroll->setMaximumWidth(300);
    layout->addWidget(scroll);
    layout->addWidget(buildResults(), 1);
    setMinimumHeight(240); // three rows of charts must not raise the main window's minimum
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &ComparisonPage::onFinished);
    updateButtons();
    showResult();
}

ComparisonPage::~ComparisonPage()
{
    cancel();
    m_watcher.waitForFinished();
}

QWidget *ComparisonPage::buildControls()
{
    auto *panel = new QWidget(this);
    panel->setMaximumWidth(280);
    auto *v = new QVBoxLayout(panel);
    v->setContentsMargins(0, 0, 0, 0);

    auto *policyBox = new QGroupBox(tr("Policies"), panel);
    auto *pv = new QVBoxLayout(policyBox);
    m_policies = new QListWidget(policyBox);
    m_policies->setMaximumHeight(170);
    pv->addWidget(m_policies);
    v->addWidget(policyBox);

    auto *traceBox = new QGroupBox(tr("Traces"), panel);
    auto *tv = new QVBoxLayout(traceBox);
    m_useSeeds = new QRadioButton(tr("Scenario with seeds"), traceBox);
    m_useFiles = new QRadioButton(tr("Trace files"), traceBox);
    m_useSeeds->setChecked(true);
    m_scenario = new QComboBox(traceBox);
    m_firstSeed = new QSpinBox(traceBox);
    m_firstSeed->setRange(1, 1000000);
    m_seedCount = new QSpinBox(traceBox);
    m_seedCount->setRange(1, 100);
    m_seedCount->setValue(m_settings ? m_settings->comparisonSeeds() : 3);
    auto *form = new QFormLayout;
    form->addRow(tr("Scenario"), m_scenario);
    form->addRow(tr("First seed"), m_firstSeed);
    form->addRow(tr("Seeds"), m_seedCount);
    tv->addWidget(m_useSeeds);
    tv->addLayout(form);
    tv->addWidget(m_useFiles);
    m_files = new QListWidget(traceBox);
    m_files->setMaximumHeight(80);
    tv->addWidget(m_files);
    auto *fileButtons = new QHBoxLayout;
    auto *add = new QPushButton(tr("Add…"), traceBox);
    auto *remove = new QPushButton(tr("Remove"), traceBox);
    fileButtons->addWidget(add);
    fileButtons->addWidget(remove);
    tv->addLayout(fileButtons);
    v->addWidget(traceBox);
    m_runOn = new QLabel(panel);
    m_runOn->setObjectName(QStringLiteral("comparisonRunOn"));
    m_runOn->setWordWrap(true);
    m_runOn->setToolTip(tr("The comparison runs on what the session runs on: Simulation > Speed "
                           "model, the cluster size of the toolbar, File > Load policy…"));
    v->addWidget(m_runOn);

    m_run = new QPushButton(tr("Run comparison"), panel);
    m_run->setDefault(true);
    m_run->setShortcut(Qt::Key_F5);
    m_run->setToolTip(tr("Run every checked policy on every trace — F5"));
    m_cancel = new QPushButton(tr("Cancel"), panel);
    m_progress = new QProgressBar(panel);
    m_status = new QLabel(panel);
    m_status->setWordWrap(true);
    m_export = new QPushButton(tr("Export…"), panel);
    m_export->setToolTip(tr("Save the summary as CSV or the charts as PNG/PDF"));
    auto *runRow = new QHBoxLayout;
    runRow->addWidget(m_run, 1);
    runRow->addWidget(m_cancel);
    v->addLayout(runRow);
    v->addWidget(m_progress);
    v->addWidget(m_status);
    v->addWidget(m_export);
    v->addStretch(1);

    connect(m_run, &QPushButton::clicked, this, &ComparisonPage::run);
    connect(m_cancel, &QPushButton::clicked, this, &ComparisonPage::cancel);
    connect(m_export, &QPushButton::clicked, this, &ComparisonPage::exportWithDialog);
    connect(add, &QPushButton::clicked, this, [this] {
        const QStringList paths = QFileDialog::getOpenFileNames(
            this, tr("Add trace files"), m_settings ? m_settings->lastDirectory() : QString(),
            tr("Traces (*.csv *.pb *.textproto *.txtpb);;All files (*)"));
        for (const QString &p : paths)
            m_files->addItem(p);
        if (!paths.isEmpty())
            m_useFiles->setChecked(true);
    });
    connect(remove, &QPushButton::clicked, this, [this] { qDeleteAll(m_files->selectedItems()); });
    return panel;
}

QWidget *ComparisonPage::buildResults()
{
    m_results = new QWidget(this);
    auto *grid = new QGridLayout(m_results);
    grid->setContentsMargins(0, 0, 0, 0);
    m_jctPlot = new Plot(m_results);
    m_jctPlot->setObjectName(QStringLiteral("comparison-jct"));
    m_cdfPlot = new Plot(m_results);
    m_cdfPlot->setObjectName(QStringLiteral("comparison-cdf"));
    m_utilPlot = new Plot(m_results);
    m_utilPlot->setObjectName(QStringLiteral("comparison-utilisation"));
    m_rewardPlot = new Plot(m_results);
    m_rewardPlot->setObjectName(QStringLiteral("comparison-reward"));
    m_completedPlot = new Plot(m_results);
    m_completedPlot->setObjectName(QStringLiteral("comparison-completed"));
    // The summary and the breakdown by job type share the table's cell, as two tabs.
    m_tables = new QTabWidget(m_results);
    m_tables->setObjectName(QStringLiteral("comparison-tables"));
    m_tables->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_table = new QTableView(m_tables);
    m_table->setModel(m_summary);
    m_byModelTable = new QTableView(m_tables);
    m_byModelTable->setObjectName(QStringLiteral("comparison-by-model"));
    m_byModelTable->setModel(m_byModel);
    for (QTableView *t : {m_table, m_byModelTable}) {
        t->verticalHeader()->hide();
        t->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents); // 9 rows fit
        t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
        t->setAlternatingRowColors(true);
        t->setSortingEnabled(false);
    }
    m_tables->addTab(m_table, tr("Summary"));
    m_tables->addTab(m_byModelTable, tr("By job type"));
    m_tables->setTabToolTip(1, byModelHint());
    // Two columns (the page must not widen the main window), three rows.
    grid->addWidget(m_jctPlot, 0, 0);
    grid->addWidget(m_cdfPlot, 0, 1);
    grid->addWidget(m_utilPlot, 1, 0);
    grid->addWidget(m_completedPlot, 1, 1);
    grid->addWidget(m_rewardPlot, 2, 0);
    grid->addWidget(m_tables, 2, 1);
    for (int i = 0; i < 2; ++i)
        grid->setColumnStretch(i, 1);
    for (int i = 0; i < 3; ++i)
        grid->setRowStretch(i, 1);
    m_jctPlot->setTitle(tr("Average JCT per policy (mean ± std over traces; dotted: lower bound)"));
    m_cdfPlot->setTitle(tr("JCT distribution (CDF)"));
    m_utilPlot->setTitle(tr("GPU utilisation over time"));
    m_rewardPlot->setTitle(tr("Reward per slot over time"));
    m_completedPlot->setTitle(tr("Completed jobs over time"));
    for (Plot *p : {m_cdfPlot, m_utilPlot, m_rewardPlot, m_completedPlot})
        p->placeLegendAbove();
    for (Plot *p : {m_jctPlot, m_cdfPlot, m_utilPlot, m_rewardPlot, m_completedPlot})
        connect(p, &Plot::colorsChanged, this, [this] {
            if (!m_result.runs.empty())
                showResult();
        });
    return m_results;
}

void ComparisonPage::setPolicies(const QStringList &names, const QStringList &checked)
{
    m_policies->clear();
    for (const QString &n : names) {
        auto *item = new QListWidgetItem(n, m_policies);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(checked.contains(n) ? Qt::Checked : Qt::Unchecked);
    }
}

QStringList ComparisonPage::checkedPolicies() const
{
    QStringList out;
    for (int i = 0; i < m_policies->count(); ++i)
        if (m_policies->item(i)->checkState() == Qt::Checked)
            out << m_policies->item(i)->text();
    return out;
}

void ComparisonPage::setScenarios(const QStringList &names)
{
    m_scenario->clear();
    m_scenario->addItems(names);
}

void ComparisonPage::setRunSettings(const SessionSetup &setup)
{
    m_runSettings = setup;
    QString text = tr("Speeds: %1").arg(speedModelLabel(setup));
    if (setup.nodes > 0)
        text += tr("<br>Nodes: %1").arg(setup.nodes);
    if (!setup.checkpoint.isEmpty())
        text += tr("<br>%1: %2").arg(setup.policy, QFileInfo(setup.checkpoint).fileName());
    m_runOn->setText(text);
}

void ComparisonPage::setSeedCount(int count)
{
    m_seedCount->setValue(count);
}

void ComparisonPage::setTraceFiles(const QStringList &paths)
{
    m_files->clear();
    m_files->addItems(paths);
    m_useFiles->setChecked(!paths.isEmpty());
    m_useSeeds->setChecked(paths.isEmpty());
}

bool ComparisonPage::isRunning() const
{
    return m_watcher.isRunning();
}

void ComparisonPage::updateButtons()
{
    const bool running = isRunning();
    m_run->setEnabled(!running);
    m_cancel->setEnabled(running);
    m_export->setEnabled(!running && !m_result.runs.empty());
}

void ComparisonPage::run()
{
    if (isRunning())
        return;
    const QStringList policies = checkedPolicies();
    if (policies.isEmpty()) {
        m_status->setText(tr("Check at least one policy."));
        return;
    }
    QStringList files;
    for (int i = 0; i < m_files->count(); ++i)
        files << m_files->item(i)->text();
    const bool useFiles = m_useFiles->isChecked() && !files.isEmpty();
    const std::string scenarioName = m_scenario->currentText().toStdString();
    const quint64 firstSeed = static_cast<quint64>(m_firstSeed->value());
    const int seedCount = m_seedCount->value();
    if (m_settings) {
        m_settings->setComparisonPolicies(policies);
        m_settings->setComparisonSeeds(seedCount);
    }
    const int total = policies.size() * (useFiles ? files.size() : seedCount);
    m_progress->setRange(0, total);
    m_progress->setValue(0);
    m_status->setText(tr("Running %1 simulations…").arg(total));

    const quint64 generation = m_jobs.start();
    const JobTracker::CancelFlag cancelFlag = m_jobs.cancelFlag();
    QPointer<ComparisonPage> self(this);
    const SessionSetup runOn = m_runSettings;
    auto work = [=]() -> Outcome {
        Outcome out;
        try {
            const dl2::Scenario &scenario = dl2::scenarioByName(scenarioName);
            const auto speedModel = dl2::speedModelChoiceFromString(runOn.speedModel.toStdString());
            dl2::ExperimentSetup setup;
            setup.cluster = scenario.cluster;
            if (runOn.nodes > 0)
                setup.cluster.nodes = runOn.nodes;
            setup.profiles = dl2::profilesFor(speedModel, runOn.speedTable.toStdString());
            setup.simulation = scenario.simulation;
            setup.schedulerConfig.scenario = scenario.name;
            setup.schedulerConfig.measuredSpeeds = speedModel == dl2::SpeedModelChoice::Measured;
            if (!runOn.checkpoint.isEmpty())
                setup.checkpoints[runOn.policy.toStdString()] = runOn.checkpoint.toStdString();
            if (useFiles) {
                for (const QString &f : files) {
                    dl2::Trace t = dl2::Trace::load(f.toStdString());
                    t.validate(setup.profiles, f.toStdString());
                    if (t.name.empty())
                        t.name = QFileInfo(f).fileName().toStdString();
                    setup.traces.push_back(std::move(t));
                    setup.seeds.push_back(0);
                }
            } else {
                for (int i = 0; i < seedCount; ++i) {
                    setup.traces.push_back(scenario.trace(setup.profiles, firstSeed + i));
                    setup.seeds.push_back(firstSeed + i);
                }
            }
            for (const auto &t : setup.traces) {
                std::vector<int> arrival;
                arrival.reserve(t.jobs.size());
                for (const auto &job : t.jobs)
                    arrival.push_back(job.arrivalSlot);
                out.arrivals.push_back(std::move(arrival));
            }
            for (const QString &p : policies)
                setup.policies.push_back(p.toStdString());
            setup.threads = 2;
            out.policies = setup.policies;
            out.result = dl2::runExperiment(
                setup,
                [self, generation](int done, int) {
                    QMetaObject::invokeMethod(
                        self,
                        [self, generation, done] {
                            if (self && self->m_jobs.isCurrent(generation))
                                self->m_progress->setValue(done);
                        },
                        Qt::QueuedConnection);
                },
                cancelFlag.get());
            if (!out.result.cancelled) {
                try {
                    out.byModel = dl2::breakdownByModel(setup, out.result);
                } catch (const dl2::Error &e) {
                    out.byModelError = QString::fromStdString(e.what());
                }
            }
        } catch (const std::exception &e) {
            out.error = QString::fromStdString(e.what());
        }
        return out;
    };
    m_watcher.setFuture(QtConcurrent::run(work));
    updateButtons();
}

void ComparisonPage::cancel()
{
    m_jobs.cancel();
}

void ComparisonPage::onFinished()
{
    const Outcome out = m_watcher.result();
    updateButtons();
    if (!out.error.isEmpty()) {
        m_status->setText(tr("Failed: %1").arg(out.error));
        Q_EMIT errorOccurred(out.error);
        Q_EMIT finished(false);
        return;
    }
    if (out.result.cancelled) {
        m_status->setText(tr("Cancelled; previous results kept."));
        Q_EMIT finished(false);
        return;
    }
    m_result = out.result;
    m_arrivals = out.arrivals;
    m_byModel->setBreakdown(out.byModel, out.policies);
    m_byModelError = out.byModelError;
    m_tables->setTabEnabled(1, m_byModelError.isEmpty());
    m_tables->setTabToolTip(1, m_byModelError.isEmpty() ? byModelHint() : m_byModelError);
    m_progress->setValue(m_progress->maximum());
    m_status->setText(tr("%1 runs done.").arg(m_result.runs.size()));
    showResult();
    updateButtons();
    Q_EMIT finished(true);
}

void ComparisonPage::showResult()
{
    m_summary->setSummary(m_result.summary);
    plotAverageJct(m_jctPlot, m_result);
    plotJctCdf(m_cdfPlot, m_result);
    plotUtilisationOverTime(m_utilPlot, m_result);
    plotRewardOverTime(m_rewardPlot, m_result);
    plotCompletedOverTime(m_completedPlot, m_result, m_arrivals);
}

bool ComparisonPage::exportCsv(const QString &fileName) const
{
    QString csv = m_summary->toCsv();
    if (m_byModel->rowCount() > 0)
        csv += u'\n' + m_byModel->toCsv();
    csv +=
        QStringLiteral("\npolicy,seed,trace,avg_jct,makespan,completed,jobs,lower_bound_avg_jct\n");
    for (const auto &r : m_result.runs)
        csv += QString::fromStdString(r.policy) + u',' + QString::number(r.seed) + u',' +
               QString::fromStdString(r.result.traceName) + u',' +
               QString::number(r.result.avgJct, 'g', 8) + u',' +
               QString::number(r.result.makespan, 'g', 8) + u',' +
               QString::number(r.result.completed) + u',' + QString::number(r.result.jobs) + u',' +
               QString::number(r.result.lowerBoundAvgJct, 'g', 8) + u'\n';
    QSaveFile file(fileName);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return false;
    file.write(csv.toUtf8());
    return file.commit();
}

bool ComparisonPage::exportImage(const QString &fileName)
{
    if (fileName.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive)) {
        QPdfWriter writer(fileName);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setPageOrientation(QPageLayout::Landscape);
        writer.setResolution(150);
        QPainter painter(&writer);
        if (!painter.isActive())
            return false;
        const QRect page = painter.viewport();
        const double scale = std::min(double(page.width()) / m_results->width(),
                                      double(page.height()) / m_results->height());
        painter.scale(scale, scale);
        m_results->render(&painter);
        return true;
    }
    return m_results->grab().save(fileName);
}

void ComparisonPage::exportWithDialog()
{
    QString selected;
    const QString name = QFileDialog::getSaveFileName(
        this, tr("Export comparison"), QStringLiteral("comparison.csv"),
        tr("CSV summary (*.csv);;PNG image (*.png);;PDF document (*.pdf)"), &selected);
    if (name.isEmpty())
        return;
    const bool ok = name.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive) ? exportCsv(name)
                                                                              : exportImage(name);
    if (!ok)
        Q_EMIT errorOccurred(tr("Could not write %1").arg(name));
}

} // namespace dl2console
