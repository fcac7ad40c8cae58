#include "auditevents.h"

#include "error.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>
#include <atomic>

namespace dl2 {

std::optional<double> optionalDouble(const QVariant &v)
{
    if (v.isNull())
        return std::nullopt;
    return v.toDouble();
}

namespace {

// Schema 3 gave each decision the version of the policy that proposed it. AuditLog migrates
// an older log when it opens it for writing; a read-only reader may still meet one.
bool hasPolicyVersions(const QSqlDatabase &db)
{
    QSqlQuery columns(QStringLiteral("PRAGMA table_info(decisions)"), db);
    while (columns.next())
        if (columns.value(1).toString() == QLatin1String("policy_version"))
            return true;
    return false;
}

} // namespace

std::vector<AuditLog::EventRow> queryAuditEvents(const QSqlDatabase &db, const std::string &path,
                                                 std::optional<int> job, const std::string &since)
{
    QString sql = QStringLiteral(
        "SELECT e.seq, e.time, e.decision_id, e.job, e.kind, e.actor, e.before, e.after, "
        "e.detail, d.probability, d.value, %1 FROM events e LEFT JOIN decisions d ON "
        "d.id = e.decision_id WHERE 1=1")
                      .arg(hasPolicyVersions(db) ? QStringLiteral("d.policy_version")
                                                 : QStringLiteral("''"));
    if (job)
        sql += QStringLiteral(" AND e.job = ?");
    if (!since.empty())
        sql += QStringLiteral(" AND e.time >= ?");
    sql += QStringLiteral(" ORDER BY e.seq");
    QSqlQuery q(db);
    q.prepare(sql);
    if (job)
        q.addBindValue(*job);
    if (!since.empty())
        q.addBindValue(QString::fromStdString(since));
    if (!q.exec())
        throw Error("audit log '" + path + "': " + q.lastError().text().toStdString());
    std::vector<AuditLog::EventRow> out;
    while (q.next()) {
        AuditLog::EventRow r;
        r.seq = q.value(0).toLongLong();
        r.time = q.value(1).toString().toStdString();
        r.decisionId = q.value(2).toString().toStdString();
        r.job = q.value(3).toInt();
        r.kind = q.value(4).toString().toStdString();
        r.actor = q.value(5).toString().toStdString();
        r.before = q.value(6).toString().toStdString();
        r.after = q.value(7).toString().toStdString();
        r.detail = q.value(8).toString().toStdString();
        r.probability = optionalDouble(q.value(9));
        r.value = optionalDouble(q.value(10));
        r.policyVersion = q.value(11).toString().toStdString();
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<AuditLog::EventRow> readAuditEvents(const std::string &path)
{
    static std::atomic<int> counter{0};
    const QString connection = QStringLiteral("dl2-audit-reader-%1").arg(counter.fetch_add(1));
    std::vector<AuditLog::EventRow> events;
    std::string error;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
        db.setDatabaseName(QString::fromStdString(path));
        // Read-only (never creates the file), and a writer's short transactions are waited for.
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=200"));
        if (!db.open()) {
            error = "audit log '" + path + "': " + db.lastError().text().toStdString();
        } else {
            try {
                events = queryAuditEvents(db, path);
            } catch (const Error &e) {
                error = e.what();
            }
            db.close();
        }
    }
    QSqlDatabase::removeDatabase(connection);
    if (!error.empty())
        throw Error(error);
    return events;
}

} // namespace dl2
