#pragma once
// The comparison page's charts, drawn from a finished dl2::ExperimentResult: average JCT per
// policy with spread and lower bound, JCT CDFs, and per policy over time: mean GPU
// utilisation, reward and completed jobs.

#include "experiment.h"

namespace dl2console {

class Plot;

void plotAverageJct(Plot *plot, const dl2::ExperimentResult &result);
void plotJctCdf(Plot *plot, const dl2::ExperimentResult &result);
void plotUtilisationOverTime(Plot *plot, const dl2::ExperimentResult &result);
// Reward per slot, mean over each policy's runs (a run that ended adds 0 from then on).
void plotRewardOverTime(Plot *plot, const dl2::ExperimentResult &result);
// Jobs completed by the end of each slot, mean over each policy's runs. arrivals[t] holds the
// arrival slots of trace t (trace order), runs[i] ran trace i % arrivals.size().
void plotCompletedOverTime(Plot *plot, const dl2::ExperimentResult &result,
                           const std::vector<std::vector<int>> &arrivals);
// The same counts as plotted: per policy (summary order), per slot.
std::vector<std::vector<double>> meanCompletedOverTime(
    const dl2::ExperimentResult &result, const std::vector<std::vector<int>> &arrivals);

} // namespace dl2console
