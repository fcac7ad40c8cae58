#include "importtracedialog.h"

#include "error.h"
#include "modelprofile.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFutureWatcher>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace dl2console {

struct ImportTraceDialog::Outcome
{
    std::shared_ptr<dl2::ImportResult> result;
    QString error;
};

namespace {

QString number(long long n)
{
    return QLocale(QLocale::English).toString(n);
}

// A line edit and its "Browse…" button on one row.
QWidget *withBrowse(QLineEdit *edit, QPushButton *button)
{
    auto *row = new QWidget;
    auto *layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    layout->addWidget(button);
    return row;
}

} // namespace

ImportTraceDialog::ImportTraceDialog(const dl2::ProfileSet &profiles, QWidget *parent)
    : QDialog(parent), m_profiles(std::make_shared<const dl2::ProfileSet>(profiles))
{
    setWindowTitle(tr("Import public trace"));
    setObjectName(QStringLiteral("importTraceDialog"));
    m_importFolder = QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation) +
                     QStringLiteral("/imported-traces");
    buildUi();
    m_tick.setInterval(200);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        m_status->setText(tr("%1 %2 s…")
                              .arg(m_saving ? tr("Writing the trace") : tr("Importing"))
                              .arg(m_clock.elapsed() / 1000.0, 0, 'f', 1));
    });
    onFormatChanged();
}

ImportTraceDialog::~ImportTraceDialog()
{
    ++m_generation; // a preview still running on the pool delivers nowhere
}

