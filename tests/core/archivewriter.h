#pragma once
// Test helper: builds compressed files and archives as the public traces are published
// (gzip, tar.gz, zip), in memory with libarchive's writer.
#include <QByteArray>
#include <QFile>
#include <QString>

#include <archive.h>
#include <archive_entry.h>

#include <string>
#include <utility>
#include <vector>

namespace testarchive {

enum class Kind { Gzip, TarGz, Zip };

using Members = std::vector<std::pair<std::string, QByteArray>>;

inline QByteArray pack(Kind kind, const Members &members)
{
    archive *a = archive_write_new();
    switch (kind) {
    case Kind::Gzip:
        archive_write_add_filter_gzip(a);
        archive_write_set_format_raw(a);
        break;
    case Kind::TarGz:
        archive_write_add_filter_gzip(a);
        archive_write_set_format_pax_restricted(a);
        break;
    case Kind::Zip:
        archive_write_set_format_zip(a);
        break;
    }
    size_t total = 1 << 16;
    for (const auto &m : members)
        total += static_cast<size_t>(m.second.size()) * 2 + 4096;
    QByteArray out(static_cast<qsizetype>(total), '\0');
    size_t used = 0;
    if (archive_write_open_memory(a, out.data(), total, &used) != ARCHIVE_OK)
        qFatal("archive_write_open_memory: %s", archive_error_string(a));
    for (const auto &[name, data] : members) {
        archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, name.c_str());
        archive_entry_set_size(e, data.size());
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_perm(e, 0644);
        if (archive_write_header(a, e) != ARCHIVE_OK)
            qFatal("archive_write_header: %s", archive_error_string(a));
        archive_write_data(a, data.constData(), static_cast<size_t>(data.size()));
        archive_entry_free(e);
    }
    archive_write_close(a);
    archive_write_free(a);
    out.truncate(static_cast<qsizetype>(used));
    return out;
}

inline QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return f.readAll();
}

} // namespace testarchive
