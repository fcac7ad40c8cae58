#pragma once
// Writes a sequence of QImages as a video or an animation, through Debian's libavcodec and
// libavformat: WebM (VP9), MP4 (H.264, MPEG-4 part 2 where libx264 is missing), animated GIF
// (one palette for the whole animation, median cut over every frame) and animated PNG. The
// format follows the file name's extension. Output goes through a QSaveFile: the file only
// appears, complete, when finish() succeeds; abort() or a failure leaves no file behind.
//
// Every frame is shown for 1/fps seconds. Frames of another size than the one given to open()
// are scaled to it. Not thread-safe; one writer per file.

#include <QImage>
#include <QSize>
#include <QString>
#include <memory>

namespace dl2console {

class VideoWriter
{
public:
    enum class Format { WebM, Mp4, Gif, Apng };

    VideoWriter();
    ~VideoWriter(); // aborts an unfinished file
    VideoWriter(const VideoWriter &) = delete;
    VideoWriter &operator=(const VideoWriter &) = delete;

    // The format of a file name (.webm, .mp4/.m4v, .gif, .apng/.png), or false.
    static bool formatForFile(const QString &fileName, Format *format);
    static QString supportedExtensions(); // "webm, mp4, gif, apng" for messages
    // Sizes a format accepts: WebM and MP4 need even sides (4:2:0 chroma).
    static QSize adjustedSize(Format format, QSize size);

    // False with error() set on a bad name, size or fps, or when the encoder is missing.
    bool open(const QString &fileName, QSize size, double fps);
    bool addFrame(const QImage &frame);
    // Flushes the encoder, writes the trailer and commits the file. For GIF this is where the
    // frames are quantised and encoded (they are kept PNG-compressed until then).
    bool finish();
    void abort();

    bool isOpen() const;
    Format format() const;
    QSize frameSize() const;
    int framesWritten() const;
    QString error() const;
    // The encoder in use ("libvpx-vp9", "libx264", "gif", "apng", ...).
    QString codecName() const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace dl2console
