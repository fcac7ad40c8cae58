#include "clusteroccupancyview.h"

#include "jobpalette.h"
#include "sessiontypes.h"

#include <QHelpEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace dl2console {

namespace {
struct Level
{
    bool heat;
    int px;
};
constexpr Level kLevels[] = {{true, 3},   {true, 5},   {true, 8},   {false, 3},
                             {false, 4},  {false, 5},  {false, 6},  {false, 8},
                             {false, 10}, {false, 13}, {false, 16}, {false, 20}};
constexpr int kLevelCount = sizeof(kLevels) / sizeof(kLevels[0]);
constexpr int kHeatLevels = 3; // the first levels are heat-map tiles
constexpr int kMargin = 6;

QColor blend(const QColor &a, const QColor &b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                            static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                            static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}
} // namespace

ClusterOccupancyView::ClusterOccupancyView(QWidget *parent)
    : QAbstractScrollArea(parent), m_profiles(dl2::ProfileSet::reference())
{
    setMouseTracking(true);
    viewport()->setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(160, 100);
    setFrameShape(QFrame::NoFrame);
}

void ClusterOccupancyView::setProfiles(const dl2::ProfileSet &profiles)
{
    m_profiles = profiles;
}

void ClusterOccupancyView::setSnapshot(const dl2::SlotSnapshot &snapshot)
{
    const int nodes = static_cast<int>(snapshot.nodeUsage.size());
    const int perNode = std::max(snapshot.nodeCapacity[0], snapshot.nodeCapacity[1]);
    const bool resized = nodes != m_nodes || (perNode > 0 && perNode != m_slots);
    m_nodes = nodes;
    if (perNode > 0)
        m_slots = perNode;
    m_usage = snapshot.nodeUsage;
    m_snapshotSlot = snapshot.slot;
    m_jobs = snapshot.jobs;
    m_jobIndex.clear();
    m_cells.assign(static_cast<size_t>(m_nodes) * 2 * m_slots, CellOwner{});
    std::vector<dl2::Demand> fill(m_nodes, dl2::Demand{0, 0});
    for (size_t j = 0; j < m_jobs.size(); ++j) {
        const dl2::JobState &job = m_jobs[j];
        m_jobIndex[job.id] = static_cast<int>(j);
        if (job.type < 0 || job.type >= m_profiles.size() || !heldAllocation(job, snapshot.slot))
            continue;
        const dl2::ModelProfile &profile = m_profiles[job.type];
        for (const dl2::TaskPlacement &t : job.tasks) {
            if (t.node < 0 || t.node >= m_nodes)
                continue;
            const dl2::Demand &d =
                t.role == dl2::TaskRole::Worker ? profile.workerDemand : profile.psDemand;
            for (int r = 0; r < dl2::kResourceTypes; ++r)
                for (int k = 0; k < d[r] && fill[t.node][r] < m_slots; ++k) {
                    const size_t at =
                        (static_cast<size_t>(t.node) * 2 + r) * m_slots + fill[t.node][r]++;
                    m_cells[at] = {job.id, t.role};
                }
        }
    }
    if (resized)
        relayout();
    viewport()->update();
}

ClusterOccupancyView::CellOwner ClusterOccupancyView::cellOwner(int node, dl2::Resource resource,
                                                                int index) const
{
    const int r = static_cast<int>(resource);
    if (node < 0 || node >= m_nodes || index < 0 || index >= m_slots)
        return {};
    return m_cells[(static_cast<size_t>(node) * 2 + r) * m_slots + index];
}

void ClusterOccupancyView::setSelectedJob(int jobId)
{
    if (jobId == m_selectedJob)
        return;
    m_selectedJob = jobId;
    // Bring the job's first node into view when zoomed in far enough to need scrolling.
    for (size_t i = 0; jobId >= 0 && i < m_cells.size(); ++i) {
        if (m_cells[i].jobId != jobId)
            continue;
        const QPoint c = nodeCenter(static_cast<int>(i / (2 * static_cast<size_t>(m_slots))));
        if (!viewport()->rect().adjusted(0, m_geo.header, 0, 0).contains(c)) {
            verticalScrollBar()->setValue(verticalScrollBar()->value() + c.y() -
                                          viewport()->height() / 3);
            horizontalScrollBar()->setValue(horizontalScrollBar()->value() + c.x() -
                                            viewport()->width() / 3);
        }
        break;
    }
    viewport()->update();
}

