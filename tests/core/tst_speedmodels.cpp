// Speed models: exact linear RBF (the reference's surface), NNLS, Optimus fit, importers,
// profile sets.

#include "error.h"
#include "modelprofile.h"
#include "profiles.pb.h"
#include "fitspeed.h"
#include "speed/measurements.h"
#include "speed/nnls.h"
#include "speed/optimusspeedmodel.h"
#include "speed/rbfspeedmodel.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

using namespace dl2;

namespace {

SpeedSample sample(const std::string &model, int ps, int workers, double speed, int line = 0)
{
    SpeedSample s;
    s.model = model;
    s.ps = ps;
    s.workers = workers;
    s.speed = speed;
    s.line = line;
    return s;
}

std::string writeFile(const QTemporaryDir &dir, const QString &name, const std::string &content)
{
    const QString path = dir.filePath(name);
    std::ofstream(path.toStdString(), std::ios::binary) << content;
    return path.toStdString();
}

// A file of the source tree (fixtures): DL2_SOURCE_DIR from the environment (CTest) or as
// compiled in.
QString sourceFile(const QString &relative)
{
    const QString root = qEnvironmentVariableIsSet("DL2_SOURCE_DIR")
                             ? qEnvironmentVariable("DL2_SOURCE_DIR")
                             : QStringLiteral(DL2_SOURCE_DIR);
    return QDir(root).filePath(relative);
}

std::string errorOf(const std::function<void()> &f)
{
    try {
        f();
    } catch (const Error &e) {
        return e.what();
    }
    return "(no error)";
}

bool contains(const std::string &haystack, const std::string &needle)
{
    return haystack.find(needle) != std::string::npos;
}

} // namespace

class TestSpeedModels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void rbfTwoPointsByHand();
    void rbfExactAtMeasuredPoints();
    void rbfRejectsDuplicates();
    void speedTableCachesModel();
    void rbfMatchesReferenceSurface();
    void derivedTableRoundTrips();
    void nnlsRecoversNonNegative();
    void nnlsClampsToZero();
    void optimusFitRecoversSync();
    void optimusFitRecoversAsync();
    void optimusProtoRoundTrip();
    void importDl2Tuples();
    void importErrors_data();
    void importErrors();
    void importCsv();
    void referenceProfiles();
    void profileTextErrors();
    void fitProfilesReport();
};

// Two centres (1,1) -> a and (2,1) -> b: A = [[0,1],[1,0]], so c = (b, a) and
// f(p,w) = b*|(p,w)-(1,1)| + a*|(p,w)-(2,1)|.
void TestSpeedModels::rbfTwoPointsByHand()
{
    const RbfSpeedModel rbf({sample("m", 1, 1, 1.0), sample("m", 2, 1, 2.0)});
    QCOMPARE(rbf.speed(1, 1), 1.0);
    QCOMPARE(rbf.speed(2, 1), 2.0);
    QCOMPARE(rbf.speed(3, 1), 2.0 * 2.0 + 1.0 * 1.0);
    QCOMPARE(rbf.evaluate(1.5, 1.0), 1.5);
    QCOMPARE(rbf.speed(1, 2), 2.0 * 1.0 + 1.0 * std::sqrt(2.0));
    QCOMPARE(rbf.speed(0, 1), 0.0);
    QCOMPARE(rbf.speed(1, 0), 0.0);
    QCOMPARE(rbf.kind(), std::string("rbf"));
}

void TestSpeedModels::rbfExactAtMeasuredPoints()
{
    // Six measurements, one of them a failed (all-zero) one the reference keeps.
    const std::vector<SpeedSample> samples{sample("m", 1, 1, 15.783), sample("m", 1, 2, 15.404),
                                           sample("m", 2, 1, 17.1),   sample("m", 2, 3, 16.2),
                                           sample("m", 4, 2, 0.0),    sample("m", 3, 5, 11.5)};
    const RbfSpeedModel rbf(samples);
    QCOMPARE(rbf.centres(), 6);
    for (const SpeedSample &s : samples)
        QVERIFY2(std::abs(rbf.speed(s.ps, s.workers) - s.speed) < 1e-12,
                 qPrintable(QStringLiteral("(%1,%2)").arg(s.ps).arg(s.workers)));
    for (int k = -1; k <= 3; ++k) {
        QCOMPARE(rbf.speed(0, k), 0.0);
        QCOMPARE(rbf.speed(k, 0), 0.0);
    }
}

