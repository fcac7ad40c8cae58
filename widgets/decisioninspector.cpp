#include "decisioninspector.h"

#include "decisionprobabilityplot.h"
#include "decisionstatemodel.h"
#include "decisionstepsmodel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace dl2console {

namespace {

QTableView *makeTable(QAbstractItemModel *model, QWidget *parent)
{
    auto *view = new QTableView(parent);
    view->setModel(model);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setHighlightSections(false);
    view->setWordWrap(false);
    view->setAlternatingRowColors(true);
    return view;
}

} // namespace

DecisionInspector::DecisionInspector(QWidget *parent)
    : QWidget(parent), m_stack(new QStackedWidget(this)), m_placeholder(new QLabel(this)),
      m_header(new QLabel(this)), m_notes(new QLabel(this)), m_position(new QLabel(this)),
      m_previous(new QToolButton(this)), m_next(new QToolButton(this)),
      m_stepsModel(new DecisionStepsModel(this)),
      m_probabilities(new DecisionProbabilityPlot(this)), m_summary(new QLabel(this)),
      m_stateModel(new DecisionStateModel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_stack);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setForegroundRole(QPalette::PlaceholderText);
    m_stack->addWidget(m_placeholder);

    auto *page = new QWidget(this);
    auto *pageLayout = new QVBoxLayout(page);
    pageLayout->setContentsMargins(0, 0, 0, 0);
    pageLayout->setSpacing(4);
    m_header->setTextFormat(Qt::RichText);
    m_notes->setWordWrap(true);
    m_notes->setForegroundRole(QPalette::PlaceholderText);
    pageLayout->addWidget(m_header);
    pageLayout->addWidget(m_notes);

    // Inference list with previous/next on the left, the action probabilities on the right.
    auto *navigator = new QWidget(page);
    auto *navLayout = new QVBoxLayout(navigator);
    navLayout->setContentsMargins(0, 0, 0, 0);
    navLayout->setSpacing(2);
    auto *buttons = new QHBoxLayout;
    m_previous->setArrowType(Qt::LeftArrow);
    m_previous->setToolTip(tr("Previous inference (Alt+Left)"));
    m_previous->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
    m_next->setArrowType(Qt::RightArrow);
    m_next->setToolTip(tr("Next inference (Alt+Right)"));
    m_next->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
    m_position->setAlignment(Qt::AlignCenter);
    buttons->addWidget(m_previous);
    buttons->addWidget(m_position, 1);
    buttons->addWidget(m_next);
    navLayout->addLayout(buttons);
    m_stepsView = makeTable(m_stepsModel, navigator);
    m_stepsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_stepsView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_stepsView->horizontalHeader()->setStretchLastSection(true);
    // A slot of a learned policy can make over 1,000 inferences; sizing the columns on every
    // row made each refresh cost ~10 ms in text layout (Qt's default considers 1,000 rows).
    // The rows of a column are alike: the visible ones and 64 more decide its width.
    m_stepsView->horizontalHeader()->setResizeContentsPrecision(64);
    navLayout->addWidget(m_stepsView);

    auto *top = new QSplitter(Qt::Horizontal, page);
    top->setChildrenCollapsible(false);
    top->addWidget(navigator);
    top->addWidget(m_probabilities);
    top->setStretchFactor(0, 4);
    top->setStretchFactor(1, 5);

    // The chosen action in words, then the state the network saw.
    auto *bottom = new QWidget(page);
    auto *bottomLayout = new QVBoxLayout(bottom);
    bottomLayout->setContentsMargins(0, 0, 0, 0);
    bottomLayout->setSpacing(2);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setWordWrap(true);
    bottomLayout->addWidget(m_summary);
    m_stateView = makeTable(m_stateModel, bottom);
    m_stateView->setSelectionMode(QAbstractItemView::NoSelection);
    m_stateView->setFocusPolicy(Qt::NoFocus);
    // Long model names ("cnn-text-classification") would push the last feature columns out of
    // the dock: no column grows wider than a short model name (the headers are all shorter);
    // the cell's tooltip keeps the full name.
    m_stateView->horizontalHeader()->setMaximumSectionSize(stateColumnCap());
    bottomLayout->addWidget(m_stateView, 1);

    auto *split = new QSplitter(Qt::Vertical, page);
    split->setChildrenCollapsible(false);
    split->addWidget(top);
    split->addWidget(bottom);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    pageLayout->addWidget(split, 1);
    m_stack->addWidget(page);

    connect(m_previous, &QToolButton::clicked, this, &DecisionInspector::previousStep);
    connect(m_next, &QToolButton::clicked, this, &DecisionInspector::nextStep);
    connect(m_stepsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    setCurrentStep(current.row());
            });
    setDecisions({}, {});
}

bool DecisionInspector::showsPlaceholder() const
{
    return m_stack->currentIndex() == 0;
}

QString DecisionInspector::placeholderText() const
{
    return m_placeholder->text();
}

int DecisionInspector::stepCount() const
{
    return m_stepsModel->rowCount();
}

void DecisionInspector::setTypeNames(const QStringList &names)
{
    m_stateModel->setTypeNames(names);
}

