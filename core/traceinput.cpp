#include "traceinput.h"

#include "error.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace dl2 {

// Outside the anonymous namespace: TraceInput::Source (external linkage) holds one.
struct TraceArchiveDeleter
{
    void operator()(archive *a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, TraceArchiveDeleter>;

namespace {

constexpr size_t kChunk = 1 << 20;
constexpr size_t kListedMembers = 8;

enum class Container { Plain, Compressed, Zip };

// What the first bytes say. Unreadable files are Plain: opening them reports the error.
Container sniff(const std::string &path)
{
    std::array<unsigned char, 512> head{};
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return Container::Plain;
    const size_t n = std::fread(head.data(), 1, head.size(), f);
    std::fclose(f);
    auto starts = [&](std::string_view magic, size_t at = 0) {
        return n >= at + magic.size() && std::memcmp(head.data() + at, magic.data(), magic.size()) == 0;
    };
    using namespace std::string_view_literals;
    if (starts("PK\x03\x04"sv) || starts("PK\x05\x06"sv))
        return Container::Zip;
    if (starts("\x1f\x8b"sv) || starts("BZh"sv) || starts("\xfd" "7zXZ\x00"sv) ||
        starts("\x28\xb5\x2f\xfd"sv) || starts("7z\xbc\xaf\x27\x1c"sv) || starts("Rar!"sv) ||
        starts("ustar"sv, 257))
        return Container::Compressed;
    return Container::Plain;
}

bool matches(std::string_view entry, const std::string &member)
{
    if (entry == member)
        return true;
    // "data/Venus/cluster_log.csv" is chosen by "Venus/cluster_log.csv" or "cluster_log.csv".
    return entry.size() > member.size() && entry.substr(entry.size() - member.size()) == member &&
           entry[entry.size() - member.size() - 1] == '/';
}

bool isCandidate(std::string_view entry, const std::string &member,
                 const std::vector<std::string> &names)
{
    if (!member.empty())
        return matches(entry, member);
    const std::string base = baseName(entry);
    return std::find(names.begin(), names.end(), base) != names.end();
}

std::string listed(const std::vector<std::string> &members)
{
    std::string out;
    for (size_t i = 0; i < members.size() && i < kListedMembers; ++i)
        out += (i ? ", " : "") + members[i];
    if (members.size() > kListedMembers)
        out += ", ... (" + std::to_string(members.size()) + " files)";
    return out;
}

std::string namesText(const std::vector<std::string> &names)
{
    std::string out;
    for (size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return out;
}

// libarchive leaves the message null for some failures (a damaged zip header found by the
// fuzzer): never build a std::string from it directly.
std::string archiveError(archive *a)
{
    const char *message = archive_error_string(a);
    return message && *message ? message : "unknown libarchive error";
}

ArchivePtr openArchive(const std::string &path)
{
    ArchivePtr a(archive_read_new());
    if (!a)
        throw Error(path + ": out of memory opening the archive");
    archive_read_support_filter_all(a.get());
    // Archive formats the traces come in, and raw (a compressed single file: .gz, .bz2, .xz).
    // Not format_all: its text formats (mtree) would claim a compressed CSV.
    archive_read_support_format_tar(a.get());
    archive_read_support_format_zip(a.get());
    archive_read_support_format_7zip(a.get());
    archive_read_support_format_rar(a.get());
    archive_read_support_format_rar5(a.get());
    archive_read_support_format_raw(a.get());
    if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
        throw Error(path + ": cannot read as an archive: " + archiveError(a.get()));
    return a;
}

// Next regular file of the archive; false at the end. Throws on a damaged archive.
bool nextFile(archive *a, const std::string &path, std::string &name)
{
    for (;;) {
        archive_entry *entry = nullptr;
        const int rc = archive_read_next_header(a, &entry);
        if (rc == ARCHIVE_EOF)
            return false;
        if (rc < ARCHIVE_WARN)
            throw Error(path + ": damaged archive: " + archiveError(a));
        if (archive_entry_filetype(entry) != AE_IFREG)
            continue;
        const char *p = archive_entry_pathname(entry);
        name = p ? p : "";
        // A compressed single file has no name inside: it is the file without its suffix.
        if (archive_format(a) == ARCHIVE_FORMAT_RAW)
            name = std::filesystem::path(path).stem().string();
        return true;
    }
}

} // namespace

std::string baseName(std::string_view path)
{
    const auto slash = path.find_last_of('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

struct TraceInput::Source
{
    std::FILE *file = nullptr;
    ArchivePtr archive;
    std::string error; // the stream broke (e.g. truncated gzip): the data before it is read
    ~Source()
    {
        if (file)
            std::fclose(file);
    }
    // Up to `size` bytes; 0 at the end or after a stream error.
    size_t read(char *out, size_t size)
    {
        if (file) {
            const size_t n = std::fread(out, 1, size, file);
            if (n == 0 && std::ferror(file))
                error = std::strerror(errno);
            return n;
        }
        // Block by block (archive_read_data drops a partly filled buffer at an error, so a
        // truncated download would lose the data before the break).
        while (pendingSize == 0) {
            if (ended)
                return 0;
            const void *block = nullptr;
            size_t blockSize = 0;
            la_int64_t offset = 0;
            const int rc = archive_read_data_block(archive.get(), &block, &blockSize, &offset);
            if (rc == ARCHIVE_EOF) {
                ended = true;
                return 0;
            }
            if (rc < ARCHIVE_WARN) {
                error = archiveError(archive.get());
                ended = true;
                return 0;
            }
            pending = static_cast<const char *>(block);
            pendingSize = blockSize;
        }
        const size_t n = std::min(size, pendingSize);
        std::memcpy(out, pending, n);
        pending += n;
        pendingSize -= n;
        return n;
    }
    const char *pending = nullptr;
    size_t pendingSize = 0;
    bool ended = false;
};

TraceInput::TraceInput(const InputRef &ref, const std::vector<std::string> &names)
    : m_source(std::make_unique<Source>()), m_ref(ref)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(ref.path, ec))
        throw Error(ref.path + ": no such file");
    if (fs::is_directory(ref.path, ec))
        throw Error(ref.path + ": is a directory, expected a file");
    const Container container = sniff(ref.path);
    m_compressed = container != Container::Plain;
    if (!m_compressed) {
        if (!ref.member.empty())
            throw Error(ref.path + ": not an archive, so it has no member '" + ref.member + "'");
        m_source->file = std::fopen(ref.path.c_str(), "rb");
        if (!m_source->file)
            throw Error(ref.path + ": cannot open: " + std::strerror(errno));
        m_name = ref.path;
        return;
    }

    // A zip lists its files cheaply (central directory): refuse an ambiguous choice up front.
    std::string chosen;
    if (container == Container::Zip) {
        std::vector<std::string> all, candidates;
        ArchivePtr list = openArchive(ref.path);
        std::string name;
        while (nextFile(list.get(), ref.path, name)) {
            all.push_back(name);
            if (isCandidate(name, ref.member, names))
                candidates.push_back(name);
            archive_read_data_skip(list.get());
        }
        if (candidates.empty() && ref.member.empty() && all.size() == 1)
            candidates = all;
        if (candidates.empty())
            throw Error(ref.path + ": " +
                        (ref.member.empty() ? "holds no " + namesText(names)
                                            : "holds no member '" + ref.member + "'") +
                        " (it holds " + (all.empty() ? std::string("no files") : listed(all)) +
                        "); choose one with --member");
        if (candidates.size() > 1)
            throw Error(ref.path + ": holds several " +
                        (ref.member.empty() ? namesText(names) : "'" + ref.member + "'") + " (" +
                        listed(candidates) + "); choose one with --member");
        chosen = candidates.front();
    }

    m_source->archive = openArchive(ref.path);
    std::string name;
    std::vector<std::string> seen;
    while (nextFile(m_source->archive.get(), ref.path, name)) {
        const bool raw = archive_format(m_source->archive.get()) == ARCHIVE_FORMAT_RAW;
        if (chosen.empty() ? raw || isCandidate(name, ref.member, names) : name == chosen) {
            m_ref.member = raw ? std::string() : name;
            m_name = raw ? ref.path : ref.path + ':' + name;
            return;
        }
        seen.push_back(name);
        archive_read_data_skip(m_source->archive.get());
    }
    if (seen.size() == 1 && ref.member.empty()) {
        // The archive's only file, whatever its name: read it from the start.
        m_source->archive = openArchive(ref.path);
        nextFile(m_source->archive.get(), ref.path, name);
        m_ref.member = name;
        m_name = ref.path + ':' + name;
        return;
    }
    throw Error(ref.path + ": " +
                (ref.member.empty() ? "holds no " + namesText(names)
                                    : "holds no member '" + ref.member + "'") +
                " (it holds " + (seen.empty() ? std::string("no files") : listed(seen)) +
                "); choose one with --member");
}

TraceInput::~TraceInput() = default;

void TraceInput::checkText(std::string_view chunk, long long offset)
{
    if (!m_started) {
        m_started = true;
        if (chunk.size() >= 2 && ((chunk[0] == '\xff' && chunk[1] == '\xfe') ||
                                  (chunk[0] == '\xfe' && chunk[1] == '\xff')))
            throw Error(m_name + ": UTF-16 text; save it as UTF-8");
    }
    if (const auto zero = chunk.find('\0'); zero != std::string_view::npos)
        throw Error(m_name + ": binary content at byte " +
                    std::to_string(offset + static_cast<long long>(zero)) +
                    ": not a text table (a compression or archive format not read here, or the "
                    "wrong file?)");
}

bool TraceInput::fill()
{
    if (m_eof)
        return false;
    m_bytes += static_cast<long long>(m_pos);
    m_buffer.erase(0, m_pos);
    m_pos = 0;
    const size_t old = m_buffer.size();
    m_buffer.resize(old + kChunk);
    const size_t n = m_source->read(m_buffer.data() + old, kChunk);
    m_buffer.resize(old + n);
    if (n == 0) {
        m_eof = true;
        return false;
    }
    const bool first = !m_started;
    checkText(std::string_view(m_buffer).substr(old), m_bytes + static_cast<long long>(old));
    if (first && m_buffer.compare(0, 3, "\xef\xbb\xbf") == 0)
        m_pos = 3; // UTF-8 byte-order mark
    return true;
}

bool TraceInput::nextLine(std::string_view &line)
{
    size_t end = m_buffer.find('\n', m_pos);
    while (end == std::string::npos) {
        const size_t searched = m_buffer.size() - m_pos;
        if (!fill()) {
            if (m_pos >= m_buffer.size())
                return false;
            // The last line, without a line end.
            line = std::string_view(m_buffer).substr(m_pos);
            m_pos = m_buffer.size();
            m_lastComplete = false;
            ++m_line;
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            return true;
        }
        end = m_buffer.find('\n', m_pos + searched);
    }
    line = std::string_view(m_buffer).substr(m_pos, end - m_pos);
    m_pos = end + 1;
    ++m_line;
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    return true;
}

std::string TraceInput::readAll()
{
    while (fill()) {
    }
    m_buffer.erase(0, m_pos);
    m_bytes += static_cast<long long>(m_pos);
    m_pos = 0;
    return std::move(m_buffer);
}

const std::string &TraceInput::streamError() const
{
    return m_source->error;
}

bool TraceInput::isCompressed(const std::string &path)
{
    return sniff(path) != Container::Plain;
}

std::vector<std::string> TraceInput::members(const std::string &path)
{
    std::vector<std::string> out;
    if (sniff(path) == Container::Plain)
        return out;
    ArchivePtr a = openArchive(path);
    std::string name;
    while (nextFile(a.get(), path, name)) {
        out.push_back(name);
        archive_read_data_skip(a.get());
    }
    return out;
}

} // namespace dl2