void TestSpeedModels::rbfRejectsDuplicates()
{
    const std::string msg = errorOf([] {
        RbfSpeedModel(
            {sample("m", 1, 1, 1.0, 3), sample("m", 2, 1, 2.0, 4), sample("m", 1, 1, 1.5, 9)},
            "speeds.txt");
    });
    QVERIFY2(contains(msg, "speeds.txt:9:") && contains(msg, "line 3") &&
                 contains(msg, "duplicate"),
             msg.c_str());
    QVERIFY(contains(errorOf([] { RbfSpeedModel({}, "x.txt"); }), "x.txt"));
}

void TestSpeedModels::speedTableCachesModel()
{
    const RbfSpeedModel rbf(
        {sample("m", 1, 1, 1.0), sample("m", 2, 1, 2.0), sample("m", 1, 2, 3.0)});
    const SpeedTable table(rbf, 5, 4);
    QCOMPARE(table.maxPs(), 5);
    QCOMPARE(table.maxWorkers(), 4);
    for (int p = -1; p <= 6; ++p)
        for (int w = -1; w <= 5; ++w) {
            const double expected = (p >= 1 && p <= 5 && w >= 1 && w <= 4) ? rbf.speed(p, w) : 0.0;
            QCOMPARE(table(p, w), expected);
        }
}

// The built-in table's RBF against 320 points of the reference's own SciPy surface
// (tests/core/fixtures: the holes left by failed measurements, the extrapolated region beyond
// 12 workers, corners and random points; printed with 6 decimals).
void TestSpeedModels::rbfMatchesReferenceSurface()
{
    const std::vector<SpeedSample> &samples = builtinMeasurements();
    const std::vector<std::string> models = measuredModels(samples);
    QCOMPARE(models.size(), size_t(8));

    std::map<std::string, RbfSpeedModel> rbf;
    for (const std::string &m : models) {
        const std::vector<SpeedSample> mine = samplesOf(samples, m);
        const RbfSpeedModel &model = rbf.emplace(m, RbfSpeedModel(mine, kBuiltinSpeedTable)).first->second;
        for (const SpeedSample &s : mine) // exact at every measured point, zeros included
            QVERIFY(std::abs(model.speed(s.ps, s.workers) - s.speed) <=
                    1e-9 * std::max(1.0, s.speed));
    }

    const QString fixture = sourceFile(QStringLiteral("tests/core/fixtures/dl2-rbf-surface-sample.csv"));
    std::ifstream in(fixture.toStdString());
    QVERIFY2(in.good(), qPrintable(fixture));
    std::string line;
    while (std::getline(in, line) && (line.empty() || line[0] == '#'))
        ;
    QCOMPARE(line, std::string("model,ps,workers,speed"));
    int rows = 0, holes = 0, extrapolated = 0;
    std::map<std::string, int> perModel;
    double maxDeviation = 0.0;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string model, ps, workers, speed;
        std::getline(fields, model, ',');
        std::getline(fields, ps, ',');
        std::getline(fields, workers, ',');
        std::getline(fields, speed, ',');
        const auto it = rbf.find(model);
        QVERIFY2(it != rbf.end(), model.c_str());
        const double expected = std::stod(speed);
        const double got = it->second.speed(std::stoi(ps), std::stoi(workers));
        const double deviation = std::abs(got - expected);
        maxDeviation = std::max(maxDeviation, deviation);
        // Printed with 6 decimals: rounding contributes up to 5e-7.
        QVERIFY2(deviation <= 5.0e-7 + 1e-9 * std::abs(expected), line.c_str());
        ++rows;
        ++perModel[model];
        holes += std::abs(expected) < 5e-7;
        extrapolated += std::stoi(workers) > 12;
    }
    // The sample covers what makes the surface hard, for every model.
    QVERIFY2(rows >= 300, qPrintable(QString::number(rows)));
    QCOMPARE(perModel.size(), size_t(8));
    QVERIFY(holes >= 5);
    QVERIFY(extrapolated >= 8 * 6);
    qInfo("%d reference points, max deviation %.3g", rows, maxDeviation);
}

