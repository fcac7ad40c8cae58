#pragma once
// What the learned policy decided in the slot on display and with what probability. Shows a
// placeholder for policies that expose no decision record (everything but DL2); the data
// comes from models/decisionadapter.h (the wiring point for the DL2 policy).

#include "decisionadapter.h"

#include <QWidget>

class QLabel;
class QStackedWidget;
class QTreeWidget;

namespace dl2console {

class DecisionInspector : public QWidget
{
    Q_OBJECT
public:
    explicit DecisionInspector(QWidget *parent = nullptr);
    void setDecisions(const DecisionLog &log, const QString &policy);
    bool showsPlaceholder() const;

private:
    QStackedWidget *m_stack;
    QLabel *m_placeholder;
    QLabel *m_header;
    QTreeWidget *m_rows;
};

} // namespace dl2console
