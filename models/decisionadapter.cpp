#include "decisionadapter.h"

#include "policyplanner.h"
#include "scheduler.h"

#include <QCoreApplication>

#ifdef DL2_CONSOLE_DECISIONS
#include "dl2policy.h"
#include "policyactions.h"
#endif

namespace dl2console {

int DecisionStep::validActions() const
{
    int n = 0;
    for (int a = 0; a < static_cast<int>(probabilities.size()); ++a)
        n += isMasked(a) ? 0 : 1;
    return n;
}

std::optional<double> DecisionLog::slotValue() const
{
    if (steps.empty())
        return std::nullopt;
    return steps.front().value;
}

QString actionKindName(int action, int rows)
{
    if (action == 3 * rows)
        return QCoreApplication::translate("DecisionLog", "stop");
    switch (action % 3) {
    case 0:
        return QCoreApplication::translate("DecisionLog", "worker");
    case 1:
        return QCoreApplication::translate("DecisionLog", "PS");
    default:
        return QCoreApplication::translate("DecisionLog", "bundle");
    }
}

#ifdef DL2_CONSOLE_DECISIONS
namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("DecisionLog", text);
}

// Column names of the per-job and global features, in the encoder's order (stateencoder.cpp).
void describeFeatures(const dl2::PolicySpec &spec, DecisionLog &log)
{
    auto add = [](std::vector<FeatureColumn> &to, const QString &name, const QString &what,
                  int count = 1) {
        const int first = to.empty() ? 0 : to.back().first + to.back().count;
        to.push_back({name, what, first, count});
    };
    auto &c = log.columns;
    if (spec.kind == dl2::PolicyKind::Dl2) {
        const bool norm = spec.features.normalise;
        if (spec.features.oneHotType)
            add(c, tr("type"),
                tr("Job type (model), one-hot over %1 types in the network input").arg(spec.types),
                spec.types);
        else
            add(c, tr("type"),
                norm ? tr("Job type id + 1, divided by the number of types")
                     : tr("Job type id + 1"));
        add(c, tr("age"),
            norm ? tr("Slots since arrival a, as a / (a + 10)") : tr("Slots since arrival"));
        add(c, tr("remaining"), tr("Fraction of the job's epochs still to run"));
        add(c, tr("dom. share"),
            norm ? tr("Dominant resource share x nodes / max workers")
                 : tr("Dominant resource share of the job in the cluster"));
        add(c, tr("workers"), norm ? tr("Workers / max workers") : tr("Workers so far this slot"));
        add(c, tr("PSs"), norm ? tr("PSs / max PSs") : tr("Parameter servers so far this slot"));
        log.notes = spec.initialBundles
                        ? tr("dl2 first gives every unfinished job one bundle (1 worker + 1 PS); "
                             "then each inference adds one task until stop, a failed allocation "
                             "or no valid action. Window: first %1 jobs by arrival.")
                              .arg(spec.window)
                        : tr("Each inference adds one task until stop, a failed allocation or "
                             "no valid action. Window: first %1 jobs by arrival.")
                              .arg(spec.window);
        return;
    }
    add(c, tr("remaining"), tr("Fraction of the job's epochs still to run"));
    add(c, tr("age"), tr("Slots since arrival a, as a / (a + 10)"));
    add(c, tr("workers"), tr("Workers / max workers"));
    add(c, tr("PSs"), tr("PSs / max PSs"));
    add(c, tr("w CPU"), tr("CPU demand of one worker / node CPU capacity"));
    add(c, tr("w GPU"), tr("GPU demand of one worker / node GPU capacity"));
    add(c, tr("PS CPU"), tr("CPU demand of one PS / node CPU capacity"));
    add(c, tr("progress"),
        tr("Estimated fraction of the remaining epochs done this slot with "
           "the current allocation"));
    add(c, tr("gain w"), tr("Gain in that fraction from one more worker"));
    add(c, tr("gain PS"), tr("Gain in that fraction from one more PS"));
    add(c, tr("gain b"), tr("Gain in that fraction from one more worker and PS (bundle)"));
    add(c, tr("log rem."), tr("log(1 + remaining epochs) / 10"));
    add(c, tr("slots left"),
        tr("Estimated slots to finish at the current allocation / 100 "
           "(capped at 1)"));
    add(c, tr("running"), tr("1 when the job has at least one worker and one PS"));
    if (spec.features.bestSetting) {
        add(c, tr("best w gap"),
            tr("(Workers of the job's fastest setting on the cluster's speed model - "
               "workers) / max workers"));
        add(c, tr("best PS gap"),
            tr("(PSs of the job's fastest setting on the cluster's speed model - PSs) / max "
               "PSs"));
        add(c, tr("slots at best"),
            tr("Slots to finish at the fastest setting / 100 (capped at 1)"));
        add(c, tr("of best"), tr("Speed now as a share of the fastest setting's speed"));
    }
    auto &g = log.globals;
    add(g, tr("free CPU"), tr("Free CPU share of the cluster"));
    add(g, tr("free GPU"), tr("Free GPU share of the cluster"));
    add(g, tr("load"), tr("Unfinished jobs n, as n / (n + 20)"));
    add(g, tr("running"), tr("Share of unfinished jobs that run"));
    log.notes = tr("dl2-plus: each inference adds one task (worker, PS or bundle) to any "
                   "unfinished job until stop; tasks that fit on no node are masked.");
}

