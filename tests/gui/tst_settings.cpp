// Settings (typed QSettings wrapper) and ViewRefresher (batched, visibility-aware refresh).

#include "settings.h"
#include "viewrefresher.h"

#include <QTemporaryDir>
#include <QTest>
#include <QWidget>

using namespace dl2console;

class TestSettings : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void defaultsAndRoundTrip();
    void refresherBatchesAndSkipsHiddenViews();
};

void TestSettings::defaultsAndRoundTrip()
{
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("s.ini"));
    {
        Settings s(file);
        QCOMPARE(s.scenario(), u"dl2-reference"_qs);
        QCOMPARE(s.seed(), quint64(1));
        QVERIFY(s.policy().isEmpty());
        QCOMPARE(s.speedModel(), u"rbf"_qs); // the measured table by default
        QVERIFY(s.speedTable().isEmpty());
        QVERIFY(s.checkpoint().isEmpty());
        QCOMPARE(s.nodes(), 0);
        s.setSpeedModel(QStringLiteral("optimus"));
        s.setSpeedTable(QStringLiteral("/data/speeds.csv"));
        s.setCheckpoint(QStringLiteral("dl2-plus-contended"));
        s.setNodes(120);
        s.setScenario(QStringLiteral("dl2-small"));
        s.setSeed(7);
        s.setPolicy(QStringLiteral("fifo"));
        s.setSpeed(15);
        s.setComparisonPolicies({QStringLiteral("drf"), QStringLiteral("srtf")});
        s.sync();
    }
    Settings again(file);
    QCOMPARE(again.scenario(), u"dl2-small"_qs);
    QCOMPARE(again.seed(), quint64(7));
    QCOMPARE(again.policy(), u"fifo"_qs);
    QCOMPARE(again.speed(), 15.0);
    QCOMPARE(again.comparisonPolicies(), (QStringList{u"drf"_qs, u"srtf"_qs}));
    QCOMPARE(again.speedModel(), u"optimus"_qs);
    QCOMPARE(again.speedTable(), u"/data/speeds.csv"_qs);
    QCOMPARE(again.checkpoint(), u"dl2-plus-contended"_qs);
    QCOMPARE(again.nodes(), 120);
    again.setSpeedModel(QStringLiteral("no-such-model")); // a hand-edited file: the default
    QCOMPARE(again.speedModel(), u"rbf"_qs);
}

void TestSettings::refresherBatchesAndSkipsHiddenViews()
{
    QWidget shown, hidden;
    shown.show();
    int shownRefreshes = 0, hiddenRefreshes = 0;
    ViewRefresher refresher;
    refresher.add(&shown, [&] { ++shownRefreshes; });
    refresher.add(&hidden, [&] { ++hiddenRefreshes; });
    for (int i = 0; i < 50; ++i)
        refresher.markDirty(); // a burst of slots: one refresh
    QTRY_COMPARE(shownRefreshes, 1);
    QTest::qWait(3 * refresher.intervalMs());
    QCOMPARE(shownRefreshes, 1);
    QCOMPARE(hiddenRefreshes, 0);
    hidden.show(); // stale while hidden: refreshed when shown
    QCOMPARE(hiddenRefreshes, 1);
}

QTEST_MAIN(TestSettings)
#include "tst_settings.moc"
