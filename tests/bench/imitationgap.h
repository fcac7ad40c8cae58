#pragma once
// bench_learning --imitation-gap: where a faithful dl2 student's decisions cost JCT against the
// teacher it was taught by (imitationgap.cpp).

#include <QJsonObject>

#include <string>

// `checkpoint`: a dl2 policy (file or shipped name); its window J sets the teacher's
// (best-config-window-25 with the same J). Validation seeds 100-109, greedy. Throws on a
// checkpoint that is not dl2.
QJsonObject imitationGap(const std::string &checkpoint);
