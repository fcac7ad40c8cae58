#pragma once
// The application icon: PNG renditions (always loadable) plus the SVG when Qt's SVG plugin
// is installed.

#include <QIcon>

namespace dl2console {

inline QIcon appIcon()
{
    QIcon icon;
    const QString base = QStringLiteral(":/icons/io.github.dl2console.DL2Console");
    for (const char *size : {"-48", "-128", "-256"})
        icon.addFile(base + QLatin1String(size) + QStringLiteral(".png"));
    icon.addFile(base + QStringLiteral(".svg"));
    return icon;
}

} // namespace dl2console
