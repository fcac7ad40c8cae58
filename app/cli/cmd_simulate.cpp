// dl2 simulate: one policy on one trace.
#include "command.h"
#include "common.h"

#include "error.h"
#include "fileio.h"
#include "simulator.h"

#include <QJsonArray>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <unordered_map>

namespace dl2::cli {

namespace {

// Whether the policy decided for a window of jobs only (dl2): then the simulator counted the
// jobs it left out of it, per slot and per job.
bool hadWindow(const RunResult &r)
{
    return std::any_of(r.slotJobs.begin(), r.slotJobs.end(),
                       [](const SlotJobs &n) { return n.outsideView >= 0; });
}

// Mean over slots of the jobs left out of the window.
double meanOutsideWindow(const RunResult &r)
{
    double sum = 0.0;
    for (const SlotJobs &n : r.slotJobs)
        sum += std::max(0, n.outsideView);
    return r.slotJobs.empty() ? 0.0 : sum / double(r.slotJobs.size());
}

// One row per job. The columns after `state` say how its time was spent (kept by the
// simulator): its first slot with >= 1 worker and >= 1 PS (empty if none), the slots it waited
// until then (until the end if it never ran), the slots it ran in, its mean workers and
// PSs over them, and the slots it spent outside the policy's window (empty for a policy
// without one).
std::string jobsCsv(const Simulator &sim, const RunResult &r, const ProfileSet &profiles)
{
    std::string csv = "job_id,source_id,model,arrival_slot,epochs,jct_slots,state,"
                      "first_run_slot,waiting_slots,slots_run,mean_workers,mean_ps,"
                      "outside_window_slots\n";
    const bool window = hadWindow(r);
    const auto &jobs = sim.jobs();
    const auto &specs = sim.trace().jobs;
    for (size_t i = 0; i < jobs.size(); ++i) {
        const JobState &j = jobs[i];
        const char *state = j.status == JobStatus::Finished ? "finished"
                            : j.arrivalSlot < r.slotCount   ? "unfinished"
                                                            : "not-arrived";
        const std::string firstRun = j.firstRunSlot >= 0 ? std::to_string(j.firstRunSlot) : "";
        char line[200], time[120];
        std::snprintf(line, sizeof line, ",%d,%.17g,%.17g,%s,", j.arrivalSlot, j.totalEpochs,
                      r.jcts[i], state);
        std::snprintf(time, sizeof time, ",%d,%d,%.17g,%.17g,%s\n", j.waitingSlots(r.slotCount),
                      j.slotsRun, j.meanWorkers(), j.meanPs(),
                      window ? std::to_string(j.slotsOutsideView).c_str() : "");
        // The source id may hold a comma or a quote: quoted as CSV does.
        std::string id = specs[i].source.id;
        if (id.find_first_of(",\"") != std::string::npos) {
            std::string q = "\"";
            for (const char c : id)
                q += c == '"' ? std::string("\"\"") : std::string(1, c);
            id = q + '"';
        }
        csv += std::to_string(j.id) + ',' + id + ',' + profiles[j.type].name + line + firstRun + time;
    }
    return csv;
}

// One row per inference of a learned policy in the slot just run (--decisions): what the
// acted-on job had, what was added, and the probabilities the policy gave the stop action and
// that job's three tasks (masked ones 0; they add up to 1 over all actions, not over these).
void appendDecisions(std::string &csv, const Simulator &sim, const Scheduler &scheduler,
                     const std::unordered_map<int, size_t> &indexOfId, const ProfileSet &profiles)
{
    static const char *kinds[] = {"worker", "ps", "bundle"};
    for (const DecisionRecord &d : scheduler.lastDecisions()) {
        const float stop = d.probabilities.back();
        if (d.stop) {
            char line[160];
            std::snprintf(line, sizeof line, "%d,%d,,,,,stop,%d,%.6g,,,,ok\n", d.slot, d.inference,
                          d.explored ? 1 : 0, stop);
            csv += line;
            continue;
        }
        const size_t row = size_t(d.action / 3);
        const JobState &j = sim.jobs()[indexOfId.at(d.jobId)];
        char line[320];
        std::snprintf(line, sizeof line, "%d,%d,%d,%s,%d,%d,%s,%d,%.6g,%.6g,%.6g,%.6g,%s\n", d.slot,
                      d.inference, d.jobId, profiles[j.type].name.c_str(), d.workersBefore,
                      d.psBefore, kinds[d.action % 3], d.explored ? 1 : 0, stop,
                      d.probabilities[3 * row], d.probabilities[3 * row + 1],
                      d.probabilities[3 * row + 2],
                      d.result == AddResult::Ok           ? "ok"
                      : d.result == AddResult::NoCapacity ? "no-capacity"
                                                          : "at-cap");
        csv += line;
    }
}

// "job 7 (source 'a12', 64 PS + 64 workers), ..." for the first few jobs that never fit.
std::string neverFitJobs(const Simulator &sim, const RunResult &r)
{
    std::string text;
    const auto &jobs = sim.jobs();
    const auto &specs = sim.trace().jobs;
    const size_t shown = std::min<size_t>(r.neverFit.size(), 5);
    for (size_t k = 0; k < shown; ++k) {
        for (size_t i = 0; i < jobs.size(); ++i) {
            if (jobs[i].id != r.neverFit[k])
                continue;
            text += (k ? ", job " : "job ") + std::to_string(jobs[i].id);
            if (!specs[i].source.id.empty())
                text += " (source '" + specs[i].source.id + "', ";
            else
                text += " (";
            text += std::to_string(jobs[i].observedPs) + " PS + " +
                    std::to_string(jobs[i].observedWorkers) + " workers)";
            break;
        }
    }
    if (r.neverFit.size() > shown)
        text += ", ... (" + std::to_string(r.neverFit.size() - shown) + " more)";
    return text;
}

// Per slot: the jobs running and waiting, the share of the cluster's CPU and GPU slots used,
// the workers and PSs placed, and for a policy with a window the jobs it left out of it.
QJsonArray slotsToJson(const RunResult &r)
{
    QJsonArray perSlot;
    for (size_t s = 0; s < r.slotJobs.size() && s < r.utilisation.size(); ++s) {
        const SlotJobs &n = r.slotJobs[s];
        QJsonObject o{{QStringLiteral("slot"), static_cast<int>(s)},
                      {QStringLiteral("running"), n.running},
                      {QStringLiteral("waiting"), n.waiting},
                      {QStringLiteral("cpu_used"), r.utilisation[s][0]},
                      {QStringLiteral("gpu_used"), r.utilisation[s][1]},
                      {QStringLiteral("workers"), n.workers},
                      {QStringLiteral("ps"), n.ps}};
        if (n.outsideView >= 0)
            o[QStringLiteral("outside_window")] = n.outsideView;
        perSlot.append(o);
    }
    return perSlot;
}

void printText(const RunResult &r, const Setup &setup)
{
    std::printf("policy            %s\n", r.policy.c_str());
    std::printf("trace             %s (%d jobs)\n", r.traceName.c_str(), r.jobs);
    std::printf("cluster           %d nodes x %g GPUs, %d CPUs; %g-s slots; caps %d workers, %d PS\n",
                setup.cluster.nodes, setup.cluster.capacity[1] / 4.0, setup.cluster.capacity[0],
                setup.simulation.slotSeconds, setup.simulation.maxWorkers, setup.simulation.maxPs);
    std::printf("completed         %d of %d in %d slots\n", r.completed, r.jobs, r.slotCount);
    if (r.truncated)
        std::printf("TRUNCATED         stopped (%s) with %d unfinished and %d not arrived\n",
                    r.stopReason.c_str(), r.unfinished, r.notArrived);
    if (!r.neverFit.empty())
        std::printf("NEVER FIT         %zu jobs larger than the cluster never ran (unfinished)\n",
                    r.neverFit.size());
    std::printf("average JCT       %.4f slots%s (lower bound %.4f, ratio %.3f)\n", r.avgJct,
                r.truncated ? ", CENSORED" : "", r.lowerBoundAvgJct,
                r.lowerBoundAvgJct > 0 ? r.avgJct / r.lowerBoundAvgJct : 0.0);
    if (r.truncated)
        std::printf("                  (over the %d jobs that arrived; unfinished ones counted up "
                    "to the stop, so the true average is higher)\n",
                    r.jobs - r.notArrived);
    std::printf("makespan          %.4f slots\n", r.makespan);
    std::printf("average reward    %.6f\n", r.avgReward);
    const auto used = meanUtilisation(r);
    std::printf("cluster used      %.1f %% of CPUs, %.1f %% of GPUs (mean over slots)\n",
                100.0 * used[0], 100.0 * used[1]);
    if (hadWindow(r)) {
        const auto outside = std::count_if(r.slotJobs.begin(), r.slotJobs.end(),
                                           [](const SlotJobs &n) { return n.outsideView > 0; });
        std::printf("outside window    %.1f jobs per slot (mean; %td of %zu slots left some out)\n",
                    meanOutsideWindow(r), outside, r.slotJobs.size());
    }
    std::printf("wall time         %.1f ms\n", r.wallSeconds * 1e3);
}

int runSimulate(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Simulate one policy on one trace: a built-in scenario (--scenario NAME [--seed N]) or a "
        "trace file (--trace FILE). An imported trace brings its slot length and cluster; the "
        "run goes on until every job has finished unless --max-slots stops it (then it is "
        "reported as truncated, its average JCT censored)."));
    parser.addHelpOption();
    addSetupOptions(parser, false);
    parser.addOption({QStringLiteral("policy"), QStringLiteral("Scheduling policy (default drf)."),
                      QStringLiteral("NAME"), QStringLiteral("drf")});
    parser.addOption({QStringLiteral("json"),
                      QStringLiteral("Print one JSON object. Besides the run's results it holds "
                                     "mean_cpu_used and mean_gpu_used (fractions of the cluster, "
                                     "mean over slots) and per_slot: per slot {slot, running, "
                                     "waiting (arrived, unfinished, no worker and PS pair), "
                                     "cpu_used, gpu_used (fractions of the cluster), workers, ps "
                                     "(tasks placed), and for a policy that decides for a window "
                                     "of jobs only (dl2) outside_window (jobs never in it in the "
                                     "slot)}, with mean_outside_window.")});
    parser.addOption({QStringLiteral("jobs"),
                      QStringLiteral("Also write per-job results as CSV to FILE: job_id, "
                                     "source_id, model, arrival_slot, epochs, jct_slots, state, "
                                     "then how the job's time was spent: first_run_slot (first "
                                     "slot with >= 1 worker and >= 1 PS, empty if none), "
                                     "waiting_slots (from arrival to that slot, or to the end if "
                                     "it never ran), slots_run, mean_workers, mean_ps (over the "
                                     "slots it ran in), outside_window_slots (slots a windowed "
                                     "policy such as dl2 never had it in view; empty for the "
                                     "others)."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("decisions"),
                      QStringLiteral("Learned policies: also write every inference as CSV to FILE: "
                                     "slot, inference, job_id, model, workers, ps (the job's before "
                                     "the action), action (worker, ps, bundle or stop), explored, "
                                     "p_stop, p_worker, p_ps, p_bundle (the policy's probabilities "
                                     "of stop and of that job's three tasks), result (of placing "
                                     "the task: ok, no-capacity, at-cap)."),
                      QStringLiteral("FILE")});
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("simulate", [&] {
        if (!parser.positionalArguments().isEmpty())
            throw Error("unexpected argument '" + parser.positionalArguments().first().toStdString() + "'");
        Setup setup = buildSetup(parser, false);
        printNotes("simulate", setup);
        const std::string policy = parser.value(QStringLiteral("policy")).toStdString();
        auto scheduler = makeScheduler(policy, setup.schedulerConfig);
        Simulator sim(setup.cluster, setup.profiles, setup.traces.front(), setup.simulation);
        const bool decisions = parser.isSet(QStringLiteral("decisions"));
        if (decisions && !scheduler->recordDecisions(DecisionRecording::Full))
            throw Error("--decisions: " + policy + " keeps no decision record (only the learned "
                        "policies do: dl2, dl2-plus)");
        // Only with --decisions: the header, each job's index by id, and the per-slot reader.
        std::string decisionsCsv;
        std::unordered_map<int, size_t> indexOfId;
        std::function<void()> afterSlot;
        if (decisions) {
            decisionsCsv = "slot,inference,job_id,model,workers,ps,action,explored,p_stop,p_worker,"
                           "p_ps,p_bundle,result\n";
            for (size_t i = 0; i < sim.jobs().size(); ++i)
                indexOfId[sim.jobs()[i].id] = i;
            afterSlot = [&] { appendDecisions(decisionsCsv, sim, *scheduler, indexOfId, setup.profiles); };
        }
        RunResult r = runSimulation(sim, *scheduler, afterSlot);
        r.policy = policy;
        if (parser.isSet(QStringLiteral("jobs")))
            writeFileAtomically(parser.value(QStringLiteral("jobs")).toStdString(),
                                jobsCsv(sim, r, setup.profiles));
        if (decisions)
            writeFileAtomically(parser.value(QStringLiteral("decisions")).toStdString(), decisionsCsv);
        if (!r.neverFit.empty())
            std::fprintf(stderr,
                         "dl2 simulate: warning: %zu jobs never fit the cluster (%d nodes of %g "
                         "GPUs, %d CPUs) and never ran: %s\n",
                         r.neverFit.size(), setup.cluster.nodes, setup.cluster.capacity[1] / 4.0,
                         setup.cluster.capacity[0], neverFitJobs(sim, r).c_str());
        if (r.truncated)
            std::fprintf(stderr,
                         "dl2 simulate: warning: the run stopped at slot %d (%s) before every job "
                         "finished: %d unfinished, %d not arrived; the average JCT is censored\n",
                         r.slotCount, r.stopReason.c_str(), r.unfinished, r.notArrived);
        if (parser.isSet(QStringLiteral("json"))) {
            QJsonObject o = toJson(r);
            if (!setup.seeds.empty() && !setup.scenarioName.empty())
                o[QStringLiteral("seed")] = static_cast<qint64>(setup.seeds.front());
            o[QStringLiteral("nodes")] = setup.cluster.nodes;
            o[QStringLiteral("setup")] = setupToJson(setup);
            const auto used = meanUtilisation(r);
            o[QStringLiteral("mean_cpu_used")] = used[0];
            o[QStringLiteral("mean_gpu_used")] = used[1];
            if (hadWindow(r))
                o[QStringLiteral("mean_outside_window")] = meanOutsideWindow(r);
            o[QStringLiteral("per_slot")] = slotsToJson(r);
            printJson(o);
        } else {
            printText(r, setup);
        }
        return 0;
    });
}

} // namespace

static CommandRegistration simulateRegistration{
    {"simulate", "simulate one policy on one trace", runSimulate}};

} // namespace dl2::cli