// `dl2 speeds derive` and the built-in table: the aggregate speed of every measured
// configuration, failed ones kept, written so that it reads back bit for bit.
void TestSpeedModels::derivedTableRoundTrips()
{
    const std::string dl2 =
        "('resnet-50', 'dist_sync', 32, 1, 2, [7.702, 7.702], [1.9], [0.4, 0.4])\n"
        "('vgg-16', 'dist_sync', 32, 4, 3, [0.0, 0.0, 0.0], [0.0], [0.0, 0.0, 0.0])\n"
        "('resnet-50', 'dist_sync', 32, 2, 3, [0.1, 0.2, 0.30000000000000004], [1.0, 1.0], [1, 1, 1])\n";
    const auto samples = parseDl2Measurements(dl2, "in.txt");
    const std::string csv = measurementsToCsv(samples, {"provenance line"});
    QVERIFY(contains(csv, "# provenance line\nmodel,ps,workers,speed\n"));
    QVERIFY(contains(csv, "vgg-16,4,3,0\n")); // the failed measurement stays
    const auto back = parseCsvMeasurements(csv, "out.csv");
    QCOMPARE(back.size(), samples.size());
    for (size_t i = 0; i < samples.size(); ++i) {
        QCOMPARE(back[i].model, samples[i].model);
        QCOMPARE(back[i].ps, samples[i].ps);
        QCOMPARE(back[i].workers, samples[i].workers);
        QCOMPARE(back[i].speed, samples[i].speed); // bit-identical, not just close
    }
    QCOMPARE(back[0].speed, 7.702 + 7.702);

    // The built-in table: every configuration of the eight models, failed ones included, and
    // the default reference profiles run on its RBF.
    const auto &table = builtinMeasurements();
    QCOMPARE(measuredModels(table).size(), size_t(8));
    QVERIFY(std::count_if(table.begin(), table.end(), [](const SpeedSample &s) { return s.speed == 0.0; }) > 0);
    const ProfileSet measured = ProfileSet::reference();
    const ProfileSet fitted = ProfileSet::reference(SpeedModelChoice::Fitted);
    QCOMPARE(measured.size(), 8);
    for (int i = 0; i < measured.size(); ++i) {
        QCOMPARE(measured[i].speed->kind(), std::string("rbf"));
        QVERIFY(measured[i].estimate && measured[i].estimate->kind() != "rbf");
        QCOMPARE(fitted[i].speed.get(), fitted[i].estimate.get());
        const auto mine = samplesOf(table, measured[i].name);
        QCOMPARE(measured[i].speed->speed(mine.front().ps, mine.front().workers), mine.front().speed);
    }
    QCOMPARE(speedModelChoiceFromString("rbf"), SpeedModelChoice::Measured);
    QCOMPARE(speedModelChoiceFromString("optimus"), SpeedModelChoice::Fitted);
    QVERIFY(contains(errorOf([] { speedModelChoiceFromString("spline"); }), "spline"));
}

