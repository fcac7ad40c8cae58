#include "comparisonplots.h"

#include "plot.h"

#include <algorithm>
#include <cmath>

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

namespace {
// One graph per policy of the summary, coloured like the other charts.
void setPolicyGraphs(Plot *p, const dl2::ExperimentResult &result,
                     const std::vector<std::vector<double>> &series, double width)
{
    p->clearGraphs();
    p->legend->setVisible(!result.summary.empty());
    for (size_t i = 0; i < series.size(); ++i) {
        QVector<double> x, y;
        for (size_t s = 0; s < series[i].size(); ++s) {
            x.push_back(static_cast<double>(s));
            y.push_back(series[i][s]);
        }
        QCPGraph *g = p->addGraph();
        g->setName(QString::fromStdString(result.summary[i].policy));
        g->setPen(QPen(p->seriesColor(static_cast<int>(i)), width));
        g->setData(x, y, true);
    }
}

int longestRun(const std::vector<std::vector<double>> &series)
{
    size_t n = 10;
    for (const auto &s : series)
        n = std::max(n, s.size());
    return static_cast<int>(n);
}
} // namespace

void plotRewardOverTime(Plot *p, const dl2::ExperimentResult &result)
{
    std::vector<std::vector<double>> series;
    double top = 0.1;
    for (const auto &summary : result.summary) {
        std::vector<double> sum;
        int runs = 0;
        for (const auto &run : result.runs) {
            if (run.policy != summary.policy)
                continue;
            ++runs;
            const auto &r = run.result.rewards;
            if (r.size() > sum.size())
                sum.resize(r.size(), 0.0);
            for (size_t s = 0; s < r.size(); ++s)
                sum[s] += r[s];
        }
        for (double &v : sum) {
            v /= std::max(1, runs);
            top = std::max(top, v);
        }
        series.push_back(std::move(sum));
    }
    setPolicyGraphs(p, result, series, 1.4);
    p->xAxis->setTicker(QSharedPointer<SlotTicker>::create());
    p->xAxis->setLabel(QObject::tr("slot"));
    p->yAxis->setLabel(QObject::tr("reward per slot, mean of runs"));
    p->xAxis->setRange(0, longestRun(series));
    p->yAxis->setRange(0, top * 1.08);
    p->replot(QCustomPlot::rpQueuedReplot);
}

std::vector<std::vector<double>> meanCompletedOverTime(
    const dl2::ExperimentResult &result, const std::vector<std::vector<int>> &arrivals)
{
    std::vector<std::vector<double>> series;
    for (const auto &summary : result.summary) {
        std::vector<std::vector<double>> curves;
        for (size_t i = 0; i < result.runs.size(); ++i) {
            const auto &run = result.runs[i];
            if (run.policy != summary.policy || arrivals.empty())
                continue;
            const std::vector<int> &arrival = arrivals[i % arrivals.size()];
            std::vector<double> perSlot(std::max(1, run.result.slotCount), 0.0);
            const auto &jcts = run.result.jcts;
            for (size_t j = 0; j < jcts.size() && j < arrival.size(); ++j) {
                if (jcts[j] < 0)
                    continue;
                // Finished during slot s: finish time in (s, s + 1].
                const double finish = arrival[j] + jcts[j];
                const int s = std::clamp(static_cast<int>(std::ceil(finish)) - 1, 0,
                                         static_cast<int>(perSlot.size()) - 1);
                perSlot[s] += 1.0;
            }
            for (size_t s = 1; s < perSlot.size(); ++s)
                perSlot[s] += perSlot[s - 1];
            curves.push_back(std::move(perSlot));
        }
        size_t n = 0;
        for (const auto &c : curves)
            n = std::max(n, c.size());
        std::vector<double> mean(n, 0.0);
        for (const auto &c : curves)
            for (size_t s = 0; s < n; ++s)
                mean[s] += (s < c.size() ? c[s] : c.back()) / curves.size(); // ended: stays
        series.push_back(std::move(mean));
    }
    return series;
}

void plotCompletedOverTime(Plot *p, const dl2::ExperimentResult &result,
                           const std::vector<std::vector<int>> &arrivals)
{
    const auto series = meanCompletedOverTime(result, arrivals);
    double top = 1.0;
    for (const auto &s : series)
        if (!s.empty())
            top = std::max(top, s.back());
    setPolicyGraphs(p, result, series, 1.8);
    for (int i = 0; i < p->graphCount(); ++i)
        p->graph(i)->setLineStyle(QCPGraph::lsStepLeft);
    p->xAxis->setTicker(QSharedPointer<SlotTicker>::create());
    p->xAxis->setLabel(QObject::tr("slot"));
    p->yAxis->setLabel(QObject::tr("jobs completed, mean of runs"));
    p->xAxis->setRange(0, longestRun(series));
    p->yAxis->setRange(0, top * 1.05);
    p->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace dl2console
