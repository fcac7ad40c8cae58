#include "operatingloop.h"

#include "error.h"

#include <QJsonArray>
#include <QLoggingCategory>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <set>
#include <thread>

Q_LOGGING_CATEGORY(lcOperate, "dl2.connector.operate")

namespace dl2 {

namespace {
double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const size_t k =
        std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
    return v[k];
}
} // namespace

QJsonObject OperateSummary::toJson() const
{
    QJsonObject o;
    o.insert(QStringLiteral("start_slot"), startSlot);
    o.insert(QStringLiteral("end_slot"), endSlot);
    o.insert(QStringLiteral("slots"), slotsRun);
    o.insert(QStringLiteral("proposed"), proposed);
    o.insert(QStringLiteral("approved"), approved);
    o.insert(QStringLiteral("rejected"), rejected);
    o.insert(QStringLiteral("applied"), applied);
    o.insert(QStringLiteral("acknowledged_duplicate"), acknowledgedDuplicate);
    o.insert(QStringLiteral("invalid"), invalid);
    o.insert(QStringLiteral("resent"), resent);
    o.insert(QStringLiteral("lost"), lost);
    o.insert(QStringLiteral("duplicated"), duplicated);
    o.insert(QStringLiteral("unacknowledged"), unacknowledged);
    o.insert(QStringLiteral("unknown_to_audit"), unknownToAudit);
    o.insert(QStringLiteral("audit_stops"), auditStops);
    o.insert(QStringLiteral("audit_stopped_seconds"), auditStoppedSeconds);
    o.insert(QStringLiteral("done"), done);
    o.insert(QStringLiteral("seconds"), seconds);
    o.insert(QStringLiteral("latency_ms_p50"), percentile(latenciesMs, 0.5));
    o.insert(QStringLiteral("latency_ms_p99"), percentile(latenciesMs, 0.99));
    o.insert(QStringLiteral("decision_ms_p50"), percentile(decisionMs, 0.5));
    o.insert(QStringLiteral("decision_ms_p99"), percentile(decisionMs, 0.99));
    return o;
}

OperatingLoop::OperatingLoop(ClusterConnector &connector, PolicyPlanner &planner,
                             DecisionGate &gate, AuditLog &audit)
    : m_connector(connector), m_planner(planner), m_gate(gate), m_audit(audit),
      m_runId(audit.runId())
{
    m_gate.setAuditLog(&m_audit);
}

void OperatingLoop::acknowledge(const std::vector<Acknowledgment> &acks, OperateSummary &s)
{
    for (const auto &a : acks) {
        switch (a.status) {
        case Acknowledgment::Status::Applied:
            ++s.applied;
            break;
        case Acknowledgment::Status::Duplicate:
            ++s.acknowledgedDuplicate;
            break;
        case Acknowledgment::Status::Invalid:
            ++s.invalid;
            qCWarning(lcOperate, "agent refused %s: %s", a.decisionId.c_str(), a.message.c_str());
            break;
        }
    }
    try {
        m_audit.recordAcks(acks);
    } catch (const AuditWriteError &) {
        // Applied but not recorded: held until the log takes writes (recover()); if the process
        // dies first, the decisions are still "sent" in the log and the next run re-sends them.
        m_unrecordedAcks.insert(m_unrecordedAcks.end(), acks.begin(), acks.end());
        throw;
    }
}

void OperatingLoop::recover()
{
    if (!m_unrecordedAcks.empty()) {
        m_audit.recordAcks(m_unrecordedAcks);
        m_unrecordedAcks.clear();
    }
    resendUnacknowledged();
}

void OperatingLoop::notice(const std::string &text) const
{
    if (m_notice)
        m_notice(text);
    else
        qCWarning(lcOperate, "%s", text.c_str());
}

void OperatingLoop::auditStopped(const AuditWriteError &e)
{
    const auto now = std::chrono::steady_clock::now();
    if (!m_auditStoppedAt) {
        m_auditStoppedAt = now;
        ++m_summary.auditStops;
        notice(std::string(e.what()) + ": approving nothing until the audit log takes writes; " +
               std::to_string(m_unrecordedAcks.size()) +
               " acknowledgments held in memory; retrying every " +
               std::to_string(m_auditRetry.count()) + " ms");
    }
    const auto waited = std::chrono::duration_cast<std::chrono::seconds>(now - *m_auditStoppedAt);
    if (now - *m_auditStoppedAt >= m_auditWait)
        throw Error(std::string(e.what()) + ": still refused after " +
                    std::to_string(waited.count()) + " s, stopping; " +
                    std::to_string(m_unrecordedAcks.size()) +
                    " acknowledgments were not recorded (the next run re-sends those decisions "
                    "and records the agent's answer)");
    std::this_thread::sleep_for(m_auditRetry);
}

void OperatingLoop::auditResumed()
{
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - *m_auditStoppedAt).count();
    m_summary.auditStoppedSeconds += seconds;
    m_auditStoppedAt.reset();
    notice("audit log '" + m_audit.path() + "' takes writes again after " +
           std::to_string(static_cast<int>(seconds + 0.5)) + " s: approving resumed");
}

