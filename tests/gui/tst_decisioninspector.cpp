// The learned policies in the console (built only with the learning library): the decision
// inspector shows exactly the records Scheduler::lastDecisions() gives when the same slot
// is run directly; the reward plot has the V(s) series for dl2 and not for drf; a replay of
// dl2 from a keyframe equals a straight run; the decision queue's confidence is the planner's
// probability.

#include "consolesession.h"
#include "decisioninspector.h"
#include "decisionprobabilityplot.h"
#include "decisionqueuemodel.h"
#include "decisionqueuepanel.h"
#include "decisionstatemodel.h"
#include "comparisonpage.h"
#include "decisionstepsmodel.h"
#include "jobtablemodel.h"
#include "liveoperations.h"
#include "mainwindow.h"
#include "policyplanner.h"
#include "registerpolicies.h"
#include "rewardplot.h"
#include "scenario.h"
#include "scheduler.h"
#include "sessionstatusbar.h"
#include "sessiontoolbar.h"
#include "settings.h"
#include "simulatedconnector.h"
#include "simulationworker.h"
#include "simulator.h"
#include "viewrefresher.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QHeaderView>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace dl2console;

namespace {

const QString kScenario = QStringLiteral("dl2-small");

// A straight run of `policy` on the scenario to `slot`, with a fresh scheduler that records.
struct StraightRun
{
    std::unique_ptr<dl2::Scheduler> scheduler;
    std::unique_ptr<dl2::Simulator> simulator;

    StraightRun(const QString &policy, int slot, const QString &checkpoint = {})
    {
        const dl2::Scenario &scenario = dl2::scenarioByName(kScenario.toStdString());
        dl2::SchedulerConfig config;
        config.scenario = scenario.name;
        config.seed = 1;
        config.checkpoint = checkpoint.toStdString();
        scheduler = dl2::makeScheduler(policy.toStdString(), config);
        scheduler->reset();
        scheduler->recordDecisions(dl2::DecisionRecording::Full);
        dl2::ProfileSet profiles = dl2::ProfileSet::reference();
        dl2::Trace trace = scenario.trace(profiles, 1);
        simulator = std::make_unique<dl2::Simulator>(scenario.cluster, std::move(profiles),
                                                     std::move(trace), scenario.simulation);
        while (simulator->slot() <= slot && !simulator->done())
            simulator->step(*scheduler);
    }
    const std::vector<dl2::DecisionRecord> &records() const
    {
        return scheduler->lastDecisions();
    }
};

QStringList tableRows(const QAbstractItemModel &model)
{
    QStringList rows;
    for (int r = 0; r < model.rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < model.columnCount(); ++c)
            cells << model.index(r, c).data().toString();
        rows << cells.join(QLatin1Char('|'));
    }
    return rows;
}

} // namespace

class TestDecisionInspector : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void inspectorShowsPolicyRecords_data();
    void inspectorShowsPolicyRecords();
    void traceFileTakesThePolicyForTraceFiles();
    void placeholderForOtherPolicies();
    void comparisonDefaultsIncludeTheLearnedPolicies();
    void shippedPolicyFromTheFileMenu(); // before the live tests: the window stays live after them
    void valueSeriesOnlyForLearnedPolicies_data();
    void valueSeriesOnlyForLearnedPolicies();
    void replayFromKeyframeEqualsStraightRun_data();
    void replayFromKeyframeEqualsStraightRun();
    void queueConfidenceIsPlannerProbability();
    void maskNotProbabilityDecidesMasked();

private:
    void load(const QString &policy, const QString &checkpoint = {});
    void show(int slot);

    QTemporaryDir m_dir;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
};

void TestDecisionInspector::initTestCase()
{
    dl2::registerBaselines();
    dl2::registerLearnedPolicies();
    qRegisterMetaType<dl2console::LiveSlotPacket>();
    m_settings = std::make_unique<Settings>(m_dir.filePath(QStringLiteral("s.ini")));
    m_window = std::make_unique<MainWindow>(m_settings.get(), false);
    m_window->setInteractiveErrors(false);
    m_window->resize(1500, 950);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    QVERIFY(m_window->raiseDock(QStringLiteral("decisions")));
}

void TestDecisionInspector::cleanupTestCase()
{
    m_window.reset();
}

