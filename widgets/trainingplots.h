#pragma once
// The training page's four charts, drawn from a TrainingCurvesModel over updates (x = step):
// validation JCT with baseline reference lines, policy entropy, the losses, and the action mix
// stacked (with workers per job). `xMax` fixes the x range (e.g. the steps a running training
// will reach), so curves grow into the chart instead of rescaling it.

#include "trainingcurvesmodel.h"

#include <QString>
#include <QVector>

namespace dl2console {

class Plot;

using TrainingReferences = QVector<TrainingCurvesModel::Reference>;

// A second run drawn beside the first, e.g. its shuffled-advantage control.
struct ComparedCurves
{
    const TrainingCurvesModel *model = nullptr; // none: nothing compared
    QString name;                               // its legend entry
};

// `compared`'s validation JCT is drawn dashed beside the run's.
void plotValidationJct(Plot *p, const TrainingCurvesModel &m, const TrainingReferences &references,
                       double xMax, const ComparedCurves &compared = {});
void plotEntropy(Plot *p, const TrainingCurvesModel &m, double xMax);
// RL: the critic's value loss; SL: training and validation cross-entropy.
void plotLosses(Plot *p, const TrainingCurvesModel &m, double xMax);
// Columns *_share stacked (worker, PS, bundle, stop first), workers_per_job on the right axis.
void plotActionMix(Plot *p, const TrainingCurvesModel &m, double xMax);
// One line of rich text: start, best and last validation JCT, and the best against each
// reference ("" when nothing was measured); a second line for `compared`: its start, best and
// last, and the run's best against its best.
QString trainingSummary(const TrainingCurvesModel &m, const TrainingReferences &references,
                        const ComparedCurves &compared = {});
// The share columns of `m` in stacking order.
QStringList actionShareColumns(const TrainingCurvesModel &m);

} // namespace dl2console
