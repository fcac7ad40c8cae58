#pragma once
// Supervised warm-up data (docs/model.md section 6): a Scheduler decorator that runs a teacher
// (drf, fifo, srtf, optimus, ...) on the real slot, reads the allocation it produced, and
// replays it task by task on a copy of the slot in the teacher's order, emitting one
// (state before the action, action) sample per task and a final "stop" sample. A bundle
// becomes two samples (worker, then PS), as in the reference. Order of the replay:
//   order "share": the job with the smallest dominant share next (DRF order), a bundle at a
//   time; "arrival": jobs by arrival, each job's tasks in turn (FIFO); "remaining": by
//   remaining fraction (SRTF); "random": one needed task (worker or PS of any job) at a time,
//   uniformly at random (for set labels: covers the orders an order-free student takes);
//   "random-jobs": each job's tasks in turn as in "arrival", the jobs in a random order (for
//   set labels: every job reaches its count while others still need tasks, the states in
//   which an order-free student must learn to leave a job alone; the other orders bring a
//   job with many tasks to its count only at the end of the slot).
//   "auto" (default) = arrival for fifo, remaining for srtf,
//   share for drf, optimus and others. (Optimus's marginal-gain order is not observable from
//   outside. Replaying it per job in arrival order is imitated with much higher agreement,
//   0.81 vs 0.40 on dl2-small, but gave worse validation JCT on dl2-reference and
//   dl2-contended than the share order, so share is the default.) For dl2 (initial bundles) the forced first bundle of each job is not a sample.
// Tasks on jobs outside the dl2 window cannot be expressed as actions and give no sample.
// Labels "sequence" (default): each sample's target is the teacher's next task (one-hot).
// "wfirst": the same, but a job's PS counts as needed only once it needs no more workers,
// and the replay gives a job one task per turn, workers first (a canonical kind order, the
// job order stays free).
// "set": the target is uniform over every task the teacher's allocation still needs in the
// window (worker / PS of a job with workers / PSs left to add, bundle if both), stop only
// once none is left: the teacher's order among jobs is arbitrary, its allocation is not.
// label(): the same samples on a copy of the slot, leaving the real slot untouched (DAgger:
// the teacher labels a slot state the student visits, and the student acts on the real slot).

#include "experience.h"
#include "scheduler.h"
#include "stateencoder.h"

#include <functional>
#include <utility>
#include <vector>
#include <memory>
#include <string>

namespace dl2 {

class TeacherRecorder final : public Scheduler
{
public:
    TeacherRecorder(std::unique_ptr<Scheduler> teacher, std::string teacherName,
                    const PolicySpec &spec, std::function<void(Sample)> sink,
                    std::string order = "auto", std::string labels = "sequence");
    std::string name() const override { return m_teacher->name(); }
    void reset() override { m_teacher->reset(); }
    void schedule(SlotContext &context) override;
    // Records the teacher's samples for this slot on a copy; `context` is not modified.
    // Returns the teacher's allocation (workers, PSs) per job index of the context.
    std::vector<std::pair<int, int>> label(const SlotContext &context);

private:
    std::unique_ptr<Scheduler> m_teacher;
    std::string m_teacherName;
    PolicySpec m_spec;
    StateEncoder m_encoder;
    std::function<void(Sample)> m_sink;
    std::string m_order;
    bool m_setLabels = false;
    bool m_workersFirst = false;
    Rng m_rng{0x5eed};
};

} // namespace dl2
