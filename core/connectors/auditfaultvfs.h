#pragma once
// Fault injection for the audit log (tests, the soak benchmark): an SQLite VFS ("dl2-faulty")
// layered over the default one that fails every write to a file of the database (main file,
// WAL, journal) with SQLITE_FULL - what SQLite reports on a full disk (ENOSPC) - while a flag
// file exists, and passes everything through otherwise. Chosen over RLIMIT_FSIZE (EFBIG, a
// per-file size and SIGXFSZ, not "the disk is full") and over a small tmpfs (needs root): the
// flag can be raised and lowered while the process runs, from another process.
// Qt's QSQLITE driver links the system libsqlite3, so the VFS registered here serves its
// connections too; a database opts in through its URI (auditFaultVfsUri + QSQLITE_OPEN_URI).

#include <string>

namespace dl2 {

// "file:/abs/path?vfs=dl2-faulty" for `path`; registers the VFS on first use and makes
// `flagFile` the switch (one flag per process: the latest call's).
std::string auditFaultVfsUri(const std::string &path, const std::string &flagFile);

} // namespace dl2
