#pragma once
// What a faithful dl2 network has learnt about job types (`dl2 policy probe`). It plays some
// slots of a trace with the policy as deployed, keeps decision states drawn uniformly from
// every decision of the slots it probes (a seeded reservoir sample), and for
// every window row of those states re-scores the row as if its job were each type in turn
// (the type one-hot and, with per-type count features, the count bits moved to that type):
// q(worker | row), the worker's share of the row's worker/PS/bundle mix, by the row's own
// type and the type it is given, split into bands by the row's job's workers and PSs (a job
// starts each slot at one of each, and which to add next depends on its type and on both
// counts: "PS first, then workers" shows only once rows at one worker are split by PSs). For a
// network tied across the window (`--tie-window`), it also counts each position's own hidden units
// that are active (ReLU > 0) for its rows, and the global ones: units that are never or always
// active make the position's path dead or linear. Torch-free (the checkpoint's weights, plain
// loops).

#include "checkpoint.h"
#include "modelprofile.h"
#include "scenario.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace dl2 {

struct TypeProbeOptions
{
    std::uint64_t seed = 100; // the trace, and the draw of the states
    int firstSlot = 10;       // states are drawn from the decisions of this slot on
    int playSlots = 30;       // slots played: states come from slots firstSlot..playSlots - 1
    int states = 40;          // at most this many kept, drawn uniformly among those decisions
};

struct TypeProbe
{
    // The bands rows are split into, by their job's allocation when the state was kept.
    enum Band
    {
        OneWorkerOnePs,
        OneWorkerFewPs,  // 2 to kFewPs PSs
        OneWorkerManyPs, // more than kFewPs
        MoreWorkers
    };
    static constexpr int kBands = 4;
    // Where "a few PSs" ends: half the paper's cap of 16, so that a type the policy gives most
    // of its PSs before its workers (vgg-16's best is 14) is told from one it gives a few.
    static constexpr int kFewPs = 8;
    static Band bandOf(int workers, int ps);
    static const char *bandKey(int band);  // one_worker_one_ps, one_worker_2_to_8_ps, ...
    static const char *bandText(int band); // "at one worker and one PS", ...

    std::vector<std::string> types; // the profiles' names, in type order
    // rows[band][own]: rows of that type seen in that band; q[band][own][given]: the mean
    // q(worker | row) of those rows given that type.
    std::vector<int> rows[kBands];
    std::vector<std::vector<double>> q[kBands];
    int statesKept = 0;
    std::vector<int> stateSlots; // the slot of each kept state, in increasing order
    bool tied = false; // `layers` and the weights below are filled (a network tied across the window)
    struct Layer
    {
        int own = 0, global = 0; // units of each position, units of none
        // Mean active units: own ones per row, global ones per state; and how many of a
        // position's own units are active for some rows but not for all (0: its path is fixed).
        double ownActive = 0, globalActive = 0;
        int ownVarying = 0;
    };
    std::array<Layer, 2> layers;
    // Mean |weight| from a position's own inputs to its own layer-1 units: the type one-hot's
    // and the other features'.
    double typeWeight = 0, otherWeight = 0;

    // The largest change of one type's mean q in a band when its rows are given another type
    // instead of their own: 0 for a network blind to types.
    double spread(int band) const;
};

// The scenario a probe plays by default: the checkpoint's, else dl2-reference.
std::string defaultProbeScenario(const Checkpoint &checkpoint);

// Throws dl2::Error, naming the checkpoint's file, for a network that is not the faithful
// dl2 with one-hot types.
TypeProbe probeTypes(const Checkpoint &checkpoint, const Scenario &scenario, const ProfileSet &profiles,
                     const TypeProbeOptions &options = {});

} // namespace dl2
