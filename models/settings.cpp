#include "settings.h"

#include <QSettings>

#include <algorithm>

namespace dl2console {

namespace {
const QString kScenario = QStringLiteral("session/scenario");
const QString kSeed = QStringLiteral("session/seed");
const QString kTraceFile = QStringLiteral("session/traceFile");
const QString kPolicy = QStringLiteral("session/policy");
const QString kSpeed = QStringLiteral("session/speed");
const QString kCheckpoint = QStringLiteral("session/checkpoint");
const QString kSpeedModel = QStringLiteral("session/speedModel");
const QString kSpeedTable = QStringLiteral("session/speedTable");
const QString kNodes = QStringLiteral("session/nodes");
const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");
const QString kComparisonPolicies = QStringLiteral("comparison/policies");
const QString kComparisonSeeds = QStringLiteral("comparison/seeds");
const QString kLastDirectory = QStringLiteral("files/lastDirectory");
const QString kPresentationViews = QStringLiteral("presentation/views");
} // namespace

Settings::Settings(const QString &fileName, QObject *parent)
    : QObject(parent),
      m_settings(fileName.isEmpty() ? new QSettings(this)
                                    : new QSettings(fileName, QSettings::IniFormat, this))
{
}

Settings::~Settings() = default;

QVariant Settings::value(const QString &key, const QVariant &fallback) const
{
    return m_settings->value(key, fallback);
}

void Settings::setValue(const QString &key, const QVariant &value)
{
    if (m_settings->contains(key) && m_settings->value(key) == value)
        return;
    m_settings->setValue(key, value);
}

void Settings::sync()
{
    m_settings->sync();
}

QString Settings::scenario() const
{
    return value(kScenario, QStringLiteral("dl2-reference")).toString();
}
void Settings::setScenario(const QString &v)
{
    setValue(kScenario, v);
}
quint64 Settings::seed() const
{
    return value(kSeed, 1).toULongLong();
}
void Settings::setSeed(quint64 v)
{
    setValue(kSeed, v);
}
QString Settings::traceFile() const
{
    return value(kTraceFile, QString()).toString();
}
void Settings::setTraceFile(const QString &v)
{
    setValue(kTraceFile, v);
}
QString Settings::policy() const
{
    return value(kPolicy, QString()).toString();
}
void Settings::setPolicy(const QString &v)
{
    setValue(kPolicy, v);
}
QString Settings::checkpoint() const
{
    return value(kCheckpoint, QString()).toString();
}
void Settings::setCheckpoint(const QString &v)
{
    setValue(kCheckpoint, v);
}
QString Settings::speedModel() const
{
    const QString v = value(kSpeedModel, QStringLiteral("rbf")).toString();
    return v == QLatin1String("optimus") ? v : QStringLiteral("rbf");
}
void Settings::setSpeedModel(const QString &v)
{
    setValue(kSpeedModel, v);
}
QString Settings::speedTable() const
{
    return value(kSpeedTable, QString()).toString();
}
void Settings::setSpeedTable(const QString &v)
{
    setValue(kSpeedTable, v);
}
int Settings::nodes() const
{
    return std::max(0, value(kNodes, 0).toInt());
}
void Settings::setNodes(int v)
{
    setValue(kNodes, v);
}
double Settings::speed() const
{
    return value(kSpeed, 4.0).toDouble();
}
void Settings::setSpeed(double v)
{
    setValue(kSpeed, v);
}
QByteArray Settings::windowGeometry() const
{
    return value(kGeometry, {}).toByteArray();
}
void Settings::setWindowGeometry(const QByteArray &v)
{
    setValue(kGeometry, v);
}
QByteArray Settings::windowState() const
{
    return value(kState, {}).toByteArray();
}
void Settings::setWindowState(const QByteArray &v)
{
    setValue(kState, v);
}
QStringList Settings::comparisonPolicies() const
{
    return value(kComparisonPolicies, QStringList()).toStringList();
}
void Settings::setComparisonPolicies(const QStringList &v)
{
    setValue(kComparisonPolicies, v);
}
int Settings::comparisonSeeds() const
{
    return value(kComparisonSeeds, 3).toInt();
}
void Settings::setComparisonSeeds(int v)
{
    setValue(kComparisonSeeds, v);
}
QString Settings::lastDirectory() const
{
    return value(kLastDirectory, QString()).toString();
}
void Settings::setLastDirectory(const QString &v)
{
    setValue(kLastDirectory, v);
}

QStringList Settings::presentationViews() const
{
    return value(kPresentationViews,
                 QStringList{QStringLiteral("utilisation"), QStringLiteral("reward")})
        .toStringList();
}
void Settings::setPresentationViews(const QStringList &v)
{
    setValue(kPresentationViews, v);
}

} // namespace dl2console