void ClusterOccupancyView::setHintsShown(bool on)
{
    if (m_hints == on)
        return;
    m_hints = on;
    viewport()->update();
}

bool ClusterOccupancyView::heatMapMode() const
{
    return m_level >= 0 && kLevels[m_level].heat;
}

ClusterOccupancyView::Geometry ClusterOccupancyView::geometryFor(bool heat, int px, int width,
                                                                 bool labels) const
{
    Geometry g;
    const Level l{heat, px};
    const QFontMetrics fm(font());
    g.cell = l.px;
    g.header = fm.height() + 8;
    if (l.heat) {
        g.nodeW = 2 * l.px + 2;
        g.nodeH = l.px + 2;
    } else {
        g.label = labels && l.px >= 8 ? fm.horizontalAdvance(QStringLiteral("0000")) + 4 : 0;
        const int gap = std::max(2, l.px / 2);
        g.nodeW = g.label + 2 * m_slots * l.px + gap + std::max(8, 2 * l.px);
        g.nodeH = l.px + (l.px >= 6 ? 2 : 1);
    }
    g.columns = std::max(1, (width - 2 * kMargin) / g.nodeW);
    g.rows = m_nodes > 0 ? (m_nodes + g.columns - 1) / g.columns : 0;
    g.content = QSize(g.columns * g.nodeW + 2 * kMargin, g.header + g.rows * g.nodeH + kMargin);
    return g;
}

void ClusterOccupancyView::zoomToFit()
{
    m_userZoom = false;
    relayout();
    viewport()->update();
}

void ClusterOccupancyView::fitToViewport()
{
    // The largest cells with which every node fits: the heat-map levels, then slot detail at
    // any whole pixel size (not only the zoom steps', so a tall viewport is filled, not left
    // half empty by the jump from one step to the next).
    // Node numbers when they fit too; larger cells without them beat smaller ones with them.
    const QSize vp = viewport()->size();
    auto fits = [&](bool heat, int px, bool labels) {
        const Geometry g = geometryFor(heat, px, vp.width(), labels);
        return g.content.height() <= vp.height() && g.content.width() <= vp.width() + 1;
    };
    int level = 0, px = kLevels[0].px;
    bool labels = true;
    for (int i = 0; i < kLevelCount && kLevels[i].heat; ++i)
        if (fits(true, kLevels[i].px, true)) {
            level = i;
            px = kLevels[i].px;
        }
    const int firstDetail = kHeatLevels;
    for (int p = kLevels[firstDetail].px; p <= kLevels[kLevelCount - 1].px; ++p) {
        const bool withLabels = fits(false, p, true);
        if (!withLabels && !fits(false, p, false))
            continue;
        px = p;
        labels = withLabels;
        level = firstDetail;
        while (level + 1 < kLevelCount && kLevels[level + 1].px <= p)
            ++level;
    }
    m_level = level;
    m_px = px;
    m_labels = labels;
}

void ClusterOccupancyView::setZoomLevel(int level)
{
    m_userZoom = true; // an explicit zoom survives new runs and resizes; zoomToFit() ends it
    applyZoomLevel(level);
}

void ClusterOccupancyView::zoomOut()
{
    // From a fitted size between two steps, the step below it first.
    setZoomLevel(m_level >= 0 && m_px > kLevels[m_level].px ? m_level : m_level - 1);
}

void ClusterOccupancyView::applyZoomLevel(int level)
{
    level = std::clamp(level, 0, kLevelCount - 1);
    m_level = level;
    m_px = kLevels[level].px;
    m_labels = true;
    relayout();
    viewport()->update();
}

