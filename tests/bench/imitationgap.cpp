// The imitation gap of a dl2 student, taken apart (bench_learning --imitation-gap --init CKPT).
//
// Agreement (the share of the student's greedy choices inside the set of tasks its teacher's
// allocation still needs) says little about a slot's allocation: a student that keeps adding
// PSs after the teacher's count agrees with every task it took before. So this compares
// allocations. On the student's own slots (validation seeds 100-109, greedy) each slot is also
// played by the teacher on a copy of the simulator, and every allocated job is put in a
// class: the same (workers, PSs), fewer / as many / more workers and PSs, caps (both caps, which
// move a job out of the window), one bundle only; in the window (the first J allocated jobs by
// arrival) or behind it. Then the run is replayed with allocations mixed from the two, placed
// as dl2 places them (FixedAllocation): the student's own, the teacher's, the student's workers with
// the teacher's PSs, the teacher's workers with the student's PSs, and the student's with its
// PSs beyond the teacher's taken away. How far each mix moves the JCT from the student's
// towards the teacher's says which of the student's decisions the gap is in. The most
// frequent differences in the window are also listed by model, with both allocations, and the
// student's single decisions (seeds 100-101) are put in classes against the teacher's
// allocation of their slot: a needed task, a surplus one (while needed ones are left or not),
// a stop with needed tasks left, a failed allocation.

#include "imitationgap.h"

#include "checkpoint.h"
#include "decisionrecord.h"
#include "error.h"
#include "modelprofile.h"
#include "registerpolicies.h"
#include "scenario.h"
#include "scheduler.h"
#include "simulator.h"
#include "windowteacher.h"

#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>

using namespace dl2;

namespace {

using Allocation = std::pair<int, int>; // (workers, PSs)

// Places a given allocation as dl2 does: first one bundle (a worker and a PS) for every job
// that gets tasks, in arrival order, then each job's remaining tasks in arrival order, workers
// and PSs alternately, until it has its target (workers, PSs) or the cluster is full.
class FixedAllocation final : public Scheduler
{
public:
    std::vector<Allocation> target; // by job index
    std::string name() const override { return "fixed-allocation"; }
    void schedule(SlotContext &c) override
    {
        for (int i : c.activeJobs())
            if (target[size_t(i)].first > 0 && target[size_t(i)].second > 0)
                c.add(i, TaskKind::Bundle);
        for (int i : c.activeJobs()) {
            const auto [workers, ps] = target[size_t(i)];
            for (bool added = true; added;) {
                added = false;
                if (c.job(i).workers < workers && c.add(i, TaskKind::Worker) == AddResult::Ok)
                    added = true;
                if (c.job(i).ps < ps && c.add(i, TaskKind::Ps) == AddResult::Ok)
                    added = true;
            }
        }
    }
};

const char *kMixes[] = {"student", "teacher", "student workers, teacher PSs",
                        "teacher workers, student PSs", "student without surplus PSs"};

Allocation mix(const std::string &how, const JobState &s, const JobState &t)
{
    if (how == "teacher")
        return {t.workers, t.ps};
    if (how == "student workers, teacher PSs")
        return {s.workers, s.workers > 0 ? std::max(1, t.ps) : 0};
    if (how == "teacher workers, student PSs")
        return {s.ps > 0 ? std::max(1, t.workers) : 0, s.ps};
    if (how == "student without surplus PSs")
        return {s.workers, std::min(s.ps, std::max(t.ps, s.workers > 0 ? 1 : 0))};
    return {s.workers, s.ps};
}

std::string classify(const JobState &s, const JobState &t, const SimulationOptions &o)
{
    const auto capped = [&](const JobState &j) { return j.workers >= o.maxWorkers && j.ps >= o.maxPs; };
    if (s.workers == t.workers && s.ps == t.ps)
        return "same";
    if (capped(t) && !capped(s))
        return "teacher caps, student not";
    if (capped(s) && !capped(t))
        return "student caps, teacher not";
    if (s.workers == 1 && s.ps == 1)
        return "student one bundle only";
    if (t.workers == 1 && t.ps == 1)
        return "teacher one bundle only";
    const auto sign = [](int a, int b) { return a < b ? "fewer" : a > b ? "more" : "as many"; };
    return std::string(sign(s.workers, t.workers)) + " workers, " + sign(s.ps, t.ps) + " PSs";
}

} // namespace