void ImportTraceDialog::buildUi()
{
    auto *source = new QGroupBox(tr("Source"), this);
    auto *sourceForm = new QFormLayout(source);
    m_format = new QComboBox(source);
    m_format->setObjectName(QStringLiteral("format"));
    m_format->addItem(tr("Microsoft Philly (cluster_job_log)"), int(dl2::ImportFormat::Philly));
    m_format->addItem(tr("Alibaba PAI 2020 (pai_task_table + pai_job_table)"),
                      int(dl2::ImportFormat::Alibaba));
    m_format->addItem(tr("SenseTime Helios (cluster_log.csv)"), int(dl2::ImportFormat::Helios));
    sourceForm->addRow(tr("&Format:"), m_format);

    m_file = new QLineEdit(source);
    m_file->setObjectName(QStringLiteral("file"));
    m_file->setPlaceholderText(tr("plain, .gz, .tar.gz or .zip, as published"));
    auto *browse = new QPushButton(tr("Browse…"), source);
    connect(browse, &QPushButton::clicked, this, &ImportTraceDialog::browseFile);
    sourceForm->addRow(tr("F&ile:"), withBrowse(m_file, browse));

    m_member = new QLineEdit(source);
    m_member->setObjectName(QStringLiteral("member"));
    m_member->setPlaceholderText(tr("inside an archive, e.g. Venus/cluster_log.csv (default: by name)"));
    sourceForm->addRow(tr("Archive &member:"), m_member);

    m_jobTable = new QLineEdit(source);
    m_jobTable->setObjectName(QStringLiteral("jobTable"));
    m_jobTable->setPlaceholderText(tr("pai_job_table (default: next to the task table)"));
    m_jobTableBrowse = new QPushButton(tr("Browse…"), source);
    connect(m_jobTableBrowse, &QPushButton::clicked, this, &ImportTraceDialog::browseJobTable);
    sourceForm->addRow(tr("&Job table:"), withBrowse(m_jobTable, m_jobTableBrowse));

    m_machines = new QLineEdit(source);
    m_machines->setObjectName(QStringLiteral("machines"));
    m_machines->setPlaceholderText(tr("optional (default: looked for next to the file)"));
    auto *machinesBrowse = new QPushButton(tr("Browse…"), source);
    connect(machinesBrowse, &QPushButton::clicked, this, &ImportTraceDialog::browseMachines);
    sourceForm->addRow(tr("&Machines:"), withBrowse(m_machines, machinesBrowse));

    auto *rules = new QGroupBox(tr("Options (as dl2 trace-import)"), this);
    auto *rulesForm = new QFormLayout(rules);
    m_phillyDuration = new QComboBox(rules);
    m_phillyDuration->setObjectName(QStringLiteral("phillyDuration"));
    m_phillyDuration->addItem(tr("span: last end - first start (publisher's notebook)"),
                              int(dl2::PhillyDuration::Span));
    m_phillyDuration->addItem(tr("last attempt only"), int(dl2::PhillyDuration::LastAttempt));
    m_phillyDuration->addItem(tr("sum of the attempts"), int(dl2::PhillyDuration::Sum));
    rulesForm->addRow(tr("Philly &duration:"), m_phillyDuration);

    m_from = new QLineEdit(rules);
    m_from->setObjectName(QStringLiteral("from"));
    m_to = new QLineEdit(rules);
    m_to->setObjectName(QStringLiteral("to"));
    for (QLineEdit *e : {m_from, m_to})
        e->setPlaceholderText(tr("YYYY-MM-DD HH:MM:SS or seconds"));
    auto *window = new QWidget(rules);
    auto *windowLayout = new QHBoxLayout(window);
    windowLayout->setContentsMargins(0, 0, 0, 0);
    windowLayout->addWidget(m_from, 1);
    windowLayout->addWidget(new QLabel(tr("to"), window));
    windowLayout->addWidget(m_to, 1);
    rulesForm->addRow(tr("Submitted &from:"), window);

    m_maxJobs = new QSpinBox(rules);
    m_maxJobs->setObjectName(QStringLiteral("maxJobs"));
    m_maxJobs->setRange(0, 10'000'000);
    m_maxJobs->setSpecialValueText(tr("all"));
    m_maxJobs->setToolTip(tr("Keep only the first N jobs by submission"));
    m_slotSeconds = new QDoubleSpinBox(rules);
    m_slotSeconds->setObjectName(QStringLiteral("slotSeconds"));
    m_slotSeconds->setRange(1, 1e7);
    m_slotSeconds->setDecimals(0);
    m_slotSeconds->setValue(1200);
    m_slotSeconds->setSuffix(tr(" s"));
    auto *sizes = new QWidget(rules);
    auto *sizesLayout = new QHBoxLayout(sizes);
    sizesLayout->setContentsMargins(0, 0, 0, 0);
    sizesLayout->addWidget(m_maxJobs, 1);
    sizesLayout->addWidget(new QLabel(tr("slot length"), sizes));
    sizesLayout->addWidget(m_slotSeconds, 1);
    rulesForm->addRow(tr("Max &jobs:"), sizes);

    m_psRule = new QComboBox(rules);
    m_psRule->setObjectName(QStringLiteral("psRule"));
    m_psRule->addItem(tr("auto (PAI ps tasks, else one per worker)"), int(dl2::PsRule::Auto));
    m_psRule->addItem(tr("one per worker"), int(dl2::PsRule::PerWorker));
    m_psRule->addItem(tr("one"), int(dl2::PsRule::One));
    rulesForm->addRow(tr("&PS rule:"), m_psRule);

    m_maxWorkers = new QSpinBox(rules);
    m_maxWorkers->setObjectName(QStringLiteral("maxWorkers"));
    m_maxPs = new QSpinBox(rules);
    m_maxPs->setObjectName(QStringLiteral("maxPs"));
    for (QSpinBox *b : {m_maxWorkers, m_maxPs}) {
        b->setRange(0, 4096);
        b->setSpecialValueText(tr("no cap"));
    }
    auto *caps = new QWidget(rules);
    auto *capsLayout = new QHBoxLayout(caps);
    capsLayout->setContentsMargins(0, 0, 0, 0);
    capsLayout->addWidget(new QLabel(tr("workers"), caps));
    capsLayout->addWidget(m_maxWorkers, 1);
    capsLayout->addWidget(new QLabel(tr("PSs"), caps));
    capsLayout->addWidget(m_maxPs, 1);
    rulesForm->addRow(tr("&Caps:"), caps);

    m_modelRule = new QComboBox(rules);
    m_modelRule->setObjectName(QStringLiteral("modelRule"));
    m_modelRule->addItem(tr("by size (GPUs)"), int(dl2::ModelRule::BySize));
    m_modelRule->addItem(tr("sample (uniform)"), int(dl2::ModelRule::Sample));
    m_seed = new QSpinBox(rules);
    m_seed->setObjectName(QStringLiteral("seed"));
    m_seed->setRange(0, 2'000'000'000);
    m_seed->setValue(1);
    auto *model = new QWidget(rules);
    auto *modelLayout = new QHBoxLayout(model);
    modelLayout->setContentsMargins(0, 0, 0, 0);
    modelLayout->addWidget(m_modelRule, 1);
    modelLayout->addWidget(new QLabel(tr("seed"), model));
    modelLayout->addWidget(m_seed);
    rulesForm->addRow(tr("Mo&del rule:"), model);

    m_keepCpu = new QCheckBox(tr("&Keep CPU-only jobs (as one-worker jobs)"), rules);
    m_keepCpu->setObjectName(QStringLiteral("keepCpuJobs"));
    m_skipMalformed = new QCheckBox(tr("S&kip malformed records (counted)"), rules);
    m_skipMalformed->setObjectName(QStringLiteral("skipMalformed"));
    rulesForm->addRow(m_keepCpu);
    rulesForm->addRow(m_skipMalformed);

    m_save = new QLineEdit(this);
    m_save->setObjectName(QStringLiteral("savePath"));
    m_save->setPlaceholderText(tr("optional (default: the console's imported-traces folder)"));
    auto *saveBrowse = new QPushButton(tr("Browse…"), this);
    connect(saveBrowse, &QPushButton::clicked, this, &ImportTraceDialog::browseSave);
    auto *saveForm = new QFormLayout;
    saveForm->addRow(tr("&Save as:"), withBrowse(m_save, saveBrowse));

    auto *preview = new QGroupBox(tr("Preview"), this);
    auto *previewLayout = new QVBoxLayout(preview);
    auto *run = new QHBoxLayout;
    m_previewButton = new QPushButton(tr("P&review"), preview);
    m_previewButton->setObjectName(QStringLiteral("previewButton"));
    m_cancelButton = new QPushButton(tr("Cancel preview"), preview);
    m_cancelButton->setObjectName(QStringLiteral("cancelPreview"));
    m_cancelButton->setEnabled(false);
    m_progress = new QProgressBar(preview);
    m_progress->setObjectName(QStringLiteral("progress"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);
    m_status = new QLabel(tr("Choose a file, then Preview."), preview);
    m_status->setObjectName(QStringLiteral("status"));
    run->addWidget(m_previewButton);
    run->addWidget(m_cancelButton);
    run->addWidget(m_progress, 1);
    run->addWidget(m_status, 2);
    previewLayout->addLayout(run);
    m_error = new QLabel(preview);
    m_error->setObjectName(QStringLiteral("error"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #c62828;"));
    m_error->hide();
    previewLayout->addWidget(m_error);
    m_summary = new QLabel(preview);
    m_summary->setObjectName(QStringLiteral("summary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    previewLayout->addWidget(m_summary);
    m_counts = new QTreeWidget(preview);
    m_counts->setObjectName(QStringLiteral("counts"));
    m_counts->setColumnCount(2);
    m_counts->setHeaderLabels({tr("Import report"), tr("Jobs")});
    m_counts->setRootIsDecorated(true);
    m_counts->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_counts->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_counts->header()->setStretchLastSection(false);
    m_counts->setMinimumHeight(170);
    previewLayout->addWidget(m_counts, 2);
    m_notes = new QPlainTextEdit(preview);
    m_notes->setObjectName(QStringLiteral("notes"));
    m_notes->setReadOnly(true);
    m_notes->setPlaceholderText(tr("Notes of the import (what an analyst should know)"));
    m_notes->setMaximumHeight(80);
    m_notes->hide(); // shown when the import has notes
    previewLayout->addWidget(m_notes, 1);

    m_buttons = new QDialogButtonBox(this);
    m_importButton = m_buttons->addButton(tr("&Import and open"), QDialogButtonBox::AcceptRole);
    m_importButton->setObjectName(QStringLiteral("importButton"));
    m_importButton->setEnabled(false);
    m_importButton->setToolTip(tr("Preview first: the previewed trace is the one imported"));
    m_buttons->addButton(QDialogButtonBox::Close);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &ImportTraceDialog::importAndOpen);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *top = new QHBoxLayout;
    top->addWidget(source, 1);
    top->addWidget(rules, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(saveForm);
    layout->addWidget(preview, 1);
    layout->addWidget(m_buttons);
    resize(980, 720);

    connect(m_previewButton, &QPushButton::clicked, this, &ImportTraceDialog::startPreview);
    connect(m_cancelButton, &QPushButton::clicked, this, &ImportTraceDialog::cancelPreview);
    connect(m_format, &QComboBox::currentIndexChanged, this, &ImportTraceDialog::onFormatChanged);
    for (QLineEdit *e : {m_file, m_member, m_jobTable, m_machines, m_from, m_to})
        connect(e, &QLineEdit::textChanged, this, &ImportTraceDialog::invalidate);
    for (QComboBox *c : {m_format, m_phillyDuration, m_psRule, m_modelRule})
        connect(c, &QComboBox::currentIndexChanged, this, &ImportTraceDialog::invalidate);
    for (QSpinBox *b : {m_maxJobs, m_maxWorkers, m_maxPs, m_seed})
        connect(b, &QSpinBox::valueChanged, this, &ImportTraceDialog::invalidate);
    connect(m_slotSeconds, &QDoubleSpinBox::valueChanged, this, &ImportTraceDialog::invalidate);
    for (QCheckBox *c : {m_keepCpu, m_skipMalformed})
        connect(c, &QCheckBox::toggled, this, &ImportTraceDialog::invalidate);
}

void ImportTraceDialog::setFormat(dl2::ImportFormat format)
{
    m_format->setCurrentIndex(m_format->findData(int(format)));
}

dl2::ImportFormat ImportTraceDialog::format() const
{
    return static_cast<dl2::ImportFormat>(m_format->currentData().toInt());
}

void ImportTraceDialog::setFile(const QString &path)
{
    m_file->setText(path);
}

QString ImportTraceDialog::file() const
{
    return m_file->text().trimmed();
}

void ImportTraceDialog::setSavePath(const QString &path)
{
    m_save->setText(path);
}

void ImportTraceDialog::setImportFolder(const QString &folder)
{
    m_importFolder = folder;
}

QString ImportTraceDialog::errorText() const
{
    return m_error->isVisible() || !m_error->isHidden() ? m_error->text() : QString();
}

void ImportTraceDialog::onFormatChanged()
{
    const dl2::ImportFormat f = format();
    m_phillyDuration->setEnabled(f == dl2::ImportFormat::Philly);
    m_jobTable->setEnabled(f == dl2::ImportFormat::Alibaba);
    m_jobTableBrowse->setEnabled(f == dl2::ImportFormat::Alibaba);
    static const char *const machines[] = {"cluster_machine_list", "pai_machine_spec",
                                           "cluster_gpu_number.csv"};
    m_machines->setPlaceholderText(tr("optional %1 (default: looked for next to the file)")
                                       .arg(QLatin1String(machines[int(f)])));
}

dl2::ImportOptions ImportTraceDialog::options() const
{
    dl2::ImportOptions o;
    o.slotSeconds = m_slotSeconds->value();
    const auto time = [](const QLineEdit *edit, const char *name) -> std::optional<double> {
        const QString text = edit->text().trimmed();
        if (text.isEmpty())
            return std::nullopt;
        const auto t = dl2::parseTraceTime(text.toStdString());
        if (!t)
            throw dl2::Error(std::string(name) + ": expected \"YYYY-MM-DD HH:MM:SS\" or seconds, got '" +
                             text.toStdString() + "'");
        return t;
    };
    o.from = time(m_from, "from");
    o.to = time(m_to, "to");
    if (o.from && o.to && *o.to <= *o.from)
        throw dl2::Error("the window is empty: 'to' must come after 'from'");
    o.maxJobs = m_maxJobs->value();
    o.modelRule = static_cast<dl2::ModelRule>(m_modelRule->currentData().toInt());
    o.seed = static_cast<std::uint64_t>(m_seed->value());
    o.skipMalformed = m_skipMalformed->isChecked();
    o.keepCpuJobs = m_keepCpu->isChecked();
    o.maxWorkers = m_maxWorkers->value();
    o.maxPs = m_maxPs->value();
    o.psRule = static_cast<dl2::PsRule>(m_psRule->currentData().toInt());
    o.phillyDuration = static_cast<dl2::PhillyDuration>(m_phillyDuration->currentData().toInt());
    o.member = m_member->text().trimmed().toStdString();
    if (format() == dl2::ImportFormat::Alibaba)
        o.alibabaJobTable = m_jobTable->text().trimmed().toStdString();
    o.machines = m_machines->text().trimmed().toStdString();
    return o;
}

void ImportTraceDialog::browseFile()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Public trace"), QFileInfo(file()).absolutePath(),
        tr("Traces (*.csv *.json *.gz *.tgz *.tar *.zip cluster_job_log*);;All files (*)"));
    if (!path.isEmpty())
        setFile(path);
}

void ImportTraceDialog::browseJobTable()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("pai_job_table"), QFileInfo(file()).absolutePath(),
        tr("Tables (*.csv *.gz *.tgz *.tar *.zip);;All files (*)"));
    if (!path.isEmpty())
        m_jobTable->setText(path);
}

void ImportTraceDialog::browseMachines()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Machines"),
                                                      QFileInfo(file()).absolutePath(),
                                                      tr("All files (*)"));
    if (!path.isEmpty())
        m_machines->setText(path);
}

