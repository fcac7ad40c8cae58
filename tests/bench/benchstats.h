#pragma once
// Small statistics shared by the benchmark executables.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace dl2bench {

// The p-quantile (0..1) of the values by the nearest rank; 0 for none.
inline double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(p * double(v.size() - 1) + 0.5))];
}

} // namespace dl2bench
