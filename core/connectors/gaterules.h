#pragma once
// Auto-approval rules of a DecisionGate in rules mode, from a small JSON file:
//   { "approve_scale_down": true, "max_task_change": 2, "jobs": [3, 17] }
// A decision is auto-approved when any enabled rule matches it; the rest wait for review.

#include "resizedecision.h"

#include <set>
#include <string>

namespace dl2 {

struct GateRules
{
    bool approveScaleDown = false;
    int maxTaskChange = -1; // changes of at most this many tasks (PSs + workers); -1 = off
    std::set<int> jobs;     // named jobs: always approved

    // The rule that approves `d`, or an empty string.
    std::string match(const ResizeDecision &d) const;
    // Throws dl2::Error naming the file and the field.
    static GateRules load(const std::string &path);
    static GateRules parse(const std::string &json, const std::string &origin);
};

} // namespace dl2
