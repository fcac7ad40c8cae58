#pragma once
// The comparison page's charts, drawn from a finished dl2::ExperimentResult: average JCT per
// policy with spread and lower bound, JCT CDFs, and mean GPU utilisation over time.

#include "experiment.h"

namespace dl2console {

class Plot;

void plotAverageJct(Plot *plot, const dl2::ExperimentResult &result);
void plotJctCdf(Plot *plot, const dl2::ExperimentResult &result);
void plotUtilisationOverTime(Plot *plot, const dl2::ExperimentResult &result);

} // namespace dl2console