void TestSpeedModels::nnlsRecoversNonNegative()
{
    // 12 x 4 system with an exact non-negative solution (one component exactly 0).
    const std::vector<double> truth{1.0, 0.5, 0.0, 3.0};
    std::vector<std::vector<double>> A;
    std::vector<double> b;
    for (int i = 0; i < 12; ++i) {
        const double t = i + 1;
        A.push_back({1.0, t, std::sin(t), 1.0 / t});
        b.push_back(A.back()[0] * truth[0] + A.back()[1] * truth[1] + A.back()[2] * truth[2] +
                    A.back()[3] * truth[3]);
    }
    const std::vector<double> x = nnls(A, b);
    QCOMPARE(x.size(), truth.size());
    for (size_t j = 0; j < truth.size(); ++j)
        QVERIFY2(std::abs(x[j] - truth[j]) < 1e-9, qPrintable(QString::number(x[j])));
}

// Unconstrained least squares gives (2, -1); with x >= 0 the second clamps and x1 = 1.5.
void TestSpeedModels::nnlsClampsToZero()
{
    const std::vector<double> x = nnls({{1, 0}, {0, 1}, {1, 1}}, {2, -1, 1});
    QCOMPARE(x.size(), size_t(2));
    QVERIFY(std::abs(x[0] - 1.5) < 1e-12);
    QCOMPARE(x[1], 0.0);
    QVERIFY(contains(errorOf([] { nnls({{1, 0}}, {1, 2}); }), "rows"));
}

void TestSpeedModels::optimusFitRecoversSync()
{
    const OptimusSpeedModel truth(OptimusForm::Sync, 32, {0.002, 0.01, 0.004, 0.0, 0.0015});
    std::vector<SpeedSample> samples;
    for (int p = 1; p <= 8; ++p)
        for (int w = 1; w <= 8; ++w)
            samples.push_back(sample("m", p, w, truth.speed(p, w)));
    samples.push_back(sample("m", 9, 9, 0.0)); // failed measurement
    const pb::OptimusCoefficients c = fitOptimus(samples, OptimusForm::Sync, 32);
    QCOMPARE(c.form(), pb::OptimusCoefficients::SYNC);
    QCOMPARE(c.theta_size(), 5);
    QCOMPARE(c.fit_points(), 64);
    QCOMPARE(c.dropped_points(), 1);
    for (int j = 0; j < 5; ++j)
        QVERIFY2(std::abs(c.theta(j) - truth.theta()[size_t(j)]) < 1e-8,
                 qPrintable(QString::number(c.theta(j))));
    QVERIFY(c.fit_rel_rmse() < 1e-8);
    QVERIFY(c.fit_max_rel_error() < 1e-8);
    QCOMPARE(OptimusSpeedModel(c).kind(), std::string("optimus-sync"));
}

void TestSpeedModels::optimusFitRecoversAsync()
{
    const OptimusSpeedModel truth(OptimusForm::Async, 0, {0.05, 0.0, 0.01, 0.002});
    std::vector<SpeedSample> samples;
    for (int p = 1; p <= 6; ++p)
        for (int w = 1; w <= 6; ++w)
            samples.push_back(
                sample("m", p, w, truth.speed(p, w) * (1.0 + 0.001 * ((p * 7 + w) % 3 - 1))));
    const pb::OptimusCoefficients c = fitOptimus(samples, OptimusForm::Async, 0);
    QCOMPARE(c.theta_size(), 4);
    QCOMPARE(c.dropped_points(), 0);
    QVERIFY(c.fit_rel_rmse() < 2e-3);
    const OptimusSpeedModel fitted(c);
    QCOMPARE(fitted.kind(), std::string("optimus-async"));
    for (int p = 1; p <= 6; ++p)
        for (int w = 1; w <= 6; ++w)
            QVERIFY(std::abs(fitted.speed(p, w) / truth.speed(p, w) - 1.0) < 5e-3);
    QVERIFY(contains(errorOf([] { fitOptimus({sample("m", 1, 1, 1.0)}, OptimusForm::Async, 0); }),
                     "usable"));
}

