#include "plot.h"

#include <QApplication>
#include <QFileDialog>
#include <QMenu>
#include <cmath>

namespace dl2console {

Plot::Plot(QWidget *parent) : QCustomPlot(parent)
{
    setNoAntialiasingOnDrag(true);
    setPlottingHint(QCP::phCacheLabels, true);
    setMinimumHeight(80);
    updateColors();
}

bool Plot::isDark() const
{
    return palette().color(QPalette::Window).lightnessF() < 0.5;
}

QColor Plot::foreground() const
{
    return palette().color(QPalette::WindowText);
}

QColor Plot::gridColor() const
{
    QColor c = foreground();
    c.setAlphaF(0.15f);
    return c;
}

QColor Plot::seriesColor(int i) const
{
    const QColor base = palette().color(QPalette::Highlight);
    const float hue = std::fmod(std::max(0.0f, base.hueF()) + 0.38f * static_cast<float>(i), 1.0f);
    return QColor::fromHsvF(hue, 0.75f, isDark() ? 0.95f : 0.78f);
}

void Plot::setCursorSlot(double slot)
{
    if (!m_cursor) {
        m_cursor = new QCPItemStraightLine(this);
        m_cursor->setLayer(QStringLiteral("overlay"));
        m_cursor->setSelectable(false);
    }
    QColor c = foreground();
    c.setAlphaF(0.55f);
    m_cursor->setPen(QPen(c, 1, Qt::DashLine));
    m_cursor->point1->setCoords(slot, 0);
    m_cursor->point2->setCoords(slot, 1);
    m_cursor->setVisible(slot >= 0);
}

void Plot::setMessage(const QString &text)
{
    if (!m_message) {
        m_message = new QCPItemText(this);
        m_message->position->setType(QCPItemPosition::ptAxisRectRatio);
        m_message->position->setCoords(0.5, 0.5);
        m_message->setSelectable(false);
    }
    m_message->setColor(palette().color(QPalette::PlaceholderText));
    m_message->setText(text);
    m_message->setVisible(!text.isEmpty());
}

QString Plot::message() const
{
    return m_message && m_message->visible() ? m_message->text() : QString();
}

void Plot::setTitle(const QString &text)
{
    if (!m_title) {
        plotLayout()->insertRow(0);
        QFont f = font();
        f.setBold(true);
        m_title = new QCPTextElement(this, text, f);
        m_title->setMargins(QMargins(4, 4, 4, 0));
        plotLayout()->addElement(0, 0, m_title);
        plotLayout()->setRowStretchFactor(0, 0.001);
        m_title->setTextColor(foreground());
    }
    m_title->setText(text);
}

void Plot::placeLegendAbove()
{
    if (m_legendAbove)
        return;
    m_legendAbove = true;
    const int at = m_title ? 1 : 0;
    plotLayout()->insertRow(at);
    // A sub-grid [legend | spacer] keeps the legend left-aligned at its natural width.
    auto *row = new QCPLayoutGrid;
    plotLayout()->addElement(at, 0, row);
    row->addElement(0, 0, legend);
    row->addElement(0, 1, new QCPLayoutElement(this));
    row->setColumnStretchFactor(0, 0.001);
    row->setColumnStretchFactor(1, 1);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    legend->setWrap(8);
    legend->setMargins(QMargins(4, 2, 4, 0));
    legend->setRowSpacing(0);
    legend->setColumnSpacing(12);
    plotLayout()->setRowStretchFactor(at, 0.001);
    plotLayout()->setRowSpacing(0);
    updateColors();
}

void Plot::styleAxes(QCPAxisRect *rect)
{
    const QColor fg = foreground();
    QColor sub = fg;
    sub.setAlphaF(0.5f);
    for (QCPAxis *axis : rect->axes()) {
        axis->setBasePen(QPen(sub));
        axis->setTickPen(QPen(sub));
        axis->setSubTickPen(QPen(sub));
        axis->setTickLabelColor(fg);
        axis->setLabelColor(fg);
        axis->grid()->setPen(QPen(gridColor(), 1, Qt::DotLine));
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
}

void Plot::updateColors()
{
    setBackground(palette().color(QPalette::Base));
    if (axisRect())
        for (QCPAxisRect *rect : axisRects())
            styleAxes(rect);
    if (legend) {
        legend->setBrush(m_legendAbove ? QBrush(Qt::NoBrush)
                                       : QBrush(palette().color(QPalette::Base)));
        legend->setTextColor(foreground());
        QColor border = foreground();
        border.setAlphaF(0.3f);
        legend->setBorderPen(m_legendAbove ? QPen(Qt::NoPen) : QPen(border));
    }
    for (int i = 0; i < plotLayout()->elementCount(); ++i)
        if (auto *title = qobject_cast<QCPTextElement *>(plotLayout()->elementAt(i)))
            title->setTextColor(foreground());
    Q_EMIT colorsChanged();
    replot(rpQueuedReplot);
}

void Plot::changeEvent(QEvent *event)
{
    QCustomPlot::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        updateColors();
    else if (event->type() == QEvent::FontChange)
        updateFonts();
}

// QCustomPlot copies the widget font into its elements once; a larger window font
// (presentation mode) must reach the axes, legend and title too.
void Plot::updateFonts()
{
    const QFont f = font();
    QFont bold = f;
    bold.setBold(true);
    for (QCPAxisRect *rect : axisRects())
        for (QCPAxis *axis : rect->axes()) {
            axis->setTickLabelFont(f);
            axis->setLabelFont(f);
        }
    if (legend) {
        legend->setFont(f);
        for (int i = 0; i < legend->itemCount(); ++i)
            if (auto *item = legend->item(i))
                item->setFont(f);
    }
    if (m_title)
        m_title->setFont(bold);
    if (m_message)
        m_message->setFont(f);
    replot(rpQueuedReplot);
}

bool Plot::exportTo(const QString &fileName)
{
    if (fileName.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive))
        return savePdf(fileName);
    return savePng(fileName, 0, 0, 2.0);
}

void Plot::contextMenuEvent(QContextMenuEvent *event)
{
    QMenu menu(this);
    auto exportAs = [this](const QString &filter, const QString &suffix) {
        const QString name =
            QFileDialog::getSaveFileName(this, tr("Export plot"), objectName() + suffix, filter);
        if (!name.isEmpty())
            exportTo(name);
    };
    menu.addAction(tr("Export as PNG…"), this,
                   [=] { exportAs(tr("PNG image (*.png)"), QStringLiteral(".png")); });
    menu.addAction(tr("Export as PDF…"), this,
                   [=] { exportAs(tr("PDF document (*.pdf)"), QStringLiteral(".pdf")); });
    menu.addSeparator();
    menu.addAction(tr("Rescale axes"), this, [this] {
        rescaleAxes();
        replot(rpQueuedReplot);
    });
    menu.exec(event->globalPos());
}

double SlotTicker::getTickStep(const QCPRange &range)
{
    const double step = QCPAxisTicker::getTickStep(range);
    return std::max(1.0, std::round(step));
}

QString SlotTicker::getTickLabel(double tick, const QLocale &locale, QChar, int)
{
    return locale.toString(static_cast<qlonglong>(std::llround(tick)));
}

} // namespace dl2console
