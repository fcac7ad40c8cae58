// The torch-free helpers of distributed.h the trainers share.

#include "distributed.h"

#include "curves.h"
#include "error.h"

#include <cstring>

namespace dl2 {

bool ownedByRank(const Communicator *comm, size_t index)
{
    return !comm || int(index % size_t(comm->worldSize())) == comm->rank();
}

namespace {

// Every rank evaluates its share of the seeds one by one; the per-seed results are summed
// across ranks (each entry has exactly one non-zero contribution, so the sum is exact) and
// averaged in seed order, as evaluatePolicy() does.
double splitEvaluation(const Communicator *comm, const std::vector<std::uint64_t> &seeds,
                       const std::function<double(const std::vector<std::uint64_t> &)> &one)
{
    auto *c = const_cast<Communicator *>(comm);
    std::vector<double> perSeed(seeds.size(), 0.0);
    for (size_t i = 0; i < seeds.size(); ++i)
        if (ownedByRank(comm, i))
            perSeed[i] = one({seeds[i]});
    c->allReduceSum(perSeed.data(), perSeed.size());
    if (seeds.empty())
        return 0.0;
    double sum = 0.0;
    for (double v : perSeed)
        sum += v;
    return sum / double(seeds.size());
}

} // namespace

double evaluatePolicyDistributed(const Communicator *comm, const Scenario &scenario,
                                 const ProfileSet &profiles, const PolicySpec &spec,
                                 std::shared_ptr<const ParameterSet> parameters,
                                 const std::vector<std::uint64_t> &seeds, int threads)
{
    if (!comm || comm->worldSize() == 1)
        return evaluatePolicy(scenario, profiles, spec, std::move(parameters), seeds, threads);
    return splitEvaluation(comm, seeds, [&](const std::vector<std::uint64_t> &one) {
        return evaluatePolicy(scenario, profiles, spec, parameters, one, 1);
    });
}

double evaluateSchedulerDistributed(const Communicator *comm, const Scenario &scenario,
                                    const ProfileSet &profiles, const std::string &scheduler,
                                    const std::vector<std::uint64_t> &seeds, int threads)
{
    if (!comm || comm->worldSize() == 1)
        return evaluateScheduler(scenario, profiles, scheduler, seeds, threads);
    return splitEvaluation(comm, seeds, [&](const std::vector<std::uint64_t> &one) {
        return evaluateScheduler(scenario, profiles, scheduler, one, 1);
    });
}

bool anyRank(Communicator *comm, bool local)
{
    if (!comm || comm->worldSize() == 1)
        return local;
    std::int64_t flag = local ? 1 : 0;
    comm->allReduceMax(&flag, 1);
    return flag != 0;
}

std::uint64_t parameterHash(const ParameterSet &parameters)
{
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&](const void *data, size_t n) {
        const auto *b = static_cast<const unsigned char *>(data);
        for (size_t i = 0; i < n; ++i) {
            h ^= b[i];
            h *= 1099511628211ULL;
        }
    };
    for (const auto &[name, t] : parameters) {
        mix(name.data(), name.size());
        mix(t.shape.data(), t.shape.size() * sizeof(t.shape[0]));
        mix(t.data.data(), t.data.size() * sizeof(float));
    }
    return h;
}

void checkSameWeights(Communicator *comm, const ParameterSet &parameters, long long step)
{
    if (!comm || comm->worldSize() == 1)
        return;
    const auto hashes = comm->allGather(parameterHash(parameters));
    std::string differ;
    for (size_t k = 1; k < hashes.size(); ++k)
        if (hashes[k] != hashes[0])
            differ += (differ.empty() ? "" : ", ") + std::to_string(k);
    if (!differ.empty())
        throw Error("weights diverged at step " + std::to_string(step) + ": rank(s) " + differ +
                    " differ from rank 0 (weight hash check)");
}

} // namespace dl2
