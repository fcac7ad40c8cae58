#include "rewardplot.h"

#include "plot.h"

#include <QVBoxLayout>

namespace dl2console {

RewardPlot::RewardPlot(QWidget *parent) : QWidget(parent), m_plot(new Plot(this))
{
    m_plot->setObjectName(QStringLiteral("reward"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_bars->setName(tr("per slot"));
    m_bars->setWidth(0.9);
    auto *cumulative = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
    cumulative->setName(tr("cumulative"));
    m_plot->yAxis2->setVisible(true);
    m_valueAxis = m_plot->axisRect()->addAxis(QCPAxis::atRight);
    m_valueAxis->setLabel(tr("V(s)"));
    m_valueAxis->setVisible(false);
    m_value = m_plot->addGraph(m_plot->xAxis, m_valueAxis);
    m_value->setName(tr("V(s)"));
    m_value->setVisible(false);
    m_value->removeFromLegend();
    m_plot->xAxis->setTicker(QSharedPointer<SlotTicker>::create());
    m_plot->xAxis->setLabel(tr("slot"));
    m_plot->yAxis->setLabel(tr("reward"));
    m_plot->yAxis2->setLabel(tr("cumulative"));
    m_plot->legend->setVisible(true);
    m_plot->placeLegendAbove();
    connect(m_plot, &Plot::colorsChanged, this, &RewardPlot::restyle);
    restyle();
}

void RewardPlot::restyle()
{
    QColor bar = m_plot->seriesColor(0);
    m_bars->setPen(Qt::NoPen);
    bar.setAlphaF(0.6f);
    m_bars->setBrush(bar);
    m_plot->graph(0)->setPen(QPen(m_plot->seriesColor(2), 1.8));
    m_value->setPen(QPen(m_plot->seriesColor(1), 1.6, Qt::DashLine));
    m_plot->styleAxes(m_plot->axisRect()); // the value axis was added after the base styling
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void RewardPlot::setTimeline(const std::vector<SlotSummary> &timeline, int currentSlot,
                             int lastSlot)
{
    const int n = std::min(static_cast<int>(timeline.size()), currentSlot + 1);
    QVector<double> x(n), reward(n), total(n);
    double maxReward = 0.0;
    for (int i = 0; i < n; ++i) {
        x[i] = i;
        reward[i] = timeline[i].reward;
        total[i] = timeline[i].cumulativeReward;
        maxReward = std::max(maxReward, reward[i]);
    }
    m_bars->setData(x, reward, true);
    m_plot->graph(0)->setData(x, total, true);
    m_plot->xAxis->setRange(-0.5, std::max(10, lastSlot) + 0.5);
    // Scale to the whole known run so the axes do not jump while playing.
    double allMax = maxReward, allTotal = n > 0 ? total.back() : 0.0;
    for (const auto &s : timeline) {
        allMax = std::max(allMax, s.reward);
        allTotal = std::max(allTotal, s.cumulativeReward);
    }
    m_plot->yAxis->setRange(0, std::max(0.1, allMax * 1.1));

    // V(s) of a learned policy: up to the slot on display, scaled to the whole known run.
    QVector<double> vx, vy;
    double vMin = 0.0, vMax = 0.0;
    bool any = false;
    for (size_t i = 0; i < timeline.size(); ++i) {
        if (!timeline[i].value)
            continue;
        const double v = *timeline[i].value;
        vMin = any ? std::min(vMin, v) : v;
        vMax = any ? std::max(vMax, v) : v;
        any = true;
        if (static_cast<int>(i) < n) {
            vx << static_cast<double>(i);
            vy << v;
        }
    }
    m_value->setData(vx, vy, true);
    if (any != m_value->visible()) {
        m_value->setVisible(any);
        m_valueAxis->setVisible(any);
        if (any)
            m_value->addToLegend();
        else
            m_value->removeFromLegend();
    }
    if (any) {
        const double pad = std::max(1e-3, 0.05 * (vMax - vMin));
        m_valueAxis->setRange(std::min(0.0, vMin - pad), vMax + pad);
    }
    m_plot->yAxis2->setRange(0, std::max(1.0, allTotal * 1.05));
    m_plot->setCursorSlot(currentSlot);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QVector<QPointF> RewardPlot::valuePoints() const
{
    return dataPoints(m_value);
}

QVector<QPointF> RewardPlot::rewardPoints() const
{
    return dataPoints(m_bars);
}

bool RewardPlot::hasValueSeries() const
{
    return m_value->visible();
}

} // namespace dl2console
