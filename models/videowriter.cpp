#include "videowriter.h"

#include "palettequantizer.h"

#include <QFileInfo>
#include <QSaveFile>
#include <cstring>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

namespace dl2console {

namespace {

QString avError(int code)
{
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof text);
    return QString::fromUtf8(text);
}

// libavformat writes through these into the QSaveFile (seekable: MP4 and APNG patch their
// headers at the end).
int writeToFile(void *opaque, uint8_t *data, int size)
{
    auto *file = static_cast<QSaveFile *>(opaque);
    return file->write(reinterpret_cast<const char *>(data), size) == size ? size : AVERROR(EIO);
}

int64_t seekInFile(void *opaque, int64_t offset, int whence)
{
    auto *file = static_cast<QSaveFile *>(opaque);
    whence &= ~AVSEEK_FORCE;
    if (whence == AVSEEK_SIZE)
        return file->size();
    const int64_t pos = whence == SEEK_SET   ? offset
                        : whence == SEEK_CUR ? file->pos() + offset
                        : whence == SEEK_END ? file->size() + offset
                                             : -1;
    if (pos < 0 || !file->seek(pos))
        return AVERROR(EIO);
    return pos;
}

struct CodecChoice
{
    const char *muxer;
    std::vector<const char *> encoders; // first available wins
    AVPixelFormat pixelFormat;
};

CodecChoice codecFor(VideoWriter::Format format)
{
    switch (format) {
    case VideoWriter::Format::WebM:
        return {"webm", {"libvpx-vp9", "libvpx"}, AV_PIX_FMT_YUV420P};
    case VideoWriter::Format::Mp4:
        return {"mp4", {"libx264", "mpeg4"}, AV_PIX_FMT_YUV420P};
    case VideoWriter::Format::Gif:
        return {"gif", {"gif"}, AV_PIX_FMT_PAL8};
    case VideoWriter::Format::Apng:
        return {"apng", {"apng"}, AV_PIX_FMT_RGB24};
    }
    return {"webm", {"libvpx-vp9"}, AV_PIX_FMT_YUV420P};
}

// Encoder settings for screen content: sharp text, flat colours, few changes between frames.
// VP9 in realtime mode at speed 8 encodes about twice as fast as "good" at speed 4 with the
// same size and no visible difference on console frames.
void encoderOptions(const QString &codec, AVDictionary **options)
{
    if (codec == QLatin1String("libvpx-vp9") || codec == QLatin1String("libvpx")) {
        av_dict_set(options, "deadline", "realtime", 0);
        av_dict_set(options, "cpu-used", "8", 0);
        av_dict_set(options, "crf", "28", 0);
        av_dict_set(options, "b", "0", 0);
        av_dict_set(options, "row-mt", "1", 0);
        av_dict_set(options, "tune-content", "screen", 0);
    } else if (codec == QLatin1String("libx264")) {
        av_dict_set(options, "preset", "fast", 0);
        av_dict_set(options, "crf", "20", 0);
        av_dict_set(options, "tune", "stillimage", 0);
    } else if (codec == QLatin1String("mpeg4")) {
        av_dict_set(options, "qscale", "3", 0);
    }
}

} // namespace

struct VideoWriter::Impl
{
    Format format = Format::WebM;
    QSize size;
    AVRational fps{2, 1};
    QSaveFile file;
    AVFormatContext *muxer = nullptr;
    AVIOContext *io = nullptr;
    AVCodecContext *encoder = nullptr;
    AVStream *stream = nullptr;
    SwsContext *scaler = nullptr;
    AVFrame *frame = nullptr;
    AVFrame *rgbFrame = nullptr; // padded RGB32 input of swscale
    AVPacket *packet = nullptr;
    QString codec;
    QString error;
    int frames = 0;
    bool open = false;
    // GIF: frames wait (15-bit colour keys, zlib-compressed) until the palette is known.
    PaletteQuantizer quantizer;
    std::vector<QByteArray> pendingKeys;

    ~Impl() { release(); }

    bool fail(const QString &message)
    {
        error = message;
        release();
        discardFile();
        return false;
    }

    // QSaveFile: a cancelled commit() removes the temporary file and writes nothing.
    void discardFile()
    {
        if (!file.isOpen())
            return;
        file.cancelWriting();
        file.commit();
    }

