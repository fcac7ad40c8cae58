#pragma once
// The Jobs dock: state filter, search box and the sortable job table (with progress bars).
// Selection is reported as job ids.

#include <QWidget>

class QComboBox;
class QLineEdit;
class QTableView;

namespace dl2console {

class JobFilterProxyModel;
class JobTableModel;

class JobTablePanel : public QWidget
{
    Q_OBJECT
public:
    explicit JobTablePanel(JobTableModel *model, QWidget *parent = nullptr);

    QList<int> selectedJobs() const;
    void selectJob(int jobId);
    QTableView *view() const { return m_view; }
    JobFilterProxyModel *proxy() const { return m_proxy; }

Q_SIGNALS:
    void selectionChanged(const QList<int> &jobIds);

private:
    JobTableModel *m_model;
    JobFilterProxyModel *m_proxy;
    QComboBox *m_state;
    QLineEdit *m_search;
    QTableView *m_view;
};

} // namespace dl2console
