#include "timelinescrubber.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace dl2console {

TimelineScrubber::TimelineScrubber(QWidget *parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("Timeline: arrivals above, completions below; click or drag to seek"));
    setMouseTracking(true);
}

void TimelineScrubber::setTimeline(const std::vector<SlotSummary> &timeline, bool runComplete)
{
    m_arrivals.resize(timeline.size());
    m_completions.resize(timeline.size());
    m_maxCount = 1;
    for (size_t i = 0; i < timeline.size(); ++i) {
        m_arrivals[i] = static_cast<int>(timeline[i].arrivals.size());
        m_completions[i] = static_cast<int>(timeline[i].completions.size());
        m_maxCount = std::max({m_maxCount, m_arrivals[i], m_completions[i]});
    }
    m_complete = runComplete;
    update();
}

void TimelineScrubber::setCurrentSlot(int slot)
{
    if (slot == m_current)
        return;
    m_current = slot;
    update();
}

void TimelineScrubber::setLiveSlot(int slot)
{
    if (slot == m_live)
        return;
    m_live = slot;
    update();
}

int TimelineScrubber::arrivalsAt(int slot) const
{
    return slot >= 0 && slot < slotCount() ? m_arrivals[static_cast<size_t>(slot)] : 0;
}

int TimelineScrubber::completionsAt(int slot) const
{
    return slot >= 0 && slot < slotCount() ? m_completions[static_cast<size_t>(slot)] : 0;
}

QRectF TimelineScrubber::track() const
{
    const QFontMetrics fm(font());
    const double left = fm.horizontalAdvance(QStringLiteral("slot 0000")) + 10;
    return QRectF(left, height() / 2.0 - 3, std::max(10.0, width() - left - 8.0), 6);
}

double TimelineScrubber::xOfSlot(int slot) const
{
    const QRectF t = track();
    const int n = std::max(1, slotCount() - 1);
    return t.left() + t.width() * std::clamp(slot, 0, n) / n;
}

int TimelineScrubber::slotAtX(double x) const
{
    const QRectF t = track();
    const int n = std::max(1, slotCount() - 1);
    return std::clamp(static_cast<int>(std::lround((x - t.left()) / t.width() * n)), 0,
                      std::max(0, slotCount() - 1));
}

void TimelineScrubber::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing, false);
    const QPalette pal = palette();
    const QRectF t = track();
    const QColor text = pal.color(QPalette::WindowText);
    p.setPen(text);
    const bool live = m_live > -2;
    const bool history = live && m_current >= 0 && m_current < m_live;
    p.drawText(QRectF(0, 0, t.left() - 6, height()), Qt::AlignVCenter | Qt::AlignRight,
               m_current >= 0 ? tr("slot %1").arg(m_current) : tr("slot –"));

    QColor trackColor = text;
    trackColor.setAlphaF(0.12f);
    p.fillRect(t, trackColor);
    if (slotCount() == 0)
        return;
    const double room = t.top() - 2;
    QColor arrival = pal.color(QPalette::Highlight);
    QColor completion = QColor::fromHsvF(std::fmod(std::max(0.0f, arrival.hueF()) + 0.33f, 1.0f),
                                         0.7f, arrival.valueF());
    // Legend in the label column: what the marks above and below the track mean.
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    p.save();
    p.setFont(small);
    p.setPen(arrival);
    p.drawText(QRectF(0, 0, t.left() - 6, t.top() - 4), Qt::AlignTop | Qt::AlignRight,
               tr("arrivals"));
    p.setPen(completion);
    p.drawText(QRectF(0, t.bottom() + 4, t.left() - 6, height() - t.bottom() - 4),
               Qt::AlignBottom | Qt::AlignRight, tr("finished"));
    p.restore();
    const int n = slotCount();
    for (int s = 0; s < n; ++s) {
        const double x = xOfSlot(s);
        if (m_arrivals[s] > 0) {
            const double h = 3 + (room - 3) * m_arrivals[s] / m_maxCount;
            p.fillRect(QRectF(x - 0.5, t.top() - h, 1.5, h), arrival);
        }
        if (m_completions[s] > 0) {
            const double h = 3 + (room - 3) * m_completions[s] / m_maxCount;
            p.fillRect(QRectF(x - 0.5, t.bottom(), 1.5, h), completion);
        }
    }
    if (live) {
        // The live edge: the newest slot, and what the handle shows when it is not there.
        const QColor edge = QColor::fromHsvF(0.0f, 0.75f, 0.85f);
        p.setPen(edge);
        QFont bold = small;
        bold.setBold(true);
        p.save();
        p.setFont(bold);
        const QString text = history ? tr("history · live at slot %1").arg(m_live)
                                     : (m_complete ? tr("live · run complete") : tr("● live"));
        p.drawText(QRectF(t.right() - 260, 0, 260, t.top()), Qt::AlignRight | Qt::AlignTop, text);
        p.restore();
        if (m_live >= 0)
            p.fillRect(QRectF(xOfSlot(m_live) - 1, t.top() - 2, 2, t.height() + 4), edge);
    } else if (!m_complete) {
        // Still scanning ahead: a soft fade at the end of the known part.
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(QRectF(t.right() - 80, 0, 80, t.top()), Qt::AlignRight | Qt::AlignTop,
                   tr("scanning…"));
    }
    if (m_current >= 0) {
        const double x = xOfSlot(m_current);
        QColor played = arrival;
        played.setAlphaF(0.35f);
        p.fillRect(QRectF(t.left(), t.top(), x - t.left(), t.height()), played);
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setPen(QPen(text, 1));
        p.setBrush(history ? pal.color(QPalette::ToolTipBase) : pal.color(QPalette::Button));
        p.drawRoundedRect(QRectF(x - 4, t.top() - 7, 8, t.height() + 14), 2, 2);
    }
}

void TimelineScrubber::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton && slotCount() > 0)
        Q_EMIT seekRequested(slotAtX(event->position().x()));
}

void TimelineScrubber::mouseMoveEvent(QMouseEvent *event)
{
    if ((event->buttons() & Qt::LeftButton) && slotCount() > 0)
        Q_EMIT seekRequested(slotAtX(event->position().x()));
}

bool TimelineScrubber::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && slotCount() > 0) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int s = slotAtX(help->pos().x());
        QToolTip::showText(
            help->globalPos(),
            tr("Slot %1: %2 arrived, %3 finished").arg(s).arg(m_arrivals[s]).arg(m_completions[s]),
            this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace dl2console
