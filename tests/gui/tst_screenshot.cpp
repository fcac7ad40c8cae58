// The CLI screenshot command renders the main window at a slot to a non-trivial PNG.

#include <QImage>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

class TestScreenshot : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rendersPng();
    void badArgumentsFail();
    void helpAndVersion();
};

namespace {
QString console()
{
    return qEnvironmentVariable("DL2_CONSOLE");
}
} // namespace

void TestScreenshot::rendersPng()
{
    if (console().isEmpty())
        QSKIP("DL2_CONSOLE not set (run through ctest)");
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("shot.png"));
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    p.start(console(), {QStringLiteral("--scenario"), QStringLiteral("dl2-reference"),
                        QStringLiteral("--seed"), QStringLiteral("1"), QStringLiteral("--slot"),
                        QStringLiteral("30"), QStringLiteral("--screenshot"), png,
                        QStringLiteral("--size"), QStringLiteral("1280x800")});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), QSize(1280, 800));
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 200, qPrintable(QString::number(colours.size())));
}

void TestScreenshot::badArgumentsFail()
{
    if (console().isEmpty())
        QSKIP("DL2_CONSOLE not set (run through ctest)");
    QTemporaryDir dir;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    const QList<QStringList> cases = {
        {QStringLiteral("--policy"), QStringLiteral("no-such-policy")},
        {QStringLiteral("--scenario"), QStringLiteral("no-such-scenario")},
        {QStringLiteral("--trace"), dir.filePath(QStringLiteral("missing.csv"))},
        {QStringLiteral("--size"), QStringLiteral("huge")},
    };
    for (QStringList args : cases) {
        args << QStringLiteral("--screenshot") << dir.filePath(QStringLiteral("x.png"));
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(console(), args);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(!p.readAllStandardError().isEmpty());
    }
}

void TestScreenshot::helpAndVersion()
{
    if (console().isEmpty())
        QSKIP("DL2_CONSOLE not set (run through ctest)");
    // No display and no platform chosen: --help/--version still work (no GUI is created).
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *var : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
        env.remove(QLatin1String(var));
    for (const QString &flag : {QStringLiteral("--help"), QStringLiteral("--version")}) {
        QProcess p;
        p.setProcessEnvironment(env);
        p.start(console(), {flag});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY(!p.readAllStandardOutput().isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestScreenshot)
#include "tst_screenshot.moc"