    void release()
    {
        if (io) {
            av_freep(&io->buffer);
            avio_context_free(&io);
        }
        if (muxer) {
            muxer->pb = nullptr;
            avformat_free_context(muxer);
            muxer = nullptr;
        }
        avcodec_free_context(&encoder);
        sws_freeContext(scaler);
        scaler = nullptr;
        av_frame_free(&frame);
        av_frame_free(&rgbFrame);
        av_packet_free(&packet);
        pendingKeys.clear();
        stream = nullptr;
        open = false;
    }

    bool openEncoder(const CodecChoice &choice);
    bool encode(AVFrame *input); // nullptr flushes
    bool fillFrame(const QImage &image);
};

bool VideoWriter::Impl::openEncoder(const CodecChoice &choice)
{
    const AVCodec *found = nullptr;
    for (const char *name : choice.encoders)
        if ((found = avcodec_find_encoder_by_name(name)))
            break;
    if (!found)
        return fail(QStringLiteral("this libavcodec has no %1 encoder")
                        .arg(QString::fromLatin1(choice.encoders.front())));
    codec = QString::fromLatin1(found->name);
    stream = avformat_new_stream(muxer, nullptr);
    encoder = avcodec_alloc_context3(found);
    if (!stream || !encoder)
        return fail(QStringLiteral("out of memory"));
    encoder->width = size.width();
    encoder->height = size.height();
    encoder->time_base = av_inv_q(fps);
    encoder->framerate = fps;
    encoder->pix_fmt = choice.pixelFormat;
    encoder->gop_size = std::max(1, 10 * fps.num / std::max(1, fps.den)); // a keyframe per ~10 s
    encoder->color_range = AVCOL_RANGE_MPEG;
    encoder->colorspace = AVCOL_SPC_SMPTE170M; // what swscale's RGB -> YUV matrix produces
    if (muxer->oformat->flags & AVFMT_GLOBALHEADER)
        encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    stream->time_base = encoder->time_base;
    AVDictionary *options = nullptr;
    encoderOptions(codec, &options);
    const int r = avcodec_open2(encoder, found, &options);
    av_dict_free(&options);
    if (r < 0)
        return fail(QStringLiteral("cannot start the %1 encoder: %2").arg(codec, avError(r)));
    if (avcodec_parameters_from_context(stream->codecpar, encoder) < 0)
        return fail(QStringLiteral("out of memory"));
    return true;
}

bool VideoWriter::Impl::encode(AVFrame *input)
{
    int r = avcodec_send_frame(encoder, input);
    if (r < 0)
        return fail(QStringLiteral("%1 encoder: %2").arg(codec, avError(r)));
    while ((r = avcodec_receive_packet(encoder, packet)) >= 0) {
        if (packet->duration <= 0)
            packet->duration = 1; // one frame (GIF and APNG delays come from it)
        av_packet_rescale_ts(packet, encoder->time_base, stream->time_base);
        packet->stream_index = stream->index;
        r = av_interleaved_write_frame(muxer, packet);
        if (r < 0)
            return fail(QStringLiteral("cannot write %1: %2").arg(file.fileName(), avError(r)));
    }
    if (r != AVERROR(EAGAIN) && r != AVERROR_EOF)
        return fail(QStringLiteral("%1 encoder: %2").arg(codec, avError(r)));
    return true;
}

bool VideoWriter::Impl::fillFrame(const QImage &image)
{
    const QImage rgb = image.size() == size && image.format() == QImage::Format_RGB32
                           ? image
                           : image.scaled(size, Qt::IgnoreAspectRatio, Qt::SmoothTransformation)
                                 .convertToFormat(QImage::Format_RGB32);
    const int r = av_frame_make_writable(frame);
    if (r < 0)
        return fail(QStringLiteral("video frame: %1").arg(avError(r)));
    // swscale reads in SIMD blocks past the end of a row: go through a padded copy.
    for (int y = 0; y < size.height(); ++y)
        memcpy(rgbFrame->data[0] + static_cast<size_t>(y) * rgbFrame->linesize[0],
               rgb.constScanLine(y), static_cast<size_t>(size.width()) * 4);
    sws_scale(scaler, rgbFrame->data, rgbFrame->linesize, 0, size.height(), frame->data,
              frame->linesize);
    return true;
}

