#pragma once
// What a faithful dl2 network has learnt about job types (`dl2 policy probe`). It plays a few
// slots of a trace with the policy as deployed, keeps some of the decision states, and for
// every window row of those states re-scores the row as if its job were each type in turn
// (the type one-hot and, with per-type count features, the count bits moved to that type):
// q(worker | row), the worker's share of the row's worker/PS/bundle mix, by the row's own
// type and the type it is given, split by rows at one worker and at more. For a network tied
// across the window (`--tie-window`), it also counts each position's own hidden units that are
// active (ReLU > 0) for its rows, and the global ones: units that are never or always active
// make the position's path dead or linear. Torch-free (the checkpoint's weights, plain loops).

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
    std::uint64_t seed = 100; // the trace
    int firstSlot = 10;       // states are kept from this slot on
    int playSlots = 12;       // slots played
    int states = 40;          // at most this many states kept (every 7th decision)
};

struct TypeProbe
{
    std::vector<std::string> types; // the profiles' names, in type order
    // [0]: rows at one worker, [1]: at two or more. rows[w][own]: rows of that type seen;
    // q[w][own][given]: the mean q(worker | row) of those rows given that type.
    std::vector<int> rows[2];
    std::vector<std::vector<double>> q[2];
    int statesKept = 0;
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

    // The largest change of one type's mean q (band 0: rows at one worker, 1: at more) when
    // its rows are given another type instead of their own: 0 for a network blind to types.
    double spread(int band) const;
};

// The scenario a probe plays by default: the checkpoint's, else dl2-reference.
std::string defaultProbeScenario(const Checkpoint &checkpoint);

// Throws dl2::Error, naming the checkpoint's file, for a network that is not the faithful
// dl2 with one-hot types.
TypeProbe probeTypes(const Checkpoint &checkpoint, const Scenario &scenario, const ProfileSet &profiles,
                     const TypeProbeOptions &options = {});

} // namespace dl2
