#pragma once
// Typed access to the console's persistent settings (QSettings underneath). One getter and
// one setter per key (a setter that changes nothing writes nothing). Widgets never touch
// QSettings keys directly. Nothing listens for changes: every reader asks when it needs a
// value (the console reads them at start, writes them as the user changes them).

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>

class QSettings;

namespace dl2console {

class Settings : public QObject
{
    Q_OBJECT
public:
    // Uses the application's default QSettings unless a file is given (tests).
    explicit Settings(const QString &fileName = {}, QObject *parent = nullptr);
    ~Settings() override;

    QString scenario() const;
    void setScenario(const QString &value);
    quint64 seed() const;
    void setSeed(quint64 value);
    QString traceFile() const; // empty: the scenario's generated trace
    void setTraceFile(const QString &value);
    QString policy() const; // empty: the default policy
    void setPolicy(const QString &value);
    QString checkpoint() const; // dl2 / dl2-plus policy file or shipped name; empty: shipped default
    void setCheckpoint(const QString &value);
    QString speedModel() const; // "rbf" (measured table, the default) or "optimus" (fitted)
    void setSpeedModel(const QString &value);
    QString speedTable() const; // measured speeds file; empty: the built-in table
    void setSpeedTable(const QString &value);
    int nodes() const; // cluster size; 0: the scenario's
    void setNodes(int value);
    double speed() const; // slots per second
    void setSpeed(double value);
    QByteArray windowGeometry() const;
    void setWindowGeometry(const QByteArray &value);
    QByteArray windowState() const;
    void setWindowState(const QByteArray &value);
    QStringList comparisonPolicies() const;
    void setComparisonPolicies(const QStringList &value);
    int comparisonSeeds() const;
    void setComparisonSeeds(int value);
    QString lastDirectory() const;
    void setLastDirectory(const QString &value);
    // Views shown in presentation mode and exported replays ("utilisation", "reward", ...).
    QStringList presentationViews() const;
    void setPresentationViews(const QStringList &value);

    void sync();

private:
    QVariant value(const QString &key, const QVariant &fallback) const;
    void setValue(const QString &key, const QVariant &value);

    QSettings *m_settings;
};

} // namespace dl2console