VideoWriter::VideoWriter() : d(std::make_unique<Impl>()) {}

VideoWriter::~VideoWriter()
{
    abort();
}

bool VideoWriter::formatForFile(const QString &fileName, Format *format)
{
    const QString ext = QFileInfo(fileName).suffix().toLower();
    Format f;
    if (ext == QLatin1String("webm"))
        f = Format::WebM;
    else if (ext == QLatin1String("mp4") || ext == QLatin1String("m4v"))
        f = Format::Mp4;
    else if (ext == QLatin1String("gif"))
        f = Format::Gif;
    else if (ext == QLatin1String("apng") || ext == QLatin1String("png"))
        f = Format::Apng;
    else
        return false;
    if (format)
        *format = f;
    return true;
}

QString VideoWriter::supportedExtensions()
{
    return QStringLiteral(".webm, .mp4, .gif or .apng (.png)");
}

QSize VideoWriter::adjustedSize(Format format, QSize size)
{
    if (format == Format::WebM || format == Format::Mp4)
        return {size.width() & ~1, size.height() & ~1};
    return size;
}

bool VideoWriter::open(const QString &fileName, QSize size, double fps)
{
    abort();
    if (av_log_get_level() == AV_LOG_INFO)
        av_log_set_level(AV_LOG_ERROR); // no encoder statistics on the console
    d->error.clear();
    d->frames = 0;
    if (!formatForFile(fileName, &d->format)) {
        d->error = QStringLiteral("%1: unknown video format; use %2")
                       .arg(fileName, supportedExtensions());
        return false;
    }
    if (!(fps >= 0.1 && fps <= 60)) {
        d->error = QStringLiteral("frame rate %1 is outside 0.1-60 frames per second").arg(fps);
        return false;
    }
    d->size = adjustedSize(d->format, size);
    if (d->size.width() < 16 || d->size.height() < 16 || d->size.width() > 7680 ||
        d->size.height() > 4320) {
        d->error = QStringLiteral("frame size %1x%2 is outside 16x16-7680x4320")
                       .arg(size.width())
                       .arg(size.height());
        return false;
    }
    d->fps = av_d2q(fps, 1000);
    d->file.setFileName(fileName);
    if (!d->file.open(QIODevice::WriteOnly))
        return d->fail(QStringLiteral("cannot write %1: %2").arg(fileName, d->file.errorString()));

    const CodecChoice choice = codecFor(d->format);
    if (avformat_alloc_output_context2(&d->muxer, nullptr, choice.muxer, nullptr) < 0 || !d->muxer)
        return d->fail(QStringLiteral("this libavformat cannot write %1")
                           .arg(QString::fromLatin1(choice.muxer)));
    if (!d->openEncoder(choice))
        return false;

    constexpr int kBufferSize = 1 << 16;
    auto *buffer = static_cast<unsigned char *>(av_malloc(kBufferSize));
    d->io = buffer ? avio_alloc_context(buffer, kBufferSize, 1, &d->file, nullptr, writeToFile,
                                        seekInFile)
                   : nullptr;
    if (!d->io) {
        av_free(buffer);
        return d->fail(QStringLiteral("out of memory"));
    }
    d->muxer->pb = d->io;
    d->muxer->flags |= AVFMT_FLAG_CUSTOM_IO;
    AVDictionary *muxerOptions = nullptr;
    if (d->format == Format::Gif)
        av_dict_set(&muxerOptions, "loop", "0", 0); // slides: loop forever
    if (d->format == Format::Apng)
        av_dict_set(&muxerOptions, "plays", "0", 0);
    const int r = avformat_write_header(d->muxer, &muxerOptions);
    av_dict_free(&muxerOptions);
    if (r < 0)
        return d->fail(QStringLiteral("cannot write %1: %2").arg(fileName, avError(r)));

    d->frame = av_frame_alloc();
    d->packet = av_packet_alloc();
    if (!d->frame || !d->packet)
        return d->fail(QStringLiteral("out of memory"));
    d->frame->format = choice.pixelFormat;
    d->frame->width = d->size.width();
    d->frame->height = d->size.height();
    if (av_frame_get_buffer(d->frame, 0) < 0)
        return d->fail(QStringLiteral("out of memory"));
    if (d->format != Format::Gif) {
        d->scaler = sws_getContext(d->size.width(), d->size.height(), AV_PIX_FMT_RGB32,
                                   d->size.width(), d->size.height(), choice.pixelFormat,
                                   SWS_BICUBIC, nullptr, nullptr, nullptr);
        if (!d->scaler)
            return d->fail(QStringLiteral("no colour conversion to the encoder's pixel format"));
        d->rgbFrame = av_frame_alloc();
        if (!d->rgbFrame)
            return d->fail(QStringLiteral("out of memory"));
        d->rgbFrame->format = AV_PIX_FMT_RGB32;
        d->rgbFrame->width = d->size.width();
        d->rgbFrame->height = d->size.height();
        if (av_frame_get_buffer(d->rgbFrame, 0) < 0)
            return d->fail(QStringLiteral("out of memory"));
    }
    d->quantizer.clear();
    d->open = true;
    return true;
}

