// The decision queue in review mode: the queue model under QAbstractItemModelTester, then the
// real main window offscreen, driven with the keyboard (A, R, E, Shift+A, Ctrl+Z,
// Ctrl+Shift+Z, Ctrl+Return) against the embedded simulated cluster. Checks the gate's
// verdicts, the audit log, and that the cluster runs exactly what was approved/overridden.
// Every wait is bounded.

#include "auditfilterproxymodel.h"
#include "auditlog.h"
#include "auditlogpanel.h"
#include "consolefixture.h"
#include "consolesession.h"
#include "decisionqueuemodel.h"
#include "decisionqueuepanel.h"
#include "liveoperations.h"
#include "mainwindow.h"
#include "overridedialog.h"
#include "scheduler.h"
#include "sessionstatusbar.h"
#include "settings.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <set>

using namespace dl2console;
using Verdict = dl2::GateEntry::Verdict;

namespace {

dl2::GateEntry entry(const std::string &id, int job, int fromPs, int fromW, int toPs, int toW)
{
    dl2::GateEntry e;
    e.decision.id = id;
    e.decision.job = job;
    e.decision.slot = 3;
    e.decision.from = {fromPs, fromW, {}};
    e.decision.to = {toPs, toW, {}};
    e.decision.speedBefore = fromW > 0 ? 2.0 : 0.0;
    e.decision.speedAfter = 3.0;
    return e;
}

} // namespace

class TestDecisionQueue : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void modelUnderTester();
    void reviewWithKeyboard();
    void overrideBeyondCapacityIsRefused();
    void deadlineDefaultApplies();
    void auditPanelFiltersAndExports();

private:
    void startLive(dl2::GateMode mode, int deadlineMs, dl2::DeadlineDefault atDeadline);
    // Approves and commits batches until one with at least `pending` pending decisions opens.
    bool runToBatch(int pending, int maxSlots = 40);
    LiveOperations *live() const { return m_window->session()->live(); }
    DecisionQueuePanel *panel() const { return m_window->decisionQueue(); }
    void key(int key, Qt::KeyboardModifiers modifiers = Qt::NoModifier);
    void focusQueue();

    QTemporaryDir m_dir;
    std::unique_ptr<Settings> m_settings;
    std::unique_ptr<MainWindow> m_window;
    QString m_audit;
};

void TestDecisionQueue::initTestCase()
{
    dl2::registerBaselines();
    qRegisterMetaType<dl2console::LiveSlotPacket>();
    m_settings = std::make_unique<Settings>(m_dir.filePath(QStringLiteral("s.ini")));
    dl2console::test::openConsole(m_window, m_settings.get(), QSize(1500, 950));
    if (QTest::currentTestFailed())
        return;
    m_audit = m_dir.filePath(QStringLiteral("audit.sqlite"));
}

void TestDecisionQueue::cleanupTestCase()
{
    m_window.reset();
}

void TestDecisionQueue::modelUnderTester()
{
    DecisionQueueModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    GateBatch b;
    b.open = true;
    b.slot = 3;
    b.entries = {entry("r/3/1", 1, 1, 2, 2, 4), entry("r/3/2", 2, 0, 0, 1, 1)};
    b.entries[0].decision.probability = 0.73;
    b.jobTypes = {0, 1};
    model.setBatch(b);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(DecisionQueueModel::ColumnCount));
    auto text = [&](int row, int column) { return model.index(row, column).data().toString(); };
    QCOMPARE(text(0, DecisionQueueModel::JobColumn), QStringLiteral("1"));
    QCOMPARE(text(0, DecisionQueueModel::CurrentColumn), QStringLiteral("1 PS · 2 W"));
    QCOMPARE(text(0, DecisionQueueModel::ProposedColumn), QStringLiteral("2 PS · 4 W"));
    QCOMPARE(text(0, DecisionQueueModel::SpeedUpColumn), QStringLiteral("×1.50"));
    QCOMPARE(text(0, DecisionQueueModel::ConfidenceColumn), QStringLiteral("73 %"));
    QCOMPARE(text(1, DecisionQueueModel::CurrentColumn), QStringLiteral("none"));
    QCOMPARE(text(1, DecisionQueueModel::SpeedUpColumn), QStringLiteral("starts"));
    QCOMPARE(text(1, DecisionQueueModel::ConfidenceColumn), QStringLiteral("—"));
    QCOMPARE(text(1, DecisionQueueModel::VerdictColumn), QStringLiteral("pending"));
    QCOMPARE(model.rowOf(QStringLiteral("r/3/2")), 1);

    // Same decisions, new verdicts: updated in place.
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    b.entries[0].verdict = Verdict::Approved;
    b.entries[0].reason = "operator";
    b.entries[1].verdict = Verdict::Rejected;
    b.entries[1].reason = "deadline";
    model.setBatch(b);
    QCOMPARE(reset.count(), 0);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(text(0, DecisionQueueModel::VerdictColumn), QStringLiteral("approved"));
    QCOMPARE(text(1, DecisionQueueModel::VerdictColumn), QStringLiteral("rejected (deadline)"));
    QVERIFY(!model.index(1, 0).data(DecisionQueueModel::PendingRole).toBool());

    // Another batch: reset; a closed batch shows nothing.
    b.entries = {entry("r/4/5", 5, 1, 1, 0, 0)};
    b.entries[0].decision.speedAfter = 0.0;
    b.jobTypes = {2};
    model.setBatch(b);
    QCOMPARE(reset.count(), 1);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(text(0, DecisionQueueModel::SpeedUpColumn), QStringLiteral("stops"));
    b.open = false;
    model.setBatch(b);
    QCOMPARE(model.rowCount(), 0);
}

