#include "palettequantizer.h"

#include <algorithm>
#include <array>
#include <limits>

namespace dl2console {

namespace {
int component(int key, int axis)
{
    return (key >> (10 - 5 * axis)) & 31;
}
} // namespace

PaletteQuantizer::PaletteQuantizer() : m_buckets(kKeys) {}

void PaletteQuantizer::clear()
{
    std::fill(m_buckets.begin(), m_buckets.end(), Bucket{});
}

QByteArray PaletteQuantizer::addImage(const QImage &rgb32)
{
    const QImage image = rgb32.format() == QImage::Format_RGB32 || rgb32.format() == QImage::Format_ARGB32
                             ? rgb32
                             : rgb32.convertToFormat(QImage::Format_RGB32);
    const int w = image.width(), h = image.height();
    QByteArray keys(static_cast<qsizetype>(w) * h * 2, Qt::Uninitialized);
    auto *out = reinterpret_cast<std::uint16_t *>(keys.data());
    for (int y = 0; y < h; ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(image.constScanLine(y));
        for (int x = 0; x < w; ++x) {
            const QRgb c = line[x];
            const std::uint16_t k = keyOf(c);
            Bucket &b = m_buckets[k];
            ++b.count;
            b.r += static_cast<unsigned>(qRed(c));
            b.g += static_cast<unsigned>(qGreen(c));
            b.b += static_cast<unsigned>(qBlue(c));
            *out++ = k;
        }
    }
    return keys;
}

PaletteQuantizer::Palette PaletteQuantizer::palette(int maxColors) const
{
    maxColors = std::clamp(maxColors, 1, 256);
    struct Box
    {
        std::vector<int> keys;
        std::uint64_t count = 0;
        int axis = 0;
        int extent = 0; // along `axis`
    };
    auto measure = [this](Box &box) {
        std::array<int, 3> lo{31, 31, 31}, hi{0, 0, 0};
        box.count = 0;
        for (int k : box.keys) {
            box.count += m_buckets[k].count;
            for (int a = 0; a < 3; ++a) {
                lo[a] = std::min(lo[a], component(k, a));
                hi[a] = std::max(hi[a], component(k, a));
            }
        }
        box.axis = 0;
        for (int a = 1; a < 3; ++a)
            if (hi[a] - lo[a] > hi[box.axis] - lo[box.axis])
                box.axis = a;
        box.extent = hi[box.axis] - lo[box.axis];
    };

    std::vector<Box> boxes(1);
    for (int k = 0; k < kKeys; ++k)
        if (m_buckets[k].count > 0)
            boxes[0].keys.push_back(k);
    measure(boxes[0]);
    while (static_cast<int>(boxes.size()) < maxColors) {
        // Split the box with the most pixels times spread; single-colour boxes stay.
        int best = -1;
        double bestScore = 0.0;
        for (size_t i = 0; i < boxes.size(); ++i) {
            if (boxes[i].keys.size() < 2)
                continue;
            const double score = static_cast<double>(boxes[i].count) * (boxes[i].extent + 1);
            if (score > bestScore) {
                bestScore = score;
                best = static_cast<int>(i);
            }
        }
        if (best < 0)
            break;
        Box &box = boxes[best];
        const int axis = box.axis;
        std::sort(box.keys.begin(), box.keys.end(), [axis](int a, int b) {
            return component(a, axis) < component(b, axis);
        });
        std::uint64_t seen = 0;
        size_t cut = 1;
        for (; cut < box.keys.size(); ++cut) {
            seen += m_buckets[box.keys[cut - 1]].count;
            if (seen * 2 >= box.count)
                break;
        }
        cut = std::clamp<size_t>(cut, 1, box.keys.size() - 1);
        Box upper;
        upper.keys.assign(box.keys.begin() + static_cast<std::ptrdiff_t>(cut), box.keys.end());
        box.keys.resize(cut);
        measure(box);
        measure(upper);
        boxes.push_back(std::move(upper));
    }

    Palette out;
    out.lut.assign(kKeys, 0);
    for (const Box &box : boxes) {
        std::uint64_t n = 0, r = 0, g = 0, b = 0;
        for (int k : box.keys) {
            n += m_buckets[k].count;
            r += m_buckets[k].r;
            g += m_buckets[k].g;
            b += m_buckets[k].b;
        }
        if (n == 0)
            continue;
        out.colors.push_back(qRgb(static_cast<int>((r + n / 2) / n), static_cast<int>((g + n / 2) / n),
                                  static_cast<int>((b + n / 2) / n)));
    }
    if (out.colors.empty())
        out.colors.push_back(qRgb(0, 0, 0));
    // Each bucket goes to the palette colour nearest its own mean (not just its box's).
    for (int k = 0; k < kKeys; ++k) {
        const Bucket &bucket = m_buckets[k];
        if (bucket.count == 0)
            continue;
        const auto n = static_cast<double>(bucket.count);
        const double r = bucket.r / n, g = bucket.g / n, b = bucket.b / n;
        double bestDistance = std::numeric_limits<double>::max();
        for (size_t i = 0; i < out.colors.size(); ++i) {
            const double dr = qRed(out.colors[i]) - r, dg = qGreen(out.colors[i]) - g,
                         db = qBlue(out.colors[i]) - b;
            const double distance = 2 * dr * dr + 4 * dg * dg + 3 * db * db;
            if (distance < bestDistance) {
                bestDistance = distance;
                out.lut[k] = static_cast<std::uint8_t>(i);
            }
        }
    }
    return out;
}

void PaletteQuantizer::map(const Palette &palette, const QByteArray &keys, int width,
                           std::uint8_t *out, int stride)
{
    const auto *in = reinterpret_cast<const std::uint16_t *>(keys.constData());
    const qsizetype rows = width > 0 ? keys.size() / 2 / width : 0;
    for (qsizetype y = 0; y < rows; ++y) {
        std::uint8_t *line = out + y * stride;
        for (int x = 0; x < width; ++x)
            line[x] = palette.lut[*in++];
    }
}

} // namespace dl2console
