#pragma once
// The three public-trace importers read files: the input goes to a scratch file (Alibaba:
// the task table and the job table, split at a line "----"), then through importTrace() with
// options picked by the first byte (skip malformed records, keep at most N jobs, model rule).
#include "fuzzing.h"
#include "traceimport.h"

#include <cstdlib>

namespace dl2::fuzz {

inline int importOne(ImportFormat format, const std::uint8_t *data, std::size_t size)
{
    if (size == 0)
        return 0;
    ImportOptions options;
    options.skipMalformed = data[0] & 1;
    options.maxJobs = (data[0] >> 1) & 3;
    options.modelRule = (data[0] & 8) ? ModelRule::Sample : ModelRule::BySize;
    options.slotSeconds = (data[0] & 16) ? 1.0 : 1200.0;
    const std::string in = bytes(data + 1, size - 1);
    expectParsedOrError([&] {
        std::string path;
        if (format == ImportFormat::Alibaba) {
            const auto parts = split(in, "\n----\n", 2);
            path = writeScratch("pai_task_table.csv", parts[0]);
            options.alibabaJobTable =
                writeScratch("pai_job_table.csv", parts.size() > 1 ? parts[1] : std::string());
        } else {
            path = writeScratch(format == ImportFormat::Philly ? "philly.json" : "helios.csv", in);
        }
        const ImportResult r = importTrace(path, format, options);
        if (r.trace.jobs.size() != static_cast<size_t>(r.report.kept))
            std::abort(); // the report counts what the trace holds
    });
    return 0;
}

} // namespace dl2::fuzz
