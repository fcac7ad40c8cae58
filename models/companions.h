#pragma once
// The console's companion executables (dl2-train for training and online learning, dl2):
// found next to the console (an installation), in ../cli (a build tree), or on PATH.

#include <QString>
#include <QStringList>

namespace dl2console {

// The console's own directory and ../cli beside it.
QStringList companionDirectories();
// The executable `name` in the first of `directories` that has it, else on PATH when
// `searchPath`; empty if none.
QString findCompanion(const QString &name, const QStringList &directories = companionDirectories(),
                      bool searchPath = true);

} // namespace dl2console
