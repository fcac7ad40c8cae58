#pragma once
// Policy files for the console (File > Load policy…, --checkpoint): what a checkpoint file
// or a shipped policy's name holds, and the shipped policies. Reading needs the learning
// library; a console built without it has no learned policies to load.

#include <QList>
#include <QString>

namespace dl2console {

struct PolicyFile
{
    QString kind;       // "dl2" or "dl2-plus"
    QString checkpoint; // the file, or the shipped policy's name, as given
    // dl2: the window's weights were tied throughout its training (SL --tie-window all, or
    // an actor-critic that kept them tied), so an actor-critic from it can keep them tied.
    bool tied = false;
    bool perTypeCounts = false; // dl2: fed per-type count bits (--count-features per-type)
};

// Reads the checkpoint (a file or a shipped policy's name, e.g. dl2-plus-contended); throws
// std::exception whose message names the file and what is wrong.
PolicyFile inspectPolicyFile(const QString &nameOrPath);

struct ShippedPolicyEntry
{
    QString name;
    QString kind;
    QString description; // when it is the default, what it was trained on
};
QList<ShippedPolicyEntry> shippedPolicyEntries();

// How a checkpoint was trained, for a person (the Training page shows it next to a run's
// curves), as rich text: the trainer, kind (dl2 with its window), scenario (and SL's teacher),
// the best validation JCT and its step, then the options the trainer recorded
// (dl2::trainingRecipe, what `dl2 policy show` prints as "training") as "name value" pairs.
// Throws std::exception whose message names the file and what is wrong.
QString describeTraining(const QString &checkpoint);

} // namespace dl2console
