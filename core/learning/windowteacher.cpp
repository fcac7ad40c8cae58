#include "windowteacher.h"

#include "scenario.h"

#include <algorithm>

namespace dl2 {

WindowTeacher::WindowTeacher(int window, double slack, std::string name, const std::string &base)
    : m_window(window), m_slack(slack), m_name(std::move(name)), m_base(makeScheduler(base))
{
}

void WindowTeacher::schedule(SlotContext &ctx)
{
    // The base scheduler's allocation (Optimus or best-config), on a copy of the slot.
    Cluster cluster = ctx.cluster();
    std::vector<JobState> jobs = ctx.jobs();
    SlotContext copy(ctx.slot(), cluster, jobs, ctx.activeJobs(), ctx.profiles(), ctx.options());
    m_base->schedule(copy);

    const int maxW = ctx.maxWorkers(), maxP = ctx.maxPs();
    std::vector<int> wantW(ctx.jobs().size(), 0), wantP(ctx.jobs().size(), 0);
    int inWindow = 0;
    ctx.limitView();
    for (int i : ctx.activeJobs()) {
        int w = std::max(1, jobs[size_t(i)].workers), p = std::max(1, jobs[size_t(i)].ps);
        if (inWindow >= m_window) {
            w = p = 1;
        } else {
            ctx.markInView(i);
            const double left = ctx.job(i).remainingEpochs();
            const double atBase = std::min(left, ctx.epochsPerSlot(i, p, w));
            const double atCaps = std::min(left, ctx.epochsPerSlot(i, maxP, maxW));
            bool cap = atCaps > 0.0 && atCaps >= (1.0 - m_slack) * atBase;
            if (std::find(m_flipped.begin(), m_flipped.end(), i) != m_flipped.end())
                cap = !cap && atCaps > 0.0;
            if (cap) {
                w = maxW;
                p = maxP;
            } else {
                ++inWindow;
            }
        }
        wantW[size_t(i)] = w;
        wantP[size_t(i)] = p;
    }
    // One bundle each (as dl2 starts the slot), then each job's remaining tasks in turn.
    for (int i : ctx.activeJobs())
        if (ctx.add(i, TaskKind::Bundle) != AddResult::Ok)
            return;
    for (int i : ctx.activeJobs()) {
        while (ctx.job(i).workers < wantW[size_t(i)] && ctx.job(i).ps < wantP[size_t(i)])
            if (ctx.add(i, TaskKind::Bundle) != AddResult::Ok)
                return;
        while (ctx.job(i).workers < wantW[size_t(i)])
            if (ctx.add(i, TaskKind::Worker) != AddResult::Ok)
                return;
        while (ctx.job(i).ps < wantP[size_t(i)])
            if (ctx.add(i, TaskKind::Ps) != AddResult::Ok)
                return;
    }
}

void registerWindowTeachers()
{
    if (isScheduler("optimus-window-50"))
        return;
    registerBaselines();
    for (const std::string base : {"optimus", "best-config"}) {
        for (int d : {-1, 0, 25, 50, 75, 100}) {
            // -1: "<base>-window-nocap", never caps (the base restricted to the window).
            const std::string name =
                base + (d < 0 ? std::string("-window-nocap") : "-window-" + std::to_string(d));
            registerScheduler(
                {name,
                 "SL teacher for dl2: " + base +
                     "'s allocation within dl2's window, jobs capped when cheap (see "
                     "windowteacher.h)",
                 [name, d, base](const SchedulerConfig &config) -> std::unique_ptr<Scheduler> {
                     int window = config.window;
                     if (window <= 0)
                         window = config.scenario.empty() ? 40 : scenarioByName(config.scenario).window;
                     return std::make_unique<WindowTeacher>(window, d < 0 ? -1e9 : d / 100.0,
                                                            name, base);
                 }});
        }
    }
}

} // namespace dl2
