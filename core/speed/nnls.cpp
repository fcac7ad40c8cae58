#include "nnls.h"

#include "error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dl2 {

namespace {

// Unconstrained least squares restricted to the columns in `cols`, by Householder QR on a
// copy (numerically safer than normal equations). Returns the solution for those columns.
std::vector<double> leastSquares(const std::vector<std::vector<double>> &A,
                                 const std::vector<double> &b, const std::vector<size_t> &cols)
{
    const size_t m = A.size();
    const size_t k = cols.size();
    std::vector<std::vector<double>> R(m, std::vector<double>(k));
    for (size_t i = 0; i < m; ++i)
        for (size_t j = 0; j < k; ++j)
            R[i][j] = A[i][cols[j]];
    std::vector<double> y = b;
    const size_t steps = std::min(m, k);
    for (size_t j = 0; j < steps; ++j) {
        double norm = 0.0;
        for (size_t i = j; i < m; ++i)
            norm += R[i][j] * R[i][j];
        norm = std::sqrt(norm);
        if (norm == 0.0)
            continue;
        const double alpha = R[j][j] > 0 ? -norm : norm;
        std::vector<double> v(m - j);
        for (size_t i = j; i < m; ++i)
            v[i - j] = R[i][j];
        v[0] -= alpha;
        double vv = 0.0;
        for (double x : v)
            vv += x * x;
        if (vv == 0.0)
            continue;
        for (size_t c = j; c < k; ++c) {
            double dot = 0.0;
            for (size_t i = j; i < m; ++i)
                dot += v[i - j] * R[i][c];
            const double f = 2.0 * dot / vv;
            for (size_t i = j; i < m; ++i)
                R[i][c] -= f * v[i - j];
        }
        double dot = 0.0;
        for (size_t i = j; i < m; ++i)
            dot += v[i - j] * y[i];
        const double f = 2.0 * dot / vv;
        for (size_t i = j; i < m; ++i)
            y[i] -= f * v[i - j];
    }
    // Back substitution; a (numerically) zero diagonal means a dependent column: give it 0.
    double maxDiag = 0.0;
    for (size_t j = 0; j < steps; ++j)
        maxDiag = std::max(maxDiag, std::abs(R[j][j]));
    const double tiny = maxDiag * 1e-12;
    std::vector<double> x(k, 0.0);
    for (size_t jj = steps; jj-- > 0;) {
        if (std::abs(R[jj][jj]) <= tiny)
            continue;
        double s = y[jj];
        for (size_t c = jj + 1; c < k; ++c)
            s -= R[jj][c] * x[c];
        x[jj] = s / R[jj][jj];
    }
    return x;
}

} // namespace

std::vector<double> nnls(const std::vector<std::vector<double>> &A, const std::vector<double> &b)
{
    const size_t m = A.size();
    if (b.size() != m)
        throw Error("nnls: A has " + std::to_string(m) + " rows but b has " +
                    std::to_string(b.size()));
    if (m == 0)
        return {};
    const size_t n = A[0].size();
    for (const auto &row : A)
        if (row.size() != n)
            throw Error("nnls: rows of A differ in length");

    std::vector<double> x(n, 0.0);
    std::vector<bool> passive(n, false);
    auto gradient = [&](std::vector<double> &wv) { // w = A^T (b - A x)
        std::vector<double> r = b;
        for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < n; ++j)
                r[i] -= A[i][j] * x[j];
        wv.assign(n, 0.0);
        for (size_t i = 0; i < m; ++i)
            for (size_t j = 0; j < n; ++j)
                wv[j] += A[i][j] * r[i];
    };
    double normA = 0.0; // max column 1-norm, for the tolerance (as SciPy's nnls does)
    for (size_t j = 0; j < n; ++j) {
        double s = 0.0;
        for (size_t i = 0; i < m; ++i)
            s += std::abs(A[i][j]);
        normA = std::max(normA, s);
    }
    const double tol =
        10.0 * std::numeric_limits<double>::epsilon() * normA * static_cast<double>(std::max(m, n));

    std::vector<double> w;
    const int maxOuter = 3 * static_cast<int>(n) + 10;
    for (int outer = 0; outer < maxOuter; ++outer) {
        gradient(w);
        // Most promising active (zero-clamped) variable.
        size_t best = n;
        for (size_t j = 0; j < n; ++j)
            if (!passive[j] && w[j] > tol && (best == n || w[j] > w[best]))
                best = j;
        if (best == n)
            break; // Kuhn-Tucker conditions hold
        passive[best] = true;
        for (int inner = 0; inner < 3 * static_cast<int>(n) + 10; ++inner) {
            std::vector<size_t> cols;
            for (size_t j = 0; j < n; ++j)
                if (passive[j])
                    cols.push_back(j);
            const std::vector<double> z = leastSquares(A, b, cols);
            bool feasible = true;
            for (double v : z)
                if (v <= 0.0)
                    feasible = false;
            if (feasible) {
                for (size_t c = 0; c < cols.size(); ++c)
                    x[cols[c]] = z[c];
                break;
            }
            // Step from x towards z as far as feasibility allows; the variable that limits the
            // step (and any other that reaches 0) goes back to the active set.
            double alpha = 1.0;
            size_t limiting = cols.size();
            for (size_t c = 0; c < cols.size(); ++c)
                if (z[c] <= 0.0) {
                    const double denom = x[cols[c]] - z[c];
                    const double a = denom > 0.0 ? x[cols[c]] / denom : 0.0;
                    if (a < alpha || limiting == cols.size()) {
                        alpha = std::min(alpha, a);
                        limiting = c;
                    }
                }
            for (size_t c = 0; c < cols.size(); ++c) {
                x[cols[c]] += alpha * (z[c] - x[cols[c]]);
                if (c == limiting || x[cols[c]] <= 0.0) {
                    x[cols[c]] = 0.0;
                    passive[cols[c]] = false;
                }
            }
        }
    }
    for (double &v : x)
        v = std::max(0.0, v);
    return x;
}

} // namespace dl2
