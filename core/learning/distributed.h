#pragma once
// Training as N cooperating processes on one or many hosts (dl2 train --world-size N --rank R
// --master HOST:PORT): a thin, torch-free interface over torch.distributed's c10d, i.e. a
// TCPStore rendezvous held by rank 0 and a Gloo process group over TCP. No protocol of our own:
// only distributed.cpp includes the c10d headers (distributedtraining.cpp holds the torch-free
// helpers the trainers share).
//
// Every collective is blocking and every rank must call the same ones in the same order. A
// collective that fails (a rank died, the network dropped, the process-group timeout passed)
// throws dl2::Error naming the rank at fault when it can be told: each rank keeps a heartbeat
// counter in the store and, before it exits on an error of its own, leaves its message there;
// a rank whose heartbeat stopped is reported dead, and when rank 0 (which holds the store)
// is gone the store itself is unreachable, which names rank 0.
//
// Rendezvous in two steps, so that a rank with bad input is named too: every rank first joins
// the store (key dl2/joined/R), then checks its inputs (connect's `prepare`); a rank whose
// inputs fail leaves its error (dl2/error/R) and the others stop with "rank R stopped: ...";
// a rank that never joins within the timeout is named as such. Only then does the Gloo
// process group form.

#include "policynetwork.h"
#include "scenario.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dl2 {

struct DistributedOptions
{
    int worldSize = 1;
    int rank = 0;
    std::string masterHost = "127.0.0.1";
    int masterPort = 29500;
    // Rendezvous, store and process-group timeout: a rank that does not answer a collective
    // for this long is treated as failed.
    double timeoutSeconds = 120.0;
};

// Parses HOST:PORT (IPv4 address or host name; [v6]:port); throws dl2::Error naming `what`.
void parseMaster(const std::string &value, DistributedOptions &options, const std::string &what);

class Communicator
{
public:
    // Rendezvous with the other ranks; throws dl2::Error on timeout or a bad address. `prepare`
    // (reading this rank's inputs) runs once this rank has joined the store: what it throws is
    // left in the store for the others to report, then rethrown as it is.
    static std::shared_ptr<Communicator> connect(const DistributedOptions &options,
                                                 const std::function<void()> &prepare = {});
    ~Communicator();
    Communicator(const Communicator &) = delete;
    Communicator &operator=(const Communicator &) = delete;

    int rank() const;
    int worldSize() const;

    // In-place element-wise sum over all ranks; every rank ends with the same bits (Gloo's
    // ring reduces each chunk once and passes the result on).
    void allReduceSum(float *data, size_t count);
    void allReduceSum(double *data, size_t count);
    // Element-wise maximum (stop flags, counts).
    void allReduceMax(std::int64_t *data, size_t count);
    // value of every rank, by rank.
    std::vector<std::uint64_t> allGather(std::uint64_t value);
    void barrier();

    // Best effort, before this rank exits on an error of its own: the others report it.
    void reportError(const std::string &message);
    // Clean end of a run: every rank waits for the others, so rank 0 (the store) leaves last.
    void finish();

    // What went over the wire in all-reduces since the start (benchmark figures).
    struct Stats
    {
        long long allReduces = 0;
        double bytes = 0.0;
        double seconds = 0.0;
    };
    Stats stats() const;

private:
    struct Impl;
    explicit Communicator(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

// Helpers shared by the trainers (torch-free; single process when `comm` is null).

// Indices i in [0, n) this rank handles: i % worldSize == rank.
bool ownedByRank(const Communicator *comm, size_t index);

// evaluatePolicy() with the seeds split across the ranks: every rank gets the same value,
// bit-identical to evaluatePolicy() in one process (per-seed results are gathered and summed
// in seed order).
double evaluatePolicyDistributed(const Communicator *comm, const Scenario &scenario,
                                 const ProfileSet &profiles, const PolicySpec &spec,
                                 std::shared_ptr<const ParameterSet> parameters,
                                 const std::vector<std::uint64_t> &seeds, int threads);
double evaluateSchedulerDistributed(const Communicator *comm, const Scenario &scenario,
                                    const ProfileSet &profiles, const std::string &scheduler,
                                    const std::vector<std::uint64_t> &seeds, int threads);

// True on every rank when any rank's `local` is true (Ctrl-C on one rank stops all, at the
// same step).
bool anyRank(Communicator *comm, bool local);

// FNV-1a 64 over every parameter's name, shape and float bits.
std::uint64_t parameterHash(const ParameterSet &parameters);
// All-gathers the hash of `parameters`; throws dl2::Error naming the ranks whose weights
// differ from rank 0's at `step`.
void checkSameWeights(Communicator *comm, const ParameterSet &parameters, long long step);

} // namespace dl2
