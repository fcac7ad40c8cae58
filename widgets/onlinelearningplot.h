#pragma once
// The online learning curve of live operations (the Learn toggle): per slot, the learning
// policy's rolling reward (what the cluster reported) against the frozen reference's (the
// starting policy planning the same states in shadow, scored on the simulator mirror), the
// per-slot rewards faintly behind them, and a mark where a new version started deciding
// (thin, labelled "vN") or a rollback restored the last good one (red, "rollback to vN").
// The status line above says the learner's state.

#include "livetypes.h"

#include <QPointF>
#include <QVector>
#include <QWidget>
#include <vector>

class QCPGraph;
class QLabel;

namespace dl2console {

class Plot;

class OnlineLearningPlot : public QWidget
{
    Q_OBJECT
public:
    explicit OnlineLearningPlot(QWidget *parent = nullptr);
    void setCurve(const std::vector<LearningPoint> &curve, const std::vector<LearningMark> &marks,
                  const LearningStatus &status);
    Plot *plot() const { return m_plot; }
    // For tests: the rolling rewards plotted (slot, value), the marks drawn, the status line.
    QVector<QPointF> learningPoints() const;
    QVector<QPointF> referencePoints() const;
    int versionMarks() const { return m_versionMarks; }
    int rollbackMarks() const { return m_rollbackMarks; }
    QString statusText() const;

private:
    void restyle();
    Plot *m_plot;
    QLabel *m_status;
    QCPGraph *m_learning, *m_reference, *m_learningSlot, *m_referenceSlot;
    int m_versionMarks = 0, m_rollbackMarks = 0;
};

} // namespace dl2console
