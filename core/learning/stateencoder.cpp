#include "stateencoder.h"

#include <atomic>

#include "scheduler.h"

#include <algorithm>
#include <cmath>

namespace dl2 {

int EncodedState::validActions() const
{
    int n = 0;
    for (auto m : mask)
        n += m;
    return n;
}

TaskKind actionKind(int action)
{
    switch (action % 3) {
    case 0: return TaskKind::Worker;
    case 1: return TaskKind::Ps;
    default: return TaskKind::Bundle;
    }
}

StateEncoder::StateEncoder(const PolicySpec &spec) : m_spec(spec) {}

std::vector<int> StateEncoder::window(const SlotContext &context) const
{
    std::vector<int> out;
    const int limit = m_spec.kind == PolicyKind::Dl2 ? m_spec.window : 0;
    for (int i : context.activeJobs()) {
        const JobState &j = context.job(i);
        if (j.workers >= context.maxWorkers() && j.ps >= context.maxPs())
            continue; // at both caps: nothing left to decide
        out.push_back(i);
        if (limit > 0 && static_cast<int>(out.size()) >= limit)
            break;
    }
    return out;
}

void StateEncoder::encodeJob(const SlotContext &ctx, int index, float *row) const
{
    const JobState &j = ctx.job(index);
    const double age = std::max(0, ctx.slot() - j.arrivalSlot);
    const double remaining = j.remainingFraction();
    if (m_spec.kind == PolicyKind::Dl2) {
        const bool norm = m_spec.features.normalise;
        int k = 0;
        if (m_spec.features.oneHotType) {
            for (int t = 0; t < m_spec.types; ++t)
                row[k++] = (t == j.type) ? 1.0f : 0.0f;
        } else {
            row[k++] = norm ? float(j.type + 1) / float(m_spec.types) : float(j.type + 1);
        }
        const double share = ctx.dominantShare(index);
        row[k++] = float(norm ? age / (age + 10.0) : age);
        row[k++] = float(remaining);
        row[k++] = float(norm ? share * ctx.cluster().nodeCount() / ctx.maxWorkers() : share);
        row[k++] = float(norm ? double(j.workers) / ctx.maxWorkers() : j.workers);
        row[k++] = float(norm ? double(j.ps) / ctx.maxPs() : j.ps);
        if (m_spec.features.counts == CountFeatures::PerType)
            for (int t = 0; t < m_spec.types; ++t)
                for (const int n : {j.workers, j.ps})
                    for (int c = 2; c <= kCountLevels + 1; ++c)
                        row[k++] = (t == j.type && n >= c) ? 1.0f : 0.0f;
        return;
    }
    // dl2-plus: type-free, normalised.
    const ModelProfile &p = ctx.profileOf(index);
    const Demand cap = ctx.cluster().nodeCapacity();
    const double rem = std::max(j.remainingEpochs(), 1e-9);
    const bool wCap = j.workers >= ctx.maxWorkers();
    const bool pCap = j.ps >= ctx.maxPs();
    const double now = ctx.estimatedEpochsPerSlot(index, j.ps, j.workers);
    auto frac = [&](double e) { return std::min(1.0, e / rem); };
    const double fNow = frac(now);
    const double gW = wCap ? 0.0 : frac(ctx.estimatedEpochsPerSlot(index, j.ps, j.workers + 1)) - fNow;
    const double gP = pCap ? 0.0 : frac(ctx.estimatedEpochsPerSlot(index, j.ps + 1, j.workers)) - fNow;
    const double gB = (wCap || pCap)
                          ? 0.0
                          : frac(ctx.estimatedEpochsPerSlot(index, j.ps + 1, j.workers + 1)) - fNow;
    const double slotsLeft = now > 0 ? rem / now : 100.0;
    row[0] = float(remaining);
    row[1] = float(age / (age + 10.0));
    row[2] = float(double(j.workers) / ctx.maxWorkers());
    row[3] = float(double(j.ps) / ctx.maxPs());
    row[4] = float(double(p.workerDemand[0]) / std::max(1, cap[0]));
    row[5] = float(double(p.workerDemand[1]) / std::max(1, cap[1]));
    row[6] = float(double(p.psDemand[0]) / std::max(1, cap[0]));
    row[7] = float(fNow);
    row[8] = float(gW);
    row[9] = float(gP);
    row[10] = float(gB);
    row[11] = float(std::log1p(rem) / 10.0);
    row[12] = float(std::min(1.0, slotsLeft / 100.0));
    row[13] = (j.workers > 0 && j.ps > 0) ? 1.0f : 0.0f;
    if (!m_spec.features.bestSetting)
        return;
    const SlotContext::BestSetting &bestSetting = ctx.bestSetting(index);
    const double best = bestSetting.epochsPerSlot;
    const double trueNow = ctx.epochsPerSlot(index, j.ps, j.workers);
    row[14] = float(double(bestSetting.workers - j.workers) / ctx.maxWorkers());
    row[15] = float(double(bestSetting.ps - j.ps) / ctx.maxPs());
    row[16] = float(best > 0.0 ? std::min(1.0, rem / best / 100.0) : 1.0);
    row[17] = float(best > 0.0 ? std::min(1.0, trueNow / best) : 0.0);
}

void StateEncoder::encodeGlobal(const SlotContext &ctx, float *g) const
{
    if (m_spec.kind != PolicyKind::Dl2Plus)
        return;
    const Demand total = ctx.cluster().totalCapacity();
    const Demand used = ctx.cluster().totalUsed();
    int running = 0;
    for (int i : ctx.activeJobs())
        running += (ctx.job(i).workers > 0 && ctx.job(i).ps > 0) ? 1 : 0;
    const double n = static_cast<double>(ctx.activeJobs().size());
    g[0] = total[0] > 0 ? float(1.0 - double(used[0]) / total[0]) : 0.0f;
    g[1] = total[1] > 0 ? float(1.0 - double(used[1]) / total[1]) : 0.0f;
    g[2] = float(n / (n + 20.0));
    g[3] = n > 0 ? float(running / n) : 0.0f;
}

namespace {
bool fitsSomewhere(const SlotContext &ctx, std::vector<std::pair<Demand, bool>> &cache, const Demand &d)
{
    for (const auto &f : cache)
        if (f.first == d)
            return f.second;
    const bool fits = ctx.cluster().chooseNode(d, PlacementRule::FirstFit) >= 0;
    cache.push_back({d, fits});
    return fits;
}
} // namespace

void StateEncoder::computeRowMask(const SlotContext &ctx, int r, EncodedState &s) const
{
    const int i = s.jobIndex[size_t(r)];
    for (int k = 0; k < 3; ++k) {
        std::uint8_t valid = 0;
        if (i >= 0) {
            const TaskKind kind = actionKind(k);
            valid = !ctx.atCap(i, kind) &&
                    (!m_spec.feasibilityMask || fitsSomewhere(ctx, s.feasible, ctx.demandOf(i, kind)));
        }
        s.mask[size_t(3 * r + k)] = valid;
    }
}

void StateEncoder::computeMask(const SlotContext &ctx, EncodedState &s) const
{
    s.mask.assign(s.actionCount(), 0);
    s.mask[s.stopAction()] = 1;
    s.feasible.clear();
    for (int r = 0; r < s.rows; ++r)
        computeRowMask(ctx, r, s);
}

void StateEncoder::encode(const SlotContext &ctx, EncodedState &s) const
{
    const std::vector<int> w = window(ctx);
    s.rows = m_spec.kind == PolicyKind::Dl2 ? m_spec.window : static_cast<int>(w.size());
    s.jobDim = m_spec.jobDim();
    s.globalDim = m_spec.globalDim();
    s.jobs.assign(size_t(s.rows) * s.jobDim, 0.0f);
    s.global.assign(s.globalDim, 0.0f);
    s.jobIndex.assign(s.rows, -1);
    for (size_t r = 0; r < w.size() && int(r) < s.rows; ++r) {
        s.jobIndex[r] = w[r];
        encodeJob(ctx, w[r], s.jobs.data() + r * s.jobDim);
    }
    encodeGlobal(ctx, s.global.data());
    computeMask(ctx, s);
    static std::atomic<std::uint64_t> encodes{0};
    s.encodeId = ++encodes;
    s.updates = 0;
    s.updatedRow = -1;
}

void StateEncoder::update(const SlotContext &ctx, int jobIndex, EncodedState &s) const
{
    const JobState &j = ctx.job(jobIndex);
    const bool leaves = j.workers >= ctx.maxWorkers() && j.ps >= ctx.maxPs();
    const auto it = std::find(s.jobIndex.begin(), s.jobIndex.end(), jobIndex);
    if (leaves || it == s.jobIndex.end()) {
        encode(ctx, s);
        return;
    }
    const size_t r = size_t(it - s.jobIndex.begin());
    encodeJob(ctx, jobIndex, s.jobs.data() + r * s.jobDim);
    encodeGlobal(ctx, s.global.data());
    ++s.updates;
    s.updatedRow = int(r);
    // Only the changed row's caps moved; other rows change only if some demand's
    // feasibility flipped (capacity was used up), then the whole mask is recomputed.
    bool flipped = false;
    if (m_spec.feasibilityMask)
        for (auto &f : s.feasible) {
            const bool fits = ctx.cluster().chooseNode(f.first, PlacementRule::FirstFit) >= 0;
            flipped = flipped || fits != f.second;
        }
    if (flipped)
        computeMask(ctx, s);
    else
        computeRowMask(ctx, int(r), s);
}

} // namespace dl2
