// The CLI screenshot command renders the main window at a slot to a non-trivial PNG.

#include <QFile>
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
    void trainingCurves();
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

void TestScreenshot::trainingCurves()
{
    if (console().isEmpty())
        QSKIP("DL2_CONSOLE not set (run through ctest)");
    // --training-curves FILE shows the Training page with that run's curves, --training-compare
    // FILE2 a second run beside it; a malformed or missing file fails naming the file (and
    // the line).
    QTemporaryDir dir;
    const QString good = dir.filePath(QStringLiteral("run.dl2ckpt.curves.csv"));
    const QString bad = dir.filePath(QStringLiteral("bad.curves.csv"));
    QFile f(good);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("step,seconds,train_loss,validation_loss,agreement,value_loss,entropy,reward,"
            "validation_avg_jct\n0,0.4,0,-1,-1,0,0,0,28.8\n20,1,3.7,-1,-1,1.8,2.7,1.7,-1\n"
            "40,1.7,-0.1,-1,-1,0.6,3.3,0.8,27.9\n60,2.7,0.8,-1,-1,1.3,3.1,0.2,26.4\n");
    f.close();
    QFile g(bad);
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write("step,validation_avg_jct\n0,28.8\n20\n");
    g.close();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    const QString png = dir.filePath(QStringLiteral("training.png"));
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(console(), {QStringLiteral("--training-curves"), good, QStringLiteral("--training-compare"),
                        good, QStringLiteral("--screenshot"), png, QStringLiteral("--size"),
                        QStringLiteral("1280x800")});
    QVERIFY(p.waitForFinished(120000));
    QCOMPARE(p.exitCode(), 0);
    QImage image(png);
    QCOMPARE(image.size(), QSize(1280, 800));
    // --probe-types: the picture is the probe window's (smaller than the main window's).
    const QString probePng = dir.filePath(QStringLiteral("probe.png"));
    QProcess probe;
    probe.setProcessEnvironment(env);
    probe.start(console(), {QStringLiteral("--probe-types"), QStringLiteral("dl2-reference-window60"),
                            QStringLiteral("--screenshot"), probePng, QStringLiteral("--size"),
                            QStringLiteral("1280x800")});
    QVERIFY(probe.waitForFinished(120000));
    QVERIFY2(probe.exitCode() == 0, probe.readAllStandardError().constData());
    const QImage probeImage(probePng);
    QVERIFY(!probeImage.isNull());
    QVERIFY(probeImage.width() < 1280 && probeImage.height() < 800);

    for (const QStringList &args :
         {QStringList{QStringLiteral("--training-curves"), bad},
          QStringList{QStringLiteral("--training-curves"), dir.filePath(QStringLiteral("none.csv"))},
          QStringList{QStringLiteral("--training-baselines"), QStringLiteral("no-such-scenario")},
          QStringList{QStringLiteral("--training-curves"), good, QStringLiteral("--training-compare"), bad},
          QStringList{QStringLiteral("--training-compare"), dir.filePath(QStringLiteral("none.csv"))},
          QStringList{QStringLiteral("--probe-types"), good}}) { // a curves file is not a checkpoint
        QProcess q;
        q.setProcessEnvironment(env);
        q.start(console(), args + QStringList{QStringLiteral("--screenshot"),
                                              dir.filePath(QStringLiteral("x.png"))});
        QVERIFY(q.waitForFinished(120000));
        QCOMPARE(q.exitCode(), 2);
        const QString err = QString::fromUtf8(q.readAllStandardError());
        QVERIFY2(err.contains(args.last()), qPrintable(err));
        if (args.last() == bad)
            QVERIFY2(err.contains(bad + QStringLiteral(":3:")), qPrintable(err));
    }
}

QTEST_GUILESS_MAIN(TestScreenshot)
#include "tst_screenshot.moc"