void ImportTraceDialog::browseSave()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save the imported trace"), defaultSavePath(),
        tr("Protobuf trace (*.pb);;CSV trace (*.csv);;Text trace (*.textproto)"));
    if (!path.isEmpty())
        m_save->setText(path);
}

QString ImportTraceDialog::defaultSavePath() const
{
    QString base = QFileInfo(file()).fileName();
    for (const QString &suffix : {QStringLiteral(".gz"), QStringLiteral(".tgz"), QStringLiteral(".zip"),
                                  QStringLiteral(".tar"), QStringLiteral(".csv"), QStringLiteral(".json")})
        if (base.endsWith(suffix, Qt::CaseInsensitive))
            base.chop(suffix.size());
    if (base.isEmpty())
        base = QStringLiteral("trace");
    return m_importFolder + QLatin1Char('/') + QLatin1String(dl2::toString(format())) +
           QLatin1Char('-') + base + QStringLiteral(".pb");
}

void ImportTraceDialog::invalidate()
{
    // A preview of other options is not the trace these would import.
    if (!m_running && !m_result)
        return;
    if (m_running)
        cancelPreview();
    m_result.reset();
    m_importButton->setEnabled(false);
    m_status->setText(tr("Options changed: Preview again."));
}

void ImportTraceDialog::setRunning(bool running)
{
    m_running = running;
    m_progress->setRange(0, running ? 0 : 1); // busy bar: the importer reports no fraction
    m_progress->setValue(running ? 0 : 1);
    m_previewButton->setEnabled(!running);
    m_cancelButton->setEnabled(running && !m_saving);
    m_importButton->setEnabled(!running && m_result != nullptr);
    if (running) {
        m_clock.start();
        m_tick.start();
    } else {
        m_tick.stop();
        m_saving = false;
    }
}

