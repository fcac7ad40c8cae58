#pragma once
// Non-negative least squares: min ||A x - b||_2 subject to x >= 0 (Lawson & Hanson 1974,
// "Solving Least Squares Problems", algorithm NNLS). Small dense problems (a few columns).

#include <vector>

namespace dl2 {

// A is given as rows (all of equal length n); b has one entry per row. Returns x (size n).
// Throws dl2::Error on inconsistent dimensions.
std::vector<double> nnls(const std::vector<std::vector<double>> &A, const std::vector<double> &b);

} // namespace dl2
