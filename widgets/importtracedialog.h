#pragma once
// File > Import public trace…: a Philly, Alibaba PAI or Helios trace as published (plain or
// compressed) -> a DL2 trace the session opens. The options are those of `dl2 trace-import`
// an analyst needs (Philly duration rule, --from/--to window, max jobs, CPU-only jobs, PS rule,
// caps, model rule and seed, skip malformed, slot length); the import itself is core's
// importTrace(), the same code as the CLI's, so the preview's counts are the CLI's report.
//
// Preview runs the import on a worker thread (a busy bar with the elapsed time; Cancel drops
// its result: the core importer cannot be interrupted, so the thread finishes on its own while
// the GUI stays responsive). The preview shows the kept jobs, the counts filtered by reason,
// the malformed records, the arrival slots and the cluster the source implies. "Import and
// open" writes the previewed trace (Trace::save: temporary file then rename, nothing
// half-written) to the chosen file, or when none is chosen to the console's imported-traces
// folder, and reports the path with imported(). Errors (malformed record, wrong format) are
// shown in the dialog as the importer words them: file and line.

#include "traceimport.h"

#include <QDialog>
#include <QElapsedTimer>
#include <QTimer>
#include <memory>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTreeWidget;

namespace dl2 {
class ProfileSet;
}

namespace dl2console {

class ImportTraceDialog : public QDialog
{
    Q_OBJECT
public:
    // `profiles`: the speeds the trace will be replayed with (epochs are derived from them).
    explicit ImportTraceDialog(const dl2::ProfileSet &profiles, QWidget *parent = nullptr);
    ~ImportTraceDialog() override;

    void setFormat(dl2::ImportFormat format);
    dl2::ImportFormat format() const;
    void setFile(const QString &path);
    QString file() const;
    // Where "Import and open" writes the trace; empty: the imported-traces folder.
    void setSavePath(const QString &path);
    // The folder used when no file is chosen (default: the application's data folder).
    void setImportFolder(const QString &folder);
    // The options as the widgets say; throws dl2::Error naming a malformed field.
    dl2::ImportOptions options() const;

    // Starts a preview (replacing one running); previewFinished() when it is done.
    void startPreview();
    void cancelPreview();
    bool isPreviewRunning() const { return m_running; }
    // The last successful preview, current with the options (null otherwise).
    const dl2::ImportResult *preview() const { return m_result.get(); }
    QString errorText() const;
    // Writes the previewed trace and accepts; imported() with its path, or an error shown.
    void importAndOpen();
    QString importedPath() const { return m_importedPath; }

Q_SIGNALS:
    void previewFinished(bool ok);
    void imported(const QString &path);

private:
    struct Outcome;
    void buildUi();
    void browseFile();
    void browseJobTable();
    void browseMachines();
    void browseSave();
    void onFormatChanged();
    void invalidate();
    void onPreviewDone(quint64 generation, const std::shared_ptr<Outcome> &outcome);
    void showReport(const dl2::ImportResult &result);
    void showError(const QString &message);
    void setRunning(bool running);
    QString defaultSavePath() const;

    std::shared_ptr<const dl2::ProfileSet> m_profiles;
    QComboBox *m_format = nullptr;
    QLineEdit *m_file = nullptr;
    QLineEdit *m_member = nullptr;
    QLineEdit *m_jobTable = nullptr;
    QPushButton *m_jobTableBrowse = nullptr;
    QLineEdit *m_machines = nullptr;
    QComboBox *m_phillyDuration = nullptr;
    QLineEdit *m_from = nullptr;
    QLineEdit *m_to = nullptr;
    QSpinBox *m_maxJobs = nullptr;
    QDoubleSpinBox *m_slotSeconds = nullptr;
    QCheckBox *m_keepCpu = nullptr;
    QComboBox *m_psRule = nullptr;
    QSpinBox *m_maxWorkers = nullptr;
    QSpinBox *m_maxPs = nullptr;
    QComboBox *m_modelRule = nullptr;
    QSpinBox *m_seed = nullptr;
    QCheckBox *m_skipMalformed = nullptr;
    QLineEdit *m_save = nullptr;
    QPushButton *m_previewButton = nullptr;
    QPushButton *m_cancelButton = nullptr;
    QPushButton *m_importButton = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_error = nullptr;
    QLabel *m_summary = nullptr;
    QTreeWidget *m_counts = nullptr;
    QPlainTextEdit *m_notes = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
    QTimer m_tick;
    QElapsedTimer m_clock;
    QString m_importFolder;
    QString m_importedPath;
    std::shared_ptr<dl2::ImportResult> m_result;
    quint64 m_generation = 0;
    bool m_running = false;
    bool m_saving = false;
};

} // namespace dl2console