void ClusterOccupancyView::relayout()
{
    if (!m_userZoom && viewport()->width() > 0 && m_nodes > 0)
        fitToViewport();
    if (m_level < 0) {
        m_level = 6;
        m_px = kLevels[m_level].px;
    }
    m_geo = geometryFor(kLevels[m_level].heat, m_px, viewport()->width(), m_labels);
    verticalScrollBar()->setRange(0, std::max(0, m_geo.content.height() - viewport()->height()));
    verticalScrollBar()->setPageStep(viewport()->height());
    verticalScrollBar()->setSingleStep(m_geo.nodeH * 3);
    horizontalScrollBar()->setRange(0, std::max(0, m_geo.content.width() - viewport()->width()));
    horizontalScrollBar()->setPageStep(viewport()->width());
}

void ClusterOccupancyView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    relayout();
}

void ClusterOccupancyView::changeEvent(QEvent *event)
{
    QAbstractScrollArea::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) {
        relayout();
        viewport()->update();
    }
}

QColor ClusterOccupancyView::jobColor(int jobId) const
{
    return JobPalette::color(jobId, JobPalette::isDark(palette().color(QPalette::Base)));
}

QPoint ClusterOccupancyView::nodeCenter(int node) const
{
    const Geometry &g = m_geo;
    const bool heat = heatMapMode();
    const int col = heat ? node % g.columns : node / std::max(1, g.rows);
    const int row = heat ? node / g.columns : node % std::max(1, g.rows);
    const int x = kMargin + col * g.nodeW + g.label + g.cell;
    const int y = g.header + row * g.nodeH + g.cell / 2;
    return QPoint(x - horizontalScrollBar()->value(), y - verticalScrollBar()->value());
}

int ClusterOccupancyView::nodeAt(const QPoint &pos, int *resource, int *slot) const
{
    const Geometry &g = m_geo;
    const int x = pos.x() + horizontalScrollBar()->value() - kMargin;
    const int y = pos.y() + verticalScrollBar()->value() - g.header;
    if (x < 0 || y < 0 || m_nodes == 0)
        return -1;
    const int col = x / g.nodeW;
    const int row = y / g.nodeH;
    if (col >= g.columns || row >= g.rows || y % g.nodeH >= g.cell)
        return -1;
    const bool heat = heatMapMode();
    const int node = heat ? row * g.columns + col : col * g.rows + row;
    if (node >= m_nodes)
        return -1;
    const int dx = x % g.nodeW - g.label;
    if (heat) {
        if (resource)
            *resource = dx < g.cell ? 0 : 1;
        if (slot)
            *slot = -1;
        return dx >= 0 && dx < 2 * g.cell + 1 ? node : -1;
    }
    const int gap = std::max(2, g.cell / 2);
    int r = 0, k = -1;
    if (dx >= 0 && dx < m_slots * g.cell) {
        r = 0;
        k = dx / g.cell;
    } else if (dx >= m_slots * g.cell + gap && dx < 2 * m_slots * g.cell + gap) {
        r = 1;
        k = (dx - m_slots * g.cell - gap) / g.cell;
    }
    if (k < 0)
        return -1;
    if (resource)
        *resource = r;
    if (slot)
        *slot = k;
    return node;
}

void ClusterOccupancyView::paintHeader(QPainter &p, const Geometry &g) const
{
    p.setPen(palette().color(QPalette::WindowText));
    QString text = heatMapMode()
                       ? tr("%1 nodes · tile = node: CPU | GPU load").arg(m_nodes)
                       : tr("%1 nodes · row = node: %2 CPU | %2 GPU slots · colour = job, "
                            "pale = PS")
                             .arg(m_nodes)
                             .arg(m_slots);
    if (m_hints) // what the mouse does: not on a slide or in a video
        text += heatMapMode() ? tr(" · Ctrl+wheel: zoom in") : tr(" · Ctrl+wheel: zoom");
    const QRect box(kMargin, 0, viewport()->width() - 2 * kMargin, g.header);
    p.drawText(box, Qt::AlignVCenter | Qt::AlignLeft,
               p.fontMetrics().elidedText(text, Qt::ElideRight, box.width()));
}

