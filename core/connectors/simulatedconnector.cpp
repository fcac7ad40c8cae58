#include "simulatedconnector.h"

#include "error.h"
#include "scenario.h"
#include "targetplacement.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <algorithm>
#include <unistd.h>

Q_LOGGING_CATEGORY(lcSimConnector, "dl2.connector")

namespace dl2 {

namespace {
std::string journalPath(const std::string &dir)
{
    return QDir(QString::fromStdString(dir))
        .filePath(QStringLiteral("agent-journal.jsonl"))
        .toStdString();
}
} // namespace

// Runs the targets (targetplacement.h: the rule the decision gate checks overrides with).
class SimulatedConnector::TargetScheduler : public Scheduler
{
public:
    explicit TargetScheduler(const std::map<int, Allocation> &targets) : m_targets(targets) {}
    std::string name() const override { return "approved-decisions"; }
    void schedule(SlotContext &ctx) override { placeTargets(ctx, m_targets); }

private:
    const std::map<int, Allocation> &m_targets;
};

SimulatedConnector::SimulatedConnector(const std::string &scenario, std::uint64_t seed,
                                       const std::string &stateDir, bool adoptStoredScenario)
    : m_scenarioName(scenario), m_seed(seed), m_stateDir(stateDir)
{
    QByteArray stored;
    if (!m_stateDir.empty()) {
        if (!QDir().mkpath(QString::fromStdString(m_stateDir)))
            throw Error("state directory '" + m_stateDir + "' cannot be created");
        m_journal = std::make_unique<QFile>(QString::fromStdString(journalPath(m_stateDir)));
        if (m_journal->exists()) {
            if (!m_journal->open(QIODevice::ReadOnly))
                throw Error(journalPath(m_stateDir) + ": " +
                            m_journal->errorString().toStdString());
            stored = m_journal->readAll();
            m_journal->close();
        }
    }
    if (!stored.isEmpty()) {
        const QJsonObject header =
            QJsonDocument::fromJson(stored.left(stored.indexOf('\n'))).object();
        if (header.value(QStringLiteral("t")).toString() != QLatin1String("header"))
            throw Error(journalPath(m_stateDir) + ": not a dl2-agent journal (no header line)");
        const std::string s = header.value(QStringLiteral("scenario")).toString().toStdString();
        const auto storedSeed = header.value(QStringLiteral("seed")).toString().toULongLong();
        if (!adoptStoredScenario && (s != m_scenarioName || storedSeed != m_seed))
            throw Error("state directory '" + m_stateDir + "' holds scenario " + s + " seed " +
                        std::to_string(storedSeed) + ", not " + m_scenarioName + " seed " +
                        std::to_string(m_seed));
        m_scenarioName = s;
        m_seed = storedSeed;
    }
    build();
    if (!stored.isEmpty())
        restore(stored);
    if (m_journal) {
        if (!m_journal->open(QIODevice::WriteOnly | QIODevice::Append))
            throw Error(journalPath(m_stateDir) + ": " + m_journal->errorString().toStdString());
        if (stored.isEmpty()) {
            QJsonObject header{{QStringLiteral("t"), QStringLiteral("header")},
                               {QStringLiteral("version"), 2},
                               {QStringLiteral("scenario"), QString::fromStdString(m_scenarioName)},
                               {QStringLiteral("seed"), QString::number(m_seed)}};
            std::lock_guard lock(m_mutex);
            journalLocked(QJsonDocument(header).toJson(QJsonDocument::Compact) + '\n');
        }
    }
}

SimulatedConnector::~SimulatedConnector() = default;

void SimulatedConnector::build()
{
    const Scenario &sc = scenarioByName(m_scenarioName);
    ProfileSet profiles = ProfileSet::reference();
    Trace trace = sc.trace(profiles, m_seed);
    m_sim = std::make_unique<Simulator>(sc.cluster, profiles, std::move(trace), sc.simulation);
    m_scheduler = std::make_unique<TargetScheduler>(m_targets);
    m_jobIndex.clear();
    for (size_t i = 0; i < m_sim->jobs().size(); ++i)
        m_jobIndex[m_sim->jobs()[i].id] = static_cast<int>(i);
}

void SimulatedConnector::restore(const QByteArray &journal)
{
    std::lock_guard lock(m_mutex);
    qsizetype pos = 0;
    int line = 0;
    while (pos < journal.size()) {
        const qsizetype end = journal.indexOf('\n', pos);
        if (end < 0) {
            // A torn last record: the crash came before its fsync returned, so it was never
            // acknowledged. Drop it.
            qCWarning(lcSimConnector, "%s: dropping a torn last record (%lld bytes)",
                      journalPath(m_stateDir).c_str(),
                      static_cast<long long>(journal.size() - pos));
            if (!m_journal->resize(pos))
                throw Error(journalPath(m_stateDir) + ": cannot drop the torn record");
            break;
        }
        ++line;
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(journal.mid(pos, end - pos), &err);
        pos = end + 1;
        if (doc.isNull())
            throw Error::at(journalPath(m_stateDir), line,
                            "corrupt record (" + err.errorString().toStdString() + ")");
        const QJsonObject o = doc.object();
        const QString type = o.value(QStringLiteral("t")).toString();
        if (type == QLatin1String("apply")) {
            AppliedEntry e;
            e.decision = decisionFromJson(o);
            e.record = {e.decision.id, e.decision.job, o.value(QStringLiteral("at")).toInt(), 1, 0};
            m_targets[e.decision.job] = e.decision.to;
            m_appliedById[e.decision.id] = m_applied.size();
            m_applied.push_back(std::move(e));
        } else if (type == QLatin1String("advance")) {
            if (o.value(QStringLiteral("slot")).toInt() != m_sim->slot())
                throw Error::at(journalPath(m_stateDir), line, "slot out of order");
            stepLocked();
        } else if (type != QLatin1String("header")) {
            throw Error::at(journalPath(m_stateDir), line, "unknown record type");
        }
    }
    m_restored = true;
    qCInfo(lcSimConnector, "restored %s at slot %d with %zu applied decisions",
           m_scenarioName.c_str(), m_sim->slot(), m_applied.size());
}

void SimulatedConnector::journalLocked(const QByteArray &records)
{
    if (!m_journal || records.isEmpty())
        return;
    if (m_journal->write(records) != records.size() || !m_journal->flush() ||
        ::fsync(m_journal->handle()) != 0)
        qFatal(
            "%s: cannot write the journal (%s); stopping rather than acknowledging unsaved state",
            journalPath(m_stateDir).c_str(), qPrintable(m_journal->errorString()));
}

std::string SimulatedConnector::describe() const
{
    return "simulated cluster (" + m_scenarioName + ", seed " + std::to_string(m_seed) + ")";
}

int SimulatedConnector::nextSlot() const
{
    std::lock_guard lock(m_mutex);
    return m_sim->slot();
}

SlotSnapshot SimulatedConnector::slotSnapshot() const
{
    std::lock_guard lock(m_mutex);
    return m_sim->snapshot();
}

ClusterView SimulatedConnector::snapshot()
{
    std::lock_guard lock(m_mutex);
    ClusterView v;
    v.scenario = m_scenarioName;
    v.nextSlot = m_sim->slot();
    v.done = m_sim->done();
    v.nodes = m_sim->cluster().nodeCount();
    v.nodeCapacity = m_sim->cluster().nodeCapacity();
    v.slotSeconds = m_sim->options().slotSeconds;
    v.maxWorkers = m_sim->options().maxWorkers;
    v.maxPs = m_sim->options().maxPs;
    v.totalJobs = static_cast<int>(m_sim->jobs().size());
    v.finished = v.totalJobs - m_sim->unfinishedJobs();
    v.placement = m_sim->options().placement;
    if (!m_history.empty()) {
        const SlotRecord &last = m_history.back();
        v.reward = last.reward;
        v.cumulativeReward = last.cumulativeReward;
        v.arrivals = last.arrivals;
        v.completions = last.completions;
    }
    for (const JobState &j : m_sim->jobs()) {
        if (j.arrivalSlot > v.nextSlot)
            continue;
        JobState copy = j;
        if (copy.status == JobStatus::Pending)
            copy.status = JobStatus::Queued;
        v.jobs.push_back(std::move(copy));
        const auto t = m_targets.find(j.id);
        v.targets.push_back(t == m_targets.end() ? Allocation{} : t->second);
    }
    return v;
}

std::vector<ClusterEvent> SimulatedConnector::events(std::int64_t afterSeq)
{
    std::lock_guard lock(m_mutex);
    std::vector<ClusterEvent> out;
    for (const auto &e : m_events)
        if (e.seq > afterSeq)
            out.push_back(e);
    return out;
}

std::vector<ClusterEvent> SimulatedConnector::waitForEvents(std::int64_t afterSeq,
                                                            std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    m_eventsChanged.wait_for(lock, timeout,
                             [&] { return !m_events.empty() && m_events.back().seq > afterSeq; });
    std::vector<ClusterEvent> out;
    for (const auto &e : m_events)
        if (e.seq > afterSeq)
            out.push_back(e);
    return out;
}

void SimulatedConnector::pushEventLocked(ClusterEvent e)
{
    e.seq = m_events.empty() ? 1 : m_events.back().seq + 1;
    m_events.push_back(std::move(e));
    m_eventsChanged.notify_all();
}

Acknowledgment SimulatedConnector::applyOneLocked(const ResizeDecision &d, bool)
{
    Acknowledgment ack;
    ack.decisionId = d.id;
    if (const auto it = m_appliedById.find(d.id); it != m_appliedById.end()) {
        AppliedEntry &e = m_applied[it->second];
        ++e.record.duplicateReceipts;
        ack.status = Acknowledgment::Status::Duplicate;
        ack.appliedAtSlot = e.record.appliedAtSlot;
        ack.message = "already applied";
        return ack;
    }
    auto invalid = [&](std::string why) {
        ack.status = Acknowledgment::Status::Invalid;
        ack.message = std::move(why);
        return ack;
    };
    if (d.id.empty())
        return invalid("decision without an id");
    const auto job = m_jobIndex.find(d.job);
    if (job == m_jobIndex.end())
        return invalid("unknown job " + std::to_string(d.job));
    if (m_sim->jobs()[job->second].arrivalSlot > m_sim->slot())
        return invalid("job " + std::to_string(d.job) + " has not arrived");
    const auto &o = m_sim->options();
    if (d.to.ps < 0 || d.to.workers < 0 || d.to.ps > o.maxPs || d.to.workers > o.maxWorkers)
        return invalid("allocation " + dl2::describe(d.to) + " outside 0.." +
                       std::to_string(o.maxPs) + " PS / 0.." + std::to_string(o.maxWorkers) +
                       " workers");
    for (const auto &t : d.to.tasks)
        if (t.node < 0 || t.node >= m_sim->cluster().nodeCount())
            return invalid("task on unknown node " + std::to_string(t.node));
    m_targets[d.job] = d.to;
    AppliedEntry e;
    e.decision = d;
    e.record = {d.id, d.job, m_sim->slot(), 1, 0};
    m_appliedById[d.id] = m_applied.size();
    m_applied.push_back(e);
    ack.status = Acknowledgment::Status::Applied;
    ack.appliedAtSlot = m_sim->slot();
    ClusterEvent ev;
    ev.slot = m_sim->slot();
    ev.kind = ClusterEvent::Kind::Applied;
    ev.job = d.job;
    ev.decisionId = d.id;
    pushEventLocked(std::move(ev));
    return ack;
}

std::vector<Acknowledgment> SimulatedConnector::apply(const std::vector<ResizeDecision> &decisions)
{
    std::lock_guard lock(m_mutex);
    std::vector<Acknowledgment> acks;
    acks.reserve(decisions.size());
    QByteArray records;
    for (const auto &d : decisions) {
        acks.push_back(applyOneLocked(d, false));
        if (acks.back().status == Acknowledgment::Status::Applied && m_journal) {
            QJsonObject o = toJson(d);
            o.insert(QStringLiteral("t"), QStringLiteral("apply"));
            o.insert(QStringLiteral("at"), acks.back().appliedAtSlot);
            records += QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
        }
    }
    journalLocked(records); // before any acknowledgment leaves
    return acks;
}

void SimulatedConnector::stepLocked()
{
    const int slot = m_sim->slot();
    m_sim->step(*m_scheduler);
    const SlotSnapshot s = m_sim->snapshot();
    SlotRecord record;
    record.slot = s.slot;
    record.reward = s.reward;
    record.cumulativeReward = s.cumulativeReward;
    record.utilisation = s.utilisation;
    record.arrivals = s.arrivals;
    record.completions = s.completions;
    for (const JobState &j : s.jobs)
        if (j.arrivalSlot <= s.slot)
            record.jobs.push_back(j);
    m_history.push_back(std::move(record));
    for (int id : s.arrivals)
        pushEventLocked({0, slot, ClusterEvent::Kind::Arrival, id, 0.0, 0.0, {}});
    for (const JobState &j : s.jobs)
        if (j.status == JobStatus::Running ||
            (j.status == JobStatus::Finished && j.epochsThisSlot > 0))
            pushEventLocked(
                {0, slot, ClusterEvent::Kind::Progress, j.id, j.doneEpochs, j.totalEpochs, {}});
    for (int id : s.completions) {
        const JobState &j = m_sim->jobs()[m_jobIndex[id]];
        pushEventLocked(
            {0, slot, ClusterEvent::Kind::Completion, id, j.doneEpochs, j.totalEpochs, {}});
    }
}

bool SimulatedConnector::advanceSlot(int expectedSlot)
{
    std::lock_guard lock(m_mutex);
    if (expectedSlot != m_sim->slot() || m_sim->done())
        return false;
    stepLocked();
    journalLocked(QJsonDocument(QJsonObject{{QStringLiteral("t"), QStringLiteral("advance")},
                                            {QStringLiteral("slot"), expectedSlot}})
                      .toJson(QJsonDocument::Compact) +
                  '\n');
    return true;
}

std::vector<SlotRecord> SimulatedConnector::history(int fromSlot, int toSlot, int maxSlots)
{
    std::lock_guard lock(m_mutex);
    std::vector<SlotRecord> out;
    const int first = std::max(0, fromSlot);
    const int last = std::min(toSlot, static_cast<int>(m_history.size()) - 1);
    for (int slot = first; slot <= last && static_cast<int>(out.size()) < maxSlots; ++slot)
        out.push_back(m_history[static_cast<size_t>(slot)]);
    if (out.empty())
        return out;
    for (const AppliedEntry &e : m_applied) {
        const int at = e.record.appliedAtSlot;
        if (at >= out.front().slot && at <= out.back().slot)
            out[static_cast<size_t>(at - out.front().slot)].applied.push_back(e.decision);
    }
    return out;
}

std::vector<AppliedRecord> SimulatedConnector::appliedRecord()
{
    std::lock_guard lock(m_mutex);
    std::vector<AppliedRecord> out;
    out.reserve(m_applied.size());
    for (const auto &e : m_applied)
        out.push_back(e.record);
    return out;
}

const char *toString(ClusterEvent::Kind kind)
{
    switch (kind) {
    case ClusterEvent::Kind::Arrival:
        return "arrival";
    case ClusterEvent::Kind::Completion:
        return "completion";
    case ClusterEvent::Kind::Progress:
        return "progress";
    case ClusterEvent::Kind::Applied:
        return "applied";
    }
    return "?";
}

const char *toString(Acknowledgment::Status status)
{
    switch (status) {
    case Acknowledgment::Status::Applied:
        return "applied";
    case Acknowledgment::Status::Duplicate:
        return "duplicate";
    case Acknowledgment::Status::Invalid:
        return "invalid";
    }
    return "?";
}

} // namespace dl2
