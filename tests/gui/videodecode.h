#pragma once
// Test helper: decodes a video or animation back with libavformat/libavcodec, every frame as
// an RGB32 QImage (what a player would show), to check what VideoWriter and the replay
// export wrote.

#include <QImage>
#include <QList>
#include <QString>
#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
}

namespace dl2console::test {

struct DecodedVideo
{
    QString error;     // empty when the file decoded to the end
    QString container; // libavformat's demuxer name
    QString codec;
    QList<QImage> frames;
};

inline DecodedVideo decodeVideo(const QString &path, bool keepImages = true)
{
    DecodedVideo out;
    AVFormatContext *format = nullptr;
    const QByteArray name = path.toLocal8Bit();
    if (avformat_open_input(&format, name.constData(), nullptr, nullptr) < 0) {
        out.error = QStringLiteral("libavformat cannot open ") + path;
        return out;
    }
    out.container = QString::fromLatin1(format->iformat->name);
    AVCodecContext *decoder = nullptr;
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    SwsContext *scaler = nullptr;
    auto take = [&]() {
        while (avcodec_receive_frame(decoder, frame) >= 0) {
            if (keepImages) {
                QImage image(frame->width, frame->height, QImage::Format_RGB32);
                scaler = sws_getCachedContext(scaler, frame->width, frame->height,
                                              static_cast<AVPixelFormat>(frame->format),
                                              frame->width, frame->height, AV_PIX_FMT_RGB32,
                                              SWS_POINT, nullptr, nullptr, nullptr);
                // swscale may write past the end of unpadded rows: convert into its own
                // padded buffer, then copy.
                uint8_t *dst[4] = {};
                int stride[4] = {};
                av_image_alloc(dst, stride, frame->width, frame->height, AV_PIX_FMT_RGB32, 64);
                sws_scale(scaler, frame->data, frame->linesize, 0, frame->height, dst, stride);
                for (int y = 0; y < frame->height; ++y)
                    memcpy(image.scanLine(y), dst[0] + static_cast<size_t>(y) * stride[0],
                           static_cast<size_t>(frame->width) * 4);
                av_freep(&dst[0]);
                out.frames << image;
            } else {
                out.frames << QImage();
            }
            av_frame_unref(frame);
        }
    };
    const AVCodec *codec = nullptr;
    int stream = -1;
    if (avformat_find_stream_info(format, nullptr) < 0) {
        out.error = QStringLiteral("no stream information");
    } else if ((stream = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0)) < 0) {
        out.error = QStringLiteral("no video stream");
    } else {
        out.codec = QString::fromLatin1(codec->name);
        decoder = avcodec_alloc_context3(codec);
        avcodec_parameters_to_context(decoder, format->streams[stream]->codecpar);
        if (avcodec_open2(decoder, codec, nullptr) < 0) {
            out.error = QStringLiteral("cannot open the decoder");
        } else {
            while (av_read_frame(format, packet) >= 0) {
                if (packet->stream_index == stream && avcodec_send_packet(decoder, packet) >= 0)
                    take();
                av_packet_unref(packet);
            }
            avcodec_send_packet(decoder, nullptr);
            take();
        }
    }
    sws_freeContext(scaler);
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&decoder);
    avformat_close_input(&format);
    return out;
}

} // namespace dl2console::test