void ClusterOccupancyView::paintEvent(QPaintEvent *)
{
    QPainter p(viewport());
    const QPalette pal = palette();
    p.fillRect(viewport()->rect(), pal.color(QPalette::Base));
    const Geometry &g = m_geo;
    p.save();
    p.translate(-horizontalScrollBar()->value(), 0);
    paintHeader(p, g);
    p.restore();
    if (m_nodes == 0) {
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(viewport()->rect(), Qt::AlignCenter, tr("No simulation loaded"));
        return;
    }
    const bool dark = JobPalette::isDark(pal.color(QPalette::Base));
    const QColor free =
        blend(pal.color(QPalette::Base), pal.color(QPalette::Text), dark ? 0.16 : 0.09);
    const QColor hot = pal.color(QPalette::Highlight);
    const QColor text = pal.color(QPalette::PlaceholderText);
    const bool haveSelection = m_selectedJob >= 0 && m_jobIndex.count(m_selectedJob);
    const int sx = horizontalScrollBar()->value();
    const int sy = verticalScrollBar()->value();
    const bool heat = heatMapMode();
    const int gap = std::max(2, g.cell / 2);

    // Only the visible rows are painted.
    const int firstRow = std::max(0, (sy - g.header) / g.nodeH);
    const int lastRow = std::min(g.rows - 1, (sy + viewport()->height() - g.header) / g.nodeH + 1);
    QPen selPen(pal.color(QPalette::Text), g.cell >= 6 ? 2 : 1);
    for (int col = 0; col < g.columns; ++col) {
        for (int row = firstRow; row <= lastRow; ++row) {
            const int node = heat ? row * g.columns + col : col * g.rows + row;
            if (node >= m_nodes)
                continue;
            const int x0 = kMargin + col * g.nodeW - sx;
            const int y0 = g.header + row * g.nodeH - sy;
            if (heat) {
                for (int r = 0; r < 2; ++r) {
                    const double load = m_slots ? double(m_usage[node][r]) / m_slots : 0.0;
                    p.fillRect(x0 + r * (g.cell + 1), y0, g.cell, g.cell,
                               load > 0 ? blend(free, hot, 0.25 + 0.75 * load) : free);
                }
                if (haveSelection) {
                    bool hosts = false;
                    for (int k = 0; k < 2 * m_slots && !hosts; ++k)
                        hosts = m_cells[static_cast<size_t>(node) * 2 * m_slots + k].jobId ==
                                m_selectedJob;
                    if (hosts) {
                        p.setPen(selPen);
                        p.setBrush(Qt::NoBrush);
                        p.drawRect(x0 - 1, y0 - 1, 2 * g.cell + 2, g.cell + 1);
                    }
                }
                continue;
            }
            if (g.label > 0) {
                p.setPen(text);
                p.drawText(QRect(x0, y0 - 2, g.label - 4, g.cell + 4),
                           Qt::AlignRight | Qt::AlignVCenter, QString::number(node));
            }
            for (int r = 0; r < 2; ++r) {
                const int xr = x0 + g.label + r * (m_slots * g.cell + gap);
                for (int k = 0; k < m_slots; ++k) {
                    const CellOwner &c = m_cells[(static_cast<size_t>(node) * 2 + r) * m_slots + k];
                    const int inset = g.cell >= 5 ? 1 : 0;
                    const QRect cell(xr + k * g.cell, y0, g.cell - inset, g.cell);
                    if (c.jobId < 0) {
                        p.fillRect(cell, free);
                        continue;
                    }
                    QColor color = jobColor(c.jobId);
                    if (c.role == dl2::TaskRole::Ps)
                        color = blend(color, pal.color(QPalette::Base), 0.5);
                    if (haveSelection && c.jobId != m_selectedJob)
                        color = blend(color, free, 0.7);
                    p.fillRect(cell, color);
                    if (haveSelection && c.jobId == m_selectedJob) {
                        p.setPen(selPen);
                        p.setBrush(Qt::NoBrush);
                        p.drawRect(cell.adjusted(0, 0, -1, -1));
                    }
                }
            }
        }
    }
}

