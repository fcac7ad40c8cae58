#include "teacherrecorder.h"

#include "error.h"

#include <algorithm>

namespace dl2 {

TeacherRecorder::TeacherRecorder(std::unique_ptr<Scheduler> teacher, std::string teacherName,
                                 const PolicySpec &spec, std::function<void(Sample)> sink,
                                 std::string order, std::string labels)
    : m_teacher(std::move(teacher)), m_teacherName(std::move(teacherName)), m_spec(spec),
      m_encoder(spec), m_sink(std::move(sink)), m_order(std::move(order)),
      m_setLabels(labels == "set" || labels == "wfirst"), m_workersFirst(labels == "wfirst")
{
    if (labels != "sequence" && labels != "set" && labels != "wfirst")
        throw Error("unknown teacher labels '" + labels + "' (known: sequence, set, wfirst)");
    if (m_order == "auto")
        m_order = m_teacherName == "srtf" ? "remaining" : m_teacherName == "fifo" ? "arrival" : "share";
    if (m_order != "share" && m_order != "arrival" && m_order != "remaining" && m_order != "random" &&
        m_order != "random-jobs")
        throw Error("unknown teacher order '" + m_order + "' (known: auto, share, arrival, remaining, random, random-jobs)");
}

std::vector<std::pair<int, int>> TeacherRecorder::label(const SlotContext &ctx)
{
    Cluster cluster = ctx.cluster();
    std::vector<JobState> jobs = ctx.jobs();
    SlotContext copy(ctx.slot(), cluster, jobs, ctx.activeJobs(), ctx.profiles(), ctx.options());
    schedule(copy);
    std::vector<std::pair<int, int>> out(jobs.size(), {0, 0});
    for (int i : ctx.activeJobs())
        out[size_t(i)] = {copy.job(i).workers, copy.job(i).ps};
    return out;
}

void TeacherRecorder::schedule(SlotContext &ctx)
{
    Cluster cluster = ctx.cluster();
    std::vector<JobState> jobs = ctx.jobs();
    m_teacher->schedule(ctx);

    const std::vector<int> &active = ctx.activeJobs();
    std::vector<int> remW(jobs.size(), 0), remP(jobs.size(), 0);
    for (int i : active) {
        remW[size_t(i)] = ctx.job(i).workers;
        remP[size_t(i)] = ctx.job(i).ps;
    }
    SlotContext shadow(ctx.slot(), cluster, jobs, active, ctx.profiles(), ctx.options());
    if (m_spec.initialBundles)
        for (int i : active)
            if (remW[size_t(i)] > 0 && remP[size_t(i)] > 0 &&
                shadow.add(i, TaskKind::Bundle, PlacementRule::FirstFit) == AddResult::Ok) {
                --remW[size_t(i)];
                --remP[size_t(i)];
            }

    EncodedState state;
    m_encoder.encode(shadow, state);
    auto emit = [&](int job, TaskKind kind) {
        const auto it = std::find(state.jobIndex.begin(), state.jobIndex.end(), job);
        if (it != state.jobIndex.end()) {
            const int action = 3 * int(it - state.jobIndex.begin()) + int(kind);
            if (state.mask[size_t(action)]) {
                Sample x = Sample::fromState(state, action);
                if (m_setLabels) {
                    x.target.assign(size_t(state.actionCount()), 0.0f);
                    float total = 0.0f;
                    for (int r = 0; r < state.rows; ++r) {
                        const int i = state.jobIndex[size_t(r)];
                        if (i < 0)
                            continue;
                        const bool w = remW[size_t(i)] > 0, p = remP[size_t(i)] > 0;
                        // wfirst: a job's workers before its PSs, no bundles.
                        const bool flags[3] = {w, m_workersFirst ? p && !w : p,
                                               !m_workersFirst && w && p};
                        for (int k = 0; k < 3; ++k)
                            if (flags[k] && state.mask[size_t(3 * r + k)]) {
                                x.target[size_t(3 * r + k)] = 1.0f;
                                total += 1.0f;
                            }
                    }
                    for (auto &t : x.target)
                        t /= total; // total >= 1: `action` itself is counted
                }
                m_sink(std::move(x));
            }
        }
        if (shadow.add(job, kind, PlacementRule::FirstFit) != AddResult::Ok)
            return false;
        m_encoder.update(shadow, job, state);
        return true;
    };

    const bool byArrival = m_order == "arrival" || m_order == "random-jobs";
    const bool byRemaining = m_order == "remaining";
    std::vector<int> order(active);
    if (m_order == "random-jobs") // then each job's tasks in turn
        m_rng.shuffle(order.begin(), order.end());
    if (byRemaining)
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return jobs[size_t(a)].remainingFraction() < jobs[size_t(b)].remainingFraction();
        });
    if (m_order == "random") {
        // One needed task at a time, uniformly at random (worker or PS of a job with some
        // left): the states any order-free student may pass through.
        std::vector<std::pair<int, TaskKind>> todo;
        for (;;) {
            todo.clear();
            for (int i : order) {
                if (remW[size_t(i)] > 0)
                    todo.emplace_back(i, TaskKind::Worker);
                if (remP[size_t(i)] > 0)
                    todo.emplace_back(i, TaskKind::Ps);
            }
            if (todo.empty())
                break;
            const auto [job, kind] = todo[size_t(m_rng.below(todo.size()))];
            const bool ok = emit(job, kind);
            --(kind == TaskKind::Worker ? remW : remP)[size_t(job)];
            if (!ok)
                break;
        }
    }
    for (; m_order != "random";) {
        int job = -1;
        if (byArrival || byRemaining) {
            for (int i : order)
                if (remW[size_t(i)] > 0 || remP[size_t(i)] > 0) {
                    job = i;
                    break;
                }
        } else {
            double best = 2.0;
            for (int i : order)
                if ((remW[size_t(i)] > 0 || remP[size_t(i)] > 0) && shadow.dominantShare(i) < best) {
                    best = shadow.dominantShare(i);
                    job = i;
                }
        }
        if (job < 0)
            break;
        bool ok = true;
        const bool workerTurn = remW[size_t(job)] > 0;
        if (workerTurn) {
            ok = emit(job, TaskKind::Worker);
            --remW[size_t(job)];
        }
        if (ok && remP[size_t(job)] > 0 && !(m_workersFirst && workerTurn)) {
            ok = emit(job, TaskKind::Ps);
            --remP[size_t(job)];
        }
        if (!ok)
            break;
    }
    if (state.validActions() > 1)
        m_sink(Sample::fromState(state, state.stopAction()));
}

} // namespace dl2
