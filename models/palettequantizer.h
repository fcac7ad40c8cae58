#pragma once
// Median-cut colour quantisation for animated GIFs: a histogram of 15-bit colours (5 bits per
// channel, with the exact mean colour kept per bucket) is filled from every frame, then cut
// into at most 256 boxes; each pixel maps to the palette colour nearest to its bucket's mean.
// Screen content (flat fills, antialiased text) keeps its flat colours exact or within a few
// levels, without dithering noise.

#include <QByteArray>
#include <QImage>
#include <cstdint>
#include <vector>

namespace dl2console {

class PaletteQuantizer
{
public:
    static constexpr int kKeys = 1 << 15;

    struct Palette
    {
        std::vector<std::uint32_t> colors; // 0xffRRGGBB
        std::vector<std::uint8_t> lut;     // colour key -> palette index
    };

    PaletteQuantizer();
    void clear();
    // Counts the pixels of an RGB32 image; returns its colour keys (quint16 per pixel, rows
    // one after the other) for map().
    QByteArray addImage(const QImage &rgb32);
    // At most maxColors (1-256) colours for everything added so far.
    Palette palette(int maxColors) const;
    // Palette indices of one frame's keys into rows of `stride` bytes.
    static void map(const Palette &palette, const QByteArray &keys, int width, std::uint8_t *out,
                    int stride);
    static std::uint16_t keyOf(QRgb rgb)
    {
        return static_cast<std::uint16_t>(((qRed(rgb) >> 3) << 10) | ((qGreen(rgb) >> 3) << 5) |
                                          (qBlue(rgb) >> 3));
    }

private:
    struct Bucket
    {
        std::uint64_t count = 0, r = 0, g = 0, b = 0;
    };
    std::vector<Bucket> m_buckets;
};

} // namespace dl2console