QString ClusterOccupancyView::tooltipAt(const QPoint &pos) const
{
    int r = 0, k = -1;
    const int node = nodeAt(pos, &r, &k);
    if (node < 0)
        return {};
    const dl2::Demand &u = m_usage[node];
    QString tip =
        tr("<b>Node %1</b> · CPU %2/%4 · GPU %3/%4").arg(node).arg(u[0]).arg(u[1]).arg(m_slots);
    auto describe = [this](int jobId, dl2::TaskRole role) {
        auto it = m_jobIndex.find(jobId);
        const QString model = it != m_jobIndex.end() && m_jobs[it->second].type < m_profiles.size()
                                  ? QString::fromStdString(m_profiles[m_jobs[it->second].type].name)
                                  : QString();
        return tr("Job %1 (%2) · %3")
            .arg(jobId)
            .arg(model, role == dl2::TaskRole::Worker ? tr("worker") : tr("parameter server"));
    };
    if (k >= 0) {
        const CellOwner &c = cellOwner(node, static_cast<dl2::Resource>(r), k);
        tip += u"<br>"_qs + (r == 0 ? tr("CPU slot %1: ") : tr("GPU slot %1: ")).arg(k + 1) +
               (c.jobId < 0 ? tr("free") : describe(c.jobId, c.role));
    } else {
        // Heat-map tile: list the tasks on the node.
        std::vector<std::pair<int, dl2::TaskRole>> seen;
        for (const auto &job : m_jobs)
            for (const auto &t : job.tasks)
                if (heldAllocation(job, m_snapshotSlot))
                    if (t.node == node)
                        seen.emplace_back(job.id, t.role);
        for (const auto &[id, role] : seen)
            tip += u"<br>"_qs + describe(id, role);
    }
    return tip;
}

bool ClusterOccupancyView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString tip = tooltipAt(help->pos());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), tip, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void ClusterOccupancyView::wheelEvent(QWheelEvent *event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        if (event->angleDelta().y() > 0)
            zoomIn();
        else if (event->angleDelta().y() < 0)
            zoomOut();
        event->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(event);
}

void ClusterOccupancyView::mousePressEvent(QMouseEvent *event)
{
    m_pressPos = event->pos();
    m_pressScroll = QPoint(horizontalScrollBar()->value(), verticalScrollBar()->value());
    m_dragging = false;
}

void ClusterOccupancyView::mouseMoveEvent(QMouseEvent *event)
{
    if (!(event->buttons() & Qt::LeftButton))
        return;
    const QPoint d = event->pos() - m_pressPos;
    if (!m_dragging && d.manhattanLength() < 4)
        return;
    m_dragging = true;
    viewport()->setCursor(Qt::ClosedHandCursor);
    horizontalScrollBar()->setValue(m_pressScroll.x() - d.x());
    verticalScrollBar()->setValue(m_pressScroll.y() - d.y());
}

void ClusterOccupancyView::mouseReleaseEvent(QMouseEvent *event)
{
    viewport()->unsetCursor();
    if (m_dragging) {
        m_dragging = false;
        return;
    }
    int r = 0, k = -1;
    const int node = nodeAt(event->pos(), &r, &k);
    if (node < 0)
        return;
    int job = -1;
    if (k >= 0) {
        job = cellOwner(node, static_cast<dl2::Resource>(r), k).jobId;
    } else {
        for (int i = 0; i < 2 * m_slots && job < 0; ++i)
            job = m_cells[static_cast<size_t>(node) * 2 * m_slots + i].jobId;
    }
    if (job >= 0)
        Q_EMIT jobClicked(job);
}

void ClusterOccupancyView::keyPressEvent(QKeyEvent *event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_0:
        zoomToFit();
        return;
    default:
        QAbstractScrollArea::keyPressEvent(event);
    }
}

} // namespace dl2console
