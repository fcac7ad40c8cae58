#include "teacherrecorder.h"

#include "error.h"

#include <algorithm>

namespace dl2 {

TeacherRecorder::TeacherRecorder(std::unique_ptr<Scheduler> teacher, std::string teacherName,
                                 const PolicySpec &spec, std::function<void(Sample)> sink,
                                 std::string order)
    : m_teacher(std::move(teacher)), m_teacherName(std::move(teacherName)), m_spec(spec),
      m_encoder(spec), m_sink(std::move(sink)), m_order(std::move(order))
{
    if (m_order == "auto")
        m_order = m_teacherName == "srtf" ? "remaining" : m_teacherName == "fifo" ? "arrival" : "share";
    if (m_order != "share" && m_order != "arrival" && m_order != "remaining")
        throw Error("unknown teacher order '" + m_order + "' (known: auto, share, arrival, remaining)");
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
            if (state.mask[size_t(action)])
                m_sink(Sample::fromState(state, action));
        }
        if (shadow.add(job, kind, PlacementRule::FirstFit) != AddResult::Ok)
            return false;
        m_encoder.update(shadow, job, state);
        return true;
    };

    const bool byArrival = m_order == "arrival";
    const bool byRemaining = m_order == "remaining";
    std::vector<int> order(active);
    if (byRemaining)
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
            return jobs[size_t(a)].remainingFraction() < jobs[size_t(b)].remainingFraction();
        });
    for (;;) {
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
        if (remW[size_t(job)] > 0) {
            ok = emit(job, TaskKind::Worker);
            --remW[size_t(job)];
        }
        if (ok && remP[size_t(job)] > 0) {
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
