#include "jobtablepanel.h"

#include "jobfilterproxymodel.h"
#include "jobtablemodel.h"
#include "progressdelegate.h"
#include "tablefit.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

namespace dl2console {

namespace {
// Rows outside dl2's window are set in italics, and their slant needs a pixel or two more than
// upright text. No row is marked when the columns are sized at load, so every cell is measured
// in both faces; otherwise "cnn-text-classification" is elided in a marked row.
class EitherFaceDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyleOptionViewItem slanted(option);
        slanted.font.setItalic(!option.font.italic());
        return QStyledItemDelegate::sizeHint(option, index)
            .expandedTo(QStyledItemDelegate::sizeHint(slanted, index));
    }
};
} // namespace

JobTablePanel::JobTablePanel(JobTableModel *model, QWidget *parent)
    : QWidget(parent), m_model(model), m_proxy(new JobFilterProxyModel(this)),
      m_state(new QComboBox(this)), m_search(new QLineEdit(this)), m_view(new QTableView(this))
{
    m_proxy->setSourceModel(model);
    using F = JobFilterProxyModel::StateFilter;
    m_state->addItem(tr("Active"), int(F::Active));
    m_state->addItem(tr("Arrived"), int(F::Arrived));
    m_state->addItem(tr("Running"), int(F::Running));
    m_state->addItem(tr("Queued"), int(F::Queued));
    m_state->addItem(tr("Done"), int(F::Finished));
    m_state->addItem(tr("Outside window"), int(F::OutsideWindow));
    m_state->addItem(tr("All (incl. pending)"), int(F::All));
    m_state->setToolTip(tr("Which jobs to list"));
    m_search->setPlaceholderText(tr("Job id, model, source id or user…"));
    m_search->setClearButtonEnabled(true);

    auto *filters = new QHBoxLayout;
    filters->setContentsMargins(0, 0, 0, 0);
    filters->addWidget(m_state);
    filters->addWidget(m_search, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addLayout(filters);
    layout->addWidget(m_view);

    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(JobTableModel::IdColumn, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    // Sized once per load, not on every slot (ResizeToContents re-measures all rows each update).
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // The source columns (imported traces) only when some job has them.
    const auto showColumns = [this] {
        for (int c = 0; c < JobTableModel::ColumnCount; ++c)
            m_view->setColumnHidden(c, !m_model->hasColumnData(c));
    };
    showColumns();
    connect(m_proxy, &QAbstractItemModel::modelReset, this, showColumns);
    // Sized for every job of the trace, not only those the filter lists at load (at slot 0 a
    // few early jobs: later ids of three digits and longer model names were elided).
    connect(m_proxy, &QAbstractItemModel::modelReset, this, [this] {
        const F shown = m_proxy->stateFilter();
        m_proxy->setStateFilter(F::All);
        m_view->resizeColumnsToContents();
        m_proxy->setStateFilter(shown);
    });
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setItemDelegate(new EitherFaceDelegate(this));
    m_view->setItemDelegateForColumn(JobTableModel::ProgressColumn, new ProgressDelegate(this));
    fitTableToFont(m_view); // and again at presentation mode's larger font

    connect(m_state, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setStateFilter(static_cast<F>(m_state->currentData().toInt())); });
    connect(m_search, &QLineEdit::textChanged, m_proxy, &JobFilterProxyModel::setText);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { Q_EMIT selectionChanged(selectedJobs()); });
}

QList<int> JobTablePanel::selectedJobs() const
{
    QList<int> ids;
    const auto rows = m_view->selectionModel()->selectedRows();
    for (const QModelIndex &index : rows)
        ids.push_back(index.data(JobTableModel::JobIdRole).toInt());
    return ids;
}

void JobTablePanel::selectJob(int jobId)
{
    const int sourceRow = m_model->rowOfJob(jobId);
    if (sourceRow < 0)
        return;
    QModelIndex index = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    if (!index.isValid()) {
        // Filtered out: show every job so the selection is visible.
        m_state->setCurrentIndex(m_state->count() - 1);
        m_search->clear();
        index = m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    }
    m_view->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect |
                                                QItemSelectionModel::Rows);
    m_view->scrollTo(index);
}

} // namespace dl2console
