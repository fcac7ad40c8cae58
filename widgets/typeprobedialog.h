#pragma once
// `dl2 policy probe` in the console (the Training page's "Probe types…"): whether a dl2
// checkpoint tells job types apart. A table of q(worker | row), rows = the row's own type,
// columns = the type it is given, cells shaded by value, for rows at one worker or at more;
// the spread and, for a network tied across the window, its own units' statistics below.
// Probed in the background; another checkpoint can be browsed for or a shipped one picked,
// and the table exported as CSV.

#include <QDialog>

class QLabel;
class QPushButton;
class QTabBar;
class QTableView;

namespace dl2console {

class Settings;
class TypeProbeModel;

class TypeProbeDialog : public QDialog
{
    Q_OBJECT
public:
    explicit TypeProbeDialog(Settings *settings, QWidget *parent = nullptr);

    // A checkpoint file or a shipped policy's name; the result (or why there is none) shows
    // when the probe is done.
    void probe(const QString &nameOrPath);
    TypeProbeModel *model() const { return m_model; }
    // What the dialog says above the table: the probe running, what was probed, or the error.
    QString message() const;
    QString statistics() const; // the line below the table
    // Writes the table as CSV (dl2::writeFileAtomically); returns the error naming the file, or empty.
    QString exportCsv(const QString &fileName);
    // Asks for a checkpoint file and probes it.
    void browse();

private:
    void showResult();
    void showError(const QString &message);
    void showTable(bool on); // the legend, bands and table; off: no result to show
    void updateStatistics();
    void exportWithDialog();

    Settings *m_settings;
    TypeProbeModel *m_model;
    QLabel *m_title, *m_legend, *m_stats;
    QTabBar *m_bands;
    QTableView *m_table;
    QPushButton *m_export;
};

} // namespace dl2console
