#pragma once
// Basic value types shared by the whole core: resources, demands, task roles.

#include <array>
#include <cstdint>
#include <string>

namespace dl2 {

// Resource types of a node. The reference setting has two: CPU and GPU "slots"
// (1 CPU core = 1 slot, 1 GPU = 4 slots).
enum class Resource { Cpu = 0, Gpu = 1 };
inline constexpr int kResourceTypes = 2;

// Slots per resource type (CPU, GPU).
using Demand = std::array<int, kResourceTypes>;

inline Demand operator+(const Demand &a, const Demand &b) { return {a[0] + b[0], a[1] + b[1]}; }
inline Demand operator*(int k, const Demand &a) { return {k * a[0], k * a[1]}; }

enum class TaskRole : std::uint8_t { Worker = 0, Ps = 1 };
const char *toString(TaskRole role);

// One task of a job placed on a node.
struct TaskPlacement
{
    int node = -1;
    TaskRole role = TaskRole::Worker;
    bool operator==(const TaskPlacement &) const = default;
};

// What a scheduler adds to a job in one step.
enum class TaskKind : std::uint8_t { Worker = 0, Ps = 1, Bundle = 2 };
const char *toString(TaskKind kind);

// How many parameter servers and workers: the one (ps, workers) pair of the code base (a
// job's allocation, a profile's best configuration, an imported job's observed size).
struct TaskCounts
{
    int ps = 0;
    int workers = 0;
    bool operator==(const TaskCounts &) const = default;
};

// What adding a task gave.
enum class AddResult { Ok, NoCapacity, AtCap };

} // namespace dl2
