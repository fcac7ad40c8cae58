#include "typeprobedialog.h"

#include "error.h"
#include "fileio.h"
#include "policyfiles.h"
#include "settings.h"
#include "tablefit.h"
#include "typeprobemodel.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QStyledItemDelegate>
#include <QTabBar>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace dl2console {

namespace {

// Shades a cell by its q (0: the base colour, 1: nearly the highlight colour), from the palette.
class ProbeShadeDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem *option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        const QVariant q = index.data(TypeProbeModel::ValueRole);
        if (!q.isValid())
            return;
        // The square root parts the small q (a type given no worker) from the rest.
        const double t = 0.85 * std::sqrt(std::clamp(q.toDouble(), 0.0, 1.0));
        const QColor base = option->palette.color(QPalette::Base);
        const QColor high = option->palette.color(QPalette::Highlight);
        const auto mix = [t](int from, int to) { return int(from + t * (to - from) + 0.5); };
        const QColor shade(mix(base.red(), high.red()), mix(base.green(), high.green()),
                           mix(base.blue(), high.blue()));
        option->backgroundBrush = shade;
        // The text colour that stands out more on the shade.
        const int grey = qGray(shade.rgb());
        const QColor text = option->palette.color(QPalette::Text);
        const QColor onHighlight = option->palette.color(QPalette::HighlightedText);
        if (std::abs(qGray(onHighlight.rgb()) - grey) > std::abs(qGray(text.rgb()) - grey))
            option->palette.setColor(QPalette::Text, onHighlight);
    }
};

QString probedName(const QString &nameOrPath)
{
    return QFileInfo::exists(nameOrPath) ? QDir::toNativeSeparators(nameOrPath) : nameOrPath;
}

} // namespace

TypeProbeDialog::TypeProbeDialog(Settings *settings, QWidget *parent)
    : QDialog(parent), m_settings(settings), m_model(new TypeProbeModel(this))
{
    setObjectName(QStringLiteral("typeProbeDialog"));
    setWindowTitle(tr("Job types the policy tells apart"));
    auto *v = new QVBoxLayout(this);
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("typeProbeTitle"));
    m_title->setWordWrap(true);
    m_title->setTextFormat(Qt::PlainText);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_legend = new QLabel(
        tr("Each window row of the kept decision states is re-scored as if its job were each type "
           "(the type input and per-type counts moved). Rows: the row's own type (rows seen); "
           "columns: the type it is given; cells: the mean q(worker | row), the worker's share of "
           "the row's worker/PS/both mix, darker for more. Equal cells along a row: the network "
           "does not tell the types apart at these rows. The tabs split the rows by their job's "
           "workers and PSs: every job starts a slot at one of each, and a policy may give a "
           "type its workers only once it has its PSs."),
        this);
    m_legend->setWordWrap(true);
    m_bands = new QTabBar(this);
    m_bands->setObjectName(QStringLiteral("typeProbeBands"));
    for (int band = 0; band < TypeProbeResult::kBands; ++band)
        m_bands->addTab(TypeProbeModel::bandTitle(TypeProbeModel::Band(band)));
    m_bands->setDrawBase(false);
    m_bands->setExpanding(false);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("typeProbeTable"));
    m_table->setModel(m_model);
    m_table->setItemDelegate(new ProbeShadeDelegate(m_table));
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setShowGrid(false);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    fitTableToFont(m_table);
    m_stats = new QLabel(this);
    m_stats->setObjectName(QStringLiteral("typeProbeStatistics"));
    m_stats->setWordWrap(true);
    m_stats->setTextFormat(Qt::PlainText);
    m_stats->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *other = new QPushButton(tr("Other checkpoint…"), this);
    auto *shipped = new QToolButton(this);
    shipped->setText(tr("Shipped policy"));
    shipped->setPopupMode(QToolButton::InstantPopup);
    shipped->setToolTip(tr("Probe a dl2 policy shipped with the console"));
    auto *menu = new QMenu(shipped);
    for (const ShippedPolicyEntry &p : shippedPolicyEntries())
        if (p.kind == QLatin1String("dl2")) {
            QAction *action = menu->addAction(p.name);
            action->setToolTip(p.description);
            connect(action, &QAction::triggered, this, [this, name = p.name] { probe(name); });
        }
    menu->setToolTipsVisible(true);
    shipped->setMenu(menu);
    shipped->setEnabled(!menu->isEmpty());
    m_export = new QPushButton(tr("Export CSV…"), this);
    m_export->setObjectName(QStringLiteral("typeProbeExport"));
    m_export->setEnabled(false);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    auto *row = new QHBoxLayout;
    row->addWidget(other);
    row->addWidget(shipped);
    row->addWidget(m_export);
    row->addStretch(1);
    row->addWidget(buttons);

    m_title->setText(tr("No checkpoint probed yet: pick one below."));
    v->addWidget(m_title);
    v->addWidget(m_legend);
    v->addWidget(m_bands);
    v->addWidget(m_table, 1);
    v->addWidget(m_stats);
    v->addStretch(0); // takes the room only while there is no table
    v->addLayout(row);
    showTable(false);
    resize(820, 440);

    connect(m_model, &TypeProbeModel::probed, this, &TypeProbeDialog::showResult);
    connect(m_model, &TypeProbeModel::errorOccurred, this, &TypeProbeDialog::showError);
    connect(m_bands, &QTabBar::currentChanged, this, [this](int band) {
        m_model->setBand(TypeProbeModel::Band(band));
        updateStatistics();
    });
    connect(other, &QPushButton::clicked, this, &TypeProbeDialog::browse);
    connect(m_export, &QPushButton::clicked, this, &TypeProbeDialog::exportWithDialog);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
}

