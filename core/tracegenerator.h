#pragma once
// Seeded trace generators. Deterministic across runs and machines: they use our own
// SplitMix64/PCG-style generator and integer arithmetic, never std:: distributions (whose
// output differs between standard libraries).

#include "trace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dl2 {

class ProfileSet;

enum class ArrivalPattern { Google, Poisson, Uniform };
const char *toString(ArrivalPattern pattern);
ArrivalPattern arrivalPatternFromString(const std::string &name);

struct GeneratorOptions
{
    ArrivalPattern pattern = ArrivalPattern::Google;
    int jobs = 200;
    int cap = 10;               // max arrivals per slot (Google/Uniform), mean (Poisson)
    double maxEpochs = 30000.0; // job epochs = profile fraction x maxEpochs
    double epochJitter = 0.0;   // +- relative jitter of total epochs (0 = reference: fixed)
    double estimateError = 0.0; // +- relative error of the estimate the scheduler sees
    std::uint64_t seed = 1;
};

// The reference's Google arrival list for cap 10 (each entry is then min(entry, cap)).
const std::vector<int> &googleArrivalPattern();

Trace generateTrace(const ProfileSet &profiles, const GeneratorOptions &options);

} // namespace dl2
