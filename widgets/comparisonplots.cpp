#include "comparisonplots.h"

#include "plot.h"

#include <algorithm>

namespace dl2console {

void plotAverageJct(Plot *p, const dl2::ExperimentResult &result)
{
    p->clearPlottables();
    p->clearItems();
    p->setMessage(result.summary.empty()
                      ? QObject::tr("Pick policies and press Run comparison (F5)")
                      : QString());
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const auto &summary = result.summary;
    double top = 1.0;
    for (size_t i = 0; i < summary.size(); ++i) {
        const auto &s = summary[i];
        ticker->addTick(static_cast<double>(i), QString::fromStdString(s.policy));
        auto *bar = new QCPBars(p->xAxis, p->yAxis);
        QColor c = p->seriesColor(static_cast<int>(i));
        bar->setPen(QPen(c.darker(120)));
        c.setAlphaF(0.75f);
        bar->setBrush(c);
        bar->setWidth(0.6);
        bar->addData(static_cast<double>(i), s.meanAvgJct);
        auto *err = new QCPErrorBars(p->xAxis, p->yAxis);
        err->setDataPlottable(bar);
        err->setData(QVector<double>{s.stdAvgJct});
        err->setPen(QPen(p->foreground(), 1.2));
        top = std::max(top, s.meanAvgJct + s.stdAvgJct);
        if (s.meanLowerBound > 0) {
            auto *lb = new QCPItemLine(p);
            lb->start->setCoords(i - 0.35, s.meanLowerBound);
            lb->end->setCoords(i + 0.35, s.meanLowerBound);
            lb->setPen(QPen(p->foreground(), 1, Qt::DotLine));
        }
    }
    p->xAxis->setTicker(ticker);
    p->xAxis->setRange(-0.6, std::max<double>(1, summary.size()) - 0.4);
    p->xAxis->setTickLabelRotation(summary.size() > 5 ? 30 : 0);
    p->yAxis->setRange(0, top * 1.12);
    p->yAxis->setLabel(QObject::tr("average JCT (slots)"));
    p->replot(QCustomPlot::rpQueuedReplot);
}

void plotJctCdf(Plot *p, const dl2::ExperimentResult &result)
{
    p->clearGraphs();
    p->legend->setVisible(!result.summary.empty());
    double maxJct = 1.0;
    for (size_t i = 0; i < result.summary.size(); ++i) {
        const std::string &policy = result.summary[i].policy;
        std::vector<double> jcts;
        for (const auto &run : result.runs)
            if (run.policy == policy)
                for (double j : run.result.jcts)
                    if (j >= 0)
                        jcts.push_back(j);
        std::sort(jcts.begin(), jcts.end());
        QVector<double> x, y;
        const double n = static_cast<double>(jcts.size());
        for (size_t k = 0; k < jcts.size(); ++k) {
            x.push_back(jcts[k]);
            y.push_back((k + 1) / n);
        }
        if (!jcts.empty())
            maxJct = std::max(maxJct, jcts.back());
        QCPGraph *g = p->addGraph();
        g->setName(QString::fromStdString(policy));
        g->setPen(QPen(p->seriesColor(static_cast<int>(i)), 1.8));
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setData(x, y, true);
    }
    p->xAxis->setLabel(QObject::tr("JCT (slots), finished jobs of all runs"));
    p->yAxis->setLabel(QObject::tr("fraction of jobs"));
    p->xAxis->setScaleType(QCPAxis::stLogarithmic);
    p->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    p->xAxis->setRange(0.1, maxJct * 1.2);
    p->yAxis->setRange(0, 1.02);
    p->replot(QCustomPlot::rpQueuedReplot);
}

void plotUtilisationOverTime(Plot *p, const dl2::ExperimentResult &result)
{
    p->clearGraphs();
    p->legend->setVisible(!result.summary.empty());
    int maxSlots = 10;
    for (size_t i = 0; i < result.summary.size(); ++i) {
        const std::string &policy = result.summary[i].policy;
        std::vector<double> sum;
        std::vector<int> count;
        for (const auto &run : result.runs) {
            if (run.policy != policy)
                continue;
            const auto &u = run.result.utilisation;
            if (u.size() > sum.size()) {
                sum.resize(u.size(), 0.0);
                count.resize(u.size(), 0);
            }
            for (size_t s = 0; s < u.size(); ++s) {
                sum[s] += u[s][1];
                ++count[s];
            }
        }
        QVector<double> x, y;
        for (size_t s = 0; s < sum.size(); ++s) {
            x.push_back(static_cast<double>(s));
            y.push_back(100.0 * sum[s] / std::max(1, count[s]));
        }
        maxSlots = std::max(maxSlots, static_cast<int>(sum.size()));
        QCPGraph *g = p->addGraph();
        g->setName(QString::fromStdString(policy));
        g->setPen(QPen(p->seriesColor(static_cast<int>(i)), 1.5));
        g->setData(x, y, true);
    }
    p->xAxis->setTicker(QSharedPointer<SlotTicker>::create());
    p->xAxis->setLabel(QObject::tr("slot"));
    p->yAxis->setLabel(QObject::tr("GPU utilisation %, mean of runs"));
    p->xAxis->setRange(0, maxSlots);
    p->yAxis->setRange(0, 105);
    p->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace dl2console
