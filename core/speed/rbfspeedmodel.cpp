#include "rbfspeedmodel.h"

#include "error.h"

#include <cmath>
#include <map>
#include <utility>

namespace dl2 {

namespace {

// Solves A x = b in place by LU with partial pivoting (what scipy.linalg.solve/LAPACK gesv
// does). A is n x n row-major. Returns false when A is singular to working precision.
bool solveLu(std::vector<double> &A, std::vector<double> &b, size_t n)
{
    for (size_t k = 0; k < n; ++k) {
        size_t pivot = k;
        double best = std::abs(A[k * n + k]);
        for (size_t i = k + 1; i < n; ++i)
            if (std::abs(A[i * n + k]) > best) {
                best = std::abs(A[i * n + k]);
                pivot = i;
            }
        if (best == 0.0)
            return false;
        if (pivot != k) {
            for (size_t j = 0; j < n; ++j)
                std::swap(A[k * n + j], A[pivot * n + j]);
            std::swap(b[k], b[pivot]);
        }
        const double diag = A[k * n + k];
        for (size_t i = k + 1; i < n; ++i) {
            const double f = A[i * n + k] / diag;
            if (f == 0.0)
                continue;
            A[i * n + k] = f;
            for (size_t j = k + 1; j < n; ++j)
                A[i * n + j] -= f * A[k * n + j];
            b[i] -= f * b[k];
        }
    }
    for (size_t k = n; k-- > 0;) {
        double s = b[k];
        for (size_t j = k + 1; j < n; ++j)
            s -= A[k * n + j] * b[j];
        b[k] = s / A[k * n + k];
    }
    return true;
}

} // namespace

RbfSpeedModel::RbfSpeedModel(const std::vector<SpeedSample> &samples, const std::string &originName)
{
    const std::string origin = originName.empty() ? std::string("measurements") : originName;
    if (samples.empty())
        throw Error::at(origin, 0, "no measurements to interpolate");
    std::map<std::pair<int, int>, int> seen; // (p, w) -> line
    for (const SpeedSample &s : samples) {
        if (s.ps <= 0 || s.workers <= 0)
            throw Error::at(origin, s.line,
                            "measurement of '" + s.model + "' needs ps >= 1 and workers >= 1");
        if (!std::isfinite(s.speed))
            throw Error::at(origin, s.line,
                            "measurement of '" + s.model + "' has a non-finite speed");
        const auto [it, inserted] = seen.emplace(std::pair{s.ps, s.workers}, s.line);
        if (!inserted)
            throw Error::at(origin, s.line,
                            "duplicate measurement of '" + s.model + "' at ps=" +
                                std::to_string(s.ps) + " workers=" + std::to_string(s.workers) +
                                " (also on line " + std::to_string(it->second) +
                                "); the RBF interpolation matrix would be singular");
    }

    const size_t n = samples.size();
    std::vector<double> A(n * n);
    std::vector<double> c(n);
    for (size_t i = 0; i < n; ++i) {
        c[i] = samples[i].speed;
        for (size_t j = 0; j < n; ++j) {
            const double dp = samples[i].ps - samples[j].ps;
            const double dw = samples[i].workers - samples[j].workers;
            A[i * n + j] = std::sqrt(dp * dp + dw * dw);
        }
    }
    // Distinct points make the distance matrix nonsingular (Micchelli 1986), so this only fails
    // through a bug; keep the check anyway.
    if (!solveLu(A, c, n))
        throw Error::at(origin, samples.front().line,
                        "RBF interpolation matrix of '" + samples.front().model + "' is singular");

    m_nodes.reserve(n);
    for (size_t i = 0; i < n; ++i)
        m_nodes.push_back(
            {static_cast<double>(samples[i].ps), static_cast<double>(samples[i].workers), c[i]});
}

double RbfSpeedModel::evaluate(double ps, double workers) const
{
    double f = 0.0;
    for (const Node &node : m_nodes) {
        const double dp = ps - node.p;
        const double dw = workers - node.w;
        f += node.weight * std::sqrt(dp * dp + dw * dw);
    }
    return f;
}

double RbfSpeedModel::speed(int ps, int workers) const
{
    if (ps <= 0 || workers <= 0)
        return 0.0;
    return evaluate(ps, workers);
}

} // namespace dl2