void TestDecisionInspector::load(const QString &policy, const QString &checkpoint)
{
    SessionSetup setup;
    setup.scenario = kScenario;
    setup.policy = policy;
    setup.checkpoint = checkpoint;
    m_window->load(setup);
    QVERIFY(m_window->session()->waitForSlot(0));
}

void TestDecisionInspector::show(int slot)
{
    QVERIFY(m_window->session()->waitForSlot(slot));
    QCOMPARE(m_window->session()->currentSlot(), slot);
    m_window->refresher()->flush();
}

void TestDecisionInspector::inspectorShowsPolicyRecords_data()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<int>("slot");
    QTest::addColumn<QString>("checkpoint");
    QTest::addColumn<QString>("shipped"); // the policy the status bar names
    QTest::newRow("dl2") << QStringLiteral("dl2") << 14 << QString() << QStringLiteral("dl2-reference");
    QTest::newRow("dl2-plus") << QStringLiteral("dl2-plus") << 14 << QString()
                              << QStringLiteral("dl2-plus-reference");
    // The shipped window-60 policy reads per-type count features: a group of 0/1 inputs the
    // state table shows as how many are set.
    QTest::newRow("dl2 window 60, per-type counts") << QStringLiteral("dl2") << 14
                                                    << QStringLiteral("dl2-reference-window60")
                                                    << QStringLiteral("dl2-reference-window60");
}

