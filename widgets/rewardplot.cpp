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
    m_bars->setName(tr("reward per slot"));
    m_bars->setWidth(0.9);
    auto *cumulative = m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2);
    cumulative->setName(tr("cumulative (right axis)"));
    m_plot->yAxis2->setVisible(true);
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
    m_plot->yAxis2->setRange(0, std::max(1.0, allTotal * 1.05));
    m_plot->setCursorSlot(currentSlot);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace dl2console