void TestDecisionQueue::startLive(dl2::GateMode mode, int deadlineMs,
                                  dl2::DeadlineDefault atDeadline)
{
    LiveSetup setup;
    setup.mode = mode;
    setup.reviewDeadlineMs = deadlineMs;
    setup.atDeadline = atDeadline;
    setup.auditFile = m_audit;
    m_window->setLiveDefaults(setup);
    m_window->startLive();
    QVERIFY(live());
    QTRY_VERIFY_WITH_TIMEOUT(live()->isStarted(), 20000);
    QTRY_VERIFY(m_window->sessionStatusBar()->connectorText().contains(
        QStringLiteral("embedded simulator")));
}

bool TestDecisionQueue::runToBatch(int pending, int maxSlots)
{
    for (int n = 0; n < 20 * maxSlots; ++n) {
        LiveOperations *ops = live();
        if (!ops || ops->runComplete())
            return false;
        const GateBatch &b = ops->batch();
        if (b.open && b.pending() >= pending && !ops->isBusy())
            return true;
        if (b.open && b.pending() > 0)
            ops->approveAll();
        else if (b.open)
            ops->commit();
        else if (ops->canRunSlot())
            ops->runSlot();
        QTest::qWait(20);
    }
    return false;
}

void TestDecisionQueue::focusQueue()
{
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    panel()->view()->setFocus();
    QTRY_VERIFY(panel()->view()->hasFocus());
}

void TestDecisionQueue::key(int k, Qt::KeyboardModifiers modifiers)
{
    QTest::keyClick(panel()->view(), Qt::Key(k), modifiers);
}

