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
    o.insert(QStringLiteral("done"), done);
    o.insert(QStringLiteral("seconds"), seconds);
    o.insert(QStringLiteral("latency_ms_p50"), percentile(latenciesMs, 0.5));
    o.insert(QStringLiteral("latency_ms_p99"), percentile(latenciesMs, 0.99));
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
    m_audit.recordAcks(acks);
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
    const std::vector<Allocation> proposals = m_planner.plan(m_view);
    s.proposed += m_gate.open(m_view, proposals, m_runId, m_planner.lastConfidence());
    return true;
}

std::vector<Acknowledgment> OperatingLoop::closeSlot()
{
    OperateSummary &s = m_summary;
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
    ++s.slotsRun;
    s.endSlot = m_view.nextSlot + 1;
    return acks;
}

OperateSummary OperatingLoop::run(int slotCount)
{
    const auto start = std::chrono::steady_clock::now();
    OperateSummary &s = m_summary;
    resendUnacknowledged();
    for (int n = 0; n < slotCount; ++n) {
        if (!openSlot())
            break;
        if (m_gate.pending() > 0) {
            // Nobody reviews a headless run: wait out the deadline (bounded), then the default.
            const auto until = std::min(m_gate.deadline(), std::chrono::steady_clock::now() +
                                                               std::chrono::minutes(10));
            while (std::chrono::steady_clock::now() < until)
                std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
                    std::chrono::milliseconds(50), until - std::chrono::steady_clock::now()));
            m_gate.resolveDeadline(true);
        }
        closeSlot();
        if (m_progress && !m_progress(s))
            break;
    }
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
