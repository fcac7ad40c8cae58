#pragma once
// Horizontal bars of the k most probable actions of one inference of a learned policy
// ("job 17 · worker"), the chosen one in the highlight colour, with how many actions were
// valid and how many masked.

#include "decisionadapter.h"

#include <QWidget>

class QCPBars;
class QCPItemText;

namespace dl2console {

class Plot;

class DecisionProbabilityPlot : public QWidget
{
    Q_OBJECT
public:
    explicit DecisionProbabilityPlot(QWidget *parent = nullptr);
    // `step` may be null (nothing to show).
    void setStep(const dl2::DecisionRecord *step);
    void setTopK(int k);
    // Actions on display, most probable first (for tests).
    const std::vector<int> &shownActions() const { return m_actions; }
    Plot *plot() const { return m_plot; }

private:
    void rebuild();
    void restyle();

    Plot *m_plot;
    QCPBars *m_bars;   // the other top-k actions
    QCPBars *m_chosen; // the chosen action
    std::vector<QCPItemText *> m_labels;
    dl2::DecisionRecord m_step;
    bool m_haveStep = false;
    int m_k = 8;
    std::vector<int> m_actions;
};

} // namespace dl2console
