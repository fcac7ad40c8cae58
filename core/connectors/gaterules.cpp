#include "gaterules.h"

#include "error.h"
#include "fileio.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace dl2 {

std::string GateRules::match(const ResizeDecision &d) const
{
    if (jobs.count(d.job))
        return "named job";
    if (approveScaleDown && d.isScaleDown())
        return "scale-down";
    if (maxTaskChange >= 0 && d.taskChange() <= maxTaskChange)
        return "at most " + std::to_string(maxTaskChange) + " tasks";
    return {};
}

GateRules GateRules::load(const std::string &path)
{
    return parse(readFile(path), path);
}

GateRules GateRules::parse(const std::string &text, const std::string &origin)
{
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &err);
    if (doc.isNull() || !doc.isObject())
        throw Error(origin + ": rules must be a JSON object (" + err.errorString().toStdString() +
                    ")");
    GateRules r;
    const QJsonObject o = doc.object();
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QString key = it.key();
        if (key == QLatin1String("approve_scale_down")) {
            if (!it.value().isBool())
                throw Error(origin + ": approve_scale_down must be true or false");
            r.approveScaleDown = it.value().toBool();
        } else if (key == QLatin1String("max_task_change")) {
            const double v = it.value().toDouble(-2);
            if (!it.value().isDouble() || v < 0 || v > 4096 || v != static_cast<int>(v))
                throw Error(origin + ": max_task_change must be an integer in 0..4096");
            r.maxTaskChange = static_cast<int>(v);
        } else if (key == QLatin1String("jobs")) {
            if (!it.value().isArray())
                throw Error(origin + ": jobs must be an array of job ids");
            for (const auto &v : it.value().toArray()) {
                if (!v.isDouble())
                    throw Error(origin + ": jobs must be an array of job ids");
                r.jobs.insert(v.toInt());
            }
        } else {
            throw Error(origin + ": unknown rule '" + key.toStdString() +
                        "' (known: approve_scale_down, max_task_change, jobs)");
        }
    }
    return r;
}

} // namespace dl2
