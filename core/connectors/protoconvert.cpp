#include "protoconvert.h"

#include "error.h"

#include <algorithm>

namespace dl2::agentproto {

namespace pb = agent::v1;

void fill(pb::Allocation &out, const Allocation &in)
{
    out.set_ps(in.ps);
    out.set_workers(in.workers);
    out.clear_tasks();
    for (const auto &t : in.tasks) {
        auto *task = out.add_tasks();
        task->set_node(t.node);
        task->set_role(t.role == TaskRole::Ps ? pb::TaskPlacement::PS : pb::TaskPlacement::WORKER);
    }
}

Allocation toAllocation(const pb::Allocation &in)
{
    Allocation a;
    a.ps = in.ps();
    a.workers = in.workers();
    for (const auto &t : in.tasks())
        a.tasks.push_back(
            {t.node(), t.role() == pb::TaskPlacement::PS ? TaskRole::Ps : TaskRole::Worker});
    return a;
}

void fill(pb::ResizeDecision &out, const ResizeDecision &in)
{
    out.set_id(in.id);
    out.set_job(in.job);
    out.set_slot(in.slot);
    fill(*out.mutable_from(), in.from);
    fill(*out.mutable_to(), in.to);
    out.set_speed_before(in.speedBefore);
    out.set_speed_after(in.speedAfter);
    if (in.probability)
        out.set_probability(*in.probability);
    if (in.value)
        out.set_value(*in.value);
}

ResizeDecision toDecision(const pb::ResizeDecision &in)
{
    ResizeDecision d;
    d.id = in.id();
    d.job = in.job();
    d.slot = in.slot();
    d.from = toAllocation(in.from());
    d.to = toAllocation(in.to());
    d.speedBefore = in.speed_before();
    d.speedAfter = in.speed_after();
    if (in.has_probability())
        d.probability = in.probability();
    if (in.has_value())
        d.value = in.value();
    return d;
}

namespace {

void fillJob(pb::Job &job, const JobState &j, const Allocation *target, const ProfileSet &profiles)
{
    job.set_id(j.id);
    job.set_model(j.type >= 0 && j.type < profiles.size() ? profiles[j.type].name : std::string());
    job.set_arrival_slot(j.arrivalSlot);
    job.set_total_epochs(j.estimatedEpochs);
    job.set_done_epochs(j.doneEpochs);
    job.set_status(static_cast<pb::Job::Status>(static_cast<int>(j.status)));
    fill(*job.mutable_current(), Allocation{{j.ps, j.workers}, j.tasks});
    if (target)
        fill(*job.mutable_target(), *target);
    job.set_finish_time(j.finishTime);
    job.set_speed(j.speed);
    job.set_epochs_this_slot(j.epochsThisSlot);
}

JobState toJob(const pb::Job &job, const ProfileSet &profiles)
{
    JobState j;
    j.id = job.id();
    const auto type = profiles.indexOf(job.model());
    if (!type)
        throw Error("agent reports job " + std::to_string(j.id) + " with unknown model '" +
                    job.model() + "'");
    j.type = *type;
    j.arrivalSlot = job.arrival_slot();
    j.totalEpochs = j.estimatedEpochs = job.total_epochs();
    if (job.true_total_epochs() > 0)
        j.totalEpochs = job.true_total_epochs();
    j.doneEpochs = job.done_epochs();
    j.status = static_cast<JobStatus>(std::clamp(static_cast<int>(job.status()), 0, 3));
    const Allocation cur = toAllocation(job.current());
    j.ps = cur.ps;
    j.workers = cur.workers;
    j.tasks = cur.tasks;
    for (const TaskPlacement &t : j.tasks) {
        const ModelProfile &p = profiles[j.type];
        j.usage = j.usage + (t.role == TaskRole::Ps ? p.psDemand : p.workerDemand);
    }
    j.finishTime = job.finish_time();
    j.speed = job.speed();
    j.epochsThisSlot = job.epochs_this_slot();
    return j;
}

} // namespace

void fill(pb::Snapshot &out, const ClusterView &in, const ProfileSet &profiles)
{
    out.set_scenario(in.scenario);
    out.set_next_slot(in.nextSlot);
    out.set_done(in.done);
    out.set_nodes(in.nodes);
    out.set_node_cpu(in.nodeCapacity[0]);
    out.set_node_gpu(in.nodeCapacity[1]);
    out.set_slot_seconds(in.slotSeconds);
    out.set_max_workers(in.maxWorkers);
    out.set_max_ps(in.maxPs);
    out.set_finished(in.finished);
    out.set_total_jobs(in.totalJobs);
    out.set_reward(in.reward);
    out.set_cumulative_reward(in.cumulativeReward);
    for (int id : in.arrivals)
        out.add_arrivals(id);
    for (int id : in.completions)
        out.add_completions(id);
    out.set_placement(in.placement == PlacementRule::FirstFit ? pb::Snapshot::FIRST_FIT
                                                              : pb::Snapshot::LEAST_LOADED);
    for (size_t i = 0; i < in.jobs.size(); ++i)
        fillJob(*out.add_jobs(), in.jobs[i], i < in.targets.size() ? &in.targets[i] : nullptr,
                profiles);
}

ClusterView toView(const pb::Snapshot &in, const ProfileSet &profiles)
{
    ClusterView v;
    v.scenario = in.scenario();
    v.nextSlot = in.next_slot();
    v.done = in.done();
    v.nodes = in.nodes();
    v.nodeCapacity = {in.node_cpu(), in.node_gpu()};
    v.slotSeconds = in.slot_seconds();
    v.maxWorkers = in.max_workers();
    v.maxPs = in.max_ps();
    v.finished = in.finished();
    v.totalJobs = in.total_jobs();
    v.reward = in.reward();
    v.cumulativeReward = in.cumulative_reward();
    v.arrivals.assign(in.arrivals().begin(), in.arrivals().end());
    v.completions.assign(in.completions().begin(), in.completions().end());
    v.placement = in.placement() == pb::Snapshot::FIRST_FIT ? PlacementRule::FirstFit
                                                            : PlacementRule::LeastLoaded;
    if (v.nodes < 0 || v.nodes > 1'000'000 || v.maxWorkers <= 0 || v.maxPs <= 0 ||
        !(v.slotSeconds > 0))
        throw Error("agent sent a malformed snapshot (nodes " + std::to_string(v.nodes) + ")");
    for (const auto &job : in.jobs()) {
        v.jobs.push_back(toJob(job, profiles));
        v.targets.push_back(toAllocation(job.target()));
    }
    return v;
}

void fill(pb::SlotRecord &out, const SlotRecord &in, const ProfileSet &profiles)
{
    out.set_slot(in.slot);
    out.set_reward(in.reward);
    out.set_cumulative_reward(in.cumulativeReward);
    out.set_cpu_utilisation(in.utilisation[0]);
    out.set_gpu_utilisation(in.utilisation[1]);
    for (int id : in.arrivals)
        out.add_arrivals(id);
    for (int id : in.completions)
        out.add_completions(id);
    for (const JobState &j : in.jobs)
        fillJob(*out.add_jobs(), j, nullptr, profiles);
    for (const ResizeDecision &d : in.applied)
        fill(*out.add_applied(), d);
}

SlotRecord toSlotRecord(const pb::SlotRecord &in, const ProfileSet &profiles)
{
    SlotRecord r;
    r.slot = in.slot();
    r.reward = in.reward();
    r.cumulativeReward = in.cumulative_reward();
    r.utilisation = {in.cpu_utilisation(), in.gpu_utilisation()};
    r.arrivals.assign(in.arrivals().begin(), in.arrivals().end());
    r.completions.assign(in.completions().begin(), in.completions().end());
    r.jobs.reserve(static_cast<size_t>(in.jobs_size()));
    for (const auto &job : in.jobs())
        r.jobs.push_back(toJob(job, profiles));
    for (const auto &d : in.applied())
        r.applied.push_back(toDecision(d));
    return r;
}

void fill(pb::Ack &out, const Acknowledgment &in)
{
    out.set_decision_id(in.decisionId);
    out.set_status(static_cast<pb::Ack::Status>(static_cast<int>(in.status)));
    out.set_message(in.message);
    out.set_applied_at_slot(in.appliedAtSlot);
}

Acknowledgment toAck(const pb::Ack &in)
{
    Acknowledgment a;
    a.decisionId = in.decision_id();
    a.status = static_cast<Acknowledgment::Status>(std::clamp(static_cast<int>(in.status()), 0, 2));
    a.message = in.message();
    a.appliedAtSlot = in.applied_at_slot();
    return a;
}

void fill(pb::Event &out, const ClusterEvent &in)
{
    out.set_seq(in.seq);
    out.set_slot(in.slot);
    out.set_kind(static_cast<pb::Event::Kind>(static_cast<int>(in.kind)));
    out.set_job(in.job);
    out.set_done_epochs(in.doneEpochs);
    out.set_total_epochs(in.totalEpochs);
    out.set_decision_id(in.decisionId);
}

ClusterEvent toEvent(const pb::Event &in)
{
    ClusterEvent e;
    e.seq = in.seq();
    e.slot = in.slot();
    e.kind = static_cast<ClusterEvent::Kind>(std::clamp(static_cast<int>(in.kind()), 0, 3));
    e.job = in.job();
    e.doneEpochs = in.done_epochs();
    e.totalEpochs = in.total_epochs();
    e.decisionId = in.decision_id();
    return e;
}

std::string recordedView(const ClusterView &view, const ProfileSet &profiles)
{
    agent::v1::Snapshot snapshot;
    fill(snapshot, view, profiles);
    for (int i = 0; i < snapshot.jobs_size() && i < int(view.jobs.size()); ++i)
        if (view.jobs[size_t(i)].totalEpochs != view.jobs[size_t(i)].estimatedEpochs)
            snapshot.mutable_jobs(i)->set_true_total_epochs(view.jobs[size_t(i)].totalEpochs);
    return snapshot.SerializeAsString();
}

ClusterView fromRecordedView(const QByteArray &bytes, const ProfileSet &profiles)
{
    agent::v1::Snapshot snapshot;
    if (!snapshot.ParseFromArray(bytes.constData(), int(bytes.size())))
        throw Error("not a readable snapshot");
    return toView(snapshot, profiles);
}

} // namespace dl2::agentproto