void TestSpeedModels::optimusProtoRoundTrip()
{
    pb::OptimusCoefficients c;
    c.set_form(pb::OptimusCoefficients::SYNC);
    c.set_global_batch(32);
    for (double t : {0.01, 0.0, 0.2, 0.003, 0.0})
        c.add_theta(t);
    c.set_fit_rel_rmse(0.1);
    c.set_fit_points(7);
    const OptimusSpeedModel m(c);
    QCOMPARE(m.speed(0, 3), 0.0);
    QCOMPARE(m.speed(2, 0), 0.0);
    QVERIFY(std::abs(m.speed(2, 4) - 1.0 / (0.01 * 32 / 4 + 0.2 * 2 + 0.003 * 4)) < 1e-15);
    QCOMPARE(m.toProto().SerializeAsString(), c.SerializeAsString());
    c.set_theta(2, -1.0);
    QVERIFY(contains(errorOf([&] { OptimusSpeedModel bad(c); }), "theta[2]"));
}

void TestSpeedModels::importDl2Tuples()
{
    QTemporaryDir dir;
    const std::string path = writeFile(
        dir, QStringLiteral("speeds.txt"),
        "('resnet-50', 'dist_sync', 32, 1, 2, [7.702, 7.702], [1.942], [0.436, 0.423])\n"
        "\n"
        "('vgg-16', 'dist_sync', 32, 4, 3, [0, 0.0, 0], [0.1, 0.2, 0.3, 0.4], [0, 0, 0])\r\n");
    const std::vector<SpeedSample> s = readDl2Measurements(path);
    QCOMPARE(s.size(), size_t(2));
    QCOMPARE(s[0].model, std::string("resnet-50"));
    QCOMPARE(s[0].ps, 1);
    QCOMPARE(s[0].workers, 2);
    QCOMPARE(s[0].speed, 7.702 + 7.702);
    QCOMPARE(s[0].globalBatch, 32);
    QCOMPARE(s[1].line, 3);
    QCOMPARE(s[1].speed, 0.0); // failed measurement kept
    QCOMPARE(loadMeasurements(path).size(), size_t(2));
}

void TestSpeedModels::importErrors_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("expected");
    const QString good = QStringLiteral("('m', 'dist_sync', 32, 1, 1, [1.5], [1.0], [0.5])\n");
    QTest::newRow("tuple missing field")
        << QStringLiteral("a.txt")
        << good + QStringLiteral("('m', 'dist_sync', 32, 1, 1, [1.5], [1.0])\n")
        << QStringLiteral("a.txt:2: expected");
    QTest::newRow("tuple bad number")
        << QStringLiteral("b.txt")
        << good + good + QStringLiteral("('m', 'x', 32, one, 1, [1], [1], [1])\n")
        << QStringLiteral("b.txt:3: expected");
    QTest::newRow("tuple speed count")
        << QStringLiteral("c.txt") << QStringLiteral("('m', 'x', 32, 1, 2, [1], [1], [1, 1])\n")
        << QStringLiteral("c.txt:1: expected 2 worker speeds");
    QTest::newRow("tuple negative speed")
        << QStringLiteral("d.txt") << QStringLiteral("('m', 'x', 32, 1, 1, [-1], [1], [1])\n")
        << QStringLiteral("d.txt:1: expected non-negative");
    QTest::newRow("csv bad number")
        << QStringLiteral("e.csv")
        << QStringLiteral("model,ps,workers,speed\nm,1,1,2.5\nm,1,2,fast\n")
        << QStringLiteral("e.csv:3: expected a number in column 'speed'");
    QTest::newRow("csv negative") << QStringLiteral("f.csv")
                                  << QStringLiteral("model,ps,workers,speed\nm,1,1,-2.5\n")
                                  << QStringLiteral("f.csv:2: expected a non-negative speed");
    QTest::newRow("csv missing column")
        << QStringLiteral("g.csv") << QStringLiteral("model,ps,speed\nm,1,2.5\n")
        << QStringLiteral("g.csv:1: expected a header");
    QTest::newRow("csv short row")
        << QStringLiteral("h.csv") << QStringLiteral("model,ps,workers,speed\n\nm,1,1\n")
        << QStringLiteral("h.csv:3: expected 4 columns");
    QTest::newRow("csv zero workers")
        << QStringLiteral("i.csv") << QStringLiteral("model,ps,workers,speed\nm,1,0,1\n")
        << QStringLiteral("i.csv:2: expected a positive integer in column 'workers'");
}

