#include "companions.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace dl2console {

QStringList companionDirectories()
{
    const QString here = QCoreApplication::applicationDirPath();
    return {here, QDir(here).absoluteFilePath(QStringLiteral("../cli"))};
}

QString findCompanion(const QString &name, const QStringList &directories, bool searchPath)
{
    for (const QString &dir : directories) {
        const QFileInfo info(QDir(dir).filePath(name));
        if (info.isFile() && info.isExecutable())
            return info.canonicalFilePath();
    }
    return searchPath ? QStandardPaths::findExecutable(name) : QString();
}

} // namespace dl2console
