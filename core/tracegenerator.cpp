#include "tracegenerator.h"

#include "error.h"
#include "modelprofile.h"
#include "rng.h"

#include <cmath>

namespace dl2 {

const char *toString(ArrivalPattern pattern)
{
    switch (pattern) {
    case ArrivalPattern::Google: return "google";
    case ArrivalPattern::Poisson: return "poisson";
    case ArrivalPattern::Uniform: return "uniform";
    }
    return "?";
}

ArrivalPattern arrivalPatternFromString(const std::string &name)
{
    if (name == "google")
        return ArrivalPattern::Google;
    if (name == "poisson")
        return ArrivalPattern::Poisson;
    if (name == "uniform")
        return ArrivalPattern::Uniform;
    throw Error("unknown arrival pattern '" + name + "' (expected google, poisson or uniform)");
}

const std::vector<int> &googleArrivalPattern()
{
    // Jobs per slot of the reference's Google-derived arrival list for a cap of 10.
    static const std::vector<int> pattern{
        6, 134, 8, 7, 8, 10, 9, 7, 6, 5, 6, 5, 7, 8, 9, 6, 8, 8, 8, 8, 7, 5, 5, 7, 9,
        7, 5,   5, 5, 3, 5,  6, 4, 6, 6, 6, 7, 7, 4, 5, 5, 3, 5, 5, 4, 6, 5, 6, 5, 3,
        4, 4,   6, 7, 7, 7,  7, 7, 6, 6, 6, 6, 7, 6, 4, 6, 4, 5, 4, 6, 5, 6, 5, 7, 6};
    return pattern;
}

Trace generateTrace(const ProfileSet &profiles, const GeneratorOptions &options)
{
    if (profiles.size() == 0)
        throw Error("trace generator: no model profiles");
    if (options.jobs <= 0 || options.jobs > 10'000'000)
        throw Error("trace generator: number of jobs must be in 1..10000000, got " +
                    std::to_string(options.jobs));
    if (options.cap <= 0 || options.cap > 1'000'000)
        throw Error("trace generator: arrivals per slot (cap) must be in 1..1000000, got " +
                    std::to_string(options.cap));
    if (!(options.maxEpochs > 0) || options.epochJitter < 0 || options.epochJitter >= 1 ||
        options.estimateError < 0 || options.estimateError >= 1)
        throw Error("trace generator: max epochs must be positive and jitter/estimate error in [0, 1)");

    Rng rng(options.seed);
    Trace trace;
    trace.name = std::string(toString(options.pattern)) + "-cap" + std::to_string(options.cap) +
                 "-seed" + std::to_string(options.seed);
    trace.jobs.reserve(static_cast<size_t>(options.jobs));

    const auto &google = googleArrivalPattern();
    const auto offset = static_cast<size_t>(rng.below(5));
    int id = 1;
    for (int slot = 0; static_cast<int>(trace.jobs.size()) < options.jobs; ++slot) {
        int arrivals = options.cap;
        if (options.pattern == ArrivalPattern::Google)
            arrivals = std::min(options.cap, google[(static_cast<size_t>(slot) + offset) % google.size()]);
        else if (options.pattern == ArrivalPattern::Poisson)
            arrivals = rng.poisson(options.cap);
        for (int k = 0; k < arrivals && static_cast<int>(trace.jobs.size()) < options.jobs; ++k) {
            const int type = static_cast<int>(rng.below(static_cast<std::uint64_t>(profiles.size())));
            const ModelProfile &p = profiles[type];
            JobSpec job;
            job.id = id++;
            job.arrivalSlot = slot;
            job.model = p.name;
            // The reference truncates fraction x max epochs to an integer.
            double epochs = std::floor(p.epochFraction * options.maxEpochs + 1e-9);
            if (options.epochJitter > 0)
                epochs = std::max(1.0, std::round(epochs * (1.0 + options.epochJitter * (2 * rng.uniform() - 1))));
            job.epochs = std::max(1.0, epochs);
            if (options.estimateError > 0)
                job.estimatedEpochs = job.epochs * (1.0 + options.estimateError * (2 * rng.uniform() - 1));
            trace.jobs.push_back(std::move(job));
        }
        if (slot > 10'000'000)
            throw Error("trace generator: could not place all jobs");
    }
    return trace;
}

} // namespace dl2