void TestDecisionInspector::inspectorShowsPolicyRecords()
{
    QFETCH(QString, policy);
    QFETCH(int, slot);
    QFETCH(QString, checkpoint);
    QFETCH(QString, shipped);
    QVERIFY(m_window->raiseDock(QStringLiteral("decisions")));
    load(policy, checkpoint);
    show(slot);
    // Which file decides is in the status bar, also when it is the scenario's default.
    QVERIFY2(m_window->sessionStatusBar()->runText().endsWith(QStringLiteral("policy ") + shipped),
             qPrintable(m_window->sessionStatusBar()->runText()));
    const StraightRun run(policy, slot, checkpoint);
    const auto &records = run.records();
    QVERIFY(!records.empty());

    DecisionInspector *inspector = m_window->decisionInspector();
    QAbstractItemModelTester stepsTester(inspector->stepsModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester stateTester(inspector->stateModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(!inspector->showsPlaceholder());
    const DecisionLog &log = inspector->stepsModel()->log();
    QCOMPARE(log.slot, slot);
    QCOMPARE(log.policy, policy);
    QCOMPARE(inspector->stepCount(), static_cast<int>(records.size()));
    int jobDim = 0;
    for (const FeatureColumn &c : log.columns)
        jobDim += c.count;
    QCOMPARE(jobDim, records.front().jobDim);

    for (size_t i = 0; i < records.size(); ++i) {
        const dl2::DecisionRecord &r = records[i];
        const dl2::DecisionRecord &s = log.steps[i];
        QCOMPARE(r.slot, slot);
        QCOMPARE(s.inference, r.inference);
        QCOMPARE(s.jobIds, r.jobIds);
        QCOMPARE(s.denseFeatures(), r.denseFeatures());
        QCOMPARE(r.denseFeatures().size(), r.featureCount());
        // The per-type count features are mostly 0: recorded sparsely, in well under a
        // quarter of the dense size (measured: about 18 non-zero inputs of 251 per row).
        if (!checkpoint.isEmpty())
            QVERIFY2(r.features.empty() && 8 * r.sparseFeatures.size() < r.featureCount(),
                     qPrintable(QStringLiteral("%1 of %2").arg(r.sparseFeatures.size()).arg(r.featureCount())));
        QCOMPARE(s.global, r.global);
        QCOMPARE(s.probabilities, r.probabilities);
        QCOMPARE(s.mask, r.mask);
        QCOMPARE(int(s.mask.size()), int(s.probabilities.size()));
        QVERIFY(s.mask[size_t(s.action)]); // the chosen action is always a valid one
        QCOMPARE(s.action, r.action);
        QCOMPARE(s.jobId, r.stop ? -1 : r.jobId);
        QCOMPARE(s.value, r.value);
        QCOMPARE(s.stop, r.stop);
        QCOMPARE(s.stop, s.action == 3 * s.rows());
    }

    // Step through with the buttons: the state table, the chart and the list follow.
    inspector->setCurrentStep(0);
    const int steps = std::min<int>(4, static_cast<int>(records.size()));
    for (int i = 0; i < steps; ++i) {
        QCOMPARE(inspector->currentStep(), i);
        const dl2::DecisionRecord &r = records[static_cast<size_t>(i)];
        const DecisionStateModel *state = inspector->stateModel();
        int occupied = 0;
        for (int id : r.jobIds)
            occupied += id >= 0 ? 1 : 0;
        QCOMPARE(state->rowCount(), occupied);
        QCOMPARE(state->columnCount(),
                 DecisionStateModel::FirstFeatureColumn + static_cast<int>(log.columns.size()));
        for (int row = 0; row < state->rowCount(); ++row) {
            const int stateRow =
                state->index(row, 0).data(DecisionStateModel::StateRowRole).toInt();
            QCOMPARE(state->index(row, DecisionStateModel::JobColumn).data().toInt(),
                     r.jobIds[size_t(stateRow)]);
            for (int k = 0; k < 3; ++k) {
                const QModelIndex cell = state->index(row, DecisionStateModel::WorkerColumn + k);
                const size_t a = size_t(3 * stateRow + k);
                QCOMPARE(cell.data(DecisionStateModel::SortRole).toFloat(), r.probabilities[a]);
                QCOMPARE(cell.data(DecisionStateModel::MaskedRole).toBool(), r.mask[a] == 0);
                QCOMPARE(cell.data(DecisionStateModel::ChosenRole).toBool(), int(a) == r.action);
            }
            // A plain feature column shows the value the network saw; a group of bits, how
            // many are set.
            const FeatureColumn &last = log.columns.back();
            float expected = r.feature(size_t(stateRow * r.jobDim + last.first));
            QCOMPARE(last.bits, !checkpoint.isEmpty());
            if (last.bits) {
                expected = 0.0f;
                for (int k = 0; k < last.count; ++k)
                    expected += r.feature(size_t(stateRow * r.jobDim + last.first + k));
            }
            const QModelIndex lastCell = state->index(row, state->columnCount() - 1);
            QCOMPARE(lastCell.data(DecisionStateModel::SortRole).toFloat(), expected);
            if (last.bits)
                QCOMPARE(lastCell.data().toString(), QString::number(expected));
        }
        // A model name is elided to a short column and kept whole in the cell's tooltip, so
        // that the columns after it stay in view.
        const int cap = inspector->stateColumnCap();
        QVERIFY(cap < inspector->stateView()->fontMetrics().horizontalAdvance(
                          QStringLiteral("cnn-text-classification")));
        for (int c = 0; c < state->columnCount(); ++c)
            QVERIFY(inspector->stateView()->columnWidth(c) <= cap);
        for (int c = DecisionStateModel::FirstFeatureColumn; c < state->columnCount(); ++c) {
            const FeatureColumn &column = log.columns[size_t(c - DecisionStateModel::FirstFeatureColumn)];
            if (column.count > 1 && !column.bits && state->rowCount() > 0)
                QCOMPARE(state->index(0, c).data(Qt::ToolTipRole).toString(),
                         state->index(0, c).data().toString());
        }
        QCOMPARE(state->chosenRow() >= 0, !r.stop);
        const auto &shown = inspector->probabilityPlot()->shownActions();
        QVERIFY(!shown.empty());
        QVERIFY(std::find(shown.begin(), shown.end(), r.action) != shown.end());
        if (i + 1 < steps) {
            QVERIFY(inspector->nextButton()->isEnabled());
            QTest::mouseClick(inspector->nextButton(), Qt::LeftButton);
        }
    }
    if (steps > 1) {
        QTest::mouseClick(inspector->previousButton(), Qt::LeftButton);
        QCOMPARE(inspector->currentStep(), steps - 2);
    }
    // A refresh of the same slot keeps the inference on display; another slot starts at 1.
    m_window->refresher()->markDirty();
    m_window->refresher()->flush();
    QCOMPARE(inspector->currentStep(), std::max(0, steps - 2));
    m_window->session()->stepForward();
    show(slot + 1);
    QCOMPARE(inspector->currentStep(), inspector->stepCount() > 0 ? 0 : -1);
}

// dl2's default is per scenario: the window-60 policy on dl2-reference, the window-40 one for
// a trace file, even with dl2-reference's cluster (a trace file is not the scenario's trace).
// The status bar names the file, and the inspector's records show that this file decides.
void TestDecisionInspector::traceFileTakesThePolicyForTraceFiles()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("dl2-reference-seed1.csv"));
    dl2::ProfileSet profiles = dl2::ProfileSet::reference();
    dl2::scenarioByName("dl2-reference").trace(profiles, 1).save(path.toStdString());
    struct Case
    {
        QString traceFile;
        QString shipped;
        size_t window;
    };
    const Case cases[] = {{QString(), QStringLiteral("dl2-reference-window60"), 60},
                          {path, QStringLiteral("dl2-reference"), 40}};
    for (const Case &c : cases) {
        SessionSetup setup;
        setup.scenario = QStringLiteral("dl2-reference");
        setup.traceFile = c.traceFile;
        setup.policy = QStringLiteral("dl2");
        m_window->load(setup);
        show(6);
        const QString runText = m_window->sessionStatusBar()->runText();
        QVERIFY2(runText.endsWith(QStringLiteral("policy ") + c.shipped), qPrintable(runText));
        const DecisionLog &log = m_window->decisionInspector()->stepsModel()->log();
        QCOMPARE(log.slot, 6);
        QVERIFY(!log.steps.isEmpty());
        QCOMPARE(log.steps.front().jobIds.size(), c.window);
    }
}