void ImportTraceDialog::showError(const QString &message)
{
    m_error->setText(message);
    m_error->show();
}

void ImportTraceDialog::startPreview()
{
    m_error->clear();
    m_error->hide();
    m_result.reset();
    m_counts->clear();
    m_notes->clear();
    m_notes->hide();
    m_summary->clear();
    dl2::ImportOptions o;
    try {
        if (file().isEmpty())
            throw dl2::Error("choose the trace file to import");
        o = options();
    } catch (const std::exception &e) {
        showError(QString::fromStdString(e.what()));
        m_status->setText(tr("Not started."));
        Q_EMIT previewFinished(false);
        return;
    }
    const quint64 generation = ++m_generation;
    const std::string path = file().toStdString();
    const dl2::ImportFormat f = format();
    const std::shared_ptr<const dl2::ProfileSet> profiles = m_profiles;
    auto *watcher = new QFutureWatcher<std::shared_ptr<Outcome>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        const std::shared_ptr<Outcome> outcome = watcher->result();
        watcher->deleteLater();
        onPreviewDone(generation, outcome);
    });
    watcher->setFuture(QtConcurrent::run([path, f, o, profiles]() mutable {
        auto outcome = std::make_shared<Outcome>();
        try {
            o.profiles = profiles.get();
            auto result = std::make_shared<dl2::ImportResult>(dl2::importTrace(path, f, o));
            if (!result->trace.jobs.empty())
                result->trace.validate(*profiles, path);
            outcome->result = std::move(result);
        } catch (const std::exception &e) {
            outcome->error = QString::fromStdString(e.what());
        }
        return outcome;
    }));
    m_saving = false;
    setRunning(true);
}

