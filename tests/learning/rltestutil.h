#pragma once
// Shared by the RL tests (tst_rltrainer, tst_rlrepair): a small dl2 for dl2-small and its
// checkpoints.
#include "checkpoint.h"
#include "policyspec.h"

#include <QTemporaryDir>

#include <string>

namespace dl2::test {

// A small dl2 (window 20, 32/32 hidden units) for dl2-small, decoding by sampling.
inline PolicySpec smallDl2()
{
    PolicySpec spec = defaultSpec(PolicyKind::Dl2, 20, 8);
    spec.hidden1 = spec.hidden2 = 32;
    spec.decode = Decode::Sample;
    return spec;
}

// Writes `parameters` as a dl2-small checkpoint DIR/NAME and returns its path.
inline std::string writeStart(const QTemporaryDir &dir, const char *name, const PolicySpec &spec,
                       const ParameterSet &parameters)
{
    const std::string path = dir.path().toStdString() + "/" + name;
    TrainingInfo info;
    info.scenario = "dl2-small";
    writeCheckpoint(path, spec, info, parameters);
    return path;
}

// A deliberately poor dl2-small warm-up (every add-a-PS action biased up by 3 logits) as
// DIR/poor.dl2ckpt.
inline std::string writePoorWarmUp(const QTemporaryDir &dir, const PolicySpec &spec)
{
    ParameterSet poor = initialParameters(spec, 7);
    auto &bias = poor.at("policy.out.bias").data;
    for (int r = 0; r < spec.window; ++r)
        bias[size_t(3 * r + 1)] += 3.0f;
    return writeStart(dir, "poor.dl2ckpt", spec, poor);
}

} // namespace dl2::test