void TestDecisionInspector::placeholderForOtherPolicies()
{
    load(QStringLiteral("drf"));
    show(5);
    DecisionInspector *inspector = m_window->decisionInspector();
    QVERIFY(inspector->showsPlaceholder());
    QVERIFY(inspector->placeholderText().contains(QStringLiteral("dl2 or dl2-plus")));
    QVERIFY(inspector->placeholderText().contains(QStringLiteral("drf")));
}

void TestDecisionInspector::valueSeriesOnlyForLearnedPolicies_data()
{
    QTest::addColumn<QString>("policy");
    QTest::addColumn<QString>("checkpoint");
    QTest::addColumn<bool>("learned");
    // Only a value network the actor-critic trained gives V(s): the shipped defaults were
    // trained by SL (and ES) alone, the fitted dl2-plus went through the actor-critic.
    QTest::newRow("dl2-plus, actor-critic") << QStringLiteral("dl2-plus")
                                            << QStringLiteral("dl2-plus-reference-fitted") << true;
    QTest::newRow("dl2, SL + ES") << QStringLiteral("dl2") << QString() << false;
    QTest::newRow("dl2-plus, SL") << QStringLiteral("dl2-plus") << QString() << false;
    QTest::newRow("drf") << QStringLiteral("drf") << QString() << false;
}

void TestDecisionInspector::valueSeriesOnlyForLearnedPolicies()
{
    QFETCH(QString, policy);
    QFETCH(QString, checkpoint);
    QFETCH(bool, learned);
    load(policy, checkpoint);
    const int slot = 9;
    show(slot);
    const auto &timeline = m_window->session()->timeline();
    QVERIFY(static_cast<int>(timeline.size()) > slot);
    RewardPlot *plot = m_window->rewardPlot();
    QCOMPARE(plot->hasValueSeries(), learned);
    DecisionInspector *inspector = m_window->decisionInspector();
    if (!learned) {
        QVERIFY(!timeline[size_t(slot)].value.has_value());
        if (policy != QStringLiteral("drf")) { // the inspector says why, and shows none
            QVERIFY2(inspector->stepsModel()->log().notes.contains(QStringLiteral("No V(s)")),
                     qPrintable(inspector->stepsModel()->log().notes));
            const QModelIndex v = inspector->stepsModel()->index(0, DecisionStepsModel::ValueColumn);
            QCOMPARE(v.data().toString(), QStringLiteral("—"));
        }
        return;
    }
    // The series is V(s) of each slot's first inference, up to the slot on display.
    const StraightRun run(policy, slot, checkpoint);
    QVERIFY(timeline[size_t(slot)].value.has_value());
    QVERIFY(run.records().front().value.has_value());
    QCOMPARE(*timeline[size_t(slot)].value, *run.records().front().value);
    QVERIFY(!inspector->stepsModel()->log().notes.contains(QStringLiteral("No V(s)")));
    const QVector<QPointF> points = plot->valuePoints();
    QVERIFY(!points.isEmpty());
    QCOMPARE(float(points.back().y()), *run.records().front().value);
    QCOMPARE(points.back().x(), double(slot));
}

