#pragma once
// A stand-in for a program the console starts (e.g. dl2-train): a shell script written into a
// test's temporary directory, so a test can see the arguments the console passes and make it
// fail the way the real program would.

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QTest>

namespace dl2console::test {

// Writes `path` as "#!/bin/sh" + `body` and makes it executable.
inline void writeScript(const QString &path, const QByteArray &body)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("#!/bin/sh\n" + body);
    f.close();
    QVERIFY(f.setPermissions(f.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeUser));
}

} // namespace dl2console::test
