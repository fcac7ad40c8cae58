#include "replayexporter.h"

#include "videowriter.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace dl2console {

ReplayExporter::ReplayExporter(QObject *parent) : QObject(parent) {}

bool ReplayExporter::parseSlotRange(const QString &text, int *first, int *last)
{
    static const QRegularExpression re(QStringLiteral("^\\s*(\\d+)\\s*(?:-\\s*(\\d+))?\\s*$"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return false;
    bool okA = false, okB = true;
    const int a = m.captured(1).toInt(&okA);
    const int b = m.captured(2).isEmpty() ? a : m.captured(2).toInt(&okB);
    if (!okA || !okB || b < a)
        return false;
    *first = a;
    *last = b;
    return true;
}

bool ReplayExporter::run(const Range &range, const Source &source)
{
    m_cancel = m_cancelled = false;
    m_error.clear();
    m_frames = 0;
    VideoWriter::Format format;
    if (!VideoWriter::formatForFile(range.fileName, &format)) {
        m_error = tr("%1: unknown video format; use %2")
                      .arg(range.fileName, VideoWriter::supportedExtensions());
        return false;
    }
    if (range.firstSlot < 0 || range.lastSlot < range.firstSlot) {
        m_error = tr("slot range %1-%2 is empty").arg(range.firstSlot).arg(range.lastSlot);
        return false;
    }
    const int total = range.lastSlot - range.firstSlot + 1;
    VideoWriter writer;
    Q_EMIT progress(0, total);
    for (int slot = range.firstSlot; slot <= range.lastSlot; ++slot) {
        QCoreApplication::processEvents(); // a progress dialog's Cancel
        if (m_cancel) {
            m_cancelled = true;
            m_error = tr("export cancelled");
            return false; // the writer's destructor discards the unfinished file
        }
        QString error;
        if (!source.show(slot, &error)) {
            m_error = error.isEmpty() ? tr("could not show slot %1").arg(slot) : error;
            return false;
        }
        const QImage frame = source.render();
        if (!writer.isOpen() && !writer.open(range.fileName, frame.size(), range.fps)) {
            m_error = writer.error();
            return false;
        }
        if (!writer.addFrame(frame)) {
            m_error = writer.error();
            return false;
        }
        m_frames = writer.framesWritten();
        Q_EMIT progress(m_frames, total);
    }
    Q_EMIT progress(total + 1, total);
    m_codec = writer.codecName();
    if (!writer.finish()) {
        m_error = writer.error();
        return false;
    }
    return true;
}

} // namespace dl2console
