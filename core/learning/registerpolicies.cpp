#include "registerpolicies.h"

#include "checkpoint.h"
#include "dl2policy.h"
#include "error.h"
#include "scheduler.h"

#include <QFile>
#include <QFileInfo>

#include <map>
#include <mutex>

namespace dl2 {

namespace {

std::shared_ptr<const Checkpoint> cachedCheckpoint(const std::string &path, PolicyKind kind)
{
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const Checkpoint>> cache;
    const QFileInfo info(QString::fromStdString(path));
    const std::string key = path + "|" + std::to_string(info.size()) + "|" +
                            std::to_string(info.lastModified().toMSecsSinceEpoch()) + "|" +
                            toString(kind);
    std::lock_guard lock(mutex);
    auto it = cache.find(key);
    if (it != cache.end())
        return it->second;
    auto c = std::make_shared<const Checkpoint>(readCheckpoint(path, kind));
    cache[key] = c;
    return c;
}

} // namespace

std::string shippedPolicyPath(PolicyKind kind, const std::string &scenario, bool measuredSpeeds)
{
    std::string file;
    if (kind == PolicyKind::Dl2)
        file = "dl2-reference.dl2ckpt";
    else if (scenario == "dl2-contended")
        file = "dl2-plus-contended.dl2ckpt";
    else
        file =
            measuredSpeeds ? "dl2-plus-reference-measured.dl2ckpt" : "dl2-plus-reference.dl2ckpt";
    const std::string resource = ":/dl2/policies/" + file;
    if (QFile::exists(QString::fromStdString(resource)))
        return resource;
#ifdef DL2_SOURCE_DIR
    const std::string source = std::string(DL2_SOURCE_DIR) + "/resources/policies/" + file;
    if (QFile::exists(QString::fromStdString(source)))
        return source;
#endif
    throw Error(std::string("no shipped ") + toString(kind) + " policy (" + file +
                ") in this build; pass a checkpoint with --checkpoint");
}

std::unique_ptr<Dl2Policy> makeLearnedPolicy(PolicyKind kind, const SchedulerConfig &config)
{
    const std::string path = config.checkpoint.empty()
                                 ? shippedPolicyPath(kind, config.scenario, config.measuredSpeeds)
                                 : config.checkpoint;
    const auto c = cachedCheckpoint(path, kind);
    PolicySpec spec = c->spec;
    if (!config.decode.empty())
        spec.decode = decodeFromString(config.decode);
    return std::make_unique<Dl2Policy>(spec, c->parameters, config.seed);
}

void registerLearnedPolicies()
{
    registerScheduler({"dl2",
                       "DL2 learned scheduler, faithful to the paper (window J, 3J+1 actions, "
                       "one bundle per job first); --checkpoint FILE or the shipped policy",
                       [](const SchedulerConfig &c) -> std::unique_ptr<Scheduler> {
                           return makeLearnedPolicy(PolicyKind::Dl2, c);
                       }});
    registerScheduler({"dl2-plus",
                       "Improved DL2: shared per-job encoder (any number of jobs/types), "
                       "feasibility masking over all nodes, normalised features; --checkpoint "
                       "FILE or the shipped policy",
                       [](const SchedulerConfig &c) -> std::unique_ptr<Scheduler> {
                           return makeLearnedPolicy(PolicyKind::Dl2Plus, c);
                       }});
}

} // namespace dl2
