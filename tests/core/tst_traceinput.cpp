// Trace inputs as published: plain, gzip, tar.gz and zip (recognised by content), BOM, CRLF,
// a missing last line end, the member chosen in an archive, and damaged or binary inputs named.
#include "archivewriter.h"
#include "error.h"
#include "traceinput.h"

#include <QTemporaryDir>
#include <QTest>

using namespace dl2;
using testarchive::Kind;

namespace {

std::string write(const QTemporaryDir &dir, const QString &name, const QByteArray &content)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write fixture");
    f.write(content);
    return path.toStdString();
}

QStringList lines(TraceInput &input)
{
    QStringList out;
    std::string_view line;
    while (input.nextLine(line))
        out << QString::fromUtf8(line.data(), static_cast<qsizetype>(line.size()));
    return out;
}

const QByteArray kTable = "job_id,state\r\nh1,COMPLETED\r\nh2,SUSPENDED\r\n";

QString errorOf(const std::function<void()> &f)
{
    try {
        f();
    } catch (const Error &e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

} // namespace

class TestTraceInput : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void readsEveryPublishedPackaging_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<bool>("compressed");
        QTest::addColumn<QString>("name"); // as errors name the input
        QTest::newRow("plain") << kTable << false << QStringLiteral("in");
        QTest::newRow("bom") << QByteArray("\xef\xbb\xbf") + kTable << false << QStringLiteral("in");
        QTest::newRow("gzip") << testarchive::pack(Kind::Gzip, {{"cluster_log.csv", kTable}}) << true
                              << QStringLiteral("in");
        QTest::newRow("tar.gz") << testarchive::pack(Kind::TarGz, {{"data/README", "x"}, {"data/cluster_log.csv", kTable}})
                                << true << QStringLiteral("in:data/cluster_log.csv");
        QTest::newRow("zip") << testarchive::pack(Kind::Zip, {{"notes.txt", "x"}, {"data/Venus/cluster_log.csv", kTable}})
                             << true << QStringLiteral("in:data/Venus/cluster_log.csv");
        QTest::newRow("zip, bom inside") << testarchive::pack(Kind::Zip, {{"cluster_log.csv", "\xef\xbb\xbf" + kTable}})
                                         << true << QStringLiteral("in:cluster_log.csv");
    }
    void readsEveryPublishedPackaging()
    {
        QFETCH(QByteArray, file);
        QFETCH(bool, compressed);
        QFETCH(QString, name);
        QTemporaryDir dir;
        const std::string path = write(dir, QStringLiteral("in"), file);
        QCOMPARE(TraceInput::isCompressed(path), compressed);
        TraceInput input({path, {}}, {"cluster_log.csv"});
        QCOMPARE(QString::fromStdString(input.name()), dir.filePath(name));
        QCOMPARE(lines(input), (QStringList{QStringLiteral("job_id,state"), QStringLiteral("h1,COMPLETED"),
                                            QStringLiteral("h2,SUSPENDED")}));
        QVERIFY(input.lastLineComplete());
        QCOMPARE(input.lineNumber(), 3);
        QVERIFY(input.streamError().empty());
    }

    void lastLineWithoutEndIsFlagged()
    {
        QTemporaryDir dir;
        TraceInput input({write(dir, QStringLiteral("t.csv"), "a,b\nc,d"), {}}, {});
        std::string_view line;
        QVERIFY(input.nextLine(line));
        QVERIFY(input.lastLineComplete());
        QVERIFY(input.nextLine(line));
        QCOMPARE(line, std::string_view("c,d"));
        QVERIFY(!input.lastLineComplete());
        QVERIFY(!input.nextLine(line));
    }

    void longInputsCrossChunks()
    {
        // Lines longer and more numerous than one read chunk (1 MiB) come back whole.
        QByteArray big;
        const QByteArray longLine(3 << 19, 'x');
        for (int i = 0; i < 3; ++i)
            big += QByteArray::number(i) + ',' + longLine + '\n';
        for (int i = 0; i < 200000; ++i)
            big += "r" + QByteArray::number(i) + '\n';
        QTemporaryDir dir;
        for (const Kind kind : {Kind::Gzip, Kind::Zip}) {
            const std::string plain = write(dir, QStringLiteral("big.csv"), big);
            const std::string packed = write(dir, QStringLiteral("big.pack"), testarchive::pack(kind, {{"big.csv", big}}));
            for (const std::string &path : {plain, packed}) {
                TraceInput input({path, {}}, {"big.csv"});
                const QStringList got = lines(input);
                QCOMPARE(got.size(), 200003);
                QCOMPARE(got[1].size(), longLine.size() + 2);
                QCOMPARE(got.last(), QStringLiteral("r199999"));
            }
        }
    }

    void memberChoice()
    {
        QTemporaryDir dir;
        const std::string zip = write(dir, QStringLiteral("HeliosData.zip"),
                                      testarchive::pack(Kind::Zip, {{"data/Earth/cluster_log.csv", "earth\n"},
                                                                    {"data/Venus/cluster_log.csv", "venus\n"},
                                                                    {"data/Venus/cluster_gpu_number.csv", "g\n"}}));
        // Two candidates: refused, naming both.
        const QString ambiguous = errorOf([&] { TraceInput({zip, {}}, {"cluster_log.csv"}); });
        QVERIFY2(ambiguous.contains(QStringLiteral("HeliosData.zip: holds several cluster_log.csv")) &&
                     ambiguous.contains(QStringLiteral("data/Earth/cluster_log.csv, data/Venus/cluster_log.csv")) &&
                     ambiguous.contains(QStringLiteral("--member")),
                 qPrintable(ambiguous));
        // By its path's tail or in full.
        for (const char *member : {"Venus/cluster_log.csv", "data/Venus/cluster_log.csv"}) {
            TraceInput input({zip, member}, {"cluster_log.csv"});
            QCOMPARE(lines(input), QStringList{QStringLiteral("venus")});
            QCOMPARE(input.ref().member, std::string("data/Venus/cluster_log.csv"));
        }
        const QString missing = errorOf([&] { TraceInput({zip, "Mars/cluster_log.csv"}, {"cluster_log.csv"}); });
        QVERIFY2(missing.contains(QStringLiteral("holds no member 'Mars/cluster_log.csv'")), qPrintable(missing));
        // A tar is read in order: the first candidate.
        const std::string tar = write(dir, QStringLiteral("t.tar.gz"),
                                      testarchive::pack(Kind::TarGz, {{"a/cluster_log.csv", "a\n"}, {"b/cluster_log.csv", "b\n"}}));
        TraceInput first({tar, {}}, {"cluster_log.csv"});
        QCOMPARE(lines(first), QStringList{QStringLiteral("a")});
        // The only file of an archive is taken whatever its name; none of several is refused.
        const std::string one = write(dir, QStringLiteral("one.zip"), testarchive::pack(Kind::Zip, {{"renamed.csv", "r\n"}}));
        TraceInput only({one, {}}, {"cluster_log.csv"});
        QCOMPARE(lines(only), QStringList{QStringLiteral("r")});
        const QString none = errorOf([&] { TraceInput({tar, {}}, {"pai_job_table.csv"}); });
        QVERIFY2(none.contains(QStringLiteral("holds no pai_job_table.csv (it holds a/cluster_log.csv, b/cluster_log.csv)")),
                 qPrintable(none));
        QCOMPARE(TraceInput::members(zip).size(), size_t(3));
        QVERIFY(TraceInput::members(write(dir, QStringLiteral("p.csv"), "x\n")).empty());
        const QString plainMember = errorOf([&] { TraceInput({dir.filePath(QStringLiteral("p.csv")).toStdString(), "x"}, {}); });
        QVERIFY2(plainMember.contains(QStringLiteral("not an archive")), qPrintable(plainMember));
    }

    void damagedInputsAreNamed()
    {
        QTemporaryDir dir;
        // A truncated download: the data before the break is read, the break is reported.
        QByteArray text; // hard to compress, so half the file holds many whole blocks
        std::uint64_t x = 88172645463325252ULL;
        for (int i = 0; i < 20000; ++i) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            text += "row" + QByteArray::number(i) + ',' + QByteArray::number(x, 36) + ",COMPLETED\n";
        }
        const QByteArray gz = testarchive::pack(Kind::Gzip, {{"x.csv", text}});
        TraceInput cut({write(dir, QStringLiteral("cut.csv.gz"), gz.left(gz.size() / 2)), {}}, {});
        const QStringList got = lines(cut);
        QVERIFY2(got.size() > 100 && got.size() < 20000, qPrintable(QString::number(got.size()) + QString::fromStdString(cut.streamError())));
        QVERIFY2(!cut.streamError().empty(), "no stream error");

        const QString binary = errorOf([&] {
            TraceInput in({write(dir, QStringLiteral("b.csv"), QByteArray("a,b\n\0\1\2", 7)), {}}, {});
            lines(in);
        });
        QVERIFY2(binary.contains(QStringLiteral("b.csv: binary content at byte 4")), qPrintable(binary));
        const QString utf16 = errorOf([&] {
            TraceInput in({write(dir, QStringLiteral("u.csv"), QByteArray("\xff\xfe" "a\0", 4)), {}}, {});
            lines(in);
        });
        QVERIFY2(utf16.contains(QStringLiteral("UTF-16")), qPrintable(utf16));
        // A zip whose local header is all zeros: libarchive fails without a message (the
        // fuzzer's crash on CI); the error still names the file.
        const QString zip = errorOf([&] {
            TraceInput in({write(dir, QStringLiteral("z.csv"), QByteArray("PK\3\4") + QByteArray(40, '\0')), {}}, {});
            lines(in);
        });
        QVERIFY2(zip.contains(QStringLiteral("z.csv: ")), qPrintable(zip));
        QVERIFY(errorOf([&] { TraceInput({dir.filePath(QStringLiteral("nope")).toStdString(), {}}, {}); })
                    .contains(QStringLiteral("nope: no such file")));
        QVERIFY(errorOf([&] { TraceInput({dir.path().toStdString(), {}}, {}); }).contains(QStringLiteral("is a directory")));
    }

    void readAllKeepsEverything()
    {
        QTemporaryDir dir;
        const QByteArray json = "\xef\xbb\xbf[{\"jobid\": \"a\"}]";
        TraceInput input({write(dir, QStringLiteral("j.tgz"), testarchive::pack(Kind::TarGz, {{"trace-data/cluster_job_log", json}})), {}},
                         {"cluster_job_log"});
        QCOMPARE(input.readAll(), std::string("[{\"jobid\": \"a\"}]"));
    }
};

QTEST_GUILESS_MAIN(TestTraceInput)
#include "tst_traceinput.moc"
