#include "slotcaption.h"

#include "jobpalette.h"
#include "sessiontypes.h"

#include <QCoreApplication>
#include <unordered_map>

namespace dl2console {

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("SlotCaption", text);
}

QString allocation(int workers, int ps)
{
    return QStringLiteral("%1 w · %2 ps").arg(workers).arg(ps);
}

QString listText(const std::vector<SlotCaption::Item> &items, int maxItems, bool html, bool dark)
{
    QStringList parts;
    const int shown = std::min(static_cast<int>(items.size()), std::max(1, maxItems));
    for (int i = 0; i < shown; ++i) {
        const auto &item = items[i];
        if (html)
            parts << QStringLiteral("<span style=\"color:%1\">&#9632;</span>&nbsp;%2")
                         .arg(JobPalette::color(item.jobId, dark).name(),
                              item.text.toHtmlEscaped().replace(u' ', QStringLiteral("&nbsp;")));
        else
            parts << item.text;
    }
    if (static_cast<int>(items.size()) > shown)
        parts << tr("+%1 more").arg(items.size() - shown);
    return parts.join(QStringLiteral(", "));
}
} // namespace

SlotCaption captionFor(const dl2::SlotSnapshot &s, const dl2::ProfileSet &profiles)
{
    SlotCaption c;
    c.slot = s.slot;
    std::unordered_map<int, const dl2::JobState *> byId;
    for (const auto &j : s.jobs)
        byId[j.id] = &j;
    auto model = [&profiles](const dl2::JobState &j) {
        return j.type >= 0 && j.type < profiles.size() ? QString::fromStdString(profiles[j.type].name)
                                                      : QString();
    };
    for (int id : s.arrivals) {
        const auto it = byId.find(id);
        c.arrived.push_back({id, it == byId.end()
                                     ? QStringLiteral("#%1").arg(id)
                                     : QStringLiteral("#%1 %2").arg(id).arg(model(*it->second))});
    }
    for (int id : s.completions) {
        const auto it = byId.find(id);
        c.finished.push_back({id, it == byId.end() || it->second->jct() < 0
                                      ? QStringLiteral("#%1").arg(id)
                                      : tr("#%1 (JCT %2)").arg(id).arg(it->second->jct(), 0, 'f', 1)});
    }
    for (const auto &j : s.jobs) {
        if (j.status == dl2::JobStatus::Pending)
            continue;
        if (j.status == dl2::JobStatus::Finished && j.finishTime < s.slot)
            continue; // finished before this slot: nothing for the policy to do
        const bool held = heldAllocation(j, s.slot);
        const int w = held ? j.workers : 0, p = held ? j.ps : 0;
        // A job that arrived this slot had nothing before, whatever prev* says.
        const bool arrivedNow = j.arrivalSlot == s.slot;
        const int pw = arrivedNow ? 0 : j.prevWorkers, pp = arrivedNow ? 0 : j.prevPs;
        if (w == pw && p == pp)
            continue;
        QString text;
        if (pw + pp == 0)
            text = tr("#%1 started with %2").arg(j.id).arg(allocation(w, p));
        else if (w + p == 0)
            text = tr("#%1 paused (had %2)").arg(j.id).arg(allocation(pw, pp));
        else
            text = QStringLiteral("#%1 %2 → %3").arg(j.id).arg(allocation(pw, pp), allocation(w, p));
        c.changed.push_back({j.id, text});
    }
    return c;
}

QString SlotCaption::text(const QString &policy, int maxItems, bool html, bool dark) const
{
    QStringList parts;
    parts << tr("Slot %1").arg(slot);
    if (!arrived.empty())
        parts << tr("arrived: %1").arg(listText(arrived, maxItems, html, dark));
    if (!finished.empty())
        parts << tr("finished: %1").arg(listText(finished, maxItems, html, dark));
    if (!changed.empty())
        parts << tr("%1 changed %2 job(s): %3")
                     .arg(policy)
                     .arg(changed.size())
                     .arg(listText(changed, maxItems, html, dark));
    if (isEmpty())
        parts << tr("no arrivals, no completions, %1 kept every allocation").arg(policy);
    return parts.join(html ? QStringLiteral(" &nbsp;·&nbsp; ") : QStringLiteral(" · "));
}

} // namespace dl2console
