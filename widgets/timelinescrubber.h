#pragma once
// The run as a horizontal strip: arrivals marked above the track, completions below, the slot
// on display as a handle. Click or drag to seek. Grows as the simulation scans ahead.
// Live operations: grows as slots complete; the newest slot is marked "live", and a handle
// left of it reads "history" (a kept slot, read-only).

#include "sessiontypes.h"

#include <QWidget>
#include <vector>

namespace dl2console {

class TimelineScrubber : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineScrubber(QWidget *parent = nullptr);

    void setTimeline(const std::vector<SlotSummary> &timeline, bool runComplete);
    void setCurrentSlot(int slot);
    int currentSlot() const { return m_current; }
    // Live operations: the newest slot; -2 (the default): replay mode.
    void setLiveSlot(int slot);
    int liveSlot() const { return m_live; }
    int arrivalsAt(int slot) const;
    int completionsAt(int slot) const;
    int slotCount() const { return static_cast<int>(m_arrivals.size()); }
    // x position (widget coordinates) of a slot, and the inverse.
    double xOfSlot(int slot) const;
    int slotAtX(double x) const;

    QSize sizeHint() const override { return {400, 54}; }
    QSize minimumSizeHint() const override { return {120, 40}; }

Q_SIGNALS:
    void seekRequested(int slot);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;

private:
    QRectF track() const;

    std::vector<int> m_arrivals, m_completions;
    bool m_complete = false;
    int m_current = -1;
    int m_live = -2;
    int m_maxCount = 1;
};

} // namespace dl2console
