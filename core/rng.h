#pragma once
// Small deterministic RNG (SplitMix64) used by every seeded component of the core. Deterministic
// across runs and machines: our own generator and arithmetic, never std:: distributions (whose
// output differs between standard libraries).

#include <cstdint>

namespace dl2 {

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