void TestSpeedModels::importErrors()
{
    QFETCH(QString, name);
    QFETCH(QString, content);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const std::string path = writeFile(dir, name, content.toStdString());
    const std::string msg = errorOf([&] { loadMeasurements(path); });
    QVERIFY2(contains(msg, dir.path().toStdString() + "/" + expected.toStdString()), msg.c_str());
}

void TestSpeedModels::importCsv()
{
    QTemporaryDir dir;
    const std::string path =
        writeFile(dir, QStringLiteral("m.csv"), "speed,model,workers,ps\n2.5,a,3,1\n0,b,1,2\n");
    const std::vector<SpeedSample> s = readCsvMeasurements(path);
    QCOMPARE(s.size(), size_t(2));
    QCOMPARE(s[0].model, std::string("a"));
    QCOMPARE(s[0].ps, 1);
    QCOMPARE(s[0].workers, 3);
    QCOMPARE(s[0].speed, 2.5);
    QCOMPARE(s[1].line, 3);
    const std::string missing = dir.filePath(QStringLiteral("nope.txt")).toStdString();
    QVERIFY(contains(errorOf([&] { loadMeasurements(missing); }), missing));
    QVERIFY(contains(errorOf([&] { readDl2Measurements(missing); }), missing));
}

void TestSpeedModels::referenceProfiles()
{
    // The fitted profiles (what the measured default replaces the true speed of).
    const ProfileSet ref = ProfileSet::reference(SpeedModelChoice::Fitted);
    QCOMPARE(ref.size(), 8);
    const char *names[] = {"resnet-50",    "vgg-16",  "resnext-110",
                           "inception-bn", "seq2seq", "cnn-text-classification",
                           "dssm",         "wlm"};
    const double steps[] = {115, 115, 390, 120, 780, 193, 349, 165};
    const double fraction[] = {0.30, 0.96, 0.05, 0.54, 0.95, 0.46, 0.33, 0.23};
    for (int i = 0; i < 8; ++i) {
        const ModelProfile &p = ref[i];
        QCOMPARE(p.name, std::string(names[i]));
        QCOMPARE(ref.indexOf(names[i]), std::optional<int>(i));
        QCOMPARE(p.stepsPerEpoch, steps[i]);
        QCOMPARE(p.epochFraction, fraction[i]);
        QCOMPARE(p.workerDemand, (Demand{2, (i == 5 || i == 6) ? 0 : 4}));
        QCOMPARE(p.psDemand, (Demand{2, 0}));
        QVERIFY(p.speed && p.estimate);
        QCOMPARE(p.speed->kind(), std::string("optimus-sync"));
        QVERIFY(p.speed->speed(2, 2) > 0.0);
        QCOMPARE(p.speed->speed(0, 2), 0.0);
        QVERIFY(p.fitRmse > 0.0 && p.fitRmse < 1.0);
    }
    QVERIFY(!ref.indexOf("alexnet"));
    // Text round trip keeps every coefficient.
    const ProfileSet again = ProfileSet::parseText(ref.toText(), "roundtrip");
    QCOMPARE(again.toText(), ref.toText());
    QCOMPARE(again.source(), ref.source());

    // Measured speeds: the true speed becomes the RBF, the estimate stays the fitted model.
    ProfileSet measured = ref;
    std::vector<SpeedSample> samples;
    for (const char *n : names)
        for (int p = 1; p <= 2; ++p)
            samples.push_back(sample(n, p, 1, 3.0 * p));
    measured.useMeasuredSpeeds(samples, "inline");
    QCOMPARE(measured[0].speed->kind(), std::string("rbf"));
    QCOMPARE(measured[0].speed->speed(2, 1), 6.0);
    QCOMPARE(measured[0].estimate->kind(), std::string("optimus-sync"));
    QCOMPARE(ref[0].speed->kind(), std::string("optimus-sync"));
    measured.useEstimatedSpeeds();
    QCOMPARE(measured[0].speed, measured[0].estimate);
    samples.pop_back();
    samples.pop_back();
    QVERIFY(contains(errorOf([&] { ProfileSet(ref).useMeasuredSpeeds(samples, "few.csv"); }),
                     "few.csv: no measurements for model 'wlm'"));
}