QJsonObject imitationGap(const std::string &checkpoint)
{
    registerLearnedPolicies();
    const Checkpoint c = readCheckpoint(resolveCheckpoint(checkpoint));
    if (c.spec.kind != PolicyKind::Dl2)
        throw Error(checkpoint + ": --imitation-gap takes a dl2 policy (its window sets the teacher's)");
    const int window = c.spec.window;
    const Scenario &sc = scenarioByName("dl2-reference");
    const ProfileSet profiles = ProfileSet::reference();
    SchedulerConfig config;
    config.scenario = "dl2-reference";
    config.checkpoint = checkpoint;
    config.decode = "greedy";
    registerWindowTeachers();
    SchedulerConfig teacherConfig; // the teacher SL uses for this student: its window
    teacherConfig.scenario = "dl2-reference";
    teacherConfig.window = window;
    const int firstSeed = 100, lastSeed = 109;
    // Plays validation trace `seed`: each slot the student and the teacher act on copies of
    // the simulator, and `next` makes the slot's outcome from the state before and the two.
    // Its avg JCT, divided by the number of seeds.
    using Next = std::function<Simulator(const Simulator &before, const Simulator &student,
                                         const Simulator &teacher)>;
    const auto play = [&](int seed, const Next &next) {
        const auto student = makeScheduler("dl2", config);
        const auto teacher = makeScheduler("best-config-window-25", teacherConfig);
        student->reset();
        teacher->reset();
        Simulator sim(sc.cluster, profiles, sc.trace(profiles, std::uint64_t(seed)), sc.simulation);
        while (!sim.done()) {
            Simulator s = sim, t = sim;
            s.step(*student);
            t.step(*teacher);
            sim = next(sim, s, t);
        }
        return sim.result().avgJct / (lastSeed - firstSeed + 1);
    };

    // The student's own slots against the teacher's on a copy of each.
    std::map<std::string, long> classes;
    std::map<std::string, long> differences; // "model: teacher (w, p), student (w, p)"
    long jobSlots = 0;
    double studentJct = 0.0;
    for (int seed = firstSeed; seed <= lastSeed; ++seed)
        studentJct += play(seed, [&](const Simulator &, const Simulator &s, const Simulator &t) {
            int rank = 0;
            for (size_t i = 0; i < s.jobs().size(); ++i) {
                const JobState &a = s.jobs()[i], &b = t.jobs()[i];
                if (a.workers + a.ps + b.workers + b.ps == 0)
                    continue;
                if (rank < window && (a.workers != b.workers || a.ps != b.ps))
                    ++differences[profiles[size_t(a.type)].name + ": teacher (" + std::to_string(b.workers) +
                                  ", " + std::to_string(b.ps) + "), student (" + std::to_string(a.workers) +
                                  ", " + std::to_string(a.ps) + ")"];
                ++classes[(rank++ < window ? "window: " : "behind: ") + classify(a, b, sc.simulation)];
                ++jobSlots;
            }
            return s; // the student's slot goes on
        });
    std::printf("%s (window %d) against best-config-window-25, validation seeds %d-%d, greedy: "
                "avg JCT %.3f\nallocated job-slots %ld, by how the student's allocation differs:\n",
                checkpoint.c_str(), window, firstSeed, lastSeed, studentJct, jobSlots);
    QJsonObject out{{QStringLiteral("checkpoint"), QString::fromStdString(checkpoint)},
                    {QStringLiteral("window"), window},
                    {QStringLiteral("student_avg_jct"), studentJct},
                    {QStringLiteral("job_slots"), double(jobSlots)}};
    QJsonObject shares;
    for (const auto &[name, n] : classes) {
        std::printf("  %-45s %6.2f %%\n", name.c_str(), 100.0 * double(n) / double(jobSlots));
        shares[QString::fromStdString(name)] = double(n) / double(jobSlots);
    }
    out[QStringLiteral("classes")] = shares;
    std::vector<std::pair<long, std::string>> byCount;
    for (const auto &[what, n] : differences)
        byCount.emplace_back(n, what);
    std::sort(byCount.begin(), byCount.end(), [](const auto &x, const auto &y) {
        return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    byCount.resize(std::min<size_t>(byCount.size(), 10));
    std::printf("most frequent differences in the window (workers, PSs), share of allocated job-slots:\n");
    QJsonArray frequent;
    for (const auto &[n, what] : byCount) {
        std::printf("  %-55s %6.2f %%\n", what.c_str(), 100.0 * double(n) / double(jobSlots));
        frequent.append(QJsonObject{{QStringLiteral("difference"), QString::fromStdString(what)},
                                    {QStringLiteral("share"), double(n) / double(jobSlots)}});
    }
    out[QStringLiteral("frequent_differences")] = frequent;

    // The student's decisions on its own slots (seeds 100-101), each against the teacher's
    // allocation of that slot: a task the teacher's allocation still needs, a surplus task (the
    // job already has the teacher's count of that kind) while needed tasks are left or when
    // none is, a stop with needed tasks left or none, a failed allocation (which ends the slot).
    std::map<std::string, long> decisions;
    double surplusRatio = 0.0; // p(surplus task chosen) / the largest p of a needed task
    long surplusWithNeeded = 0;
    for (int seed = firstSeed; seed <= firstSeed + 1; ++seed) {
        const auto student = makeScheduler("dl2", config);
        const auto teacher = makeScheduler("best-config-window-25", teacherConfig);
        student->reset();
        teacher->reset();
        student->recordDecisions(DecisionRecording::Full);
        const DecisionLayout layout = student->decisionLayout();
        int wCol = -1, pCol = -1;
        for (const DecisionFeature &f : layout.columns) {
            if (f.name == "workers")
                wCol = f.first;
            if (f.name == "PSs")
                pCol = f.first;
        }
        const double wScale = c.spec.features.normalise ? sc.simulation.maxWorkers : 1.0;
        const double pScale = c.spec.features.normalise ? sc.simulation.maxPs : 1.0;
        Simulator sim(sc.cluster, profiles, sc.trace(profiles, std::uint64_t(seed)), sc.simulation);
        while (!sim.done()) {
            Simulator s = sim, t = sim;
            s.step(*student);
            t.step(*teacher);
            std::map<int, Allocation> target; // by job id
            for (const JobState &j : t.jobs())
                target[j.id] = {j.workers, j.ps};
            for (const DecisionRecord &d : student->lastDecisions()) {
                auto need = [&](int row, int kind) {
                    const int id = d.jobIds[size_t(row)];
                    if (id < 0 || !d.mask[size_t(3 * row + kind)])
                        return false;
                    const float *f = d.features.data() + size_t(row * d.jobDim);
                    const int w = int(std::lround(f[wCol] * wScale)), p = int(std::lround(f[pCol] * pScale));
                    const auto [tw, tp] = target[id];
                    return kind == 0 ? w < tw : kind == 1 ? p < tp : w < tw && p < tp;
                };
                float bestNeeded = 0.0f;
                for (int r = 0; r < d.rows(); ++r)
                    for (int k = 0; k < 3; ++k)
                        if (need(r, k))
                            bestNeeded = std::max(bestNeeded, d.probabilities[size_t(3 * r + k)]);
                const bool left = bestNeeded > 0.0f;
                static const char *kinds[] = {"worker", "PS", "bundle"};
                std::string what;
                if (d.stop)
                    what = left ? "stop with needed tasks left" : "stop, nothing needed";
                else if (d.result != AddResult::Ok)
                    what = "failed allocation (ends the slot)";
                else if (need(d.action / 3, d.action % 3))
                    what = std::string("needed ") + kinds[d.action % 3];
                else {
                    what = std::string("surplus ") + kinds[d.action % 3] + (left ? ", needed left" : ", nothing needed");
                    if (left) {
                        surplusRatio += d.probabilities[size_t(d.action)] / bestNeeded;
                        ++surplusWithNeeded;
                    }
                }
                ++decisions[what];
            }
            sim = s;
        }
    }
    long allDecisions = 0;
    for (const auto &[what, n] : decisions)
        allDecisions += n;
    std::printf("the student's decisions against the teacher's allocation of the slot (seeds %d-%d, %ld):\n",
                firstSeed, firstSeed + 1, allDecisions);
    QJsonObject decisionShares;
    for (const auto &[what, n] : decisions) {
        std::printf("  %-45s %6.2f %%\n", what.c_str(), 100.0 * double(n) / double(allDecisions));
        decisionShares[QString::fromStdString(what)] = double(n) / double(allDecisions);
    }
    if (surplusWithNeeded > 0)
        std::printf("  a surplus task chosen while needed ones were left had on average %.3f x the "
                    "probability of the likeliest needed one\n", surplusRatio / double(surplusWithNeeded));
    out[QStringLiteral("decisions")] = decisionShares;

    // Replays with mixed allocations: the slot before the two acted, given the mix.
    std::printf("replayed with allocations mixed from the two (a bundle for every job first, then "
                "the rest in arrival order):\n");
    QJsonObject mixes;
    for (const char *how : kMixes) {
        double jct = 0.0;
        for (int seed = firstSeed; seed <= lastSeed; ++seed) {
            FixedAllocation fixed;
            jct += play(seed, [&](const Simulator &before, const Simulator &s, const Simulator &t) {
                fixed.target.assign(s.jobs().size(), {0, 0});
                for (size_t i = 0; i < s.jobs().size(); ++i)
                    fixed.target[i] = mix(how, s.jobs()[i], t.jobs()[i]);
                Simulator sim = before;
                sim.step(fixed);
                return sim;
            });
        }
        std::printf("  %-45s %8.3f\n", how, jct);
        std::fflush(stdout);
        mixes[QString::fromLatin1(how)] = jct;
    }
    out[QStringLiteral("replayed_avg_jct")] = mixes;
    return out;
}
