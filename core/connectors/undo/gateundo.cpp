#include "gateundo.h"

#include <QUndoCommand>
#include <QUndoStack>

namespace dl2 {

namespace {
class GateUndoCommand : public QUndoCommand
{
public:
    explicit GateUndoCommand(std::unique_ptr<GateCommand> command) : m_command(std::move(command))
    {
        setText(QString::fromStdString(m_command->text()));
    }
    void redo() override { m_command->redo(); }
    void undo() override { m_command->undo(); }

private:
    std::unique_ptr<GateCommand> m_command;
};
} // namespace

UndoStackSink::UndoStackSink(DecisionGate &gate, QUndoStack *stack) : m_gate(gate), m_stack(stack)
{
    m_gate.setCommandSink(this);
}

UndoStackSink::~UndoStackSink()
{
    m_stack->clear();
    m_gate.setCommandSink(nullptr);
}

void UndoStackSink::push(std::unique_ptr<GateCommand> command)
{
    m_stack->push(new GateUndoCommand(std::move(command))); // push() runs redo()
}

void UndoStackSink::clear()
{
    m_stack->clear();
}

} // namespace dl2
