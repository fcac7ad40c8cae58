#include "decisionlatency.h"

#include <algorithm>
#include <atomic>
#include <mutex>

namespace dl2::decisionlatency {

namespace {
std::atomic<bool> g_enabled{false};
std::mutex g_mutex;
std::vector<float> g_inference;
std::vector<float> g_slot;

double percentile(std::vector<float> v, double q)
{
    if (v.empty())
        return 0.0;
    const size_t k = std::min(v.size() - 1, size_t(q * double(v.size() - 1) + 0.5));
    std::nth_element(v.begin(), v.begin() + long(k), v.end());
    return v[k];
}
} // namespace

void setEnabled(bool on) { g_enabled = on; }
bool enabled() { return g_enabled; }

void clear()
{
    std::lock_guard lock(g_mutex);
    g_inference.clear();
    g_slot.clear();
}

void addSlot(const std::vector<float> &inferenceMicros, double slotMicros)
{
    std::lock_guard lock(g_mutex);
    g_inference.insert(g_inference.end(), inferenceMicros.begin(), inferenceMicros.end());
    g_slot.push_back(float(slotMicros));
}

Summary summary()
{
    std::lock_guard lock(g_mutex);
    Summary s;
    s.inferences = g_inference.size();
    s.slotCount = g_slot.size();
    s.inferenceP50 = percentile(g_inference, 0.5);
    s.inferenceP99 = percentile(g_inference, 0.99);
    double sum = 0;
    for (float x : g_inference)
        sum += x;
    s.inferenceMean = g_inference.empty() ? 0.0 : sum / double(g_inference.size());
    s.slotP50 = percentile(g_slot, 0.5);
    s.slotP99 = percentile(g_slot, 0.99);
    s.slotMax = g_slot.empty() ? 0.0 : *std::max_element(g_slot.begin(), g_slot.end());
    return s;
}

} // namespace dl2::decisionlatency
