#include "rng.h"

#include <cmath>

namespace dl2 {

std::uint64_t Rng::next()
{
    // SplitMix64: tiny, fast, identical on every platform.
    std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

std::uint64_t Rng::below(std::uint64_t n)
{
    if (n <= 1)
        return 0;
    // Rejection sampling: unbiased.
    const std::uint64_t limit = ~0ull - (~0ull % n);
    std::uint64_t x = next();
    while (x >= limit)
        x = next();
    return x % n;
}

double Rng::uniform()
{
    return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

int Rng::poisson(double mean)
{
    if (mean <= 0)
        return 0;
    // Knuth's multiplication method; means here are small (jobs per slot).
    const double limit = std::exp(-mean);
    double product = uniform();
    int k = 0;
    while (product > limit) {
        ++k;
        product *= uniform();
    }
    return k;
}

double Rng::normal()
{
    double u1 = uniform();
    while (u1 <= 0.0)
        u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

} // namespace dl2
