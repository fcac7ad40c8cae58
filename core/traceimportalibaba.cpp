// Alibaba PAI GPU trace 2020 (cluster-trace-gpu-v2020): pai_task_table joined with
// pai_job_table (both CSV without header rows), and pai_machine_spec for the cluster.
#include "traceimportformats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace dl2::importing {

namespace {

struct TaskAggregate
{
    double gpus = 0.0;
    double start = std::numeric_limits<double>::infinity();  // earliest task start
    double end = -std::numeric_limits<double>::infinity();   // latest task end
    int psInstances = 0;
    int jobLine = 0;        // the job table's line naming it (0: none yet)
    bool hasTasks = false;  // the task table names it
    bool malformed = false;
};

const char *kTaskLayout = "pai_task_table: job_name, task_name, inst_num, status, start_time, "
                          "end_time, plan_cpu, plan_mem, plan_gpu, gpu_type";
const char *kJobLayout = "pai_job_table: job_name, inst_id, user, status, start_time, end_time";

// A PAI time: empty or 0 mean "not started" / "not ended" (the publisher's analysis).
std::optional<double> paiTime(const CsvReader &r, size_t column, const char *name)
{
    const auto t = r.optionalNumber(column, name);
    return t && *t > 0 ? t : std::nullopt;
}

void readTasks(TraceInput &input, std::unordered_map<std::string, TaskAggregate> &tasks,
               Collector &out)
{
    CsvReader t(input);
    long long notStarted = 0, notEnded = 0;
    while (t.next()) {
        try {
            if (t.size() == 6 && t.line() == 1)
                throw t.error("6 columns: this looks like pai_job_table; give the task table "
                              "(pai_task_table, 10 columns) and the job table with --job-table");
            if (t.size() != 10)
                throw t.columnCountError(10, kTaskLayout);
            if (t[0].empty())
                throw t.error("column 'job_name': empty");
            const double instances = t.number(2, "inst_num");
            const auto start = paiTime(t, 4, "start_time");
            const auto end = paiTime(t, 5, "end_time");
            const double planGpu = t.optionalNumber(8, "plan_gpu").value_or(0.0);
            if (start && end && *end < *start)
                throw t.error("end_time is before start_time");
            notStarted += !start;
            notEnded += start && !end;
            TaskAggregate &agg = tasks[t[0]];
            agg.hasTasks = true;
            agg.gpus += instances * planGpu / 100.0;
            if (t[1] == "ps")
                agg.psInstances += static_cast<int>(std::min(instances, 4096.0));
            if (start) {
                agg.start = std::min(agg.start, *start);
                if (end)
                    agg.end = std::max(agg.end, *end);
            }
        } catch (const Error &e) {
            out.malformed(e, false);
            if (t.size() > 0 && !t[0].empty()) {
                TaskAggregate &agg = tasks[t[0]];
                agg.hasTasks = agg.malformed = true;
            }
        }
    }
    out.checkStream(input);
    out.checkLastLine(t);
    out.count("tasks-not-started", notStarted);
    out.count("tasks-not-ended", notEnded);
    if (notStarted + notEnded > 0)
        out.note(std::to_string(notStarted) + " task rows never started and " +
                 std::to_string(notEnded) +
                 " never ended (time 0 or empty): left out of their jobs' start and end");
}

void readJobs(TraceInput &input, std::unordered_map<std::string, TaskAggregate> &tasks,
              Collector &out)
{
    CsvReader j(input);
    // Every job is kept or filtered once: room for them all up front (pages are only touched
    // when used), so the vector never holds two copies while it grows.
    out.jobs.reserve(tasks.size());
    while (j.next()) {
        try {
            if (j.size() != 6)
                throw j.columnCountError(6, kJobLayout);
            if (j[0].empty())
                throw j.error("column 'job_name': empty");
            const auto submit = paiTime(j, 4, "start_time");
            j.optionalNumber(5, "end_time");
            // The job's aggregate (created empty when it has no tasks) also notes its line, so
            // a second row of the same job is found without another table of names.
            TaskAggregate &agg = tasks[j[0]];
            if (agg.jobLine != 0)
                throw j.error("duplicate job_name '" + j[0] + "' (first on line " +
                              std::to_string(agg.jobLine) + ")");
            agg.jobLine = j.line();
            const std::string &status = j[3];
            if (status == "Failed") {
                out.filter(kFailed);
                continue;
            }
            if (status == "Running" || status == "Waiting") {
                out.filter(kUnfinished);
                continue;
            }
            if (status != "Terminated") {
                out.filter(kUnknownState);
                continue;
            }
            if (!submit) {
                out.filter(kNoSubmitTime);
                continue;
            }
            if (!agg.hasTasks) {
                out.filter(kNoTasks);
                continue;
            }
            if (agg.malformed) {
                out.filter(kMalformedTask);
                continue;
            }
            if (!(agg.end > agg.start)) {
                out.filter(kNoDuration);
                continue;
            }
            RawJob raw;
            raw.source.id = j[0];
            raw.source.user = j[2];
            raw.source.status = status;
            raw.source.submitTime = submit;
            raw.source.gpus = agg.gpus;
            raw.source.durationSeconds = agg.end - agg.start;
            if (agg.start < *submit)
                out.count("start-before-submit");
            raw.source.queueSeconds = std::max(0.0, agg.start - *submit);
            raw.source.ps = agg.psInstances;
            out.keep(std::move(raw));
        } catch (const Error &e) {
            out.malformed(e);
        }
    }
    out.checkStream(input);
    out.checkLastLine(j);
    long long orphans = 0;
    for (const auto &[name, agg] : tasks)
        orphans += agg.hasTasks && agg.jobLine == 0;
    if (orphans > 0) {
        out.count("jobs-only-in-task-table", orphans);
        out.note(std::to_string(orphans) +
                 " job names of the task table are not in the job table (left out)");
    }
}

// pai_machine_spec: machine, gpu_type, cap_cpu, cap_mem, cap_gpu (no header).
std::optional<TraceCluster> readMachineSpec(const InputRef &ref, Collector &out)
{
    TraceInput input(ref, {"pai_machine_spec.csv"});
    out.report().inputs.push_back(input.name());
    CsvReader r(input);
    std::vector<int> gpus, cpus;
    while (r.next()) {
        if (r.size() != 5)
            throw r.columnCountError(5, "pai_machine_spec: machine, gpu_type, cap_cpu, cap_mem, "
                                        "cap_gpu");
        if (r.line() == 1 && !parseNumber(r[4]))
            continue; // a header row
        const double gpu = r.number(4, "cap_gpu"), cpu = r.optionalNumber(2, "cap_cpu").value_or(0);
        if (gpu > 4096 || cpu > 100'000)
            throw r.error("cap_gpu / cap_cpu out of range");
        gpus.push_back(static_cast<int>(gpu));
        cpus.push_back(static_cast<int>(cpu));
    }
    if (!input.streamError().empty())
        throw Error(input.name() + ": " + input.streamError());
    TraceCluster c = homogeneousCluster(gpus, cpus, baseName(input.name()));
    return c.nodes > 0 ? std::optional<TraceCluster>(c) : std::nullopt;
}

} // namespace

void readAlibaba(const InputRef &ref, const ImportOptions &options, Collector &out)
{
    TraceInput taskInput(ref, {"pai_task_table.csv"});
    out.report().inputs.push_back(taskInput.name());
    // The job table: given, else in the same archive or next to the task table; a task table
    // named e.g. "pai_task_table_july.csv" looks for "pai_job_table_july.csv" first.
    std::vector<std::string> jobNames{"pai_job_table.csv"};
    const std::string taskBase = baseName(taskInput.name());
    if (const auto pos = taskBase.find("pai_task_table"); pos != std::string::npos)
        if (const std::string named = taskBase.substr(0, pos) + "pai_job_table" + taskBase.substr(pos + 14);
            named != jobNames.front())
            jobNames.insert(jobNames.begin(), named);
    const auto jobRef = findCompanion(taskInput.ref(), jobNames, options.alibabaJobTable);
    if (!jobRef)
        throw Error(ref.path + ": cannot find the PAI job table next to the task table (looked for " +
                    jobNames.front() + " and its .gz/.tar.gz/.zip); give it with --job-table");

    std::unordered_map<std::string, TaskAggregate> tasks;
    readTasks(taskInput, tasks, out);
    TraceInput jobInput(*jobRef, jobNames);
    out.report().inputs.push_back(jobInput.name());
    readJobs(jobInput, tasks, out);
    tasks = {};

    if (const auto spec = findCompanion(taskInput.ref(), {"pai_machine_spec.csv"}, options.machines))
        out.cluster = readMachineSpec(*spec, out);
    out.source = "alibaba " + baseName(taskInput.name()) + " + " + baseName(jobInput.name());
}

} // namespace dl2::importing
