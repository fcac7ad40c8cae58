#include "overridedialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace dl2console {

OverrideDialog::OverrideDialog(const QString &decisionId, const QString &title, int ps,
                               int workers, int maxPs, int maxWorkers, QWidget *parent)
    : QDialog(parent), m_id(decisionId), m_ps(new QSpinBox(this)), m_workers(new QSpinBox(this)),
      m_error(new QLabel(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setObjectName(QStringLiteral("overrideDialog"));
    setWindowTitle(tr("Override decision"));
    auto *layout = new QVBoxLayout(this);
    auto *heading = new QLabel(title, this);
    heading->setWordWrap(true);
    layout->addWidget(heading);
    auto *form = new QFormLayout;
    m_ps->setRange(0, maxPs);
    m_ps->setValue(ps);
    m_workers->setRange(0, maxWorkers);
    m_workers->setValue(workers);
    form->addRow(tr("&Parameter servers:"), m_ps);
    form->addRow(tr("&Workers:"), m_workers);
    layout->addLayout(form);
    m_error->setObjectName(QStringLiteral("overrideError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = m_error->font();
    bold.setBold(true);
    m_error->setFont(bold);
    m_error->hide();
    layout->addWidget(m_error);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Approve with this allocation"));
    layout->addWidget(m_buttons);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &OverrideDialog::submit);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    for (QSpinBox *box : {m_ps, m_workers})
        connect(box, &QSpinBox::valueChanged, m_error, &QWidget::hide);
    m_workers->setFocus();
    m_workers->selectAll();
}

QString OverrideDialog::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

void OverrideDialog::submit()
{
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    m_error->setText(tr("Checking with the gate…"));
    m_error->show();
    Q_EMIT submitted(m_ps->value(), m_workers->value());
}

void OverrideDialog::setResult(const QString &error)
{
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(true);
    if (error.isEmpty()) {
        m_error->hide();
        accept();
        return;
    }
    m_error->setText(QStringLiteral("⚠ ") + tr("Refused: %1").arg(error));
    m_error->show();
}

} // namespace dl2console
