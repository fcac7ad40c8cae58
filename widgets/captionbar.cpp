#include "captionbar.h"

#include "jobpalette.h"

#include <algorithm>

#include <QEvent>
#include <QLabel>
#include <QVBoxLayout>

namespace dl2console {

CaptionBar::CaptionBar(QWidget *parent) : QWidget(parent), m_layout(new QVBoxLayout(this))
{
    setObjectName(QStringLiteral("captionBar"));
    m_layout->setContentsMargins(10, 6, 10, 6);
    m_layout->setSpacing(4);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::AlternateBase);
}

void CaptionBar::setLines(const QList<Line> &lines)
{
    m_lines = lines;
    render();
}

void CaptionBar::setMaxItems(int n)
{
    m_maxItems = std::max(1, n);
    render();
}

void CaptionBar::setSteady(bool steady)
{
    m_steady = steady;
    if (!steady)
        setMinimumHeight(0);
    fitHeight();
}

QString CaptionBar::plainText() const
{
    QStringList out;
    for (const Line &l : m_lines)
        out << (l.policy.isEmpty() ? QString() : l.policy + QStringLiteral(": ")) +
                   l.caption.text(l.policy, m_maxItems);
    return out.join(u'\n');
}

QSize CaptionBar::minimumSizeHint() const
{
    return {100, QWidget::minimumSizeHint().height()};
}

void CaptionBar::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        render();
}

void CaptionBar::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitHeight();
}

void CaptionBar::fitHeight()
{
    int h = m_layout->hasHeightForWidth() ? m_layout->heightForWidth(width())
                                          : m_layout->sizeHint().height();
    if (m_steady) {
        const QMargins m = m_layout->contentsMargins();
        const int lines = int(std::max<qsizetype>(1, m_lines.size()));
        const int reserve = m.top() + m.bottom() + lines * 2 * fontMetrics().lineSpacing() +
                            (lines - 1) * m_layout->spacing();
        h = std::max({h, reserve, height()});
    }
    if (h > 0 && h != height())
        setFixedHeight(h);
}

void CaptionBar::render()
{
    while (m_labels.size() < m_lines.size()) {
        auto *label = new QLabel(this);
        label->setTextFormat(Qt::RichText);
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::NoTextInteraction);
        m_layout->addWidget(label);
        m_labels << label;
    }
    const bool dark = JobPalette::isDark(palette().color(QPalette::Window));
    for (int i = 0; i < m_labels.size(); ++i) {
        QLabel *label = m_labels[i];
        label->setVisible(i < m_lines.size());
        if (i >= m_lines.size())
            continue;
        const Line &l = m_lines[i];
        QString prefix;
        if (!l.policy.isEmpty())
            prefix = QStringLiteral("<b><span style=\"color:%1\">%2</span></b>&nbsp; ")
                         .arg(l.policyColor.isValid() ? l.policyColor.name()
                                                      : palette().color(QPalette::WindowText).name(),
                              l.policy.toHtmlEscaped());
        label->setText(prefix + l.caption.text(l.policy, m_maxItems, true, dark));
    }
    fitHeight();
}

} // namespace dl2console