void ImportTraceDialog::cancelPreview()
{
    if (!m_running || m_saving)
        return;
    ++m_generation; // its result is dropped when it arrives
    setRunning(false);
    m_status->setText(tr("Preview cancelled."));
    Q_EMIT previewFinished(false);
}

void ImportTraceDialog::onPreviewDone(quint64 generation, const std::shared_ptr<Outcome> &outcome)
{
    if (generation != m_generation)
        return; // cancelled, or replaced by a newer preview
    const double seconds = m_clock.elapsed() / 1000.0;
    if (!outcome->error.isEmpty()) {
        setRunning(false);
        showError(outcome->error);
        m_status->setText(tr("Import failed: nothing written."));
        Q_EMIT previewFinished(false);
        return;
    }
    m_result = outcome->result;
    showReport(*m_result);
    const bool any = !m_result->trace.jobs.empty();
    if (!any) {
        showError(tr("%1: no job survived the filters; nothing to import").arg(file()));
        m_result.reset();
    }
    setRunning(false);
    m_status->setText(tr("Previewed in %1 s.").arg(seconds, 0, 'f', 1));
    Q_EMIT previewFinished(any);
}

void ImportTraceDialog::showReport(const dl2::ImportResult &result)
{
    const dl2::ImportReport &r = result.report;
    const dl2::Trace &trace = result.trace;
    m_counts->clear();
    const auto add = [this](QTreeWidgetItem *parent, const QString &key, const QString &label,
                            const QString &value) {
        auto *item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_counts);
        item->setText(0, label);
        item->setText(1, value);
        item->setData(0, Qt::UserRole, key);
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setToolTip(0, label);
        return item;
    };
    QStringList inputs;
    for (const auto &input : r.inputs)
        inputs << QString::fromStdString(input);
    add(nullptr, QStringLiteral("records"), tr("Job records read (%1)").arg(inputs.join(QStringLiteral(" + "))),
        number(r.records));
    QTreeWidgetItem *kept = add(nullptr, QStringLiteral("kept"), tr("Kept"), number(r.kept));
    for (const auto &[status, count] : r.keptStatus)
        add(kept, QStringLiteral("status:") + QString::fromStdString(status),
            tr("status %1").arg(status.empty() ? tr("(none)") : QString::fromStdString(status)),
            number(count));
    int filteredTotal = 0;
    for (const auto &[reason, count] : r.filtered)
        filteredTotal += count;
    QTreeWidgetItem *filtered =
        add(nullptr, QStringLiteral("filtered"), tr("Filtered"), number(filteredTotal));
    for (const auto &[reason, count] : r.filtered)
        add(filtered, QStringLiteral("filtered:") + QString::fromStdString(reason),
            QString::fromStdString(reason), number(count));
    QTreeWidgetItem *malformed =
        add(nullptr, QStringLiteral("malformed"), tr("Malformed (skipped)"), number(r.malformed));
    for (const auto &example : r.malformedExamples)
        add(malformed, QString(), QString::fromStdString(example), QString());
    if (r.kept > 0) {
        const QString origin = format() == dl2::ImportFormat::Alibaba
                                   ? QString()
                                   : QString::fromStdString(dl2::formatTraceTime(r.timeOrigin)) +
                                         QStringLiteral(" = ");
        add(nullptr, QStringLiteral("arrivals"),
            tr("Arrivals: slots %1..%2 (%3 s per slot, slot 0 = %4%5 s)")
                .arg(r.firstSlot)
                .arg(r.lastSlot)
                .arg(trace.slotSeconds.value_or(0.0))
                .arg(origin)
                .arg(r.timeOrigin, 0, 'f', 0),
            QString());
        add(nullptr, QStringLiteral("allocation"),
            tr("Allocation: up to %1 workers and %2 PSs")
                .arg(trace.maxObservedWorkers())
                .arg(trace.maxObservedPs()),
            QString());
    }
    if (trace.cluster)
        add(nullptr, QStringLiteral("cluster"),
            tr("Cluster: %1 nodes x %2 GPUs, %3 CPUs (%4)")
                .arg(number(trace.cluster->nodes))
                .arg(trace.cluster->gpusPerNode)
                .arg(trace.cluster->cpusPerNode)
                .arg(QString::fromStdString(trace.cluster->basis)),
            QString());
    else
        add(nullptr, QStringLiteral("cluster"),
            tr("Cluster: not implied by the source (the scenario's is used)"), QString());
    m_counts->expandAll();
    QStringList notes;
    for (const auto &note : r.notes)
        notes << QString::fromStdString(note);
    m_notes->setPlainText(notes.join(QLatin1Char('\n')));
    m_notes->setVisible(!notes.isEmpty());
    // The facts that decide whether to import, always in view above the details.
    QString summary = tr("<b>%1 of %2 jobs kept</b>").arg(number(r.kept), number(r.records));
    if (r.kept > 0)
        summary += tr(" · arrivals in slots %1..%2 of %3 s").arg(r.firstSlot).arg(r.lastSlot).arg(
            trace.slotSeconds.value_or(0.0));
    summary += trace.cluster ? tr(" · cluster <b>%1 nodes x %2 GPUs, %3 CPUs</b>")
                                   .arg(number(trace.cluster->nodes))
                                   .arg(trace.cluster->gpusPerNode)
                                   .arg(trace.cluster->cpusPerNode)
                             : tr(" · no cluster implied by the source (the scenario's is used)");
    m_summary->setText(summary);
    if (trace.cluster)
        m_summary->setToolTip(QString::fromStdString(trace.cluster->basis));
}

