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

// Small deterministic RNG (SplitMix64) used by every seeded component of the core.
class Rng
{
public:
    explicit Rng(std::uint64_t seed) : m_state(seed) {}
    // The whole state (a checkpoint keeps it so that a resumed training draws on).
    std::uint64_t state() const { return m_state; }
    void setState(std::uint64_t state) { m_state = state; }
    std::uint64_t next();
    // Uniform integer in [0, n).
    std::uint64_t below(std::uint64_t n);
    // Uniform double in [0, 1).
    double uniform();
    // Poisson(mean) by inversion (fine for the small means used here).
    int poisson(double mean);
    // Standard normal (Box-Muller).
    double normal();

private:
    std::uint64_t m_state;
};

} // namespace dl2
