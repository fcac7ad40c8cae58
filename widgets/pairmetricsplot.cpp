#include "pairmetricsplot.h"

#include "plot.h"

#include <QVBoxLayout>

namespace dl2console {

PairMetricsPlot::PairMetricsPlot(QWidget *parent) : QWidget(parent), m_plot(new Plot(this))
{
    m_plot->setObjectName(QStringLiteral("pairMetrics"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    for (int side = 0; side < 2; ++side)
        m_plot->addGraph(m_plot->xAxis, m_plot->yAxis);
    for (int side = 0; side < 2; ++side)
        m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
    m_plot->xAxis->setTicker(QSharedPointer<SlotTicker>::create());
    m_plot->xAxis->setLabel(tr("slot"));
    m_plot->yAxis->setLabel(tr("GPU utilisation %"));
    m_plot->yAxis->setRange(0, 105);
    m_plot->yAxis2->setVisible(true);
    m_plot->yAxis2->setLabel(tr("cumulative JCT (job-slots)"));
    m_plot->legend->setVisible(true);
    m_plot->placeLegendAbove();
    setPolicies(tr("left"), tr("right"));
    connect(m_plot, &Plot::colorsChanged, this, &PairMetricsPlot::restyle);
    restyle();
}

void PairMetricsPlot::setPolicies(const QString &left, const QString &right)
{
    const QString names[2] = {left, right};
    for (int side = 0; side < 2; ++side) {
        m_plot->graph(side)->setName(tr("%1 GPU %").arg(names[side]));
        m_plot->graph(2 + side)->setName(tr("%1 cumulative JCT").arg(names[side]));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PairMetricsPlot::setLegendInTwoRows(bool on)
{
    // Legend items in graph order: both utilisations, then both cumulative JCTs.
    m_plot->legend->setWrap(on ? 2 : kGraphs);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    m_plot->updateGeometry(); // its minimum width follows the legend's
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PairMetricsPlot::restyle()
{
    for (int side = 0; side < 2; ++side) {
        const QColor c = m_plot->seriesColor(side);
        m_plot->graph(side)->setPen(QPen(c, 1.6));
        m_plot->graph(2 + side)->setPen(QPen(c, 2.2, Qt::DashLine));
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QVector<QPointF> PairMetricsPlot::points(int graph) const
{
    QVector<QPointF> out;
    const auto data = m_plot->graph(graph)->data();
    for (auto it = data->constBegin(); it != data->constEnd(); ++it)
        out << QPointF(it->key, it->value);
    return out;
}

QString PairMetricsPlot::graphName(int graph) const
{
    return m_plot->graph(graph)->name();
}

QColor PairMetricsPlot::policyColor(int side) const
{
    return m_plot->seriesColor(side);
}

double PairMetricsPlot::cumulativeJct(const std::vector<SlotSummary> &timeline, int slot)
{
    double sum = 0.0;
    const int n = std::min(static_cast<int>(timeline.size()), slot + 1);
    for (int i = 0; i < n; ++i)
        sum += timeline[i].jobSlots;
    return sum;
}

void PairMetricsPlot::setTimelines(const std::vector<SlotSummary> &left,
                                   const std::vector<SlotSummary> &right, int pairSlot,
                                   int lastSlot)
{
    const std::vector<SlotSummary> *timelines[2] = {&left, &right};
    double maxJct = 1.0;
    for (int side = 0; side < 2; ++side) {
        const auto &t = *timelines[side];
        const int n = std::min(static_cast<int>(t.size()), pairSlot + 1);
        QVector<double> x(n), util(n), jct(n);
        double sum = 0.0;
        for (int i = 0; i < n; ++i) {
            x[i] = i;
            util[i] = 100.0 * t[i].utilisation[static_cast<int>(dl2::Resource::Gpu)];
            sum += t[i].jobSlots;
            jct[i] = sum;
        }
        m_plot->graph(side)->setData(x, util, true);
        m_plot->graph(2 + side)->setData(x, jct, true);
        // Scale to the whole known runs so the axis does not jump while playing.
        maxJct = std::max(maxJct, cumulativeJct(t, static_cast<int>(t.size()) - 1));
    }
    m_plot->xAxis->setRange(0, std::max(10, lastSlot));
    m_plot->yAxis2->setRange(0, maxJct * 1.05);
    m_plot->setCursorSlot(pairSlot);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace dl2console
