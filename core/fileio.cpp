#include "fileio.h"

#include "error.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace dl2 {

std::string readFile(const std::string &path)
{
    QFile file(QString::fromStdString(path));
    if (!file.exists())
        throw Error(path + ": no such file");
    if (QFileInfo(file).isDir())
        throw Error(path + ": is a directory, expected a file");
    if (!file.open(QIODevice::ReadOnly))
        throw Error(path + ": cannot open: " + file.errorString().toStdString());
    const QByteArray data = file.readAll();
    return std::string(data.constData(), static_cast<size_t>(data.size()));
}

void writeFileAtomically(const std::string &path, const std::string &content)
{
    QSaveFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::WriteOnly))
        throw Error(path + ": cannot write: " + file.errorString().toStdString());
    const auto size = static_cast<qint64>(content.size());
    if (file.write(content.data(), size) != size || !file.commit())
        throw Error(path + ": write failed: " + file.errorString().toStdString());
}

} // namespace dl2
