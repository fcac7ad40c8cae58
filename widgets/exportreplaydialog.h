#pragma once
// Asks what to export: file (its extension picks WebM, MP4, GIF or APNG), slot range, slots
// per second of video, frame size, which views, captions on or off.

#include <QDialog>
#include <QSize>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace dl2console {

class ExportReplayDialog : public QDialog
{
    Q_OBJECT
public:
    struct Choice
    {
        QString fileName;
        int firstSlot = 0;
        int lastSlot = 0;
        double fps = 2.0;
        QSize size{1280, 720};
        QStringList views;
        bool captions = true;
    };

    // views: every view that can be chosen; choice.views: the ones checked at first.
    ExportReplayDialog(const QStringList &views, int lastSlot, const Choice &initial,
                       QWidget *parent = nullptr);
    Choice choice() const;

private:
    void browse();
    void validate();

    QLineEdit *m_file;
    QSpinBox *m_first, *m_last;
    QDoubleSpinBox *m_fps;
    QComboBox *m_size;
    QList<QCheckBox *> m_views;
    QCheckBox *m_captions;
    QPushButton *m_ok = nullptr;
};

} // namespace dl2console
