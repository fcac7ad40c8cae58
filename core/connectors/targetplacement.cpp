#include "targetplacement.h"

#include "simulator.h"

#include <algorithm>

namespace dl2 {

void placeTargets(SlotContext &ctx, const std::map<int, Allocation> &targets)
{
    for (int index : ctx.activeJobs()) {
        const auto it = targets.find(ctx.job(index).id);
        if (it == targets.end())
            continue;
        const Allocation &a = it->second;
        for (const auto &t : a.tasks) {
            const TaskKind kind = t.role == TaskRole::Ps ? TaskKind::Ps : TaskKind::Worker;
            const int have = kind == TaskKind::Ps ? ctx.job(index).ps : ctx.job(index).workers;
            const int want = kind == TaskKind::Ps ? a.ps : a.workers;
            if (have < want && ctx.addOn(index, kind, t.node) != AddResult::Ok)
                ctx.add(index, kind);
        }
        // Whatever the listed nodes did not cover: bundles, then the rest.
        for (int guard = 0; guard < 2 * (a.ps + a.workers) + 2; ++guard) {
            const JobState &j = ctx.job(index);
            TaskKind kind;
            if (j.ps < a.ps && j.workers < a.workers)
                kind = TaskKind::Bundle;
            else if (j.ps < a.ps)
                kind = TaskKind::Ps;
            else if (j.workers < a.workers)
                kind = TaskKind::Worker;
            else
                break;
            if (ctx.add(index, kind) != AddResult::Ok)
                break;
        }
    }
}

std::vector<PlacementShortfall> placementShortfalls(const ClusterView &view,
                                                    const std::map<int, Allocation> &targets,
                                                    const ProfileSet &profiles)
{
    Cluster cluster(view.nodes, view.nodeCapacity);
    std::vector<JobState> jobs = view.jobs;
    std::vector<int> active;
    for (size_t i = 0; i < jobs.size(); ++i) {
        JobState &j = jobs[i];
        if (j.status == JobStatus::Finished || j.type < 0 || j.type >= profiles.size())
            continue;
        j.workers = j.ps = 0;
        j.tasks.clear();
        j.usage = {0, 0};
        active.push_back(static_cast<int>(i));
    }
    std::stable_sort(active.begin(), active.end(), [&](int a, int b) {
        return jobs[a].arrivalSlot != jobs[b].arrivalSlot
                   ? jobs[a].arrivalSlot < jobs[b].arrivalSlot
                   : jobs[a].id < jobs[b].id;
    });
    SimulationOptions options;
    options.slotSeconds = view.slotSeconds;
    options.maxWorkers = view.maxWorkers;
    options.maxPs = view.maxPs;
    options.placement = view.placement;
    SlotContext context(view.nextSlot, cluster, jobs, active, profiles, options);
    placeTargets(context, targets);
    std::vector<PlacementShortfall> out;
    for (int index : active) {
        const JobState &j = jobs[static_cast<size_t>(index)];
        const auto it = targets.find(j.id);
        if (it == targets.end())
            continue;
        if (j.ps < it->second.ps || j.workers < it->second.workers)
            out.push_back({j.id, it->second, Allocation{{j.ps, j.workers}, j.tasks}});
    }
    return out;
}

} // namespace dl2