void ImportTraceDialog::importAndOpen()
{
    if (!m_result || m_running) {
        showError(tr("Preview the import first: the previewed trace is the one imported."));
        return;
    }
    const QString path = m_save->text().trimmed().isEmpty() ? defaultSavePath() : m_save->text().trimmed();
    if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        showError(tr("%1: cannot create the folder").arg(QFileInfo(path).absolutePath()));
        return;
    }
    m_error->hide();
    const std::shared_ptr<dl2::ImportResult> result = m_result;
    const quint64 generation = ++m_generation;
    auto *watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, path] {
        const QString error = watcher->result();
        watcher->deleteLater();
        if (generation != m_generation)
            return;
        setRunning(false);
        if (!error.isEmpty()) {
            showError(error);
            m_status->setText(tr("Not written."));
            return;
        }
        m_importedPath = path;
        m_status->setText(tr("Written to %1.").arg(path));
        Q_EMIT imported(path);
        accept();
    });
    const std::string target = path.toStdString();
    watcher->setFuture(QtConcurrent::run([result, target]() -> QString {
        try {
            // Temporary file then rename (core's atomic save): nothing half-written.
            result->trace.save(target);
            return {};
        } catch (const std::exception &e) {
            return QString::fromStdString(e.what());
        }
    }));
    m_saving = true;
    setRunning(true);
}

} // namespace dl2console