void TestSpeedModels::profileTextErrors()
{
    const std::string syntax = errorOf([] {
        ProfileSet::parseText("source: \"x\"\nprofiles {\n  nme: \"a\"\n}\n", "p.textproto");
    });
    QVERIFY2(contains(syntax, "p.textproto:3:"), syntax.c_str());
    const std::string semantic = errorOf([] {
        ProfileSet::parseText("profiles {\n  name: \"a\"\n  steps_per_epoch: -1\n  optimus { "
                              "theta: [1, 1, 1, 1, 1] global_batch: 32 }\n}\n",
                              "q.textproto");
    });
    QVERIFY2(contains(semantic, "q.textproto:3:") && contains(semantic, "steps_per_epoch"),
             semantic.c_str());
    const std::string coefficients = errorOf([] {
        ProfileSet::parseText("profiles {\n  name: \"a\"\n  steps_per_epoch: 10\n  optimus { "
                              "theta: [1, 1] global_batch: 32 }\n}\n",
                              "r.textproto");
    });
    QVERIFY2(contains(coefficients, "r.textproto:4:") && contains(coefficients, "5 coefficients"),
             coefficients.c_str());
    QVERIFY(contains(errorOf([] { ProfileSet::loadText("/nonexistent/profiles.textproto"); }),
                     "/nonexistent/profiles.textproto"));
}

void TestSpeedModels::fitProfilesReport()
{
    const ProfileSet ref = ProfileSet::reference();
    const OptimusSpeedModel truth(OptimusForm::Sync, 32, {0.003, 0.02, 0.01, 0.001, 0.002});
    std::vector<SpeedSample> samples;
    for (int p = 1; p <= 5; ++p)
        for (int w = 1; w <= 5; ++w) {
            SpeedSample s = sample("vgg-16", p, w, truth.speed(p, w));
            s.globalBatch = 32;
            samples.push_back(s);
        }
    samples.push_back(sample("alexnet", 1, 1, 1.0));
    const SpeedFitResult fit = fitProfiles(samples, ref, "inline.csv");
    QCOMPARE(fit.profiles.size(), 8);
    QCOMPARE(fit.rows.size(), size_t(8));
    QVERIFY(fit.rows[1].fitted);
    QVERIFY(!fit.rows[0].fitted);
    QCOMPARE(fit.rows[1].points, 25);
    QVERIFY(fit.rows[1].relRmse < 1e-8);
    QVERIFY(std::abs(fit.profiles[1].speed->speed(3, 4) - truth.speed(3, 4)) <
            1e-9 * truth.speed(3, 4));
    QCOMPARE(fit.profiles[0].speed, ref[0].speed); // unmeasured: kept
    QCOMPARE(fit.ignoredModels, std::vector<std::string>{"alexnet"});
    QCOMPARE(fit.profiles.source(), std::string("inline.csv"));
    const std::string text = fit.toText("dl2 fit-speed inline.csv -o out.textproto");
    QVERIFY(contains(text, "# Model profiles"));
    QVERIFY(contains(fit.report(), "vgg-16"));
    QCOMPARE(ProfileSet::parseText(text, "out").size(), 8);
}

QTEST_GUILESS_MAIN(TestSpeedModels)
#include "tst_speedmodels.moc"
