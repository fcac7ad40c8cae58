#pragma once
// What happened in one slot, in words, for presentation mode and exported replays: the jobs
// that arrived, the jobs that finished, and what the policy changed (jobs started, resized or
// paused compared with the slot before). Built from the slot's snapshot alone.

#include "jobstate.h"
#include "modelprofile.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace dl2console {

struct SlotCaption
{
    struct Item
    {
        int jobId = -1;
        QString text; // "#12 resnet-50", "#7 2 w · 1 ps → 4 w · 2 ps"
    };
    int slot = -1;
    std::vector<Item> arrived;
    std::vector<Item> finished;
    std::vector<Item> changed; // started, resized or paused by the policy

    bool isEmpty() const { return arrived.empty() && finished.empty() && changed.empty(); }
    // One line: "Slot 31 · arrived #45 vgg-16, #46 … · finished #12 · <policy> changed 3: …".
    // At most maxItems per list, then "+N more". Plain text, or HTML with a square in each
    // job's colour (the same colour as in the cluster view) when html is set.
    QString text(const QString &policy, int maxItems = 4, bool html = false,
                 bool darkBackground = false) const;
};

SlotCaption captionFor(const dl2::SlotSnapshot &snapshot, const dl2::ProfileSet &profiles);

} // namespace dl2console