void TestDecisionQueue::reviewWithKeyboard()
{
    startLive(dl2::GateMode::Review, 600'000, dl2::DeadlineDefault::KeepCurrent);
    QSignalSpy completed(live(), &LiveOperations::slotCompleted);
    QVERIFY(runToBatch(3));
    QVERIFY(completed.count() > 0 || live()->batch().slot == 0);
    std::map<int, dl2::Allocation> before; // what the cluster ran before this batch
    if (!completed.isEmpty())
        before = completed.last().at(0).value<LiveSlotPacket>().targets;
    completed.clear();

    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    m_window->findChild<QWidget *>(QStringLiteral("decisionQueuePanel"))->show();
    panel()->view()->setFocus();
    QTRY_COMPARE(panel()->model()->rowCount(), int(live()->batch().entries.size()));
    panel()->view()->selectRow(0);
    const GateBatch batch = live()->batch();
    const QString first = QString::fromStdString(batch.entries[0].decision.id);
    auto verdict = [this](const QString &id) {
        for (const auto &e : live()->batch().entries)
            if (QString::fromStdString(e.decision.id) == id)
                return e.verdict;
        return Verdict::Pending;
    };

    key(Qt::Key_A); // approve row 0; the selection moves to the next pending row
    QTRY_COMPARE(verdict(first), Verdict::Approved);
    const QString second = panel()->currentDecision();
    QVERIFY(second != first);
    key(Qt::Key_R);
    QTRY_COMPARE(verdict(second), Verdict::Rejected);
    key(Qt::Key_Z, Qt::ControlModifier); // undo the reject
    QTRY_COMPARE(verdict(second), Verdict::Pending);
    QTRY_VERIFY(live()->batch().canRedo);
    key(Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier); // redo it
    QTRY_COMPARE(verdict(second), Verdict::Rejected);

    // E: override the next pending decision with a smaller allocation (always fits).
    panel()->view()->selectRow(2);
    const QString third = panel()->currentDecision();
    QVERIFY(third != first && third != second);
    key(Qt::Key_E);
    QTRY_VERIFY(panel()->overrideDialog());
    OverrideDialog *dialog = panel()->overrideDialog();
    dialog->psBox()->setValue(1);
    dialog->workersBox()->setValue(1);
    QTest::keyClick(dialog, Qt::Key_Return);
    QTRY_VERIFY(!panel()->overrideDialog()); // accepted: closed and deleted
    focusQueue(); // offscreen: closing the dialog does not reactivate the main window
    QTRY_COMPARE(verdict(third), Verdict::Approved);

    // Commit is refused while decisions are pending, Shift+A approves the rest.
    const int pendingBefore = live()->batch().pending();
    if (pendingBefore > 0) {
        QVERIFY(!panel()->commitAction()->isEnabled());
        key(Qt::Key_A, Qt::ShiftModifier);
        QTRY_COMPARE(live()->batch().pending(), 0);
    }
    QTRY_VERIFY(panel()->commitAction()->isEnabled());
    key(Qt::Key_Return, Qt::ControlModifier);
    QTRY_VERIFY2_WITH_TIMEOUT(completed.count() == 1, qPrintable(panel()->messageText()), 10000);
    QVERIFY(!live()->batch().open);

    // The cluster runs exactly what was decided.
    const auto targets = completed.last().at(0).value<LiveSlotPacket>().targets;
    for (const auto &e : batch.entries) {
        const QString id = QString::fromStdString(e.decision.id);
        const dl2::Allocation &now = targets.at(e.decision.job);
        if (id == second) { // rejected: unchanged
            const dl2::Allocation old =
                before.count(e.decision.job) ? before.at(e.decision.job) : dl2::Allocation{};
            QVERIFY2(now.sameSize(old), qPrintable(id));
        } else if (id == third) {
            QCOMPARE(now.ps, 1);
            QCOMPARE(now.workers, 1);
        } else {
            QVERIFY2(now.sameSize(e.decision.to), qPrintable(id));
        }
    }

    // The audit log has every action and the final states.
    dl2::AuditLog log(m_audit.toStdString());
    std::multiset<std::string> kinds;
    for (const auto &ev : log.events())
        kinds.insert(ev.kind);
    for (const char *k : {"approve", "reject", "undo reject", "override"})
        QVERIFY2(kinds.count(k) >= 1, k);
    QCOMPARE(int(kinds.count("reject")), 2); // the reject and its redo
    if (pendingBefore > 0)
        QVERIFY(kinds.count("approve all") >= 1);
    for (const auto &e : batch.entries) {
        const auto r = log.find(e.decision.id);
        QVERIFY(r);
        const std::string expected =
            QString::fromStdString(e.decision.id) == second ? "rejected" : "acknowledged";
        QCOMPARE(r->state, expected);
        if (QString::fromStdString(e.decision.id) == third) {
            QCOMPARE(r->decision.to.ps, 1);
            QCOMPARE(r->decision.to.workers, 1);
        }
    }
    for (const auto &ev : log.events())
        if (ev.kind == "approve" || ev.kind == "reject")
            QCOMPARE(ev.actor, dl2::AuditLog::osUser());
}

void TestDecisionQueue::overrideBeyondCapacityIsRefused()
{
    // On the contended cluster, keep committing batches until raising one job to the caps no
    // longer fits (on the nodes, under the cluster's placement rule). Loading another scenario in
    // live mode restarts live operations on it.
    if (!live())
        startLive(dl2::GateMode::Review, 600'000, dl2::DeadlineDefault::KeepCurrent);
    SessionSetup setup;
    setup.scenario = QStringLiteral("dl2-contended");
    setup.policy = QStringLiteral("drf");
    m_window->load(setup);
    QVERIFY(live());
    QTRY_VERIFY_WITH_TIMEOUT(live()->isStarted(), 20000);
    m_window->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    // Raise every decision of a batch to the caps, one after the other (each approved override
    // adds demand), until the gate refuses one.
    bool refused = false;
    for (int attempt = 0; attempt < 10 && !refused; ++attempt) {
        QVERIFY(runToBatch(1));
        const int rows = int(live()->batch().entries.size());
        for (int row = 0; row < rows && !refused; ++row) {
            focusQueue();
            panel()->view()->selectRow(row);
            key(Qt::Key_E);
            QTRY_VERIFY(panel()->overrideDialog());
            OverrideDialog *dialog = panel()->overrideDialog();
            dialog->psBox()->setValue(dialog->psBox()->maximum());
            dialog->workersBox()->setValue(dialog->workersBox()->maximum());
            const int pending = live()->batch().pending();
            QTest::keyClick(dialog, Qt::Key_Return);
            QTRY_VERIFY(!panel()->overrideDialog() ||
                        dialog->errorText().contains(QStringLiteral("Refused")));
            if (!panel()->overrideDialog())
                continue;
            refused = true;
            // Placed as the cluster places tasks (least-loaded node first), a job at the caps
            // stops fitting on the nodes before the cluster's totals run out: the dialog says
            // which job would get how much.
            QVERIFY2(dialog->errorText().contains(QStringLiteral("on the nodes")) &&
                         dialog->errorText().contains(QStringLiteral("least-loaded placement")),
                     qPrintable(dialog->errorText()));
            QVERIFY(dialog->isVisible());
            QCOMPARE(live()->batch().pending(), pending); // nothing changed
            dialog->reject();
            QTRY_VERIFY(!panel()->overrideDialog());
        }
    }
    QVERIFY2(refused, "no slot where the caps exceed the cluster's capacity");
}

void TestDecisionQueue::deadlineDefaultApplies()
{
    startLive(dl2::GateMode::Review, 1000, dl2::DeadlineDefault::Apply);
    QSignalSpy completed(live(), &LiveOperations::slotCompleted);
    QSignalSpy batches(live(), &LiveOperations::batchChanged);
    live()->runSlot();
    QTRY_VERIFY_WITH_TIMEOUT(live()->batch().open || completed.count() > 0, 10000);
    const GateBatch batch = live()->batch();
    QVERIFY(batch.open);
    QVERIFY(batch.pending() > 0);
    QTRY_VERIFY(panel()->countdownText().startsWith(QStringLiteral("Deadline in 0:0")));
    // Nobody acts: the default (apply) closes the batch.
    QTRY_VERIFY_WITH_TIMEOUT(completed.count() == 1, 10000);
    const auto targets = completed.last().at(0).value<LiveSlotPacket>().targets;
    for (const auto &e : batch.entries)
        QVERIFY(targets.at(e.decision.job).sameSize(e.decision.to));
    dl2::AuditLog log(m_audit.toStdString());
    int deadlines = 0;
    for (const auto &ev : log.events())
        if (ev.kind == "deadline" && ev.detail == "apply")
            ++deadlines;
    QVERIFY(deadlines >= batch.pending());
    for (const auto &e : batch.entries)
        QCOMPARE(log.find(e.decision.id)->state, std::string("acknowledged"));
}

void TestDecisionQueue::auditPanelFiltersAndExports()
{
    AuditLogPanel *audit = m_window->auditLog();
    QCOMPARE(audit->auditFile(), m_audit);
    audit->refresh();
    AuditFilterProxyModel *proxy = audit->proxy();
    QAbstractItemModelTester tester(proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const int all = proxy->rowCount();
    QVERIFY(all > 5);
    audit->actionBox()->setCurrentIndex(audit->actionBox()->findData(QStringLiteral("deadline")));
    QVERIFY(proxy->rowCount() > 0 && proxy->rowCount() < all);
    for (int r = 0; r < proxy->rowCount(); ++r)
        QCOMPARE(proxy->index(r, AuditFilterProxyModel::ActionColumn).data().toString(),
                 QStringLiteral("deadline"));
    const int job = proxy->index(0, AuditFilterProxyModel::JobColumn).data().toInt();
    audit->jobBox()->setValue(job);
    QVERIFY(proxy->rowCount() >= 1);
    for (int r = 0; r < proxy->rowCount(); ++r)
        QCOMPARE(proxy->index(r, AuditFilterProxyModel::JobColumn).data().toInt(), job);
    const QString csv = m_dir.filePath(QStringLiteral("audit.csv"));
    QVERIFY(audit->exportCsv(csv));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), proxy->rowCount() + 1);
    QVERIFY(lines[0].startsWith("#,Time"));
    QVERIFY(lines[0].endsWith("Policy version"));
    audit->jobBox()->setValue(-1);
    audit->actionBox()->setCurrentIndex(0);
    audit->searchBox()->setText(QStringLiteral("no-such-text-anywhere"));
    QCOMPARE(proxy->rowCount(), 0);
    audit->searchBox()->clear();
    QCOMPARE(proxy->rowCount(), all);
}

QTEST_MAIN(TestDecisionQueue)
#include "tst_decisionqueue.moc"
