// VideoWriter: every format writes a file that libavformat decodes back to the same number of
// frames, at the requested size, showing the frames that went in (colours within codec loss);
// failures (unknown extension, unwritable place, abort) leave no file behind.

#include "palettequantizer.h"
#include "videodecode.h"
#include "videowriter.h"

#include <QDir>
#include <QFile>
#include <QPainter>
#include <QTemporaryDir>
#include <QTest>

using namespace dl2console;

class TestVideoWriter : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void roundTrip_data();
    void roundTrip();
    void oddSizeIsEvenedForYuv();
    void unknownExtensionIsAnError();
    void unwritablePlaceIsAnError();
    void abortLeavesNoFile();
    void paletteKeepsFlatColoursExact();
};

namespace {
// Frame i: a flat colour that changes with i, a white box with text, a moving dark bar.
QColor frameColour(int i)
{
    return QColor::fromHsv((i * 47) % 360, 200, 220);
}

QImage makeFrame(QSize size, int i)
{
    QImage image(size, QImage::Format_RGB32);
    image.fill(frameColour(i));
    QPainter p(&image);
    p.fillRect(QRect(10, 10, size.width() / 2, 30), Qt::white);
    p.setPen(Qt::black);
    p.drawText(QRect(12, 10, size.width() / 2, 30), Qt::AlignVCenter,
               QStringLiteral("slot %1").arg(i));
    p.fillRect(QRect(20 + 8 * i, size.height() - 40, 30, 30), QColor(30, 30, 30));
    return image;
}

int colourDistance(QRgb a, QRgb b)
{
    return std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) +
           std::abs(qBlue(a) - qBlue(b));
}
} // namespace

void TestVideoWriter::roundTrip_data()
{
    QTest::addColumn<QString>("fileName");
    QTest::addColumn<int>("tolerance"); // summed RGB difference at a flat area
    QTest::newRow("webm") << QStringLiteral("replay.webm") << 30;
    QTest::newRow("mp4") << QStringLiteral("replay.mp4") << 30;
    QTest::newRow("gif") << QStringLiteral("replay.gif") << 12;
    QTest::newRow("apng") << QStringLiteral("replay.apng") << 0;
    QTest::newRow("png") << QStringLiteral("replay.png") << 0;
}

void TestVideoWriter::roundTrip()
{
    QFETCH(QString, fileName);
    QFETCH(int, tolerance);
    QTemporaryDir dir;
    const QString path = dir.filePath(fileName);
    const QSize size(320, 180);
    const int frames = 9;
    VideoWriter writer;
    QVERIFY2(writer.open(path, size, 3.0), qPrintable(writer.error()));
    for (int i = 0; i < frames; ++i)
        QVERIFY2(writer.addFrame(makeFrame(size, i)), qPrintable(writer.error()));
    QVERIFY(!QFile::exists(path)); // nothing visible before finish()
    QVERIFY2(writer.finish(), qPrintable(writer.error()));
    QCOMPARE(writer.framesWritten(), frames);

    const test::DecodedVideo video = test::decodeVideo(path);
    QVERIFY2(video.error.isEmpty(), qPrintable(video.error));
    QCOMPARE(video.frames.size(), frames);
    for (int i = 0; i < frames; ++i) {
        const QImage &f = video.frames[i];
        QCOMPARE(f.size(), size);
        const QRgb flat = f.pixel(size.width() - 20, size.height() / 2);
        QVERIFY2(colourDistance(flat, frameColour(i).rgb()) <= tolerance,
                 qPrintable(QStringLiteral("frame %1: colour %2 instead of %3")
                                .arg(i)
                                .arg(flat, 8, 16)
                                .arg(frameColour(i).rgb(), 8, 16)));
        // The moving bar is where frame i drew it (dark), and gone from the previous place.
        QVERIFY(qGray(f.pixel(35 + 8 * i, size.height() - 25)) < 80);
    }
    QVERIFY(!QDir(dir.path()).entryList(QDir::Files).filter(QStringLiteral("replay")).isEmpty());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1); // no temporary left over
}

void TestVideoWriter::oddSizeIsEvenedForYuv()
{
    QTemporaryDir dir;
    VideoWriter writer;
    QVERIFY2(writer.open(dir.filePath(QStringLiteral("odd.webm")), QSize(101, 77), 2.0),
             qPrintable(writer.error()));
    QCOMPARE(writer.frameSize(), QSize(100, 76));
    QVERIFY(writer.addFrame(makeFrame(QSize(101, 77), 0))); // scaled to fit
    QVERIFY(writer.addFrame(makeFrame(QSize(101, 77), 1)));
    QVERIFY2(writer.finish(), qPrintable(writer.error()));
    const auto video = test::decodeVideo(dir.filePath(QStringLiteral("odd.webm")));
    QCOMPARE(video.frames.size(), 2);
    QCOMPARE(video.frames.front().size(), QSize(100, 76));
}

