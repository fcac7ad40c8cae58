#pragma once
// A teacher for the faithful dl2 policy that respects its action space (SL only).
// dl2 sees only a window of the first J unfinished jobs by arrival, leaving out jobs at both
// caps; every other job keeps the one bundle the slot starts with. Imitating Optimus copies
// its allocation for the window jobs only, and the jobs behind the window starve. This
// teacher ("optimus-window-D") takes Optimus's allocation (true speed, as in the reference)
// and walks the jobs in arrival order: a window job whose speed at both caps is at least
// (1 - D/100) of its speed at Optimus's allocation (counting only the epochs it has left) is
// given both caps, which takes it out of the window and lets the next job in; otherwise it
// gets Optimus's allocation and keeps its window position. Jobs behind the window get one
// bundle. Registered as optimus-window-0/-25/-50/-75/-100, and optimus-window-nocap (never
// caps: exactly Optimus restricted to what dl2 can express), by registerWindowTeachers(),
// which SlTrainer calls. The same with best-config as the base (each window job's fastest
// configuration by the true speed, "best-config-window-nocap" / "-D"): a perfect policy within
// dl2's own rules when capacity does not bind, hence the ceiling of the faithful dl2
// (`bench_learning --window-ceiling`) and a better teacher than Optimus where Optimus stops at
// a local optimum of the measured speed surface.

#include "scheduler.h"

#include <memory>
#include <vector>

namespace dl2 {

class WindowTeacher final : public Scheduler
{
public:
    WindowTeacher(int window, double slack, std::string name, const std::string &base);
    std::string name() const override { return m_name; }
    void reset() override { m_base->reset(); }
    void schedule(SlotContext &context) override;
    // Jobs (indices into the slot's jobs) whose cap decision is reversed: capped though the
    // rule would not, or not capped though it would (a search's candidate; bench_learning
    // --window-ceiling --rollout). Empty by default.
    void setFlipped(std::vector<int> jobs) { m_flipped = std::move(jobs); }
    const std::vector<int> &flipped() const { return m_flipped; }

private:
    int m_window;
    double m_slack;
    std::string m_name;
    std::unique_ptr<Scheduler> m_base; // optimus or best-config
    std::vector<int> m_flipped;
};

// Registers the teachers above (window: SchedulerConfig::window, else the scenario's, else 40).
// Idempotent.
void registerWindowTeachers();

} // namespace dl2