void TypeProbeDialog::probe(const QString &nameOrPath)
{
    m_title->setText(tr("Probing %1…").arg(probedName(nameOrPath)));
    m_model->probe(nameOrPath);
}

QString TypeProbeDialog::message() const
{
    return m_title->text();
}

QString TypeProbeDialog::statistics() const
{
    return m_stats->text();
}

void TypeProbeDialog::showResult()
{
    const TypeProbeResult &r = m_model->result();
    m_title->setText(
        tr("%1: %2 decision states of %3 seed %4, drawn from slots %5-%6, the policy as deployed")
            .arg(probedName(r.checkpoint))
            .arg(r.states)
            .arg(r.scenario)
            .arg(r.seed)
            .arg(r.firstSlot)
            .arg(r.lastSlot));
    for (int band = 0; band < TypeProbeResult::kBands; ++band) {
        qsizetype rows = 0;
        for (const int n : r.rows[band])
            rows += n;
        m_bands->setTabText(band, tr("%1 (%Ln rows)", nullptr, int(rows))
                                      .arg(TypeProbeModel::bandTitle(TypeProbeModel::Band(band))));
    }
    showTable(true);
    updateStatistics();
}

void TypeProbeDialog::showError(const QString &message)
{
    m_title->setText(tr("Cannot probe %1").arg(message)); // the message names the file
    showTable(false);
    m_stats->clear();
}

void TypeProbeDialog::showTable(bool on)
{
    for (QWidget *w : std::initializer_list<QWidget *>{m_legend, m_bands, m_table})
        w->setVisible(on);
    m_export->setEnabled(on);
}

void TypeProbeDialog::updateStatistics()
{
    const TypeProbeResult &r = m_model->result();
    if (r.types.isEmpty()) {
        m_stats->clear();
        return;
    }
    QString text = tr("Spread %1: the largest change of one type's mean q when its rows are given "
                      "another type.")
                       .arg(r.spread(m_model->band()), 0, 'f', 3);
    if (!r.tied) {
        m_stats->setText(text + tr(" Not tied across the window: its units are not counted."));
        return;
    }
    const auto layer = [&r](int l) {
        return tr("layer %1 %2 of %3 (%4 varying between rows)")
            .arg(l + 1)
            .arg(r.layers[l].ownActive, 0, 'f', 2)
            .arg(r.layers[l].own)
            .arg(r.layers[l].ownVarying);
    };
    m_stats->setText(text +
                     tr(" Tied across the window: a position's own units active per row, "
                        "%1, %2; mean |weight| into layer 1 from the type %3, from the other "
                        "features %4.")
                         .arg(layer(0), layer(1))
                         .arg(r.typeWeight, 0, 'f', 3)
                         .arg(r.otherWeight, 0, 'f', 3));
}

void TypeProbeDialog::browse()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Probe checkpoint"), m_settings ? m_settings->lastDirectory() : QString(),
        tr("DL2 checkpoints (*.dl2ckpt);;All files (*)"));
    if (path.isEmpty())
        return;
    if (m_settings)
        m_settings->setLastDirectory(QFileInfo(path).absolutePath());
    probe(path);
}

QString TypeProbeDialog::exportCsv(const QString &fileName)
{
    try {
        dl2::writeFileAtomically(fileName.toStdString(), m_model->toCsv().toStdString());
        return {};
    } catch (const dl2::Error &e) { // names the file and why
        return QString::fromStdString(e.what());
    }
}

void TypeProbeDialog::exportWithDialog()
{
    const QString base = QFileInfo(m_model->result().checkpoint).completeBaseName();
    const QString name = QFileDialog::getSaveFileName(
        this, tr("Export the type probe"), base + QStringLiteral("-types.csv"), tr("CSV (*.csv)"));
    if (name.isEmpty())
        return;
    if (const QString error = exportCsv(name); !error.isEmpty())
        QMessageBox::warning(this, windowTitle(), error);
}

} // namespace dl2console
