#pragma once
// The inferences of one slot of an acting policy (online learning), recorded at the cost of
// what changed: consecutive states of a slot differ in one job's row, the globals and the
// mask (StateEncoder::update), so a step keeps the whole state only after a full encode and
// otherwise the changed row. Copying every full state (rows x features per inference, ~1,200
// inferences a slot on dl2-reference) made a learning decision 5x slower than a frozen one;
// the learner expands the trace into training states off the decision's path.

#include "stateencoder.h"

#include <QByteArray>
#include <cstdint>
#include <functional>
#include <vector>

namespace dl2 {

struct ActingTrace
{
    struct Step
    {
        std::int32_t rows = 0, jobDim = 0, globalDim = 0;
        std::int32_t action = 0, job = -1; // acted-on job index, -1 for stop
        float behaviourProb = 1.0f;
        std::int32_t row = -1;  // -1: all rows follow; else the one row that changed
        std::uint64_t floats = 0; // offset in `floats`: the row(s), then the globals
        std::uint64_t mask = 0;   // offset in `masks`: 3 x rows + 1
    };
    std::vector<Step> steps;
    std::vector<float> floats;
    std::vector<std::uint8_t> masks;

    bool empty() const { return steps.empty(); }
    std::size_t size() const { return steps.size(); }
    void clear();
    void record(const EncodedState &state, int action, float behaviourProb, int job);
    // Every inference's full state, in order: f(step, jobs (rows x jobDim), globals, mask).
    void expand(const std::function<void(const Step &, const std::vector<float> &,
                                         const float *, const std::uint8_t *)> &f) const;

    // Byte form (the console sends it to its learner process); fromBytes throws dl2::Error
    // for bytes that are not a trace.
    QByteArray toBytes() const;
    static ActingTrace fromBytes(const QByteArray &bytes);

private:
    std::uint64_t m_encode = 0, m_updates = 0; // of the state last recorded
};

} // namespace dl2
