#pragma once
// The console's one QCustomPlot subclass: palette-aware colours (recomputed on PaletteChange),
// queued replots, and a context menu to export the plot as PNG or PDF.

#include <QPointer>
#include <qcustomplot.h>

namespace dl2console {

// The (key, value) points of a graph or a bars plottable, in key order (tests read plots so).
template <typename Plottable> QVector<QPointF> dataPoints(const Plottable *plottable)
{
    QVector<QPointF> out;
    const auto &data = *plottable->data();
    out.reserve(data.size());
    for (auto it = data.constBegin(); it != data.constEnd(); ++it)
        out << QPointF(it->key, it->value);
    return out;
}

class Plot : public QCustomPlot
{
    Q_OBJECT
public:
    explicit Plot(QWidget *parent = nullptr);

    bool isDark() const;
    QColor foreground() const;
    QColor gridColor() const;
    // i-th series colour, derived from the palette's highlight (readable on light and dark).
    QColor seriesColor(int i) const;
    // A vertical "current slot" line on the default axis rect.
    void setCursorSlot(double slot);
    // Centred grey message over the plot area (empty states); empty text hides it.
    void setMessage(const QString &text);
    QString message() const;
    // Moves the legend into a borderless row above the plot (never covers data).
    void placeLegendAbove();
    // A bold title row on top of everything.
    void setTitle(const QString &text);
    // Styles an axis rect's axes with the palette (called for the default one automatically).
    void styleAxes(QCPAxisRect *rect);
    bool exportTo(const QString &fileName);
    // Small, so docks can shrink: the layout squeezes legends/axes instead of the window growing.
    QSize minimumSizeHint() const override { return {160, 80}; }

Q_SIGNALS:
    // Emitted after the base colours were recomputed; owners restyle their graphs.
    void colorsChanged();

protected:
    void changeEvent(QEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;

private:
    void updateColors();
    void updateFonts();

    QPointer<QCPItemStraightLine> m_cursor;
    QPointer<QCPItemText> m_message;
    bool m_legendAbove = false;
    QPointer<QCPTextElement> m_title;
};

// Integer slot ticks ("slot 120"), never fractional.
class SlotTicker : public QCPAxisTicker
{
protected:
    double getTickStep(const QCPRange &range) override;
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar,
                         int precision) override;
};

} // namespace dl2console
