#pragma once
// Reading the audit log's events: the one events query (AuditLog::events runs it on the log's
// own connection) and a read-only reader for viewers that must never create, write or migrate
// the file while the operating loop writes it (the console's Audit log dock).

#include "auditlog.h"

#include <optional>
#include <string>
#include <vector>

class QSqlDatabase;
class QVariant;

namespace dl2 {

// The events of the open audit log `db`, oldest first, of one job and from a time on when
// given. Throws dl2::Error naming `path`.
std::vector<AuditLog::EventRow> queryAuditEvents(const QSqlDatabase &db, const std::string &path,
                                                 std::optional<int> job = {},
                                                 const std::string &since = {});

// A nullable REAL column's value (the audit log's and its readers').
std::optional<double> optionalDouble(const QVariant &value);

// Opens `path` read-only through a connection of its own, reads every event (oldest first)
// and closes it. Throws dl2::Error naming the file when it cannot be opened or is no audit log.
std::vector<AuditLog::EventRow> readAuditEvents(const std::string &path);

} // namespace dl2