void TestDecisionInspector::replayFromKeyframeEqualsStraightRun_data()
{
    QTest::addColumn<int>("slot");
    const int k = SimulationWorker::kKeyframeInterval;
    QTest::newRow("between keyframes") << 2 * k + 3;
    QTest::newRow("just before a keyframe") << 2 * k - 1; // the keyframe is the state after it
}

void TestDecisionInspector::replayFromKeyframeEqualsStraightRun()
{
    QFETCH(int, slot);
    load(QStringLiteral("dl2"));
    QVERIFY(m_window->raiseDock(QStringLiteral("jobs"))); // hidden views are not refreshed
    // Let the frontier pass the keyframes, so the cursor restores from them.
    QVERIFY(m_window->session()->waitForSlot(slot + 8));
    QTRY_VERIFY(m_window->session()->lastKnownSlot() >= slot + 8);

    const StraightRun run(QStringLiteral("dl2"), slot);
    JobTableModel straight;
    straight.setProfiles(m_window->session()->profiles(),
                         m_window->session()->runInfo().slotSeconds);
    straight.setSnapshot(run.simulator->snapshot());
    const QStringList expected = tableRows(straight);
    QVERIFY(!expected.isEmpty());

    // Back from a later slot (restore from the keyframe before `slot`) and forward from an
    // earlier one: both equal the straight run, and so do the inspector's records.
    for (int from : {slot + 8, 2, slot - 1}) {
        show(from);
        show(slot);
        QCOMPARE(tableRows(*m_window->jobModel()), expected);
        const DecisionLog &log = m_window->session()->decisions();
        QCOMPARE(size_t(log.steps.size()), run.records().size());
        for (size_t i = 0; i < size_t(log.steps.size()); ++i) {
            QCOMPARE(log.steps[i].action, run.records()[i].action);
            QCOMPARE(log.steps[i].probabilities, run.records()[i].probabilities);
        }
    }
}

void TestDecisionInspector::queueConfidenceIsPlannerProbability()
{
    load(QStringLiteral("dl2"));
    LiveSetup setup;
    setup.mode = dl2::GateMode::Review;
    setup.auditFile = m_dir.filePath(QStringLiteral("audit.sqlite"));
    m_window->setLiveDefaults(setup);
    m_window->startLive();
    LiveOperations *ops = m_window->session()->live();
    QVERIFY(ops);
    QTRY_VERIFY_WITH_TIMEOUT(ops->isStarted(), 20000);
    QCOMPARE(ops->setup().policy, QStringLiteral("dl2"));
    QTRY_VERIFY_WITH_TIMEOUT(ops->canRunSlot(), 20000);
    ops->runSlot();
    QTRY_VERIFY_WITH_TIMEOUT(ops->batch().open && !ops->isBusy(), 20000);
    const GateBatch batch = ops->batch();
    QVERIFY(batch.pending() > 0);

    // The same first slot through an independent planner.
    dl2::SimulatedConnector connector(kScenario.toStdString(), 1);
    const dl2::ClusterView view = connector.snapshot();
    QCOMPARE(batch.slot, view.nextSlot);
    dl2::PolicyPlanner planner("dl2");
    attachDecisionReader(planner);
    planner.plan(view);
    const dl2::ConfidenceByJob &confidence = planner.lastConfidence();
    QVERIFY(!confidence.empty());

    m_window->raiseDock(QStringLiteral("queue"));
    DecisionQueueModel *model = m_window->decisionQueue()->model();
    QTRY_COMPARE(model->rowCount(), static_cast<int>(batch.entries.size()));
    int withProbability = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
        const int job = model->index(row, DecisionQueueModel::JobColumn).data().toInt();
        const QModelIndex cell = model->index(row, DecisionQueueModel::ConfidenceColumn);
        const auto it = confidence.find(job);
        QVERIFY2(it != confidence.end(), qPrintable(QString::number(job)));
        if (!it->second.probability) {
            QCOMPARE(cell.data().toString(), QStringLiteral("—"));
            continue;
        }
        ++withProbability;
        QCOMPARE(cell.data(DecisionQueueModel::SortRole).toDouble(), *it->second.probability);
        QVERIFY(cell.data().toString().endsWith(QStringLiteral(" %")));
    }
    QVERIFY(withProbability > 0);
    // A decision carries V(s) exactly when the planner has one: never for the shipped dl2,
    // whose value network was never trained (SL and ES only).
    for (const auto &e : batch.entries) {
        const auto it = confidence.find(e.decision.job);
        QVERIFY(it != confidence.end());
        QCOMPARE(e.decision.value.has_value(), it->second.value.has_value());
        QVERIFY(!e.decision.value);
    }
}

