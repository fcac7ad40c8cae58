#include "auditfaultvfs.h"

#include "error.h"

#include <QByteArray>
#include <QFileInfo>
#include <mutex>
#include <sqlite3.h>
#include <unistd.h>

namespace dl2 {

namespace {

std::mutex g_flagMutex;
std::string g_flag; // guarded by g_flagMutex
sqlite3_vfs *g_root = nullptr;

bool full()
{
    std::lock_guard lock(g_flagMutex);
    return !g_flag.empty() && access(g_flag.c_str(), F_OK) == 0;
}

// The file object: ours first, the wrapped VFS's right behind it (szOsFile covers both).
struct FaultyFile
{
    sqlite3_file base;
    sqlite3_file *real;
};

sqlite3_file *real(sqlite3_file *f)
{
    return reinterpret_cast<FaultyFile *>(f)->real;
}

int xClose(sqlite3_file *f)
{
    return real(f)->pMethods->xClose(real(f));
}
int xRead(sqlite3_file *f, void *p, int n, sqlite3_int64 off)
{
    return real(f)->pMethods->xRead(real(f), p, n, off);
}
int xWrite(sqlite3_file *f, const void *p, int n, sqlite3_int64 off)
{
    if (full())
        return SQLITE_FULL;
    return real(f)->pMethods->xWrite(real(f), p, n, off);
}
int xTruncate(sqlite3_file *f, sqlite3_int64 size)
{
    return real(f)->pMethods->xTruncate(real(f), size);
}
int xSync(sqlite3_file *f, int flags)
{
    return real(f)->pMethods->xSync(real(f), flags);
}
int xFileSize(sqlite3_file *f, sqlite3_int64 *size)
{
    return real(f)->pMethods->xFileSize(real(f), size);
}
int xLock(sqlite3_file *f, int l)
{
    return real(f)->pMethods->xLock(real(f), l);
}
int xUnlock(sqlite3_file *f, int l)
{
    return real(f)->pMethods->xUnlock(real(f), l);
}
int xCheckReservedLock(sqlite3_file *f, int *out)
{
    return real(f)->pMethods->xCheckReservedLock(real(f), out);
}
int xFileControl(sqlite3_file *f, int op, void *arg)
{
    return real(f)->pMethods->xFileControl(real(f), op, arg);
}
int xSectorSize(sqlite3_file *f)
{
    return real(f)->pMethods->xSectorSize(real(f));
}
int xDeviceCharacteristics(sqlite3_file *f)
{
    return real(f)->pMethods->xDeviceCharacteristics(real(f));
}
int xShmMap(sqlite3_file *f, int page, int size, int extend, void volatile **p)
{
    return real(f)->pMethods->xShmMap(real(f), page, size, extend, p);
}
int xShmLock(sqlite3_file *f, int offset, int n, int flags)
{
    return real(f)->pMethods->xShmLock(real(f), offset, n, flags);
}
void xShmBarrier(sqlite3_file *f)
{
    real(f)->pMethods->xShmBarrier(real(f));
}
int xShmUnmap(sqlite3_file *f, int deleteFlag)
{
    return real(f)->pMethods->xShmUnmap(real(f), deleteFlag);
}
int xFetch(sqlite3_file *f, sqlite3_int64 off, int amount, void **p)
{
    return real(f)->pMethods->xFetch(real(f), off, amount, p);
}
int xUnfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
    return real(f)->pMethods->xUnfetch(real(f), off, p);
}

const sqlite3_io_methods kMethods = {3,
                                     xClose,
                                     xRead,
                                     xWrite,
                                     xTruncate,
                                     xSync,
                                     xFileSize,
                                     xLock,
                                     xUnlock,
                                     xCheckReservedLock,
                                     xFileControl,
                                     xSectorSize,
                                     xDeviceCharacteristics,
                                     xShmMap,
                                     xShmLock,
                                     xShmBarrier,
                                     xShmUnmap,
                                     xFetch,
                                     xUnfetch};

int xOpen(sqlite3_vfs *, const char *name, sqlite3_file *f, int flags, int *outFlags)
{
    auto *ours = reinterpret_cast<FaultyFile *>(f);
    ours->real = reinterpret_cast<sqlite3_file *>(ours + 1);
    ours->base.pMethods = nullptr;
    const int rc = g_root->xOpen(g_root, name, ours->real, flags, outFlags);
    if (rc == SQLITE_OK && ours->real->pMethods)
        ours->base.pMethods = &kMethods;
    return rc;
}

sqlite3_vfs g_vfs;

} // namespace

std::string auditFaultVfsUri(const std::string &path, const std::string &flagFile)
{
    {
        std::lock_guard lock(g_flagMutex);
        g_flag = flagFile;
    }
    static std::once_flag once;
    std::call_once(once, [&] {
        g_root = sqlite3_vfs_find(nullptr);
        if (!g_root)
            throw Error("audit log fault injection: SQLite has no default VFS");
        g_vfs = *g_root; // every other method goes straight to the default VFS
        g_vfs.zName = "dl2-faulty";
        g_vfs.szOsFile = static_cast<int>(sizeof(FaultyFile)) + g_root->szOsFile;
        g_vfs.xOpen = xOpen;
        g_vfs.pAppData = nullptr;
        g_vfs.pNext = nullptr;
        if (sqlite3_vfs_register(&g_vfs, 0) != SQLITE_OK)
            throw Error("audit log fault injection: cannot register the SQLite VFS");
    });
    const QByteArray absolute = QFileInfo(QString::fromStdString(path)).absoluteFilePath().toUtf8();
    return "file:" + absolute.toPercentEncoding("/").toStdString() + "?vfs=dl2-faulty";
}

} // namespace dl2
