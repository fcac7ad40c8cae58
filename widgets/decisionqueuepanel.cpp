#include "decisionqueuepanel.h"

#include "decisionqueuemodel.h"
#include "liveoperations.h"
#include "overridedialog.h"

#include <QAction>
#include <QComboBox>
#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace dl2console {

namespace {
QAction *makeAction(QWidget *owner, const QString &text, const QKeySequence &key,
                    const QString &tip)
{
    auto *a = new QAction(text, owner);
    a->setShortcut(key);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut); // typing elsewhere stays typing
    a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
    owner->addAction(a);
    return a;
}
} // namespace

DecisionQueuePanel::DecisionQueuePanel(QWidget *parent)
    : QWidget(parent), m_model(new DecisionQueueModel(this)), m_mode(new QComboBox(this)),
      m_rules(new QLineEdit(this)), m_rulesButton(new QToolButton(this)),
      m_deadline(new QSpinBox(this)), m_atDeadline(new QComboBox(this)),
      m_headline(new QLabel(this)), m_countdown(new QLabel(this)), m_view(new QTableView(this)),
      m_message(new QLabel(this)), m_tick(new QTimer(this))
{
    setObjectName(QStringLiteral("decisionQueuePanel"));
    m_approve = makeAction(this, tr("&Approve"), QKeySequence(Qt::Key_A),
                           tr("Approve the selected decision"));
    m_reject = makeAction(this, tr("&Reject"), QKeySequence(Qt::Key_R),
                          tr("Reject it: the job keeps its current allocation"));
    m_override = makeAction(this, tr("&Edit…"), QKeySequence(Qt::Key_E),
                            tr("Override the allocation (PSs, workers)"));
    m_approveAll = makeAction(this, tr("Approve a&ll"), QKeySequence(Qt::SHIFT | Qt::Key_A),
                              tr("Approve every pending decision"));
    m_undo = makeAction(this, tr("&Undo"), QKeySequence(Qt::CTRL | Qt::Key_Z),
                        tr("Undo the last operator action of this batch"));
    m_redo = makeAction(this, tr("Re&do"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z),
                        tr("Redo"));
    m_commit = makeAction(this, tr("&Commit"), QKeySequence(Qt::CTRL | Qt::Key_Return),
                          tr("Commit the batch: approved decisions go to the cluster and the "
                             "slot advances"));

    // Gate settings.
    m_mode->addItem(tr("automatic"), int(dl2::GateMode::Automatic));
    m_mode->addItem(tr("review"), int(dl2::GateMode::Review));
    m_mode->addItem(tr("rules"), int(dl2::GateMode::Rules));
    m_mode->setToolTip(tr("automatic: the policy acts alone (replay as before)\n"
                          "review: every decision waits for the operator\n"
                          "rules: decisions the rules file matches are approved, the rest wait"));
    m_rules->setPlaceholderText(tr("rules file (JSON)"));
    m_rules->setReadOnly(true);
    m_rulesButton->setText(QStringLiteral("…"));
    m_rulesButton->setToolTip(tr("Choose the rules file"));
    m_deadline->setRange(1, 24 * 3600);
    m_deadline->setSuffix(tr(" s"));
    m_deadline->setValue(120);
    m_deadline->setToolTip(tr("How long a batch waits for review"));
    m_atDeadline->addItem(tr("keep current"), int(dl2::DeadlineDefault::KeepCurrent));
    m_atDeadline->addItem(tr("apply proposal"), int(dl2::DeadlineDefault::Apply));
    m_atDeadline->setToolTip(tr("What pending decisions get at the deadline"));

    // Two short rows rather than one wide one: the dock stays narrow enough for 1280 px.
    auto *settingsRow = new QHBoxLayout;
    settingsRow->addWidget(new QLabel(tr("Gate:"), this));
    settingsRow->addWidget(m_mode);
    settingsRow->addWidget(m_rules, 1);
    settingsRow->addWidget(m_rulesButton);
    settingsRow->addStretch();
    auto *deadlineRow = new QHBoxLayout;
    deadlineRow->addWidget(new QLabel(tr("Review deadline:"), this));
    deadlineRow->addWidget(m_deadline);
    deadlineRow->addWidget(new QLabel(tr("then"), this));
    deadlineRow->addWidget(m_atDeadline);
    deadlineRow->addStretch();

    auto *headRow = new QHBoxLayout;
    QFont bold = m_headline->font();
    bold.setBold(true);
    m_headline->setFont(bold);
    headRow->addWidget(m_headline, 1);
    m_countdown->setObjectName(QStringLiteral("deadlineCountdown"));
    m_countdown->setFont(bold);
    headRow->addWidget(m_countdown);

    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->setAlternatingRowColors(true);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->setWordWrap(false);
    connect(m_view, &QTableView::doubleClicked, this, &DecisionQueuePanel::editCurrent);

    auto *buttons = new QHBoxLayout;
    for (QAction *a : {m_approve, m_reject, m_override, m_approveAll})
        buttons->addWidget(button(a));
    buttons->addStretch();
    auto *buttons2 = new QHBoxLayout;
    for (QAction *a : {m_undo, m_redo})
        buttons2->addWidget(button(a));
    buttons2->addStretch();
    QToolButton *commit = button(m_commit);
    commit->setObjectName(QStringLiteral("commitButton"));
    buttons2->addWidget(commit);

    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setObjectName(QStringLiteral("queueMessage"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(settingsRow);
    layout->addLayout(deadlineRow);
    layout->addLayout(headRow);
    layout->addWidget(m_view, 1);
    layout->addLayout(buttons);
    layout->addLayout(buttons2);
    layout->addWidget(m_message);

    connect(m_approve, &QAction::triggered, this, [this] { decideCurrent(true); });
    connect(m_reject, &QAction::triggered, this, [this] { decideCurrent(false); });
    connect(m_override, &QAction::triggered, this, &DecisionQueuePanel::editCurrent);
    connect(m_approveAll, &QAction::triggered, this, [this] {
        if (m_live)
            m_live->approveAll();
    });
    connect(m_undo, &QAction::triggered, this, [this] {
        if (m_live)
            m_live->undo();
    });
    connect(m_redo, &QAction::triggered, this, [this] {
        if (m_live)
            m_live->redo();
    });
    connect(m_commit, &QAction::triggered, this, [this] {
        if (m_live)
            m_live->commit();
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &DecisionQueuePanel::updateActions);
    connect(m_mode, &QComboBox::currentIndexChanged, this, &DecisionQueuePanel::emitSettings);
    connect(m_atDeadline, &QComboBox::currentIndexChanged, this, &DecisionQueuePanel::emitSettings);
    connect(m_deadline, &QSpinBox::editingFinished, this, &DecisionQueuePanel::emitSettings);
    connect(m_rulesButton, &QToolButton::clicked, this, &DecisionQueuePanel::chooseRulesFile);
    m_tick->setInterval(250);
    connect(m_tick, &QTimer::timeout, this, &DecisionQueuePanel::updateCountdown);
    setGateSettings({dl2::GateMode::Automatic, {}, 120'000, dl2::DeadlineDefault::KeepCurrent});
    onBatch();
}

QToolButton *DecisionQueuePanel::button(QAction *action)
{
    auto *b = new QToolButton(this);
    b->setDefaultAction(action);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    return b;
}

void DecisionQueuePanel::setLive(LiveOperations *live)
{
    if (m_live == live)
        return;
    if (m_live)
        disconnect(m_live, nullptr, this, nullptr);
    m_live = live;
    m_history = false;
    if (m_dialog)
        m_dialog->reject();
    showMessage({});
    if (live) {
        setGateSettings(live->gateSettings());
        connect(live, &LiveOperations::batchChanged, this, &DecisionQueuePanel::onBatch);
        connect(live, &LiveOperations::started, this, &DecisionQueuePanel::onBatch);
        connect(live, &LiveOperations::slotCompleted, this, [this](const LiveSlotPacket &p) {
            if (p.summary.slot < 0)
                return; // the initial state, nothing was committed
            showMessage(tr("Slot %1 committed: %2 approved, %3 rejected, %4 applied by the cluster")
                            .arg(p.summary.slot)
                            .arg(p.approved)
                            .arg(p.rejected)
                            .arg(p.applied));
        });
        connect(live, &LiveOperations::commandFailed, this, &DecisionQueuePanel::showMessage);
        connect(live, &LiveOperations::overrideFinished, this,
                [this](const QString &id, const QString &error) {
                    if (m_dialog && m_dialog->decisionId() == id)
                        m_dialog->setResult(error);
                    else if (!error.isEmpty())
                        showMessage(tr("Override refused: %1").arg(error));
                });
    }
    onBatch();
}

void DecisionQueuePanel::setGateSettings(const GateSettings &s)
{
    m_updatingSettings = true;
    m_mode->setCurrentIndex(m_mode->findData(int(s.mode)));
    m_rules->setText(s.rulesFile);
    m_deadline->setValue(std::max(1, s.reviewDeadlineMs / 1000));
    m_atDeadline->setCurrentIndex(m_atDeadline->findData(int(s.atDeadline)));
    const bool rules = s.mode == dl2::GateMode::Rules;
    m_rules->setVisible(rules);
    m_rulesButton->setVisible(rules);
    m_updatingSettings = false;
}

GateSettings DecisionQueuePanel::gateSettings() const
{
    GateSettings s;
    s.mode = static_cast<dl2::GateMode>(m_mode->currentData().toInt());
    s.rulesFile = m_rules->text();
    s.reviewDeadlineMs = m_deadline->value() * 1000;
    s.atDeadline = static_cast<dl2::DeadlineDefault>(m_atDeadline->currentData().toInt());
    return s;
}

void DecisionQueuePanel::emitSettings()
{
    if (m_updatingSettings)
        return;
    const GateSettings s = gateSettings();
    m_rules->setVisible(s.mode == dl2::GateMode::Rules);
    m_rulesButton->setVisible(s.mode == dl2::GateMode::Rules);
    if (s.mode == dl2::GateMode::Rules && s.rulesFile.isEmpty()) {
        chooseRulesFile(); // emits again with the file, or leaves it empty (nothing matches)
        return;
    }
    Q_EMIT gateSettingsChanged(s);
}

void DecisionQueuePanel::chooseRulesFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Gate rules"), m_rules->text(),
                                                      tr("Rules (*.json);;All files (*)"));
    if (!path.isEmpty())
        m_rules->setText(path);
    Q_EMIT gateSettingsChanged(gateSettings());
}

void DecisionQueuePanel::showHistory(const GateBatch &batch)
{
    m_history = true;
    if (m_dialog)
        m_dialog->reject();
    m_model->setBatch(batch);
    if (m_model->rowCount() > 0 && !m_view->currentIndex().isValid())
        m_view->selectRow(0);
    onBatch();
}

void DecisionQueuePanel::showLive()
{
    if (!m_history)
        return;
    m_history = false;
    onBatch();
}

void DecisionQueuePanel::onBatch()
{
    if (m_live && m_history) {
        // A slot of the history on display: its batch stays; say what the live gate does.
        const GateBatch &shown = m_model->batch();
        const GateBatch &live = m_live->batch();
        QString text =
            shown.entries.empty()
                ? tr("Slot %1 · history: no decision changed an allocation").arg(shown.slot)
                : tr("Slot %1 · history (read-only) · %n decision(s)", nullptr,
                     int(shown.entries.size()))
                      .arg(shown.slot);
        if (live.open)
            text += tr("\nLive: slot %1 waits for review (%2 pending) · Back to live: Ctrl+L")
                        .arg(live.slot)
                        .arg(live.pending());
        m_headline->setText(text);
        m_headline->setWordWrap(true);
        m_tick->stop();
        m_countdown->clear();
        updateActions();
        return;
    }
    const QString current = currentDecision();
    const GateBatch batch = m_live ? m_live->batch() : GateBatch{};
    m_model->setBatch(batch);
    if (m_model->rowCount() > 0) {
        const int row = m_model->rowOf(current);
        if (row >= 0)
            m_view->selectRow(row);
        else
            selectNextPending(0);
    }
    if (!m_live) {
        m_headline->setText(tr("Replay: decisions are not gated. Choose review or rules to "
                               "operate the cluster through the gate."));
        m_headline->setWordWrap(true);
    } else if (!m_live->isStarted()) {
        m_headline->setText(tr("Connecting…"));
    } else if (!batch.open) {
        m_headline->setText(m_live->runComplete()
                                ? tr("The run is complete.")
                                : tr("No batch waiting. Play or step to run the next slot."));
    } else {
        m_headline->setText(tr("Slot %1 · %n decision(s), %2 pending", nullptr,
                               int(batch.entries.size()))
                                .arg(batch.slot)
                                .arg(batch.pending()));
    }
    m_headline->setWordWrap(!m_live);
    if (batch.open)
        m_tick->start();
    else
        m_tick->stop();
    updateCountdown();
    updateActions();
}

void DecisionQueuePanel::updateCountdown()
{
    const GateBatch &b = m_model->batch();
    if (!m_live || !b.open) {
        m_countdown->clear();
        return;
    }
    const qint64 left = std::max<qint64>(0, b.deadlineEpochMs - QDateTime::currentMSecsSinceEpoch());
    const qint64 s = (left + 999) / 1000;
    const QString then =
        b.atDeadline == dl2::DeadlineDefault::Apply ? tr("apply proposals") : tr("keep current");
    m_countdown->setText(tr("Deadline in %1:%2 → %3")
                             .arg(s / 60)
                             .arg(s % 60, 2, 10, QLatin1Char('0'))
                             .arg(b.pending() > 0 ? then : tr("commit")));
}

void DecisionQueuePanel::updateActions()
{
    const bool open = m_live && m_model->batch().open && !m_history;
    const dl2::GateEntry *e = m_model->entry(m_view->currentIndex().row());
    m_approve->setEnabled(open && e);
    m_reject->setEnabled(open && e);
    m_override->setEnabled(open && e);
    m_approveAll->setEnabled(open && m_model->batch().pending() > 0);
    m_undo->setEnabled(open && m_model->batch().canUndo);
    m_redo->setEnabled(open && m_model->batch().canRedo);
    m_undo->setStatusTip(m_model->batch().undoText);
    m_redo->setStatusTip(m_model->batch().redoText);
    m_commit->setEnabled(open && m_model->batch().pending() == 0);
}

void DecisionQueuePanel::showMessage(const QString &text)
{
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
}

QString DecisionQueuePanel::currentDecision() const
{
    const dl2::GateEntry *e = m_model->entry(m_view->currentIndex().row());
    return e ? QString::fromStdString(e->decision.id) : QString();
}

void DecisionQueuePanel::selectNextPending(int fromRow)
{
    const int n = m_model->rowCount();
    for (int k = 0; k < n; ++k) {
        const int row = (fromRow + k) % n;
        if (m_model->index(row, 0).data(DecisionQueueModel::PendingRole).toBool()) {
            m_view->selectRow(row);
            return;
        }
    }
    if (n > 0 && !m_view->currentIndex().isValid())
        m_view->selectRow(0);
}

void DecisionQueuePanel::decideCurrent(bool approve)
{
    const QString id = currentDecision();
    if (!m_live || id.isEmpty() || m_history)
        return;
    if (approve)
        m_live->approve(id);
    else
        m_live->reject(id);
    // Keyboard flow: move on to the next pending decision (the batch update keeps it).
    const int row = m_view->currentIndex().row();
    for (int k = 1; k < m_model->rowCount(); ++k) {
        const int next = (row + k) % m_model->rowCount();
        if (m_model->index(next, 0).data(DecisionQueueModel::PendingRole).toBool()) {
            m_view->selectRow(next);
            break;
        }
    }
}

void DecisionQueuePanel::editCurrent()
{
    const dl2::GateEntry *e = m_model->entry(m_view->currentIndex().row());
    if (!m_live || !e || !m_model->batch().open || m_history)
        return;
    const int row = m_view->currentIndex().row();
    const QString title =
        tr("Job %1 (%2), slot %3<br>current %4 · policy proposed %5")
            .arg(e->decision.job)
            .arg(m_model->index(row, DecisionQueueModel::ModelColumn).data().toString())
            .arg(e->decision.slot)
            .arg(DecisionQueueModel::allocationText(e->decision.from, false),
                 DecisionQueueModel::allocationText(e->decision.to, false));
    if (m_dialog)
        m_dialog->reject();
    auto *dialog = new OverrideDialog(QString::fromStdString(e->decision.id), title,
                                      e->decision.to.ps, e->decision.to.workers,
                                      m_model->batch().maxPs, m_model->batch().maxWorkers, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_dialog = dialog;
    // Keyboard flow: back to the queue when the dialog closes.
    connect(dialog, &QDialog::finished, m_view, [this] { m_view->setFocus(); });
    connect(dialog, &OverrideDialog::submitted, this, [this, dialog](int ps, int workers) {
        if (m_live)
            m_live->overrideDecision(dialog->decisionId(), ps, workers);
    });
    dialog->open();
}

OverrideDialog *DecisionQueuePanel::overrideDialog() const
{
    return m_dialog.data();
}

QString DecisionQueuePanel::headlineText() const
{
    return m_headline->text();
}

QString DecisionQueuePanel::countdownText() const
{
    return m_countdown->text();
}

QString DecisionQueuePanel::messageText() const
{
    return m_message->isHidden() ? QString() : m_message->text();
}

} // namespace dl2console