QString resultText(dl2::AddResult r)
{
    switch (r) {
    case dl2::AddResult::Ok:
        return {};
    case dl2::AddResult::NoCapacity:
        return tr("no capacity");
    case dl2::AddResult::AtCap:
        return tr("at cap");
    }
    return {};
}

} // namespace
#endif

bool prepareForDecisions(dl2::Scheduler &scheduler)
{
#ifdef DL2_CONSOLE_DECISIONS
    if (auto *policy = dynamic_cast<dl2::Dl2Policy *>(&scheduler)) {
        policy->setRecordDecisions(true);
        return true;
    }
#else
    (void)scheduler;
#endif
    return false;
}

DecisionLog collectDecisions(const dl2::Scheduler &scheduler, int slot)
{
    DecisionLog log;
    log.slot = slot;
#ifdef DL2_CONSOLE_DECISIONS
    const auto *policy = dynamic_cast<const dl2::Dl2Policy *>(&scheduler);
    if (!policy)
        return log;
    log.available = true;
    log.policy = QString::fromLatin1(dl2::toString(policy->spec().kind));
    describeFeatures(policy->spec(), log);
    const auto &records = policy->lastSlotDecisions();
    log.steps.reserve(records.size());
    for (const dl2::DecisionRecord &d : records) {
        DecisionStep s;
        s.inference = d.inference;
        s.jobDim = d.jobDim;
        s.jobIds = d.jobIds;
        s.features = d.features;
        s.global = d.global;
        s.probabilities = d.probabilities;
        s.mask = d.mask;
        s.action = d.action;
        s.jobId = d.stop ? -1 : d.jobId;
        s.value = d.value;
        s.explored = d.explored;
        s.result = d.stop ? QString() : resultText(d.result);
        log.steps.push_back(std::move(s));
    }
#else
    (void)scheduler;
#endif
    return log;
}

std::optional<double> lastSlotValue(const dl2::Scheduler &scheduler)
{
#ifdef DL2_CONSOLE_DECISIONS
    if (const auto *policy = dynamic_cast<const dl2::Dl2Policy *>(&scheduler))
        if (!policy->lastSlotDecisions().empty())
            return policy->lastSlotDecisions().front().value;
#else
    (void)scheduler;
#endif
    return std::nullopt;
}

void attachDecisionReader(dl2::PolicyPlanner &planner)
{
    if (!prepareForDecisions(planner.scheduler()))
        return;
#ifdef DL2_CONSOLE_DECISIONS
    planner.setActionReader([](const dl2::Scheduler &scheduler) {
        std::vector<dl2::PolicyPlanner::PolicyAction> out;
        for (const dl2::PolicyActionSummary &a : dl2::lastPolicyActions(scheduler))
            out.push_back({a.jobId, a.placed, a.probability, a.value});
        return out;
    });
#endif
}

} // namespace dl2console
