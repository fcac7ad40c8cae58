#pragma once
// Small deterministic RNG (SplitMix64) used by every seeded component of the core. Deterministic
// across runs and machines: our own generator and arithmetic, never std:: distributions (whose
// output differs between standard libraries).

#include <algorithm>
#include <cstdint>
#include <iterator>

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
    // Fisher-Yates over [first, last): every order equally likely. The draws are below(n),
    // below(n - 1), ..., below(2) for the last position down, so seeded runs stay reproducible.
    template<typename It>
    void shuffle(It first, It last)
    {
        for (auto n = std::uint64_t(std::distance(first, last)); n > 1; --n)
            std::iter_swap(std::next(first, std::ptrdiff_t(n - 1)), std::next(first, std::ptrdiff_t(below(n))));
    }

private:
    std::uint64_t m_state;
};

} // namespace dl2
