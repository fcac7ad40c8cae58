#include "policyfiles.h"

#include "error.h"

#ifdef DL2_CONSOLE_LEARNING
#include "checkpoint.h"
#include "registerpolicies.h"
#include "trainingrecipe.h"

#include <QJsonArray>
#include <QLocale>
#include <QStringList>
#endif

namespace dl2console {

PolicyFile inspectPolicyFile(const QString &nameOrPath)
{
#ifdef DL2_CONSOLE_LEARNING
    const dl2::Checkpoint c = dl2::readCheckpoint(dl2::resolveCheckpoint(nameOrPath.toStdString()));
    PolicyFile f{QString::fromLatin1(dl2::toString(c.spec.kind)), nameOrPath};
    f.tied = c.spec.kind == dl2::PolicyKind::Dl2 && c.info.tieWindowSteps < 0;
    f.perTypeCounts = c.spec.kind == dl2::PolicyKind::Dl2 &&
                      c.spec.features.counts == dl2::CountFeatures::PerType;
    return f;
#else
    throw dl2::Error(nameOrPath.toStdString() + ": this build has no learned policies");
#endif
}

QList<ShippedPolicyEntry> shippedPolicyEntries()
{
    QList<ShippedPolicyEntry> out;
#ifdef DL2_CONSOLE_LEARNING
    for (const auto &p : dl2::shippedPolicies())
        out.append({QString::fromStdString(p.name), QString::fromLatin1(dl2::toString(p.kind)),
                    (p.usedFor.empty() ? QStringLiteral("Not a default. %1")
                                       : QStringLiteral("Default for %1. %2")
                                             .arg(QString::fromStdString(p.usedFor)))
                        .arg(QString::fromStdString(p.trainedOn))});
#endif
    return out;
}

QString describeTraining(const QString &checkpoint)
{
#ifdef DL2_CONSOLE_LEARNING
    const dl2::Checkpoint c = dl2::readCheckpoint(checkpoint.toStdString());
    const dl2::TrainingInfo &t = c.info;
    const QString trainer = QString::fromStdString(t.trainer);
    QString title = trainer == QLatin1String("rl")      ? QStringLiteral("Actor-critic (RL)")
                    : trainer == QLatin1String("sl")    ? QStringLiteral("Supervised (SL)")
                    : trainer == QLatin1String("rl-es") ? QStringLiteral("Evolution strategies (ES)")
                    : trainer == QLatin1String("init")  ? QStringLiteral("Untrained")
                                                        : trainer;
    title += QStringLiteral(", %1").arg(QString::fromLatin1(dl2::toString(c.spec.kind)));
    if (c.spec.kind == dl2::PolicyKind::Dl2)
        title += QStringLiteral(" (window %1%2)")
                     .arg(c.spec.window)
                     .arg(c.spec.features.counts == dl2::CountFeatures::PerType
                              ? QStringLiteral(", per-type count features")
                              : QString());
    if (!t.scenario.empty())
        title += QStringLiteral(" on %1").arg(QString::fromStdString(t.scenario));
    if (trainer == QLatin1String("sl") && !t.teacher.empty())
        title += QStringLiteral(", teacher %1").arg(QString::fromStdString(t.teacher));
    QStringList lines{QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped())};
    const QLocale locale;
    if (t.validationAvgJct > 0.0)
        lines << QStringLiteral("best validation avg JCT %1 at %2 %3")
                     .arg(locale.toString(t.validationAvgJct, 'f', 2),
                          trainer == QLatin1String("rl")      ? QStringLiteral("update")
                          : trainer == QLatin1String("rl-es") ? QStringLiteral("iteration")
                                                              : QStringLiteral("step"),
                          locale.toString(t.step));
    QStringList options;
    // How the policy decides when deployed, and so how its validation figure was measured
    // (the checkpoint's own setting, not a trainer option: `dl2 policy show` prints it too).
    if (trainer != QLatin1String("init"))
        options << QStringLiteral("decode <b>%1</b>")
                       .arg(QString::fromLatin1(dl2::toString(c.spec.decode)));
    for (const auto &[key, value] : dl2::trainingRecipe(t)) {
        QString shown;
        if (value.isBool())
            shown = value.toBool() ? QStringLiteral("yes") : QStringLiteral("no");
        else if (value.isDouble())
            shown = QString::number(value.toDouble(), 'g', 6);
        else if (value.isArray()) {
            QStringList items;
            for (const QJsonValue &v : value.toArray())
                items << v.toString();
            shown = items.isEmpty() ? QStringLiteral("none") : items.join(QStringLiteral(", "));
        } else
            shown = value.toString().isEmpty() ? QStringLiteral("-") : value.toString();
        options << QStringLiteral("%1 <b>%2</b>")
                       .arg(QString(key).replace(QLatin1Char('_'), QLatin1Char(' ')).toHtmlEscaped(),
                            shown.toHtmlEscaped());
    }
    if (!options.isEmpty())
        lines << options.join(QStringLiteral(" · "));
    return lines.join(QStringLiteral("<br>"));
#else
    throw dl2::Error(checkpoint.toStdString() + ": this build cannot read checkpoints");
#endif
}

} // namespace dl2console
