#pragma once
// Edit (override) one decision: spin boxes for PSs and workers within the caps. The gate
// validates the override against capacity and caps on the operations worker; until it
// answers the dialog waits ("checking…"), then closes or shows the gate's reason inline.

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QSpinBox;

namespace dl2console {

class OverrideDialog : public QDialog
{
    Q_OBJECT
public:
    OverrideDialog(const QString &decisionId, const QString &title, int ps, int workers, int maxPs,
                   int maxWorkers, QWidget *parent = nullptr);

    const QString &decisionId() const { return m_id; }
    QSpinBox *psBox() const { return m_ps; }
    QSpinBox *workersBox() const { return m_workers; }
    QString errorText() const;
    // The gate's answer: empty = accepted (the dialog closes), else the reason.
    void setResult(const QString &error);

Q_SIGNALS:
    void submitted(int ps, int workers);

private:
    void submit();

    QString m_id;
    QSpinBox *m_ps;
    QSpinBox *m_workers;
    QLabel *m_error;
    QDialogButtonBox *m_buttons;
};

} // namespace dl2console