bool VideoWriter::addFrame(const QImage &image)
{
    if (!d->open) {
        if (d->error.isEmpty())
            d->error = QStringLiteral("the video is not open");
        return false;
    }
    if (image.isNull())
        return d->fail(QStringLiteral("frame %1 is empty").arg(d->frames + 1));
    if (d->format == Format::Gif) {
        const QImage rgb =
            image.size() == d->size
                ? image.convertToFormat(QImage::Format_RGB32)
                : image.scaled(d->size, Qt::IgnoreAspectRatio, Qt::SmoothTransformation)
                      .convertToFormat(QImage::Format_RGB32);
        d->pendingKeys.push_back(qCompress(d->quantizer.addImage(rgb), 1));
        ++d->frames;
        return true;
    }
    if (!d->fillFrame(image))
        return false;
    d->frame->pts = d->frames;
    if (!d->encode(d->frame))
        return false;
    ++d->frames;
    return true;
}

bool VideoWriter::finish()
{
    if (!d->open) {
        if (d->error.isEmpty())
            d->error = QStringLiteral("the video is not open");
        return false;
    }
    if (d->frames == 0)
        return d->fail(QStringLiteral("no frames to write"));
    if (d->format == Format::Gif) {
        const PaletteQuantizer::Palette palette = d->quantizer.palette(255); // one index free
        for (size_t i = 0; i < d->pendingKeys.size(); ++i) {
            const QByteArray keys = qUncompress(d->pendingKeys[i]);
            d->pendingKeys[i].clear();
            if (av_frame_make_writable(d->frame) < 0)
                return d->fail(QStringLiteral("out of memory"));
            d->quantizer.map(palette, keys, d->size.width(), d->frame->data[0],
                             d->frame->linesize[0]);
            auto *colours = reinterpret_cast<uint32_t *>(d->frame->data[1]);
            for (int c = 0; c < 256; ++c)
                colours[c] = c < static_cast<int>(palette.colors.size()) ? palette.colors[c]
                                                                         : 0xff000000u;
            d->frame->pts = static_cast<int64_t>(i);
            if (!d->encode(d->frame))
                return false;
        }
    }
    if (!d->encode(nullptr))
        return false;
    const int r = av_write_trailer(d->muxer);
    if (r < 0)
        return d->fail(QStringLiteral("cannot write %1: %2").arg(d->file.fileName(), avError(r)));
    avio_flush(d->io);
    d->release();
    if (!d->file.commit()) {
        d->error = QStringLiteral("cannot write %1: %2").arg(d->file.fileName(),
                                                              d->file.errorString());
        return false;
    }
    return true;
}

void VideoWriter::abort()
{
    if (!d->open)
        return;
    d->release();
    d->discardFile();
}

bool VideoWriter::isOpen() const
{
    return d->open;
}

VideoWriter::Format VideoWriter::format() const
{
    return d->format;
}

QSize VideoWriter::frameSize() const
{
    return d->size;
}

int VideoWriter::framesWritten() const
{
    return d->frames;
}

QString VideoWriter::error() const
{
    return d->error;
}

QString VideoWriter::codecName() const
{
    return d->codec;
}

} // namespace dl2console
