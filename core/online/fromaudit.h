#pragma once
// Learning from the operators (dl2 train sl --from-audit AUDIT.db): every slot whose state the
// audit log kept (schema 3) becomes supervised samples whose label is the allocation finally
// applied to each job - the policy's proposal where the gate approved it, the operator's
// allocation where it was overridden, the current allocation where it was rejected (by the
// operator or at the review deadline), and the unchanged target where the policy proposed no
// change. The state is rebuilt exactly as the policy planned on it (PolicyPlanner::rebuild on
// the recorded snapshot), and the applied allocation is taught task by task
// in the student's own order (task-level DAgger, see rollIn in fromaudit.cpp). A slot with an
// override counts `overrideWeight` times.
//
// Rejections are not used as negative evidence: a rejection already enters as the positive
// label "keep the current allocation" for that job, which is exactly what the operator chose;
// pushing down the rejected proposal's actions would need a per-action unlikelihood term and
// would also punish the parts of the proposal the operator did not object to (the order of a
// slot's tasks is not observable from its outcome).
// Slots with a decision the backend refused (invalid) or that never closed are left out: what
// ran there is unknown.

#include "curves.h"
#include "modelprofile.h"
#include "policyspec.h"

#include <atomic>
#include <optional>
#include <string>

namespace dl2 {

struct AuditSlOptions
{
    std::string audit;
    std::string init;   // checkpoint to start from (empty: the shipped policy of `kind`)
    std::optional<PolicyKind> kind; // default: the learned policy the log was operated with
    std::optional<ProfileSet> profiles; // to decode the recorded snapshots (default reference)
    long long steps = 300;
    double learningRate = 1e-4;
    int batchSize = 256;
    std::uint64_t seed = 1;
    // Targets at each state of the roll-in: "set" (default: uniform over every task the applied
    // allocation still needs, soft cross-entropy), "multi" (the same set, per-action binary
    // cross-entropy) or "student" (one-hot on the needed task the student ranks highest).
    std::string labels = "set";
    int refresh = 10; // the student's roll-in samples are regenerated every N updates
    int overrideWeight = 4; // an overridden slot's samples count this many times
    std::string output;
    bool saveOptimizer = true;
};

struct AuditSlReport
{
    int slotsWithState = 0;
    int slotsUsed = 0;
    int slotsSkipped = 0; // invalid or unclosed decisions
    // Decisions by what became of them.
    int approved = 0;   // the policy's proposal applied (automatic, rules or operator)
    int overridden = 0; // applied with the operator's allocation
    int rejected = 0;   // kept the current allocation (operator or deadline)
    int unusable = 0;   // invalid / never closed
    int unchangedJobs = 0; // jobs the policy left as they were (no decision)
    long long samples = 0;
    double lossBefore = 0.0;
    double lossAfter = 0.0;
    // Share of the used decisions' jobs whose greedy proposal equals the applied allocation.
    double matchBefore = 0.0;
    double matchAfter = 0.0;
    double overrideMatchBefore = 0.0; // the same, overridden decisions only
    double overrideMatchAfter = 0.0;
    // Mean |PSs - PSs applied| + |workers - workers applied| of the overridden decisions.
    double overrideDistanceBefore = 0.0;
    double overrideDistanceAfter = 0.0;
    std::string checkpoint;
    std::string toText() const;
};

AuditSlReport trainFromAudit(const AuditSlOptions &options, const TrainProgress &progress = {},
                             const std::atomic<bool> *cancel = nullptr);

} // namespace dl2
