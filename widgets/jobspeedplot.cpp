#include "jobspeedplot.h"

#include "jobpalette.h"
#include "plot.h"

#include <QVBoxLayout>

namespace dl2console {

namespace {
constexpr int kMaxPlotted = 8;
}

JobSpeedPlot::JobSpeedPlot(QWidget *parent)
    : QWidget(parent), m_plot(new Plot(this)), m_profiles(dl2::ProfileSet::reference())
{
    m_plot->setObjectName(QStringLiteral("jobspeed"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);

    m_allocRect = new QCPAxisRect(m_plot);
    m_plot->plotLayout()->addElement(1, 0, m_allocRect);
    m_plot->placeLegendAbove();
    m_plot->plotLayout()->setRowStretchFactor(1, 3);
    m_plot->plotLayout()->setRowStretchFactor(2, 2);
    auto *group = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    m_allocRect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
    m_plot->xAxis->setTicker(QSharedPointer<SlotTicker>::create());
    m_allocRect->axis(QCPAxis::atBottom)->setTicker(QSharedPointer<SlotTicker>::create());
    m_allocRect->axis(QCPAxis::atBottom)->setLabel(tr("slot"));
    // Allocations are 0..16 tasks: a few whole-number ticks stay readable in the short rect.
    auto allocTicks = QSharedPointer<SlotTicker>::create();
    allocTicks->setTickCount(3);
    m_allocRect->axis(QCPAxis::atLeft)->setTicker(allocTicks);
    m_plot->yAxis->setLabel(tr("epochs / slot"));
    m_allocRect->axis(QCPAxis::atLeft)->setLabel(tr("tasks (PS ┄)"));
    connect(m_plot->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged),
            m_allocRect->axis(QCPAxis::atBottom), qOverload<const QCPRange &>(&QCPAxis::setRange));
    m_plot->styleAxes(m_allocRect);
    connect(m_plot, &Plot::colorsChanged, this, [this] {
        m_plot->styleAxes(m_allocRect);
        rebuild();
    });
    rebuild();
}

void JobSpeedPlot::setProfiles(const dl2::ProfileSet &profiles, double slotSeconds)
{
    m_profiles = profiles;
    m_slotSeconds = slotSeconds;
}

void JobSpeedPlot::setJobs(const std::vector<int> &ids, const std::vector<int> &types)
{
    m_ids = ids;
    m_types = types;
}

void JobSpeedPlot::setSelectedJobs(const QList<int> &jobIds)
{
    if (jobIds == m_selected)
        return;
    m_selected = jobIds;
    rebuild();
}

void JobSpeedPlot::setTimeline(const std::vector<SlotSummary> &timeline, int currentSlot,
                               int lastSlot)
{
    m_timeline = &timeline;
    m_current = currentSlot;
    m_last = lastSlot;
    rebuild();
}

QString JobSpeedPlot::message() const
{
    return m_plot->message();
}

void JobSpeedPlot::setHintsShown(bool on)
{
    if (m_hints == on)
        return;
    m_hints = on;
    rebuild();
}

void JobSpeedPlot::rebuild()
{
    m_plot->clearGraphs();
    QCPAxis *allocX = m_allocRect->axis(QCPAxis::atBottom);
    QCPAxis *allocY = m_allocRect->axis(QCPAxis::atLeft);
    const bool dark = m_plot->isDark();
    double maxSpeed = 0.0;
    int maxAlloc = 1;
    int plotted = 0;
    const int n = m_timeline ? std::min(static_cast<int>(m_timeline->size()), m_current + 1) : 0;
    for (int jobId : std::as_const(m_selected)) {
        if (plotted >= kMaxPlotted)
            break;
        const auto it = std::find(m_ids.begin(), m_ids.end(), jobId);
        if (it == m_ids.end())
            continue;
        const size_t index = static_cast<size_t>(it - m_ids.begin());
        const int type = m_types[index];
        const double perStep = type >= 0 && type < m_profiles.size()
                                   ? m_slotSeconds / m_profiles[type].stepsPerEpoch
                                   : 0.0;
        QVector<double> x, speed, workers, ps;
        for (int s = 0; s < n; ++s) {
            const auto &jobs = (*m_timeline)[s].jobs;
            if (index >= jobs.size())
                continue;
            const JobSlotRecord &r = jobs[index];
            x.push_back(s);
            speed.push_back(r.speed * perStep);
            workers.push_back(r.workers);
            ps.push_back(r.ps);
            maxSpeed = std::max(maxSpeed, speed.back());
            maxAlloc = std::max({maxAlloc, int(r.workers), int(r.ps)});
        }
        const QColor color = JobPalette::color(jobId, dark);
        QCPGraph *g = m_plot->addGraph();
        g->setName(tr("job %1").arg(jobId));
        g->setPen(QPen(color, 1.8));
        g->setData(x, speed, true);
        QCPGraph *w = m_plot->addGraph(allocX, allocY);
        w->setPen(QPen(color, 1.5));
        w->setLineStyle(QCPGraph::lsStepLeft);
        w->setData(x, workers, true);
        w->removeFromLegend();
        QCPGraph *p = m_plot->addGraph(allocX, allocY);
        p->setPen(QPen(color, 1.5, Qt::DashLine));
        p->setLineStyle(QCPGraph::lsStepLeft);
        p->setData(x, ps, true);
        p->removeFromLegend();
        ++plotted;
    }
    m_plot->legend->setVisible(plotted > 0);
    m_plot->setMessage(plotted > 0 ? QString()
                       : m_hints   ? tr("Select jobs in the Jobs table or the cluster view")
                                   : tr("No job selected"));
    // Zoom on the selected jobs' lifetime so far (the run-wide range would squash them).
    int first = m_current, lastShown = 0;
    for (int jobId : std::as_const(m_selected)) {
        for (size_t i = 0; i < m_ids.size(); ++i)
            if (m_ids[i] == jobId && m_timeline)
                for (int s = 0; s < n; ++s)
                    if ((*m_timeline)[s].jobs.size() > i &&
                        ((*m_timeline)[s].jobs[i].workers > 0 || (*m_timeline)[s].jobs[i].ps > 0)) {
                        first = std::min(first, s);
                        lastShown = std::max(lastShown, s);
                    }
    }
    if (plotted == 0 || first > lastShown)
        m_plot->xAxis->setRange(0, std::max(10, m_last));
    else
        m_plot->xAxis->setRange(std::max(0, first - 1),
                                std::max({m_current + 2, lastShown + 2, first + 20}));
    m_plot->yAxis->setRange(0, std::max(1.0, maxSpeed * 1.1));
    allocY->setRange(0, maxAlloc + 1);
    m_plot->setCursorSlot(m_current);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace dl2console
