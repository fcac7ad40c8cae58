#include "policyfiles.h"

#include "error.h"

#ifdef DL2_CONSOLE_LEARNING
#include "checkpoint.h"
#include "registerpolicies.h"
#endif

namespace dl2console {

PolicyFile inspectPolicyFile(const QString &nameOrPath)
{
#ifdef DL2_CONSOLE_LEARNING
    const dl2::Checkpoint c = dl2::readCheckpoint(dl2::resolveCheckpoint(nameOrPath.toStdString()));
    return {QString::fromLatin1(dl2::toString(c.spec.kind)), nameOrPath};
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
                    QStringLiteral("Default for %1. %2")
                        .arg(QString::fromStdString(p.usedFor), QString::fromStdString(p.trainedOn))});
#endif
    return out;
}

} // namespace dl2console