int OperatingLoop::resendUnacknowledged()
{
    const std::vector<ResizeDecision> pending = m_audit.unacknowledged();
    if (pending.empty())
        return 0;
    qCInfo(lcOperate, "re-sending %zu approved but unacknowledged decisions", pending.size());
    m_audit.recordSent(pending, true, m_connector.describe());
    acknowledge(m_connector.apply(pending), m_summary);
    m_summary.resent += static_cast<int>(pending.size());
    return static_cast<int>(pending.size());
}

bool OperatingLoop::openSlot()
{
    OperateSummary &s = m_summary;
    if (m_observer)
        m_observer->beforeSnapshot();
    m_view = m_connector.snapshot();
    if (m_first)
        s.startSlot = m_view.nextSlot;
    m_first = false;
    s.endSlot = m_view.nextSlot;
    if (m_view.done) {
        s.done = true;
        return false;
    }
    m_proposedAt = std::chrono::steady_clock::now();
    if (m_observer)
        m_observer->beforePlan(m_view);
    const std::vector<Allocation> proposals = m_planner.plan(m_view);
    if (m_observer)
        m_observer->afterPlan();
    s.decisionMs.push_back(std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - m_proposedAt)
                               .count());
    m_gate.setPolicyVersion(m_planner.policy(), m_planner.version());
    s.proposed += m_gate.open(m_view, proposals, m_runId, m_planner.lastConfidence());
    return true;
}

std::vector<Acknowledgment> OperatingLoop::closeSlot()
{
    OperateSummary &s = m_summary;
    const std::vector<GateEntry> entries = m_gate.entries();
    const std::vector<ResizeDecision> approved = m_gate.commit();
    s.approved += static_cast<int>(approved.size());
    s.rejected += static_cast<int>(m_gate.entries().size() - approved.size());
    if (m_exitAfterCommit == m_view.nextSlot) {
        qCWarning(lcOperate, "fault injection: exiting after the commit of slot %d",
                  m_view.nextSlot);
        std::_Exit(75);
    }
    std::vector<Acknowledgment> acks;
    if (!approved.empty()) {
        m_audit.recordSent(approved, false, m_connector.describe());
        acks = m_connector.apply(approved);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                      m_proposedAt)
                .count();
        for (const auto &a : acks)
            if (a.status == Acknowledgment::Status::Applied)
                s.latenciesMs.push_back(ms);
        acknowledge(acks, s);
    }
    m_connector.advanceSlot(m_view.nextSlot);
    if (m_observer)
        m_observer->afterSlot(m_view, entries);
    ++s.slotsRun;
    s.endSlot = m_view.nextSlot + 1;
    return acks;
}

OperateSummary OperatingLoop::run(int slotCount)
{
    const auto start = std::chrono::steady_clock::now();
    OperateSummary &s = m_summary;
    const int last = s.slotsRun + slotCount;
    bool recovered = false;
    while (s.slotsRun < last) {
        try {
            if (!recovered) {
                recover(); // what an earlier run (or a refused write) left unfinished
                recovered = true;
            }
            if (!m_gate.isOpen()) {
                if (!openSlot())
                    break;
                if (m_onOpen)
                    m_onOpen(m_gate);
                // Nobody reviews a headless run: wait out the deadline (bounded), then the
                // default.
                const auto until = std::min(m_gate.deadline(), std::chrono::steady_clock::now() +
                                                                   std::chrono::minutes(10));
                while (m_gate.pending() > 0 && std::chrono::steady_clock::now() < until)
                    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
                        std::chrono::milliseconds(50), until - std::chrono::steady_clock::now()));
            }
            if (m_gate.pending() > 0)
                m_gate.resolveDeadline(true);
            closeSlot();
            if (m_auditStoppedAt)
                auditResumed();
        } catch (const AuditWriteError &e) {
            auditStopped(e); // waits, or gives up with an Error
            recovered = false;
            continue;
        }
        if (m_progress && !m_progress(s))
            break;
    }
    if (m_auditStoppedAt)
        auditResumed();
    s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return s;
}

void OperatingLoop::verify(OperateSummary &s)
{
    const std::string prefix = m_runId + "/";
    std::map<std::string, AppliedRecord> backend;
    for (auto &r : m_connector.appliedRecord())
        if (r.decisionId.rfind(prefix, 0) == 0)
            backend[r.decisionId] = r;
    s.lost = s.duplicated = s.unacknowledged = s.unknownToAudit = 0;
    std::set<std::string> approvedHere;
    for (const auto &r : m_audit.decisions()) {
        const bool approved = r.state == "committed" || r.state == "sent" ||
                              (r.state == "acknowledged" && r.ack != "invalid");
        if (r.state == "committed" || r.state == "sent")
            ++s.unacknowledged;
        if (!approved)
            continue;
        approvedHere.insert(r.decision.id);
        if (!backend.count(r.decision.id))
            ++s.lost;
    }
    for (const auto &[id, r] : backend) {
        if (r.applyCount > 1)
            ++s.duplicated;
        if (!approvedHere.count(id))
            ++s.unknownToAudit;
    }
}

} // namespace dl2
