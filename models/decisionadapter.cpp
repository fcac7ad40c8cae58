#include "decisionadapter.h"

#include "scheduler.h"

#ifdef DL2_CONSOLE_DECISIONS
#include "dl2policy.h"
#endif

namespace dl2console {

void prepareForDecisions(dl2::Scheduler &scheduler)
{
#ifdef DL2_CONSOLE_DECISIONS
    if (auto *policy = dynamic_cast<dl2::Dl2Policy *>(&scheduler))
        policy->setRecordDecisions(true);
#else
    (void)scheduler;
#endif
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
    for (const dl2::DecisionRecord &d : policy->lastSlotDecisions()) {
        DecisionRow row;
        row.step = d.inference;
        row.jobId = d.stop ? -1 : d.jobId;
        row.action = d.stop ? std::string("stop") : std::string(dl2::toString(d.kind));
        if (d.action >= 0 && d.action < static_cast<int>(d.probabilities.size()))
            row.probability = d.probabilities[static_cast<size_t>(d.action)];
        row.value = d.value;
        row.masked = d.explored;
        switch (d.result) {
        case dl2::AddResult::Ok:
            break;
        case dl2::AddResult::NoCapacity:
            row.note = "no capacity";
            break;
        case dl2::AddResult::AtCap:
            row.note = "at cap";
            break;
        }
        log.rows.push_back(std::move(row));
    }
#else
    (void)scheduler;
#endif
    return log;
}

} // namespace dl2console
