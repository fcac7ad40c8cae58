#pragma once
// One input file of a trace import, read as the public traces are published: plain text, or
// compressed (gzip, bzip2, xz, zstd) or archived (tar, tar.gz, zip), recognised by content, not
// by name, and decompressed as a stream through libarchive. A UTF-8 byte-order mark is
// dropped, lines may end in LF or CRLF, and the last line may lack its end (a truncated file:
// lastLineComplete() says so).
//
// An archive may hold several files: the member read is `member` when given (its path in the
// archive or its file name), otherwise the one whose file name is one of `names` (the names the
// publisher gives that table), otherwise the archive's only file. A zip holding several
// candidates is refused with their list; a tar is read in order and its first candidate wins.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dl2 {

// Where a table comes from: a file, and the member chosen inside it when it is an archive.
struct InputRef
{
    std::string path;
    std::string member; // empty: by the format's names (or the archive's only file)
    // "path" or "path:member", as errors and reports name it.
    std::string display() const { return member.empty() ? path : path + ':' + member; }
};

class TraceInput
{
public:
    // Opens `ref` and, in an archive, chooses the member (ref.member, else by `names`).
    // Throws dl2::Error naming the file: missing, unreadable, not text, no or several candidates.
    TraceInput(const InputRef &ref, const std::vector<std::string> &names);
    ~TraceInput();
    TraceInput(const TraceInput &) = delete;
    TraceInput &operator=(const TraceInput &) = delete;

    // The input as errors name it: "file" or "archive:member".
    const std::string &name() const { return m_name; }
    // The reference that reopens exactly this input (the archive member resolved).
    const InputRef &ref() const { return m_ref; }
    bool compressed() const { return m_compressed; }

    // The next line without its end; false at the end of the input. The view stays valid until
    // the next call.
    bool nextLine(std::string_view &line);
    int lineNumber() const { return m_line; }
    // False when the line just read was the last and had no line end (truncated file?).
    bool lastLineComplete() const { return m_lastComplete; }
    // Everything not read yet, as one string (JSON inputs).
    std::string readAll();
    // Why the stream ended early (e.g. "truncated gzip input"); empty when it ended cleanly.
    // The data before the break has been handed out.
    const std::string &streamError() const;

    // Is `path` compressed or an archive (by its first bytes)? False for plain or unreadable.
    static bool isCompressed(const std::string &path);
    // The regular files of an archive (empty for a plain file).
    static std::vector<std::string> members(const std::string &path);

private:
    struct Source;
    bool fill();
    void checkText(std::string_view chunk, long long offset);

    std::unique_ptr<Source> m_source;
    InputRef m_ref;
    std::string m_name;
    bool m_compressed = false;
    std::string m_buffer;
    size_t m_pos = 0;      // start of unread data in m_buffer
    bool m_eof = false;    // the source is exhausted
    bool m_started = false; // the first chunk (BOM) has been checked
    bool m_lastComplete = true;
    int m_line = 0;
    long long m_bytes = 0;  // bytes handed out before m_buffer (for binary-content errors)
};

// The file name of a path or archive member ("data/Venus/cluster_log.csv" -> "cluster_log.csv").
std::string baseName(std::string_view path);

} // namespace dl2