void DecisionInspector::setDecisions(const DecisionLog &log, const QString &policy)
{
    if (!log.available) {
        m_placeholder->setText(
            !log.notes.isEmpty() ? log.notes
            : policy.isEmpty()
                ? tr("Decision inspector: available when the policy is dl2 or dl2-plus.")
                : tr("Decision inspector: available when the policy is dl2 or dl2-plus.\n"
                     "The current policy (%1) has no network whose decisions could be shown.")
                      .arg(policy));
        m_stack->setCurrentIndex(0);
        m_stepsModel->setLog({});
        m_current = -1;
        showStep();
        return;
    }
    // The same slot again (a refresh): keep the inference the user is looking at.
    const DecisionLog &old = m_stepsModel->log();
    const bool sameSlot = old.available && old.slot == log.slot && old.policy == log.policy &&
                          old.steps.size() == log.steps.size();
    const int keep = sameSlot ? m_current : 0;
    m_stack->setCurrentIndex(1);
    m_stepsModel->setLog(log);
    m_stepsView->resizeColumnsToContents();
    QString header =
        tr("<b>Slot %1</b> · %2 · %n inference(s)", nullptr, static_cast<int>(log.steps.size()))
            .arg(log.slot)
            .arg(log.policy.toHtmlEscaped());
    if (const auto v = log.slotValue())
        header += tr(" · V(s) at slot start <b>%1</b>").arg(*v, 0, 'f', 2);
    m_header->setText(header);
    m_notes->setText(log.notes);
    m_notes->setVisible(!log.notes.isEmpty());
    m_current = -1;
    setCurrentStep(log.steps.empty() ? -1 : std::clamp(keep, 0, stepCount() - 1));
    if (log.steps.empty())
        showStep();
}

void DecisionInspector::setCurrentStep(int step)
{
    if (step < 0 || step >= stepCount() || step == m_current)
        return;
    m_current = step;
    const QModelIndex index = m_stepsModel->index(step, 0);
    if (m_stepsView->selectionModel()->currentIndex().row() != step)
        m_stepsView->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                                  QItemSelectionModel::Rows);
    m_stepsView->scrollTo(index);
    showStep();
    Q_EMIT currentStepChanged(step);
}

QString DecisionInspector::summaryText(const dl2::DecisionRecord &s) const
{
    const DecisionLog &log = m_stepsModel->log();
    const double p = s.probabilities[static_cast<size_t>(s.action)];
    int rank = 1;
    for (float q : s.probabilities)
        rank += q > p ? 1 : 0;
    const int valid = s.validActions();
    QString what = s.stop ? tr("<b>stop</b>")
                          : tr("add a <b>%1</b> to <b>job %2</b>")
                                .arg(actionKindName(s.action, s.rows()))
                                .arg(s.jobId);
    QString why = rank == 1 ? tr("p = %1, the most likely of %2 valid actions")
                                  .arg(DecisionStepsModel::percent(p))
                                  .arg(valid)
                            : tr("p = %1, rank %2 of %3 valid actions")
                                  .arg(DecisionStepsModel::percent(p))
                                  .arg(rank)
                                  .arg(valid);
    if (s.explored)
        why += tr(" (exploration)");
    QString text = tr("<b>Inference %1 of %2:</b> %3 — %4 · V(s) = %5 · %6")
                       .arg(s.inference + 1)
                       .arg(log.steps.size())
                       .arg(what, why)
                       .arg(s.value ? QString::number(*s.value, 'f', 2) : QStringLiteral("—"))
                       .arg(DecisionStepsModel::resultText(s).toHtmlEscaped());
    if (!log.globals.empty() && s.global.size() >= log.globals.size()) {
        QStringList parts;
        for (const FeatureColumn &g : log.globals)
            parts << tr("%1 %2").arg(g.name).arg(s.global[static_cast<size_t>(g.first)], 0, 'f', 2);
        text += tr("<br>Cluster: %1").arg(parts.join(QStringLiteral(" · ")).toHtmlEscaped());
    }
    return text;
}

int DecisionInspector::stateColumnCap() const
{
    return m_stateView->fontMetrics().horizontalAdvance(QStringLiteral("inception-bn")) + 12;
}

void DecisionInspector::showStep()
{
    const dl2::DecisionRecord *s = m_stepsModel->step(m_current);
    const DecisionLog &log = m_stepsModel->log();
    m_previous->setEnabled(s && m_current > 0);
    m_next->setEnabled(s && m_current + 1 < stepCount());
    m_position->setText(s ? tr("inference %1 / %2").arg(m_current + 1).arg(stepCount())
                          : QString());
    m_probabilities->setStep(s);
    m_stateModel->setStep(log, s);
    m_stateView->resizeColumnsToContents();
    if (!s) {
        m_summary->setText(
            log.available
                ? tr("No inference in slot %1: no job was waiting for a decision.").arg(log.slot)
                : QString());
        return;
    }
    const int empty = s->rows() - m_stateModel->rowCount();
    QString text = summaryText(*s);
    text += tr("<br>State the network saw: %n job(s)", nullptr, m_stateModel->rowCount());
    if (empty > 0)
        text += tr(" (+ %n empty window position(s), all masked)", nullptr, empty);
    m_summary->setText(text);
    if (const int row = m_stateModel->chosenRow(); row >= 0)
        m_stateView->scrollTo(m_stateModel->index(row, DecisionStateModel::WorkerColumn),
                              QAbstractItemView::PositionAtCenter);
}

} // namespace dl2console
