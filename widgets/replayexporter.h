#pragma once
// Exports a replay, one frame per slot, through VideoWriter (WebM, MP4, GIF, APNG). The frame
// source shows a slot and renders the window; run() drives it slot by slot on the GUI thread,
// spinning the event loop so the replay's worker threads answer and a progress dialog stays
// responsive (cancel() stops after the current frame and leaves no file).

#include <QImage>
#include <QObject>
#include <QString>
#include <functional>

namespace dl2console {

class ReplayExporter : public QObject
{
    Q_OBJECT
public:
    struct Range
    {
        QString fileName;
        int firstSlot = 0;
        int lastSlot = 0;
        double fps = 2.0; // slots per second of video
    };
    struct Source
    {
        // Puts `slot` on display with every view refreshed; false (and error set) on failure.
        std::function<bool(int slot, QString *error)> show;
        std::function<QImage()> render;
    };

    explicit ReplayExporter(QObject *parent = nullptr);

    bool run(const Range &range, const Source &source);
    void cancel() { m_cancel = true; }
    bool wasCancelled() const { return m_cancelled; }
    QString error() const { return m_error; }
    int framesWritten() const { return m_frames; }
    QString codecName() const { return m_codec; }
    // Parses "A-B" (or a single slot "A"); false on anything else.
    static bool parseSlotRange(const QString &text, int *first, int *last);

Q_SIGNALS:
    // done of total frames; total + 1 while the file is finished (GIF: quantised and encoded).
    void progress(int done, int total);

private:
    bool m_cancel = false;
    bool m_cancelled = false;
    QString m_error;
    QString m_codec;
    int m_frames = 0;
};

} // namespace dl2console
