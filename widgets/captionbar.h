#pragma once
// A strip of captions under the views, one line per policy: what arrived, what finished and
// what the policy changed in the slot on display (presentation mode, exported replays).

#include "slotcaption.h"

#include <QWidget>

class QLabel;
class QVBoxLayout;

namespace dl2console {

class CaptionBar : public QWidget
{
    Q_OBJECT
public:
    explicit CaptionBar(QWidget *parent = nullptr);

    struct Line
    {
        QString policy;
        QColor policyColor; // invalid: no colour mark
        SlotCaption caption;
    };
    void setLines(const QList<Line> &lines);
    // Items per list before "+N more" (fewer for small windows).
    void setMaxItems(int n);
    // Steady: the strip keeps room for two wrapped lines per policy and never shrinks, so
    // stepping through slots (slides, exported videos) does not move the views above it.
    void setSteady(bool steady);
    QString plainText() const; // what the lines say, for tests
    QSize minimumSizeHint() const override;

protected:
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void render();
    void fitHeight(); // wrapped lines: exactly as tall as the text at the current width
    QVBoxLayout *m_layout;
    QList<QLabel *> m_labels;
    QList<Line> m_lines;
    int m_maxItems = 5;
    bool m_steady = false;
};

} // namespace dl2console
