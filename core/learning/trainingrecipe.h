#pragma once
// How a checkpoint was trained, as its trainer recorded it (TrainingInfo): the options that
// trainer takes, in a fixed order. `dl2 policy show` prints them as its "training" object;
// the console's Training page shows them next to a run's curves, so two runs can be told
// apart from their files. An older file's empty credit, exploration or task credit reads as
// what the default was then (and still is).

#include "checkpoint.h"

#include <QJsonValue>
#include <QString>

#include <utility>
#include <vector>

namespace dl2 {

using RecipeItem = std::pair<QString, QJsonValue>;

// Empty for trainer "init" (a network nobody trained).
std::vector<RecipeItem> trainingRecipe(const TrainingInfo &info);

// `--resume` continues a run with the options of the run that wrote the checkpoint (only
// --steps may grow): throws for any option of the recipe, the scenario or the SL teacher that
// differs, naming each one with the run's value and this one's (`origin`: the file resumed).
void checkResumedRecipe(const TrainingInfo &resumed, const TrainingInfo &now, const std::string &origin);

} // namespace dl2