void TestVideoWriter::unknownExtensionIsAnError()
{
    QTemporaryDir dir;
    VideoWriter writer;
    QVERIFY(!writer.open(dir.filePath(QStringLiteral("replay.avi")), QSize(64, 64), 2.0));
    QVERIFY2(writer.error().contains(QLatin1String("replay.avi")), qPrintable(writer.error()));
    QVERIFY(writer.error().contains(QLatin1String(".webm")));
    QVERIFY(!writer.addFrame(makeFrame(QSize(64, 64), 0)));
    QVERIFY(!writer.open(dir.filePath(QStringLiteral("r.webm")), QSize(64, 64), 0.0));
    QVERIFY2(writer.error().contains(QLatin1String("frame rate")), qPrintable(writer.error()));
    QVERIFY(!writer.open(dir.filePath(QStringLiteral("r.webm")), QSize(8, 8), 2.0));
    QVERIFY2(writer.error().contains(QLatin1String("8x8")), qPrintable(writer.error()));
    QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
}

void TestVideoWriter::unwritablePlaceIsAnError()
{
    QTemporaryDir dir;
    VideoWriter writer;
    const QString path = dir.filePath(QStringLiteral("no/such/dir/replay.webm"));
    QVERIFY(!writer.open(path, QSize(64, 64), 2.0));
    QVERIFY2(writer.error().contains(path), qPrintable(writer.error()));
}

void TestVideoWriter::abortLeavesNoFile()
{
    QTemporaryDir dir;
    for (const char *name : {"a.mp4", "a.gif"}) {
        VideoWriter writer;
        const QString path = dir.filePath(QLatin1String(name));
        QVERIFY(writer.open(path, QSize(64, 64), 2.0));
        QVERIFY(writer.addFrame(makeFrame(QSize(64, 64), 0)));
        writer.abort();
        QVERIFY(!writer.isOpen());
        QVERIFY(!writer.finish());
    }
    {
        VideoWriter unfinished; // the destructor aborts too
        QVERIFY(unfinished.open(dir.filePath(QStringLiteral("b.webm")), QSize(64, 64), 2.0));
        QVERIFY(unfinished.addFrame(makeFrame(QSize(64, 64), 0)));
    }
    QVERIFY2(QDir(dir.path()).entryList(QDir::Files).isEmpty(),
             qPrintable(QDir(dir.path()).entryList(QDir::Files).join(u' ')));
}

void TestVideoWriter::paletteKeepsFlatColoursExact()
{
    // 40 flat colours plus a smooth gradient (thousands of colours): the flat ones must come
    // back exactly, the gradient within the 5-bit bucket size.
    QImage image(400, 200, QImage::Format_RGB32);
    for (int x = 0; x < 400; ++x)
        for (int y = 100; y < 200; ++y)
            image.setPixel(x, y, qRgb(x * 255 / 399, (y - 100) * 255 / 99, 128));
    QList<QRgb> flats;
    for (int i = 0; i < 40; ++i) {
        flats << QColor::fromHsv(i * 9, 180, 200).rgb();
        for (int x = i * 10; x < i * 10 + 10; ++x)
            for (int y = 0; y < 100; ++y)
                image.setPixel(x, y, flats.back());
    }
    PaletteQuantizer q;
    const QByteArray keys = q.addImage(image);
    const auto palette = q.palette(255);
    QVERIFY(palette.colors.size() <= 255);
    std::vector<std::uint8_t> indices(400 * 200);
    PaletteQuantizer::map(palette, keys, 400, indices.data(), 400);
    for (int i = 0; i < 40; ++i)
        QCOMPARE(QColor(palette.colors[indices[50 * 400 + i * 10 + 5]]).rgb(), flats[i]);
    int worst = 0;
    for (int x = 0; x < 400; x += 7)
        for (int y = 100; y < 200; y += 7)
            worst = std::max(worst, colourDistance(palette.colors[indices[y * 400 + x]],
                                                   image.pixel(x, y)));
    QVERIFY2(worst <= 60, qPrintable(QString::number(worst)));
}

QTEST_MAIN(TestVideoWriter)
#include "tst_videowriter.moc"
