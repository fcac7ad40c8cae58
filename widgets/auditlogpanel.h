#pragma once
// The Audit log dock: the events of the console's audit log, read-only (AuditEventsModel over
// core's reader), newest first, filtered by job, action, time range and text; CSV export.
// The operations worker writes the log; this panel only reads (WAL: no blocking).

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDateTimeEdit;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;
class QTimer;

namespace dl2console {

class AuditEventsModel;
class AuditFilterProxyModel;

class AuditLogPanel : public QWidget
{
    Q_OBJECT
public:
    explicit AuditLogPanel(QWidget *parent = nullptr);
    ~AuditLogPanel() override;

    void setAuditFile(const QString &path);
    const QString &auditFile() const { return m_path; }
    // Re-reads the log soon (batched: many changes, one query).
    void scheduleRefresh();
    void refresh();
    bool exportCsv(const QString &path, QString *error = nullptr) const;

    AuditFilterProxyModel *proxy() const { return m_proxy; }
    QTableView *view() const { return m_view; }
    QSpinBox *jobBox() const { return m_job; }
    QComboBox *actionBox() const { return m_action; }
    QLineEdit *searchBox() const { return m_search; }

private:
    void applyFilters();
    void exportInteractively();

    QString m_path;
    AuditEventsModel *m_model;
    AuditFilterProxyModel *m_proxy;
    QSpinBox *m_job;
    QComboBox *m_action;
    QCheckBox *m_useRange;
    QDateTimeEdit *m_from;
    QDateTimeEdit *m_to;
    QLineEdit *m_search;
    QTableView *m_view;
    QLabel *m_status;
    QTimer *m_refresh;
};

} // namespace dl2console
