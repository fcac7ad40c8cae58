#include "decisionadapter.h"

#include "policyplanner.h"
#include "scheduler.h"

#include <QCoreApplication>

namespace dl2console {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("DecisionLog", text);
}

std::vector<FeatureColumn> columnsOf(const std::vector<dl2::DecisionFeature> &features)
{
    std::vector<FeatureColumn> out;
    out.reserve(features.size());
    for (const auto &f : features)
        out.push_back({QString::fromStdString(f.name), QString::fromStdString(f.description),
                       f.first, f.count, f.bits});
    return out;
}

} // namespace

std::optional<double> DecisionLog::slotValue() const
{
    if (steps.empty() || !steps.front().value)
        return std::nullopt;
    return *steps.front().value;
}

QString actionKindName(int action, int rows)
{
    if (action == 3 * rows)
        return tr("stop");
    switch (action % 3) {
    case 0:
        return tr("worker");
    case 1:
        return tr("PS");
    default:
        return tr("bundle");
    }
}

QString taskResultText(const dl2::DecisionRecord &step)
{
    if (step.stop)
        return {};
    switch (step.result) {
    case dl2::AddResult::Ok:
        return {};
    case dl2::AddResult::NoCapacity:
        return tr("no capacity");
    case dl2::AddResult::AtCap:
        return tr("at cap");
    }
    return {};
}

bool prepareForDecisions(dl2::Scheduler &scheduler, dl2::DecisionRecording level)
{
    return scheduler.recordDecisions(level);
}

DecisionLog collectDecisions(const dl2::Scheduler &scheduler, int slot)
{
    DecisionLog log;
    log.slot = slot;
    const dl2::DecisionLayout layout = scheduler.decisionLayout();
    if (layout.policy.empty())
        return log; // keeps no record
    log.available = true;
    log.policy = QString::fromStdString(layout.policy);
    log.notes = QString::fromStdString(layout.notes);
    log.columns = columnsOf(layout.columns);
    log.globals = columnsOf(layout.globals);
    const std::vector<dl2::DecisionRecord> &records = scheduler.lastDecisions();
    log.steps = QList<dl2::DecisionRecord>(records.begin(), records.end());
    return log;
}

void attachDecisionReader(dl2::PolicyPlanner &planner)
{
    if (!prepareForDecisions(planner.scheduler()))
        return;
    planner.setActionReader([](const dl2::Scheduler &scheduler) {
        std::vector<dl2::PolicyPlanner::PolicyAction> out;
        for (const dl2::PolicyActionSummary &a : dl2::lastPolicyActions(scheduler))
            out.push_back({a.jobId, a.placed, a.probability, a.value});
        return out;
    });
}

} // namespace dl2console