// File > Shipped policies runs that policy (a file in all but name): the views show exactly a
// straight run with that checkpoint, and the status bar and toolbar say which file it is.
void TestDecisionInspector::shippedPolicyFromTheFileMenu()
{
    load(QStringLiteral("drf"));
    auto *action = m_window->findChild<QAction *>(QStringLiteral("shippedPolicy:dl2-plus-contended"));
    QVERIFY(action);
    action->trigger();
    QTRY_COMPARE(m_window->session()->setup().checkpoint, u"dl2-plus-contended"_qs);
    QCOMPARE(m_window->session()->setup().policy, u"dl2-plus"_qs);
    QVERIFY(m_window->raiseDock(QStringLiteral("jobs")));
    const int slot = 4;
    show(slot);
    QVERIFY2(m_window->sessionStatusBar()->runText().contains(QStringLiteral("dl2-plus-contended")),
             qPrintable(m_window->sessionStatusBar()->runText()));
    QVERIFY(m_window->toolBar()->policyBox()->currentText().contains(QStringLiteral("dl2-plus-contended")));
    QCOMPARE(m_settings->checkpoint(), u"dl2-plus-contended"_qs);

    const StraightRun file(QStringLiteral("dl2-plus"), slot, QStringLiteral("dl2-plus-contended"));
    const StraightRun shipped(QStringLiteral("dl2-plus"), slot);
    const DecisionLog &log = m_window->session()->decisions();
    QCOMPARE(size_t(log.steps.size()), file.records().size());
    bool differsFromDefault = size_t(log.steps.size()) != shipped.records().size();
    for (size_t i = 0; i < size_t(log.steps.size()); ++i) {
        QCOMPARE(log.steps[i].probabilities, file.records()[i].probabilities);
        differsFromDefault = differsFromDefault || i >= shipped.records().size() ||
                             log.steps[i].probabilities != shipped.records()[i].probabilities;
    }
    QVERIFY(differsFromDefault); // really the file, not the scenario's default policy

    // Choosing a baseline again drops the file.
    SessionSetup back = m_window->toolBar()->setup();
    QCOMPARE(back.checkpoint, u"dl2-plus-contended"_qs);
    m_window->toolBar()->policyBox()->setCurrentIndex(m_window->toolBar()->policyBox()->findText(u"drf"_qs));
    QVERIFY(m_window->toolBar()->setup().checkpoint.isEmpty());
}

void TestDecisionInspector::comparisonDefaultsIncludeTheLearnedPolicies()
{
    // Fresh settings: the comparison starts with DRF, Optimus, best-config, dl2 and dl2-plus.
    const QStringList checked = m_window->comparisonPage()->checkedPolicies();
    for (const char *p : {"drf", "optimus", "best-config", "dl2", "dl2-plus"})
        QVERIFY2(checked.contains(QLatin1String(p)), qPrintable(checked.join(u',')));
}

// A valid action whose probability rounds to 0 is still valid; a masked one is not, and
// records without a mask (older logs) fall back to the probability.
void TestDecisionInspector::maskNotProbabilityDecidesMasked()
{
    dl2::DecisionRecord s;
    s.jobIds = {7};
    s.probabilities = {0.0f, 0.0f, 0.0f, 1.0f};
    s.mask = {1, 0, 0, 1};
    s.action = 3;
    QVERIFY(!s.isMasked(0));
    QVERIFY(s.isMasked(1));
    QCOMPARE(s.validActions(), 2);
    s.mask.clear();
    QVERIFY(s.isMasked(0));
    QCOMPARE(s.validActions(), 1);
}

QTEST_MAIN(TestDecisionInspector)
#include "tst_decisioninspector.moc"
