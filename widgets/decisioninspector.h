#pragma once
// Why the learned policy (dl2 / dl2-plus) did what it did in the slot on display: its
// inferences one by one (list, previous/next), for the current one the top-k action
// probabilities, the chosen action, V(s) and the state table the network saw (masked actions
// greyed, the chosen one highlighted). Other policies get a placeholder. The data comes from
// models/decisionadapter.h.

#include "decisionadapter.h"

#include <QWidget>

class QLabel;
class QStackedWidget;
class QTableView;
class QToolButton;

namespace dl2console {

class DecisionProbabilityPlot;
class DecisionStateModel;
class DecisionStepsModel;

class DecisionInspector : public QWidget
{
    Q_OBJECT
public:
    explicit DecisionInspector(QWidget *parent = nullptr);
    void setDecisions(const DecisionLog &log, const QString &policy);
    void setTypeNames(const QStringList &names);
    bool showsPlaceholder() const;
    QString placeholderText() const;

    int stepCount() const;
    int currentStep() const { return m_current; }
    void setCurrentStep(int step);
    void previousStep() { setCurrentStep(m_current - 1); }
    void nextStep() { setCurrentStep(m_current + 1); }

    DecisionStepsModel *stepsModel() const { return m_stepsModel; }
    DecisionStateModel *stateModel() const { return m_stateModel; }
    DecisionProbabilityPlot *probabilityPlot() const { return m_probabilities; }
    QTableView *stateView() const { return m_stateView; }
    // The widest a state-table column gets: a short model name.
    int stateColumnCap() const;
    QToolButton *previousButton() const { return m_previous; }
    QToolButton *nextButton() const { return m_next; }

Q_SIGNALS:
    void currentStepChanged(int step);

private:
    void showStep();
    QString summaryText(const dl2::DecisionRecord &step) const;

    QStackedWidget *m_stack;
    QLabel *m_placeholder;
    QLabel *m_header;
    QLabel *m_notes;
    QLabel *m_position;
    QToolButton *m_previous;
    QToolButton *m_next;
    QTableView *m_stepsView;
    DecisionStepsModel *m_stepsModel;
    DecisionProbabilityPlot *m_probabilities;
    QLabel *m_summary;
    QTableView *m_stateView;
    DecisionStateModel *m_stateModel;
    int m_current = -1;
};

} // namespace dl2console
