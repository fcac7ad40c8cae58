#include "curves.h"

#include "dl2policy.h"
#include "fileio.h"
#include "modelprofile.h"
#include "parallel.h"
#include "simulator.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <functional>
#include <sstream>

namespace dl2 {

namespace {

// Every column of a curve after `step`, in file order: one list for the CSV, the JSON and the
// reader, with the member's default as the value of a missing field.
struct CurveColumn
{
    const char *name;
    double CurvePoint::*member;
};
constexpr CurveColumn kCurveColumns[] = {
    {"seconds", &CurvePoint::seconds},
    {"train_loss", &CurvePoint::trainLoss},
    {"validation_loss", &CurvePoint::validationLoss},
    {"agreement", &CurvePoint::agreement},
    {"value_loss", &CurvePoint::valueLoss},
    {"entropy", &CurvePoint::entropy},
    {"reward", &CurvePoint::reward},
    {"validation_avg_jct", &CurvePoint::validationAvgJct},
    {"worker_share", &CurvePoint::workerShare},
    {"ps_share", &CurvePoint::psShare},
    {"bundle_share", &CurvePoint::bundleShare},
    {"stop_share", &CurvePoint::stopShare},
    {"workers_per_job", &CurvePoint::workersPerJob},
    {"ps_per_job", &CurvePoint::psPerJob},
    {"explored_fraction", &CurvePoint::exploredFraction},
};

} // namespace

void writeCurves(const std::string &path, const std::vector<CurvePoint> &curve)
{
    std::ostringstream csv;
    csv << "step";
    for (const auto &c : kCurveColumns)
        csv << ',' << c.name;
    csv << '\n';
    QJsonArray rows;
    for (const auto &p : curve) {
        csv << p.step;
        QJsonObject o;
        o[QStringLiteral("step")] = double(p.step);
        for (const auto &c : kCurveColumns) {
            csv << ',' << p.*c.member;
            o[QLatin1String(c.name)] = p.*c.member;
        }
        csv << '\n';
        rows.append(o);
    }
    QJsonObject root;
    root[QStringLiteral("curve")] = rows;
    writeFileAtomically(path + ".curves.csv", csv.str());
    writeFileAtomically(path + ".curves.json",
                        QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString());
}

std::vector<CurvePoint> readCurves(const std::string &path)
{
    QFile f(QString::fromStdString(path + ".curves.json"));
    std::vector<CurvePoint> out;
    if (!f.open(QIODevice::ReadOnly))
        return out;
    const QJsonArray rows =
        QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("curve")).toArray();
    for (const auto &v : rows) {
        const QJsonObject o = v.toObject();
        CurvePoint p;
        p.step = static_cast<long long>(o.value(QStringLiteral("step")).toDouble(-1));
        for (const auto &c : kCurveColumns)
            p.*c.member = o.value(QLatin1String(c.name)).toDouble(p.*c.member);
        out.push_back(p);
    }
    return out;
}

void recordCurvePoint(TrainResult &result, const CurvePoint &p, const std::string &checkpointPath,
                      const std::function<void()> &saveBest, const TrainProgress &progress,
                      long long totalSteps)
{
    result.curve.push_back(p);
    if (p.validationAvgJct >= 0) {
        if (result.bestValidationAvgJct < 0 || p.validationAvgJct < result.bestValidationAvgJct) {
            result.bestValidationAvgJct = p.validationAvgJct;
            result.bestStep = p.step;
            saveBest();
        }
        if (!checkpointPath.empty())
            writeCurves(checkpointPath, result.curve);
    }
    if (progress)
        progress(p.step, totalSteps, p);
}

namespace {

double runParallel(const std::vector<std::uint64_t> &seeds, int threads,
                   const std::function<double(std::uint64_t)> &one)
{
    if (seeds.empty())
        return 0.0;
    std::vector<double> out(seeds.size(), 0.0);
    parallelFor(static_cast<int>(seeds.size()), std::max(1, threads),
                [&](int i) { out[static_cast<size_t>(i)] = one(seeds[static_cast<size_t>(i)]); });
    double sum = 0.0;
    for (double v : out)
        sum += v;
    return sum / double(out.size());
}

} // namespace

double evaluatePolicy(const Scenario &scenario, const PolicySpec &spec,
                      std::shared_ptr<const ParameterSet> parameters,
                      const std::vector<std::uint64_t> &seeds, int threads)
{
    return evaluatePolicy(scenario, ProfileSet::reference(), spec, std::move(parameters), seeds,
                          threads);
}

double evaluatePolicy(const Scenario &scenario, const ProfileSet &profiles, const PolicySpec &spec,
                      std::shared_ptr<const ParameterSet> parameters,
                      const std::vector<std::uint64_t> &seeds, int threads)
{
    return runParallel(seeds, threads, [&](std::uint64_t seed) {
        Simulator sim(scenario.cluster, profiles, scenario.trace(profiles, seed), scenario.simulation);
        Dl2Policy policy(spec, parameters, seed);
        return runSimulation(sim, policy).avgJct;
    });
}

double evaluateScheduler(const Scenario &scenario, const std::string &name,
                         const std::vector<std::uint64_t> &seeds, int threads)
{
    return evaluateScheduler(scenario, ProfileSet::reference(), name, seeds, threads);
}

double evaluateScheduler(const Scenario &scenario, const ProfileSet &profiles,
                         const std::string &name, const std::vector<std::uint64_t> &seeds,
                         int threads)
{
    return runParallel(seeds, threads, [&](std::uint64_t seed) {
        Simulator sim(scenario.cluster, profiles, scenario.trace(profiles, seed), scenario.simulation);
        SchedulerConfig config;
        config.scenario = scenario.name;
        config.window = scenario.window;
        config.seed = seed;
        auto s = makeScheduler(name, config);
        return runSimulation(sim, *s).avgJct;
    });
}

std::vector<std::uint64_t> seedRange(std::uint64_t first, std::uint64_t last)
{
    std::vector<std::uint64_t> s;
    for (auto i = first; i <= last; ++i)
        s.push_back(i);
    return s;
}

} // namespace dl2
