#include "utilisationplot.h"

#include "plot.h"

#include <QVBoxLayout>

namespace dl2console {

UtilisationPlot::UtilisationPlot(QWidget *parent) : QWidget(parent), m_plot(new Plot(this))
{
    m_plot->setObjectName(QStringLiteral("utilisation"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->addGraph()->setName(tr("CPU"));
    m_plot->addGraph()->setName(tr("GPU"));
    m_plot->xAxis->setTicker(QSharedPointer<SlotTicker>::create());
    m_plot->xAxis->setLabel(tr("slot"));
    m_plot->yAxis->setLabel(tr("utilisation %"));
    m_plot->yAxis->setRange(0, 105);
    m_plot->legend->setVisible(true);
    m_plot->placeLegendAbove();
    connect(m_plot, &Plot::colorsChanged, this, &UtilisationPlot::restyle);
    restyle();
}

void UtilisationPlot::restyle()
{
    for (int i = 0; i < 2; ++i) {
        const QColor c = m_plot->seriesColor(i);
        m_plot->graph(i)->setPen(QPen(c, 1.6));
        QColor fill = c;
        fill.setAlphaF(0.12f);
        m_plot->graph(i)->setBrush(i == 1 ? QBrush(fill) : QBrush());
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void UtilisationPlot::setTimeline(const std::vector<SlotSummary> &timeline, int currentSlot,
                                  int lastSlot)
{
    const int n = std::min(static_cast<int>(timeline.size()), currentSlot + 1);
    for (int r = 0; r < 2; ++r) {
        QVector<double> x(n), y(n);
        for (int i = 0; i < n; ++i) {
            x[i] = i;
            y[i] = 100.0 * timeline[i].utilisation[r];
        }
        m_plot->graph(r)->setData(x, y, true);
    }
    m_plot->xAxis->setRange(0, std::max(10, lastSlot));
    m_plot->setCursorSlot(currentSlot);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int UtilisationPlot::pointCount(int series) const
{
    return series >= 0 && series < m_plot->graphCount() ? m_plot->graph(series)->dataCount() : 0;
}

} // namespace dl2console
