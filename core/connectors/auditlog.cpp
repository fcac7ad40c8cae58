#include "auditlog.h"

#include "auditevents.h"
#include "auditfaultvfs.h"
#include "error.h"
#include "protoconvert.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QUuid>
#include <atomic>
#include <pwd.h>
#include <unistd.h>

namespace dl2 {

namespace {

QString json(const QJsonObject &o)
{
    return o.isEmpty() ? QString()
                       : QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

QString nowIso()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

std::string decisionText(const ResizeDecision &d)
{
    return QJsonDocument(toJson(d)).toJson(QJsonDocument::Compact).toStdString();
}

ResizeDecision parseDecision(const QString &text)
{
    return decisionFromJson(QJsonDocument::fromJson(text.toUtf8()).object());
}

// A row of SELECT decision, state, ack, probability, value, policy_version.
AuditLog::Record recordOf(const QSqlQuery &q)
{
    AuditLog::Record r{parseDecision(q.value(0).toString()), q.value(1).toString().toStdString(),
                       q.value(2).toString().toStdString(), optionalDouble(q.value(3)),
                       optionalDouble(q.value(4)), q.value(5).toString().toStdString()};
    return r;
}

const QString kRecordColumns =
    QStringLiteral("decision, state, ack, probability, value, policy_version");

std::string g_diskFullFlag; // AuditLog::injectDiskFullWhile

// In a catch block of a write: a failed statement becomes an AuditWriteError.
[[noreturn]] void rethrowAsWriteError()
{
    try {
        throw;
    } catch (const AuditWriteError &) {
        throw;
    } catch (const Error &e) {
        throw AuditWriteError(e.what());
    }
}

// Removes a connection that a throwing constructor leaves behind (unless cleared).
struct ConnectionGuard
{
    QString connection;
    ~ConnectionGuard()
    {
        if (connection.isEmpty())
            return;
        QSqlDatabase::database(connection, false).close();
        QSqlDatabase::removeDatabase(connection);
    }
};

} // namespace

bool AuditWriteError::diskFull() const
{
    return std::string_view(what()).find("disk is full") != std::string_view::npos;
}

void AuditLog::injectDiskFullWhile(const std::string &flagFile)
{
    g_diskFullFlag = flagFile;
}

void AuditLog::writeFailed(const std::string &what) const
{
    throw AuditWriteError("audit log '" + m_path + "': " + what);
}

AuditLog::AuditLog(const std::string &path) : m_path(path)
{
    static std::atomic<int> counter{0};
    m_connection = QStringLiteral("dl2-audit-%1").arg(counter.fetch_add(1));
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    ConnectionGuard guard{m_connection}; // closes the connection if the constructor throws
    db.setDatabaseName(QString::fromStdString(path));
    if (!g_diskFullFlag.empty()) {
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_URI"));
        db.setDatabaseName(QString::fromStdString(auditFaultVfsUri(path, g_diskFullFlag)));
    }
    if (!db.open())
        throw Error("audit log '" + path + "': " + db.lastError().text().toStdString());
    exec(QStringLiteral("PRAGMA journal_mode=WAL"));
    exec(QStringLiteral("PRAGMA synchronous=FULL"));
    exec(QStringLiteral("PRAGMA busy_timeout=5000"));
    begin();
    exec(QStringLiteral("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)"));
    QSqlQuery existing(db);
    existing.exec(QStringLiteral("SELECT (SELECT value FROM meta WHERE key = 'schema'), "
                                 "(SELECT count(*) FROM meta WHERE key = 'run_id')"));
    const bool fresh = !existing.next() || existing.value(1).toInt() == 0;
    if (!fresh) // a log without a schema entry predates schema 2
        m_openedSchema = existing.value(0).isNull() ? 1 : existing.value(0).toInt();
    existing.finish();
    if (m_openedSchema > kSchema)
        throw Error("audit log '" + path + "' has schema " + std::to_string(m_openedSchema) +
                    ", newer than this program's (" + std::to_string(kSchema) +
                    "): open it with a newer dl2");
    exec(QStringLiteral("CREATE TABLE IF NOT EXISTS decisions (id TEXT PRIMARY KEY, slot INTEGER, "
                        "job INTEGER, state TEXT NOT NULL, ack TEXT, decision TEXT NOT NULL, "
                        "updated TEXT, probability REAL, value REAL, policy_version TEXT)"));
    exec(QStringLiteral("CREATE TABLE IF NOT EXISTS slots (id TEXT PRIMARY KEY, run_id TEXT, "
                        "slot INTEGER, time TEXT, state BLOB, policy TEXT, policy_version TEXT, "
                        "reward REAL)"));
    exec(QStringLiteral("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
                        "time TEXT NOT NULL, decision_id TEXT, job INTEGER, kind TEXT NOT NULL, "
                        "actor TEXT, before TEXT, after TEXT, detail TEXT)"));
    exec(QStringLiteral("CREATE INDEX IF NOT EXISTS decisions_state ON decisions(state)"));
    QSqlQuery q(db);
    q.exec(QStringLiteral("SELECT value FROM meta WHERE key='run_id'"));
    if (q.next()) {
        m_runId = q.value(0).toString().toStdString();
    } else {
        m_runId = QUuid::createUuid().toString(QUuid::Id128).left(12).toStdString();
        QSqlQuery ins(db);
        ins.prepare(QStringLiteral("INSERT INTO meta(key, value) VALUES ('run_id', ?), "
                                   "('schema', ?)"));
        ins.addBindValue(QString::fromStdString(m_runId));
        ins.addBindValue(QString::number(kSchema));
        if (!ins.exec())
            throw Error("audit log '" + path + "': " + ins.lastError().text().toStdString());
    }
    if (!fresh && m_openedSchema < kSchema)
        migrate(m_openedSchema);
    commit();
    guard.connection.clear();
}

// In the constructor's transaction: brings a schema-1 log to kSchema.
void AuditLog::migrate(int from)
{
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    if (from < 2) {
        // CREATE TABLE IF NOT EXISTS left the old table as it was: add the columns, then fill
        // them from the decision JSON (the console already wrote probability and value there).
        QSqlQuery columns(db);
        columns.exec(QStringLiteral("PRAGMA table_info(decisions)"));
        bool haveProbability = false, haveValue = false;
        while (columns.next()) {
            haveProbability |= columns.value(1).toString() == QLatin1String("probability");
            haveValue |= columns.value(1).toString() == QLatin1String("value");
        }
        columns.finish();
        if (!haveProbability)
            exec(QStringLiteral("ALTER TABLE decisions ADD COLUMN probability REAL"));
        // (a schema-1 table gets policy_version below, with the schema-2 ones)
        if (!haveValue)
            exec(QStringLiteral("ALTER TABLE decisions ADD COLUMN value REAL"));
        std::vector<std::pair<QString, ResizeDecision>> rows;
        QSqlQuery read(db);
        if (!read.exec(QStringLiteral("SELECT id, decision FROM decisions")))
            writeFailed(read.lastError().text().toStdString());
        while (read.next())
            rows.emplace_back(read.value(0).toString(), parseDecision(read.value(1).toString()));
        read.finish();
        QSqlQuery update(db);
        update.prepare(
            QStringLiteral("UPDATE decisions SET probability = ?, value = ? WHERE id = ?"));
        for (const auto &[id, d] : rows) {
            if (!d.probability && !d.value)
                continue;
            update.addBindValue(d.probability ? QVariant(*d.probability) : QVariant());
            update.addBindValue(d.value ? QVariant(*d.value) : QVariant());
            update.addBindValue(id);
            if (!update.exec())
                writeFailed(update.lastError().text().toStdString());
        }
    }
    if (from < 3) {
        // The slots table was created by the constructor; decisions lack the policy version.
        QSqlQuery columns(db);
        columns.exec(QStringLiteral("PRAGMA table_info(decisions)"));
        bool haveVersion = false;
        while (columns.next())
            haveVersion |= columns.value(1).toString() == QLatin1String("policy_version");
        columns.finish();
        if (!haveVersion)
            exec(QStringLiteral("ALTER TABLE decisions ADD COLUMN policy_version TEXT"));
    }
    QSqlQuery version(db);
    version.prepare(QStringLiteral("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?), "
                                   "('migrated_from_schema', ?)"));
    version.addBindValue(QString::number(kSchema));
    version.addBindValue(QString::number(from));
    if (!version.exec())
        writeFailed(version.lastError().text().toStdString());
}

AuditLog::~AuditLog()
{
    {
        QSqlDatabase db = QSqlDatabase::database(m_connection, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(m_connection);
}

std::string AuditLog::osUser()
{
    if (const passwd *pw = getpwuid(getuid()); pw && pw->pw_name)
        return pw->pw_name;
    const QByteArray user = qgetenv("USER");
    return user.isEmpty() ? std::string("uid-") + std::to_string(getuid()) : user.toStdString();
}

void AuditLog::exec(const QString &sql) const
{
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    if (!q.exec(sql))
        writeFailed(q.lastError().text().toStdString() + " (" + sql.toStdString() + ")");
}

void AuditLog::begin() const
{
    if (m_depth++ > 0)
        return;
    if (!QSqlDatabase::database(m_connection, false).transaction()) {
        m_depth = 0;
        writeFailed("cannot begin a transaction: " +
                    QSqlDatabase::database(m_connection, false).lastError().text().toStdString());
    }
}

void AuditLog::commit() const
{
    if (m_depth <= 0 || --m_depth > 0)
        return;
    QSqlDatabase db = QSqlDatabase::database(m_connection, false);
    if (!db.commit()) {
        const std::string why = db.lastError().text().toStdString();
        db.rollback();
        writeFailed("commit failed: " + why);
    }
}

void AuditLog::rollback() const
{
    if (m_depth <= 0)
        return;
    m_depth = 0;
    QSqlDatabase::database(m_connection, false).rollback();
}

void AuditLog::insertEvent(const std::string &id, int job, const std::string &kind,
                           const std::string &actor, const QString &before, const QString &after,
                           const std::string &detail) const
{
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    q.prepare(
        QStringLiteral("INSERT INTO events(time, decision_id, job, kind, actor, before, after, "
                       "detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
    q.addBindValue(nowIso());
    q.addBindValue(QString::fromStdString(id));
    q.addBindValue(job);
    q.addBindValue(QString::fromStdString(kind));
    q.addBindValue(QString::fromStdString(actor));
    q.addBindValue(before);
    q.addBindValue(after);
    q.addBindValue(QString::fromStdString(detail));
    if (!q.exec())
        writeFailed(q.lastError().text().toStdString());
}

std::vector<std::string> AuditLog::recordProposals(const std::vector<ResizeDecision> &decisions,
                                                   const std::string &policyVersion)
{
    std::vector<std::string> fresh;
    begin();
    try {
        QSqlQuery q(QSqlDatabase::database(m_connection, false));
        q.prepare(QStringLiteral("INSERT OR IGNORE INTO decisions(id, slot, job, state, decision, "
                                 "updated, probability, value, policy_version) VALUES (?, ?, ?, "
                                 "'proposed', ?, ?, ?, ?, ?)"));
        for (const auto &d : decisions) {
            q.addBindValue(QString::fromStdString(d.id));
            q.addBindValue(d.slot);
            q.addBindValue(d.job);
            q.addBindValue(QString::fromStdString(decisionText(d)));
            q.addBindValue(nowIso());
            q.addBindValue(d.probability ? QVariant(*d.probability) : QVariant());
            q.addBindValue(d.value ? QVariant(*d.value) : QVariant());
            q.addBindValue(policyVersion.empty() ? QVariant()
                                                 : QVariant(QString::fromStdString(policyVersion)));
            if (!q.exec())
                throw Error("audit log '" + m_path + "': " + q.lastError().text().toStdString());
            if (q.numRowsAffected() == 1) {
                fresh.push_back(d.id);
                insertEvent(d.id, d.job, "proposed", "policy", json(toJson(d.from)),
                            json(toJson(d.to)), {});
            }
        }
        commit();
    } catch (...) {
        rollback();
        rethrowAsWriteError();
    }
    return fresh;
}

std::optional<AuditLog::Record> AuditLog::find(const std::string &id) const
{
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    q.prepare(QStringLiteral("SELECT ") + kRecordColumns +
              QStringLiteral(" FROM decisions WHERE id = ?"));
    q.addBindValue(QString::fromStdString(id));
    if (!q.exec() || !q.next())
        return std::nullopt;
    return recordOf(q);
}

void AuditLog::recordAction(const std::string &id, int job, const std::string &kind,
                            const std::string &actor, const QJsonObject &before,
                            const QJsonObject &after, const std::string &detail)
{
    insertEvent(id, job, kind, actor, json(before), json(after), detail);
}

void AuditLog::recordCommit(const std::vector<ResizeDecision> &approved,
                            const std::vector<ResizeDecision> &rejected, const std::string &actor)
{
    begin();
    try {
        QSqlQuery q(QSqlDatabase::database(m_connection, false));
        q.prepare(QStringLiteral("UPDATE decisions SET state = ?, decision = ?, updated = ? "
                                 "WHERE id = ? AND state IN ('proposed', 'approved', 'rejected')"));
        auto mark = [&](const ResizeDecision &d, const char *state) {
            q.addBindValue(QString::fromLatin1(state));
            q.addBindValue(QString::fromStdString(decisionText(d)));
            q.addBindValue(nowIso());
            q.addBindValue(QString::fromStdString(d.id));
            if (!q.exec())
                throw Error("audit log '" + m_path + "': " + q.lastError().text().toStdString());
            if (q.numRowsAffected() == 1)
                insertEvent(d.id, d.job, state, actor, json(toJson(d.from)), json(toJson(d.to)),
                            {});
        };
        for (const auto &d : approved)
            mark(d, "committed");
        for (const auto &d : rejected)
            mark(d, "rejected");
        commit();
    } catch (...) {
        rollback();
        rethrowAsWriteError();
    }
}

void AuditLog::recordSent(const std::vector<ResizeDecision> &decisions, bool resend,
                          const std::string &target)
{
    begin();
    try {
        QSqlQuery q(QSqlDatabase::database(m_connection, false));
        q.prepare(QStringLiteral("UPDATE decisions SET state = 'sent', updated = ? WHERE id = ? "
                                 "AND state IN ('committed', 'sent')"));
        for (const auto &d : decisions) {
            q.addBindValue(nowIso());
            q.addBindValue(QString::fromStdString(d.id));
            if (!q.exec())
                throw Error("audit log '" + m_path + "': " + q.lastError().text().toStdString());
            insertEvent(d.id, d.job, resend ? "resent" : "sent", osUser(), {}, {}, target);
        }
        commit();
    } catch (...) {
        rollback();
        rethrowAsWriteError();
    }
}

void AuditLog::recordAcks(const std::vector<Acknowledgment> &acks)
{
    begin();
    try {
        QSqlQuery q(QSqlDatabase::database(m_connection, false));
        q.prepare(
            QStringLiteral("UPDATE decisions SET state = ?, ack = ?, updated = ? WHERE id = ?"));
        QSqlQuery job(QSqlDatabase::database(m_connection, false));
        job.prepare(QStringLiteral("SELECT job FROM decisions WHERE id = ?"));
        for (const auto &a : acks) {
            const bool invalid = a.status == Acknowledgment::Status::Invalid;
            q.addBindValue(QString::fromLatin1(invalid ? "invalid" : "acknowledged"));
            q.addBindValue(QString::fromLatin1(toString(a.status)));
            q.addBindValue(nowIso());
            q.addBindValue(QString::fromStdString(a.decisionId));
            if (!q.exec())
                throw Error("audit log '" + m_path + "': " + q.lastError().text().toStdString());
            job.addBindValue(QString::fromStdString(a.decisionId));
            const int jobId = job.exec() && job.next() ? job.value(0).toInt() : -1;
            std::string detail = toString(a.status);
            if (a.appliedAtSlot >= 0)
                detail += " at slot " + std::to_string(a.appliedAtSlot);
            if (!a.message.empty())
                detail += ": " + a.message;
            insertEvent(a.decisionId, jobId, "acknowledged", "agent", {}, {}, detail);
        }
        commit();
    } catch (...) {
        rollback();
        rethrowAsWriteError();
    }
}

std::vector<ResizeDecision> AuditLog::unacknowledged() const
{
    std::vector<ResizeDecision> out;
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    if (!q.exec(
            QStringLiteral("SELECT decision FROM decisions WHERE state IN ('committed', 'sent') "
                           "ORDER BY slot, job")))
        writeFailed(q.lastError().text().toStdString()); // a read that had to write (WAL recovery)
    while (q.next())
        out.push_back(parseDecision(q.value(0).toString()));
    return out;
}

std::vector<AuditLog::Record> AuditLog::decisions(std::optional<int> job) const
{
    std::vector<Record> out;
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    q.prepare(QStringLiteral("SELECT ") + kRecordColumns +
              (job ? QStringLiteral(" FROM decisions WHERE job = ? ORDER BY slot, job")
                   : QStringLiteral(" FROM decisions ORDER BY slot, job")));
    if (job)
        q.addBindValue(*job);
    if (!q.exec())
        throw Error("audit log '" + m_path + "': " + q.lastError().text().toStdString());
    while (q.next())
        out.push_back(recordOf(q));
    return out;
}

void AuditLog::recordSlotState(const std::string &runId, const ClusterView &view,
                               const ProfileSet &profiles, const std::string &policy,
                               const std::string &policyVersion)
{
    const std::string bytes = agentproto::recordedView(view, profiles);
    begin();
    try {
        QSqlQuery q(QSqlDatabase::database(m_connection, false));
        q.prepare(QStringLiteral("INSERT OR IGNORE INTO slots(id, run_id, slot, time, state, "
                                 "policy, policy_version) VALUES (?, ?, ?, ?, ?, ?, ?)"));
        q.addBindValue(QString::fromStdString(runId + "/" + std::to_string(view.nextSlot)));
        q.addBindValue(QString::fromStdString(runId));
        q.addBindValue(view.nextSlot);
        q.addBindValue(nowIso());
        q.addBindValue(QByteArray(bytes.data(), qsizetype(bytes.size())));
        q.addBindValue(QString::fromStdString(policy));
        q.addBindValue(QString::fromStdString(policyVersion));
        if (!q.exec())
            throw Error("audit log '" + m_path + "': " + q.lastError().text().toStdString());
        commit();
    } catch (...) {
        rollback();
        rethrowAsWriteError();
    }
}

void AuditLog::recordSlotReward(const std::string &runId, int slot, double reward)
{
    begin();
    try {
        QSqlQuery q(QSqlDatabase::database(m_connection, false));
        q.prepare(QStringLiteral("UPDATE slots SET reward = ? WHERE id = ?"));
        q.addBindValue(reward);
        q.addBindValue(QString::fromStdString(runId + "/" + std::to_string(slot)));
        if (!q.exec())
            throw Error("audit log '" + m_path + "': " + q.lastError().text().toStdString());
        commit();
    } catch (...) {
        rollback();
        rethrowAsWriteError();
    }
}

std::vector<AuditLog::SlotState> AuditLog::slotStates(const ProfileSet &profiles) const
{
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    if (!q.exec(QStringLiteral("SELECT run_id, slot, time, state, policy, policy_version, reward "
                               "FROM slots ORDER BY time, slot")))
        throw Error("audit log '" + m_path + "': " + q.lastError().text().toStdString());
    std::vector<SlotState> out;
    while (q.next()) {
        SlotState s;
        s.runId = q.value(0).toString().toStdString();
        s.slot = q.value(1).toInt();
        s.time = q.value(2).toString().toStdString();
        try {
            s.view = agentproto::fromRecordedView(q.value(3).toByteArray(), profiles);
        } catch (const Error &e) {
            throw Error("audit log '" + m_path + "': the state of slot " + std::to_string(s.slot) +
                        " of run " + s.runId + ": " + e.what());
        }
        s.policy = q.value(4).toString().toStdString();
        s.policyVersion = q.value(5).toString().toStdString();
        s.reward = optionalDouble(q.value(6));
        out.push_back(std::move(s));
    }
    return out;
}

void AuditLog::recordLearningEvent(const std::string &actor, const std::string &detail,
                                   const QJsonObject &after)
{
    try {
        insertEvent({}, -1, "learning", actor, {}, json(after), detail);
    } catch (...) {
        rethrowAsWriteError();
    }
}

std::vector<AuditLog::EventRow> AuditLog::events(std::optional<int> job,
                                                 const std::string &since) const
{
    return queryAuditEvents(QSqlDatabase::database(m_connection, false), m_path, job, since);
}

std::vector<std::string> AuditLog::idsInState(const std::string &state) const
{
    QSqlQuery q(QSqlDatabase::database(m_connection, false));
    q.prepare(QStringLiteral("SELECT id FROM decisions WHERE state = ? ORDER BY slot, job"));
    q.addBindValue(QString::fromStdString(state));
    std::vector<std::string> out;
    if (q.exec())
        while (q.next())
            out.push_back(q.value(0).toString().toStdString());
    return out;
}

} // namespace dl2
