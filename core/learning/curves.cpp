#include "curves.h"

#include "dl2policy.h"
#include "fileio.h"
#include "modelprofile.h"
#include "parallel.h"
#include "simulator.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <functional>
#include <sstream>

namespace dl2 {

void writeCurves(const std::string &path, const std::vector<CurvePoint> &curve)
{
    std::ostringstream csv;
    csv << "step,seconds,train_loss,validation_loss,agreement,value_loss,entropy,reward,"
           "validation_avg_jct,worker_share,ps_share,bundle_share,stop_share,workers_per_job,"
           "ps_per_job\n";
    QJsonArray rows;
    for (const auto &p : curve) {
        csv << p.step << ',' << p.seconds << ',' << p.trainLoss << ',' << p.validationLoss << ','
            << p.agreement << ',' << p.valueLoss << ',' << p.entropy << ',' << p.reward << ','
            << p.validationAvgJct << ',' << p.workerShare << ',' << p.psShare << ','
            << p.bundleShare << ',' << p.stopShare << ',' << p.workersPerJob << ',' << p.psPerJob
            << '\n';
        QJsonObject o;
        o[QStringLiteral("step")] = double(p.step);
        o[QStringLiteral("seconds")] = p.seconds;
        o[QStringLiteral("train_loss")] = p.trainLoss;
        o[QStringLiteral("validation_loss")] = p.validationLoss;
        o[QStringLiteral("agreement")] = p.agreement;
        o[QStringLiteral("value_loss")] = p.valueLoss;
        o[QStringLiteral("entropy")] = p.entropy;
        o[QStringLiteral("reward")] = p.reward;
        o[QStringLiteral("validation_avg_jct")] = p.validationAvgJct;
        o[QStringLiteral("worker_share")] = p.workerShare;
        o[QStringLiteral("ps_share")] = p.psShare;
        o[QStringLiteral("bundle_share")] = p.bundleShare;
        o[QStringLiteral("stop_share")] = p.stopShare;
        o[QStringLiteral("workers_per_job")] = p.workersPerJob;
        o[QStringLiteral("ps_per_job")] = p.psPerJob;
        rows.append(o);
    }
    QJsonObject root;
    root[QStringLiteral("curve")] = rows;
    writeFileAtomically(path + ".curves.csv", csv.str());
    writeFileAtomically(path + ".curves.json",
                        QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString());
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
