#include "auditlogpanel.h"

#include "auditeventsmodel.h"
#include "auditfilterproxymodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QSpinBox>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace dl2console {

namespace {
QString csvField(QString text)
{
    if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) ||
        text.contains(QLatin1Char('\n'))) {
        text.replace(QLatin1Char('"'), QStringLiteral("\"\""));
        return QLatin1Char('"') + text + QLatin1Char('"');
    }
    return text;
}
} // namespace

AuditLogPanel::AuditLogPanel(QWidget *parent)
    : QWidget(parent), m_model(new AuditEventsModel(this)), m_proxy(new AuditFilterProxyModel(this)),
      m_job(new QSpinBox(this)), m_action(new QComboBox(this)),
      m_useRange(new QCheckBox(tr("From"), this)), m_from(new QDateTimeEdit(this)),
      m_to(new QDateTimeEdit(this)), m_search(new QLineEdit(this)), m_view(new QTableView(this)),
      m_status(new QLabel(this)), m_refresh(new QTimer(this))
{
    setObjectName(QStringLiteral("auditLogPanel"));
    m_job->setRange(-1, 1'000'000);
    m_job->setSpecialValueText(tr("all jobs"));
    m_job->setValue(-1);
    m_job->setPrefix(tr("job "));
    m_action->addItem(tr("all actions"), QString());
    const QDateTime now = QDateTime::currentDateTime();
    m_from->setDateTime(now.addSecs(-3600));
    m_to->setDateTime(now.addSecs(3600));
    for (QDateTimeEdit *e : {m_from, m_to}) {
        e->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:mm"));
        e->setCalendarPopup(true);
        e->setEnabled(false);
    }
    m_useRange->setToolTip(tr("Only events in this time range (local time)"));
    m_search->setPlaceholderText(tr("Search…"));
    m_search->setClearButtonEnabled(true);
    auto *exportButton = new QPushButton(tr("Export CSV…"), this);

    // Two rows: the dock shares the right side with narrow panels.
    auto *filters = new QHBoxLayout;
    filters->addWidget(m_job);
    filters->addWidget(m_action);
    filters->addWidget(m_search, 1);
    auto *range = new QHBoxLayout;
    range->addWidget(m_useRange);
    range->addWidget(m_from);
    range->addWidget(new QLabel(tr("to"), this));
    range->addWidget(m_to);
    range->addStretch();
    range->addWidget(exportButton);

    m_proxy->setSourceModel(m_model);
    m_view->setModel(m_proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->horizontalHeader()->setStretchLastSection(true);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(filters);
    layout->addLayout(range);
    layout->addWidget(m_view, 1);
    m_status->setForegroundRole(QPalette::PlaceholderText);
    layout->addWidget(m_status);

    connect(m_job, &QSpinBox::valueChanged, this, &AuditLogPanel::applyFilters);
    connect(m_action, &QComboBox::currentIndexChanged, this, &AuditLogPanel::applyFilters);
    connect(m_useRange, &QCheckBox::toggled, this, [this](bool on) {
        m_from->setEnabled(on);
        m_to->setEnabled(on);
        applyFilters();
    });
    connect(m_from, &QDateTimeEdit::dateTimeChanged, this, &AuditLogPanel::applyFilters);
    connect(m_to, &QDateTimeEdit::dateTimeChanged, this, &AuditLogPanel::applyFilters);
    connect(m_search, &QLineEdit::textChanged, this, &AuditLogPanel::applyFilters);
    connect(exportButton, &QPushButton::clicked, this, &AuditLogPanel::exportInteractively);
    m_refresh->setSingleShot(true);
    m_refresh->setInterval(300);
    connect(m_refresh, &QTimer::timeout, this, &AuditLogPanel::refresh);
    m_status->setText(tr("No audit log yet: it is written once the console operates through "
                         "the gate (review or rules)."));
}

AuditLogPanel::~AuditLogPanel() = default;

void AuditLogPanel::setAuditFile(const QString &path)
{
    if (path == m_path)
        return;
    m_model->clear();
    m_path = path;
    refresh();
}

void AuditLogPanel::scheduleRefresh()
{
    if (!m_refresh->isActive())
        m_refresh->start();
}

void AuditLogPanel::refresh()
{
    if (m_path.isEmpty() || !QFileInfo::exists(m_path)) {
        m_status->setText(tr("No audit log yet: it is written once the console operates through "
                             "the gate (review or rules)."));
        return;
    }
    const QString selected = m_action->currentData().toString();
    const QString error = m_model->reload(m_path);
    if (!error.isEmpty()) {
        m_status->setText(tr("Cannot read %1: %2").arg(m_path, error));
        return;
    }
    // Actions present in the log, for the filter.
    const QStringList kinds = m_model->kinds();
    const QSignalBlocker block(m_action);
    while (m_action->count() > 1)
        m_action->removeItem(1);
    for (const QString &k : std::as_const(kinds))
        m_action->addItem(k, k);
    m_action->setCurrentIndex(std::max(0, m_action->findData(selected)));
    m_view->resizeColumnsToContents();
    for (int c : {AuditFilterProxyModel::BeforeColumn, AuditFilterProxyModel::AfterColumn})
        m_view->setColumnWidth(c, std::min(m_view->columnWidth(c), 260));
    m_status->setText(tr("%1 · %2 of %3 events")
                          .arg(QFileInfo(m_path).fileName())
                          .arg(m_proxy->rowCount())
                          .arg(m_model->rowCount()));
}

void AuditLogPanel::applyFilters()
{
    m_proxy->setJob(m_job->value());
    m_proxy->setAction(m_action->currentData().toString());
    if (m_useRange->isChecked())
        m_proxy->setTimeRange(m_from->dateTime(), m_to->dateTime());
    else
        m_proxy->setTimeRange({}, {});
    m_proxy->setText(m_search->text());
    if (!m_path.isEmpty())
        m_status->setText(tr("%1 · %2 of %3 events")
                              .arg(QFileInfo(m_path).fileName())
                              .arg(m_proxy->rowCount())
                              .arg(m_model->rowCount()));
}

bool AuditLogPanel::exportCsv(const QString &path, QString *error) const
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        if (error)
            *error = file.errorString();
        return false;
    }
    QStringList line;
    for (int c = 0; c < m_proxy->columnCount(); ++c)
        line << csvField(m_proxy->headerData(c, Qt::Horizontal).toString());
    QByteArray out = line.join(QLatin1Char(',')).toUtf8() + '\n';
    for (int r = 0; r < m_proxy->rowCount(); ++r) {
        line.clear();
        for (int c = 0; c < m_proxy->columnCount(); ++c)
            line << csvField(m_proxy->index(r, c).data().toString());
        out += line.join(QLatin1Char(',')).toUtf8() + '\n';
    }
    file.write(out);
    if (!file.commit()) {
        if (error)
            *error = file.errorString();
        return false;
    }
    return true;
}

void AuditLogPanel::exportInteractively()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export audit log"),
                                                      QStringLiteral("audit.csv"),
                                                      tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportCsv(path, &error))
        m_status->setText(tr("Export failed: %1").arg(error));
    else
        m_status->setText(tr("Exported %1 events to %2").arg(m_proxy->rowCount()).arg(path));
}

} // namespace dl2console
