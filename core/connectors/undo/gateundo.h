#pragma once
// Puts a DecisionGate's operator actions on a QUndoStack (Qt Gui): every approve, reject,
// override and approve-all becomes one undoable QUndoCommand until the batch is committed,
// which clears the stack. Kept out of dl2connectors so the agent and the headless loop do
// not link Qt Gui.

#include "decisiongate.h"

class QUndoStack;

namespace dl2 {

class UndoStackSink : public GateCommandSink
{
public:
    // Attaches itself to `gate`. The stack must outlive this object, and this object must not
    // outlive the gate (declare it after the gate).
    UndoStackSink(DecisionGate &gate, QUndoStack *stack);
    ~UndoStackSink() override;
    void push(std::unique_ptr<GateCommand> command) override;
    void clear() override;

private:
    DecisionGate &m_gate;
    QUndoStack *m_stack;
};

} // namespace dl2
