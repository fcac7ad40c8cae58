#include "decisioninspector.h"

#include <QLabel>
#include <QStackedWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace dl2console {

DecisionInspector::DecisionInspector(QWidget *parent)
    : QWidget(parent), m_stack(new QStackedWidget(this)), m_placeholder(new QLabel(this)),
      m_header(new QLabel(this)), m_rows(new QTreeWidget(this))
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
    pageLayout->addWidget(m_header);
    pageLayout->addWidget(m_rows);
    m_rows->setRootIsDecorated(false);
    m_rows->setUniformRowHeights(true);
    m_rows->setHeaderLabels(
        {tr("#"), tr("Job"), tr("Action"), tr("Probability"), tr("Value"), tr("Note")});
    m_stack->addWidget(page);
    setDecisions({}, {});
}

bool DecisionInspector::showsPlaceholder() const
{
    return m_stack->currentIndex() == 0;
}

void DecisionInspector::setDecisions(const DecisionLog &log, const QString &policy)
{
    if (!log.available) {
        m_placeholder->setText(policy.isEmpty()
                                   ? tr("Decision inspector: available when the policy is DL2.")
                                   : tr("Decision inspector: available when the policy is DL2.\n"
                                        "The current policy (%1) does not expose its decisions.")
                                         .arg(policy));
        m_stack->setCurrentIndex(0);
        return;
    }
    m_stack->setCurrentIndex(1);
    m_header->setText(tr("Slot %1: %2 decisions").arg(log.slot).arg(log.rows.size()));
    m_rows->clear();
    QList<QTreeWidgetItem *> items;
    for (const DecisionRow &r : log.rows) {
        auto *item = new QTreeWidgetItem;
        item->setText(0, QString::number(r.step));
        item->setText(1, r.jobId < 0 ? QString() : QString::number(r.jobId));
        item->setText(2, QString::fromStdString(r.action));
        item->setText(3, QString::number(r.probability, 'f', 3));
        item->setText(4, QString::number(r.value, 'f', 3));
        QString note = QString::fromStdString(r.note);
        if (r.masked)
            note = note.isEmpty() ? tr("explored") : tr("explored, %1").arg(note);
        item->setText(5, note);
        items.push_back(item);
    }
    m_rows->addTopLevelItems(items);
}

} // namespace dl2console
