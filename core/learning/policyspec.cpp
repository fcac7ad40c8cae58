#include "policyspec.h"

#include "error.h"

namespace dl2 {

const char *toString(PolicyKind kind)
{
    return kind == PolicyKind::Dl2 ? "dl2" : "dl2-plus";
}

PolicyKind policyKindFromString(const std::string &name)
{
    if (name == "dl2")
        return PolicyKind::Dl2;
    if (name == "dl2-plus")
        return PolicyKind::Dl2Plus;
    throw Error("unknown policy kind '" + name + "' (known: dl2, dl2-plus)");
}

const char *toString(Decode decode)
{
    return decode == Decode::Greedy ? "greedy" : "sample";
}

Decode decodeFromString(const std::string &name)
{
    if (name == "greedy")
        return Decode::Greedy;
    if (name == "sample")
        return Decode::Sample;
    throw Error("unknown decoding '" + name + "' (known: greedy, sample)");
}

const char *toString(CountFeatures counts)
{
    return counts == CountFeatures::PerType ? "per-type" : "scalar";
}

CountFeatures countFeaturesFromString(const std::string &name)
{
    if (name == "scalar")
        return CountFeatures::Scalar;
    if (name == "per-type")
        return CountFeatures::PerType;
    throw Error("unknown count features '" + name + "' (known: scalar, per-type)");
}

const char *toString(Exploration e)
{
    return e == Exploration::Reference ? "reference" : "paper";
}

Exploration explorationFromString(const std::string &name)
{
    if (name == "paper")
        return Exploration::Paper;
    if (name == "reference")
        return Exploration::Reference;
    throw Error("unknown exploration '" + name + "' (known: paper, reference)");
}

int PolicySpec::jobDim() const
{
    if (kind == PolicyKind::Dl2Plus)
        return kPlusJobFeatures + (features.bestSetting ? kPlusBestSettingFeatures : 0);
    const int perType = features.counts == CountFeatures::PerType ? 2 * kCountLevels * types : 0;
    return countBitsFrom() + perType;
}

int PolicySpec::countBitsFrom() const
{
    return (features.oneHotType ? types : 1) + kJobScalarFeatures;
}

int PolicySpec::globalDim() const
{
    return kind == PolicyKind::Dl2Plus ? kPlusGlobalFeatures : 0;
}

int PolicySpec::stateDim() const
{
    return kind == PolicyKind::Dl2Plus ? jobDim() : window * jobDim();
}

int PolicySpec::actionDim() const
{
    return kind == PolicyKind::Dl2Plus ? 4 : 3 * window + 1;
}

PolicySpec defaultSpec(PolicyKind kind, int window, int types)
{
    PolicySpec s;
    s.kind = kind;
    s.types = types;
    if (kind == PolicyKind::Dl2) {
        s.window = window;
        s.features = {true, false};
        s.hidden1 = s.hidden2 = 256;
        s.initialBundles = true;
        s.feasibilityMask = false;
    } else {
        s.window = 0;
        s.features = {false, true};
        s.hidden1 = s.hidden2 = 64;
        s.initialBundles = false;
        s.feasibilityMask = true;
    }
    return s;
}

} // namespace dl2
