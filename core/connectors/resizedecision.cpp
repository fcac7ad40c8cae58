#include "resizedecision.h"

#include <QJsonArray>
#include <cstdlib>

namespace dl2 {

std::string ResizeDecision::makeId(const std::string &runId, int slot, int job)
{
    return runId + '/' + std::to_string(slot) + '/' + std::to_string(job);
}

int ResizeDecision::taskChange() const
{
    return std::abs(to.ps - from.ps) + std::abs(to.workers - from.workers);
}

QJsonObject toJson(const Allocation &allocation)
{
    QJsonObject o;
    o.insert(QStringLiteral("ps"), allocation.ps);
    o.insert(QStringLiteral("workers"), allocation.workers);
    QJsonArray nodes;
    for (const auto &t : allocation.tasks)
        nodes.append(QJsonArray{t.node, t.role == TaskRole::Ps ? QStringLiteral("ps")
                                                               : QStringLiteral("worker")});
    if (!nodes.isEmpty())
        o.insert(QStringLiteral("tasks"), nodes);
    return o;
}

Allocation allocationFromJson(const QJsonObject &o)
{
    Allocation a;
    a.ps = o.value(QStringLiteral("ps")).toInt();
    a.workers = o.value(QStringLiteral("workers")).toInt();
    for (const auto &v : o.value(QStringLiteral("tasks")).toArray()) {
        const QJsonArray t = v.toArray();
        a.tasks.push_back({t.at(0).toInt(-1), t.at(1).toString() == QLatin1String("ps")
                                                  ? TaskRole::Ps
                                                  : TaskRole::Worker});
    }
    return a;
}

QJsonObject toJson(const ResizeDecision &d)
{
    QJsonObject o;
    o.insert(QStringLiteral("id"), QString::fromStdString(d.id));
    o.insert(QStringLiteral("slot"), d.slot);
    o.insert(QStringLiteral("job"), d.job);
    o.insert(QStringLiteral("from"), toJson(d.from));
    o.insert(QStringLiteral("to"), toJson(d.to));
    o.insert(QStringLiteral("speed_before"), d.speedBefore);
    o.insert(QStringLiteral("speed_after"), d.speedAfter);
    if (d.probability)
        o.insert(QStringLiteral("probability"), *d.probability);
    if (d.value)
        o.insert(QStringLiteral("value"), *d.value);
    return o;
}

ResizeDecision decisionFromJson(const QJsonObject &o)
{
    ResizeDecision d;
    d.id = o.value(QStringLiteral("id")).toString().toStdString();
    d.slot = o.value(QStringLiteral("slot")).toInt();
    d.job = o.value(QStringLiteral("job")).toInt();
    d.from = allocationFromJson(o.value(QStringLiteral("from")).toObject());
    d.to = allocationFromJson(o.value(QStringLiteral("to")).toObject());
    d.speedBefore = o.value(QStringLiteral("speed_before")).toDouble();
    d.speedAfter = o.value(QStringLiteral("speed_after")).toDouble();
    if (o.contains(QStringLiteral("probability")))
        d.probability = o.value(QStringLiteral("probability")).toDouble();
    if (o.contains(QStringLiteral("value")))
        d.value = o.value(QStringLiteral("value")).toDouble();
    return d;
}

std::string describe(const Allocation &a)
{
    return std::to_string(a.ps) + " PS / " + std::to_string(a.workers) + " workers";
}

} // namespace dl2
