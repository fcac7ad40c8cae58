#include "experiment.h"

#include "error.h"
#include "parallel.h"

#include <algorithm>
#include <cmath>
#include <mutex>

namespace dl2 {

ExperimentResult runExperiment(const ExperimentSetup &setup, const ProgressCallback &progress,
                               const std::atomic<bool> *cancel)
{
    if (setup.policies.empty())
        throw Error("no policies to run");
    if (setup.traces.empty())
        throw Error("no traces to run");
    // Fail on an unknown policy, a bad checkpoint or a bad trace before running anything.
    for (const auto &p : setup.policies)
        makeScheduler(p, setup.configFor(p));
    for (const auto &t : setup.traces)
        Simulator(setup.cluster, setup.profiles, t, setup.simulation);

    const int total = static_cast<int>(setup.policies.size() * setup.traces.size());
    ExperimentResult result;
    result.runs.resize(static_cast<size_t>(total));
    std::atomic<int> done{0};
    std::mutex progressMutex;
    parallelFor(total, setup.threads, [&](int k) {
        const size_t policy = static_cast<size_t>(k) / setup.traces.size();
        const size_t trace = static_cast<size_t>(k) % setup.traces.size();
        SchedulerConfig config = setup.configFor(setup.policies[policy]);
        auto scheduler = makeScheduler(setup.policies[policy], config);
        Simulator sim(setup.cluster, setup.profiles, setup.traces[trace], setup.simulation);
        ExperimentRun &run = result.runs[static_cast<size_t>(k)];
        run.policy = setup.policies[policy];
        run.seed = trace < setup.seeds.size() ? setup.seeds[trace] : 0;
        run.result = runSimulation(sim, *scheduler);
        run.result.policy = run.policy;
        const int d = done.fetch_add(1) + 1;
        if (progress) {
            std::lock_guard lock(progressMutex);
            progress(d, total);
        }
    }, cancel);
    if (cancel && cancel->load() && done.load() < total) {
        result.cancelled = true;
        result.runs.erase(std::remove_if(result.runs.begin(), result.runs.end(),
                                         [](const ExperimentRun &r) { return r.policy.empty(); }),
                          result.runs.end());
    }
    result.summary = summarise(result.runs, setup.policies);
    return result;
}

std::vector<ModelBreakdown> breakdownByModel(const ExperimentSetup &setup,
                                             const ExperimentResult &result)
{
    const size_t traces = setup.traces.size(), policies = setup.policies.size();
    if (result.cancelled || result.runs.size() != traces * policies)
        throw Error("a breakdown by model needs every run of the experiment (it was cancelled)");
    std::map<std::string, ModelBreakdown> byModel;
    size_t allJobs = 0;
    for (size_t t = 0; t < traces; ++t) {
        const Trace &trace = setup.traces[t];
        const std::vector<double> bounds =
            lowerBoundJcts(setup.cluster, setup.profiles, trace, setup.simulation);
        allJobs += trace.jobs.size();
        for (size_t j = 0; j < trace.jobs.size(); ++j) {
            ModelBreakdown &m = byModel[trace.jobs[j].model];
            m.model = trace.jobs[j].model;
            ++m.jobs;
            m.lowerBound += bounds[j];
            m.meanJct.resize(policies);
            for (size_t p = 0; p < policies; ++p) {
                const RunResult &r = result.runs[p * traces + t].result; // policy-major
                if (r.truncated || j >= r.jcts.size() || r.jcts[j] < 0)
                    throw Error("a breakdown by model needs runs in which every job finished (" +
                                setup.policies[p] + " on " + r.traceName + " stopped early)");
                m.meanJct[p] += r.jcts[j];
            }
        }
    }
    std::vector<ModelBreakdown> out;
    for (auto &[name, m] : byModel) {
        m.part.resize(policies);
        for (size_t p = 0; p < policies; ++p) {
            m.part[p] = m.meanJct[p] / double(allJobs);
            m.meanJct[p] /= m.jobs;
        }
        m.lowerBound /= m.jobs;
        out.push_back(std::move(m));
    }
    return out;
}

ModelBreakdown allModels(const std::vector<ModelBreakdown> &models)
{
    ModelBreakdown all;
    all.model = "all";
    for (const auto &m : models) {
        all.jobs += m.jobs;
        all.lowerBound += m.lowerBound * m.jobs;
        all.part.resize(m.part.size());
        for (size_t p = 0; p < m.part.size(); ++p)
            all.part[p] += m.part[p];
    }
    if (all.jobs > 0)
        all.lowerBound /= all.jobs;
    all.meanJct = all.part;
    return all;
}

std::vector<PolicySummary> summarise(const std::vector<ExperimentRun> &runs,
                                     const std::vector<std::string> &policies)
{
    std::vector<PolicySummary> out;
    for (const auto &policy : policies) {
        PolicySummary s;
        s.policy = policy;
        std::vector<double> jcts;
        double ratioLb = 0.0;
        for (const auto &r : runs) {
            if (r.policy != policy)
                continue;
            jcts.push_back(r.result.avgJct);
            s.meanMakespan += r.result.makespan;
            s.meanAvgReward += r.result.avgReward;
            s.meanLowerBound += r.result.lowerBoundAvgJct;
            s.meanCompleted += r.result.completed;
            if (r.result.lowerBoundAvgJct > 0)
                ratioLb += r.result.avgJct / r.result.lowerBoundAvgJct;
        }
        s.runs = static_cast<int>(jcts.size());
        if (s.runs > 0) {
            const double n = s.runs;
            double sum = 0.0;
            for (double v : jcts)
                sum += v;
            s.meanAvgJct = sum / n;
            double var = 0.0;
            for (double v : jcts)
                var += (v - s.meanAvgJct) * (v - s.meanAvgJct);
            s.stdAvgJct = s.runs > 1 ? std::sqrt(var / (n - 1)) : 0.0;
            s.minAvgJct = *std::min_element(jcts.begin(), jcts.end());
            s.maxAvgJct = *std::max_element(jcts.begin(), jcts.end());
            s.meanMakespan /= n;
            s.meanAvgReward /= n;
            s.meanLowerBound /= n;
            s.meanCompleted /= n;
            s.ratioToLowerBound = ratioLb / n;
        }
        out.push_back(s);
    }
    auto drf = std::find_if(out.begin(), out.end(), [](const PolicySummary &s) { return s.policy == "drf"; });
    if (drf != out.end() && drf->meanAvgJct > 0)
        for (auto &s : out)
            s.ratioToDrf = s.meanAvgJct / drf->meanAvgJct;
    return out;
}

} // namespace dl2
