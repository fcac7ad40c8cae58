#include "exportreplaydialog.h"

#include "videowriter.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

namespace dl2console {

ExportReplayDialog::ExportReplayDialog(const QStringList &views, int lastSlot,
                                       const Choice &initial, QWidget *parent)
    : QDialog(parent), m_file(new QLineEdit(this)), m_first(new QSpinBox(this)),
      m_last(new QSpinBox(this)), m_fps(new QDoubleSpinBox(this)), m_size(new QComboBox(this)),
      m_captions(new QCheckBox(tr("Captions: what arrived, finished and changed"), this))
{
    setWindowTitle(tr("Export replay"));
    auto *form = new QFormLayout;
    auto *fileRow = new QHBoxLayout;
    m_file->setText(initial.fileName);
    m_file->setToolTip(tr("The extension picks the format: %1").arg(VideoWriter::supportedExtensions()));
    auto *browse = new QPushButton(tr("Browse…"), this);
    fileRow->addWidget(m_file, 1);
    fileRow->addWidget(browse);
    // Rows holding a layout get a label with an explicit buddy (else "&" shows literally).
    auto *fileLabel = new QLabel(tr("&File"), this);
    fileLabel->setBuddy(m_file);
    form->addRow(fileLabel, fileRow);

    auto *slotRow = new QHBoxLayout;
    for (QSpinBox *s : {m_first, m_last})
        s->setRange(0, std::max(0, lastSlot));
    m_first->setValue(std::clamp(initial.firstSlot, 0, std::max(0, lastSlot)));
    m_last->setValue(std::clamp(initial.lastSlot, 0, std::max(0, lastSlot)));
    slotRow->addWidget(m_first);
    slotRow->addWidget(new QLabel(tr("to"), this));
    slotRow->addWidget(m_last);
    slotRow->addStretch(1);
    auto *slotLabel = new QLabel(tr("&Slots"), this);
    slotLabel->setBuddy(m_first);
    form->addRow(slotLabel, slotRow);

    m_fps->setRange(0.2, 30);
    m_fps->setDecimals(1);
    m_fps->setSingleStep(0.5);
    m_fps->setValue(initial.fps);
    m_fps->setSuffix(tr(" slots per second"));
    form->addRow(tr("S&peed"), m_fps);

    for (const QSize s : {QSize(1280, 720), QSize(1920, 1080), QSize(1600, 1000), QSize(1024, 768)})
        m_size->addItem(tr("%1 × %2").arg(s.width()).arg(s.height()), s);
    const int at = m_size->findData(initial.size);
    if (at >= 0)
        m_size->setCurrentIndex(at);
    else
        m_size->insertItem(0, tr("%1 × %2").arg(initial.size.width()).arg(initial.size.height()),
                           initial.size);
    form->addRow(tr("Fra&me size"), m_size);

    auto *viewBox = new QVBoxLayout;
    for (const QString &v : views) {
        auto *check = new QCheckBox(v, this);
        check->setChecked(initial.views.contains(v));
        m_views << check;
        viewBox->addWidget(check);
    }
    form->addRow(tr("Views"), viewBox);
    if (!views.contains(QLatin1String("cluster")))
        viewBox->addWidget(new QLabel(tr("(the cluster view is always in)"), this));
    m_captions->setChecked(initial.captions);
    form->addRow(QString(), m_captions);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    m_ok->setText(tr("Export"));
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, &ExportReplayDialog::browse);
    connect(m_file, &QLineEdit::textChanged, this, &ExportReplayDialog::validate);
    connect(m_first, &QSpinBox::valueChanged, this, &ExportReplayDialog::validate);
    connect(m_last, &QSpinBox::valueChanged, this, &ExportReplayDialog::validate);
    validate();
}

void ExportReplayDialog::browse()
{
    const QString name = QFileDialog::getSaveFileName(
        this, tr("Export replay"), m_file->text(),
        tr("WebM video (*.webm);;MP4 video (*.mp4);;Animated GIF (*.gif);;Animated PNG (*.apng *.png)"));
    if (!name.isEmpty())
        m_file->setText(name);
}

void ExportReplayDialog::validate()
{
    const bool known = VideoWriter::formatForFile(m_file->text(), nullptr);
    const bool ok = known && m_first->value() <= m_last->value();
    m_ok->setEnabled(ok);
    m_ok->setToolTip(!known ? tr("The file name must end in %1").arg(VideoWriter::supportedExtensions())
                     : ok   ? QString()
                            : tr("The first slot comes after the last"));
}

ExportReplayDialog::Choice ExportReplayDialog::choice() const
{
    Choice c;
    c.fileName = m_file->text();
    c.firstSlot = m_first->value();
    c.lastSlot = m_last->value();
    c.fps = m_fps->value();
    c.size = m_size->currentData().toSize();
    for (QCheckBox *check : m_views)
        if (check->isChecked())
            c.views << check->text();
    c.captions = m_captions->isChecked();
    return c;
}

} // namespace dl2console
