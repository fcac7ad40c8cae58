#include "kubernetesconnector.h"

#include "error.h"
#include "modelprofile.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QThread>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>

Q_LOGGING_CATEGORY(lcKube, "dl2.connector.kubernetes")

namespace dl2 {

namespace {

using Kind = KubernetesJobRef::Kind;

QJsonObject obj(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toObject();
}
QString str(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toString();
}

// A Kubernetes quantity ("8", "7910m", "1.5", "2Ki") in thousandths; nullopt when malformed.
std::optional<long long> milli(const QString &q)
{
    static const QRegularExpression re(QStringLiteral("^([0-9]+(?:\\.[0-9]*)?)([a-zA-Z]*)$"));
    const auto m = re.match(q.trimmed());
    if (!m.hasMatch())
        return std::nullopt;
    static const std::map<QString, double> scale{{QString(), 1.0},
                                                 {QStringLiteral("n"), 1e-9},
                                                 {QStringLiteral("u"), 1e-6},
                                                 {QStringLiteral("m"), 1e-3},
                                                 {QStringLiteral("k"), 1e3},
                                                 {QStringLiteral("M"), 1e6},
                                                 {QStringLiteral("G"), 1e9},
                                                 {QStringLiteral("T"), 1e12},
                                                 {QStringLiteral("Ki"), 1024.0},
                                                 {QStringLiteral("Mi"), 1048576.0},
                                                 {QStringLiteral("Gi"), 1073741824.0}};
    const auto s = scale.find(m.captured(2));
    if (s == scale.end())
        return std::nullopt;
    return std::llround(m.captured(1).toDouble() * s->second * 1000.0);
}

// cpu millicores and GPUs a pod requests, per resource its requests, else its limits
// (extended resources such as nvidia.com/gpu are often given as limits only).
std::pair<long long, long long> podRequests(const QJsonObject &pod)
{
    long long cpu = 0, gpu = 0;
    for (const auto &c : obj(pod, "spec").value(QStringLiteral("containers")).toArray()) {
        const QJsonObject res = obj(c.toObject(), "resources");
        auto amount = [&](const char *name) {
            for (const char *kind : {"requests", "limits"})
                if (const auto v = milli(str(obj(res, kind), name)))
                    return *v;
            return 0LL;
        };
        cpu += amount("cpu");
        gpu += amount("nvidia.com/gpu") / 1000;
    }
    return {cpu, gpu};
}

Demand slotsOf(long long cpuMilli, long long gpus, bool roundUp)
{
    // Counts beyond any real machine (a corrupt or hostile object: the fuzzer sent 1.5e9
    // GPUs) saturate, so that slots and their sums over pods and nodes stay inside int.
    constexpr long long kMaxUnits = 1 << 16;
    const long long cores =
        std::clamp(roundUp ? (cpuMilli + 999) / 1000 : cpuMilli / 1000, 0LL, kMaxUnits);
    return {static_cast<int>(cores) * kSlotsPerCpuCore,
            static_cast<int>(std::clamp(gpus, 0LL, kMaxUnits)) * kSlotsPerGpu};
}

double unixSeconds(const QString &timestamp)
{
    const QDateTime t = QDateTime::fromString(timestamp, Qt::ISODate);
    return t.isValid() ? static_cast<double>(t.toMSecsSinceEpoch()) / 1000.0 : -1.0;
}

int stableId(const std::string &key)
{
    std::uint32_t h = 2166136261u; // FNV-1a
    for (const unsigned char c : key) {
        h ^= c;
        h *= 16777619u;
    }
    return static_cast<int>(h & 0x7fffffffu);
}

const char *kindName(Kind kind)
{
    return kind == Kind::PyTorchJob ? "PyTorchJob" : kind == Kind::TFJob ? "TFJob" : "Job";
}

std::string jobKey(Kind kind, const QString &ns, const QString &name)
{
    return std::string(kindName(kind)) + '/' + ns.toStdString() + '/' + name.toStdString();
}

bool conditionTrue(const QJsonObject &status, const char *type, double *when)
{
    for (const auto &c : status.value(QStringLiteral("conditions")).toArray()) {
        const QJsonObject o = c.toObject();
        if (str(o, "type") == QLatin1String(type) && str(o, "status") == QLatin1String("True")) {
            if (when)
                *when = unixSeconds(str(o, "lastTransitionTime"));
            return true;
        }
    }
    return false;
}

} // namespace

struct KubernetesConnector::Impl
{
    KubernetesConnectorOptions options;
    ProfileSet profiles = ProfileSet::reference();

    // Worker thread: the applier, the poll timer and everything that talks HTTP.
    QThread thread;
    QObject *context = nullptr;
    std::unique_ptr<KubernetesApplier> applier;
    std::map<int, KubernetesJobRef> jobRefs; // as of the last read (worker only)
    std::set<std::string> reportedUnmanaged; // worker only
    bool working = false;                    // worker only
    std::mutex callMutex;                    // one call on the worker at a time

    // Shared state, guarded by stateMutex.
    mutable std::mutex stateMutex;
    std::condition_variable changed;
    KubernetesClusterState state;
    bool haveState = false;
    // A job as last read (a member type: a field's type from the anonymous namespace would
    // give this class, which has external linkage, a member no other unit can name).
    struct Memo
    {
        bool finished = false;
        double doneEpochs = 0.0;
    };
    std::map<int, Memo> seen;
    std::vector<ClusterEvent> events;
    std::int64_t seq = 0;
    std::map<std::string, AppliedRecord> applied;
    std::vector<std::string> appliedOrder;
    std::deque<SlotRecord> history; // observed slots, oldest first (at most historySlots)
    // Reward as observed: the normalised progress (epochs done / total epochs, summed over
    // the managed jobs, as the simulator's reward) seen between successive reads, credited to
    // the slot of the read that saw it. The last two slots' sums and the running total.
    std::map<int, double> slotReward;
    double cumulativeReward = 0.0;
    std::atomic<bool> stopping{false};

    // The record of slot `slot` (created, and the oldest dropped, as needed); null when no
    // history is kept. stateMutex held.
    SlotRecord *historyRecord(int slot)
    {
        if (options.historySlots <= 0)
            return nullptr;
        if (!history.empty() && history.back().slot == slot)
            return &history.back();
        if (!history.empty() && history.back().slot > slot) { // the clock went back: find it
            for (auto &r : history)
                if (r.slot == slot)
                    return &r;
            return nullptr;
        }
        SlotRecord r;
        r.slot = slot;
        if (!history.empty()) { // as last read until this slot's read
            r.jobs = history.back().jobs;
            r.utilisation = history.back().utilisation;
        }
        history.push_back(std::move(r));
        while (static_cast<int>(history.size()) > options.historySlots)
            history.pop_front();
        return &history.back();
    }

    int slotNow() const
    {
        const double now =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        return static_cast<int>(std::floor(now / options.slotSeconds));
    }

    void run(const std::function<void()> &f)
    {
        if (stopping)
            throw Error("the Kubernetes connector is stopping");
        std::lock_guard lock(callMutex);
        std::exception_ptr error;
        QMetaObject::invokeMethod(
            context,
            [&] {
                working = true;
                try {
                    f();
                } catch (...) {
                    error = std::current_exception();
                }
                working = false;
            },
            Qt::BlockingQueuedConnection);
        if (error)
            std::rethrow_exception(error);
    }

    void tick()
    {
        if (working || stopping)
            return;
        std::unique_lock lock(callMutex, std::try_to_lock);
        if (!lock)
            return;
        working = true;
        try {
            absorb(read());
        } catch (const std::exception &e) {
            qCWarning(lcKube, "poll failed: %s", e.what());
        }
        working = false;
    }

    QJsonObject list(const std::string &path, const char *what, bool optional)
    {
        const auto r = withCredentials([&] { return applier->get(path); });
        if (r.status == 404 && optional)
            return {}; // the CRD is not installed
        if (r.status != 200)
            throw Error(std::string("Kubernetes API: listing ") + what + " (" + path +
                        ") failed with " + std::to_string(r.status) + ": " +
                        QJsonDocument::fromJson(r.body)
                            .object()
                            .value(QStringLiteral("message"))
                            .toString(QString::fromUtf8(r.body.left(200)))
                            .toStdString());
        return QJsonDocument::fromJson(r.body).object();
    }

    template <typename F> auto withCredentials(F f) -> decltype(f())
    {
        try {
            return f();
        } catch (const Error &e) {
            const std::string m = e.what();
            if (m.find("rejected the credentials") != std::string::npos)
                throw Error(m + " [credentials: " + options.credentials.origin + "]");
            throw;
        }
    }

    KubernetesClusterState read();
    void absorb(KubernetesClusterState next);
    ClusterView view() const;
};

KubernetesClusterState KubernetesConnector::Impl::read()
{
    const std::string scope = options.ns.empty() ? std::string() : "/namespaces/" + options.ns;
    KubernetesLists lists;
    lists.nodes = list("/api/v1/nodes", "nodes", false);
    lists.pytorchJobs = list("/apis/kubeflow.org/v1" + scope + "/pytorchjobs", "PyTorchJobs", true);
    lists.tfJobs = list("/apis/kubeflow.org/v1" + scope + "/tfjobs", "TFJobs", true);
    lists.volcanoJobs =
        list("/apis/batch.volcano.sh/v1alpha1" + scope + "/jobs", "Volcano jobs", true);
    lists.kubeflowPods = list(
        "/api/v1" + scope + "/pods?labelSelector=training.kubeflow.org/job-name", "pods", false);
    lists.volcanoPods =
        list("/api/v1" + scope + "/pods?labelSelector=volcano.sh/job-name", "pods", false);
    KubernetesClusterState s = parseClusterState(lists, profiles, options.slotSeconds, slotNow());
    jobRefs.clear();
    for (const auto &job : s.jobs)
        if (!job.failed)
            jobRefs[job.state.id] = job.ref;
    for (const auto &line : s.unmanaged) {
        const std::string key = line.substr(0, line.find(": "));
        if (reportedUnmanaged.insert(key).second)
            qCInfo(lcKube, "not managing %s", line.c_str());
    }
    applier->setJobs(jobRefs);
    return s;
}

namespace {

// One training job as listed, before it is matched with its pods and a model profile.
struct RawJob
{
    KubernetesTrainingJob job;
    QJsonObject object;
    bool succeeded = false;
    double finishedAt = -1.0;
    bool hasPs = false;
};
using RawJobs = std::map<std::string, RawJob>; // by jobKey

int replicasOf(const QJsonObject &spec)
{
    return spec.value(QStringLiteral("replicas")).toInt(1); // the operators' default
}

// Nodes, by name: capacity from status.allocatable, schedulable when Ready and not cordoned.
std::vector<KubernetesNode> readNodes(const QJsonObject &list)
{
    std::vector<KubernetesNode> nodes;
    for (const auto &v : list.value(QStringLiteral("items")).toArray()) {
        const QJsonObject n = v.toObject();
        const QJsonObject alloc = obj(obj(n, "status"), "allocatable");
        KubernetesNode node;
        node.name = str(obj(n, "metadata"), "name").toStdString();
        node.capacity = slotsOf(milli(str(alloc, "cpu")).value_or(0),
                                milli(str(alloc, "nvidia.com/gpu")).value_or(0) / 1000, false);
        node.schedulable = conditionTrue(obj(n, "status"), "Ready", nullptr) &&
                           !obj(n, "spec").value(QStringLiteral("unschedulable")).toBool(false);
        nodes.push_back(node);
    }
    std::sort(nodes.begin(), nodes.end(), [](const auto &a, const auto &b) { return a.name < b.name; });
    return nodes;
}

// A Volcano Job: PS and worker tasks named by annotations (default "ps" and "worker"),
// finished by status.state.phase.
void readVolcanoJob(const QJsonObject &o, RawJob &r)
{
    const QJsonObject ann = obj(obj(o, "metadata"), "annotations");
    r.job.ref.psTask =
        str(ann, "dl2.io/ps-task").isEmpty() ? "ps" : str(ann, "dl2.io/ps-task").toStdString();
    r.job.ref.workerTask = str(ann, "dl2.io/worker-task").isEmpty()
                               ? "worker"
                               : str(ann, "dl2.io/worker-task").toStdString();
    for (const auto &t : obj(o, "spec").value(QStringLiteral("tasks")).toArray()) {
        const QJsonObject task = t.toObject();
        const std::string name = str(task, "name").toStdString();
        if (name == r.job.ref.psTask) {
            r.hasPs = true;
            r.job.target.ps = replicasOf(task);
        } else if (name == r.job.ref.workerTask) {
            r.job.target.workers = replicasOf(task);
        }
    }
    const QJsonObject state = obj(obj(o, "status"), "state");
    const QString phase = str(state, "phase");
    r.succeeded = phase == QLatin1String("Completed");
    r.job.failed = phase == QLatin1String("Failed") || phase == QLatin1String("Aborted") ||
                   phase == QLatin1String("Terminated");
    if (r.succeeded)
        r.finishedAt = unixSeconds(str(state, "lastTransitionTime"));
}

// A Kubeflow PyTorchJob / TFJob: Worker and PS replica specs, finished by its conditions.
void readKubeflowJob(Kind kind, const QJsonObject &o, RawJob &r)
{
    const QJsonObject status = obj(o, "status");
    const QJsonObject specs =
        obj(obj(o, "spec"), kind == Kind::PyTorchJob ? "pytorchReplicaSpecs" : "tfReplicaSpecs");
    if (specs.contains(QStringLiteral("Worker")))
        r.job.target.workers = replicasOf(obj(specs, "Worker"));
    r.hasPs = specs.contains(QStringLiteral("PS"));
    if (r.hasPs)
        r.job.target.ps = replicasOf(obj(specs, "PS"));
    r.succeeded = conditionTrue(status, "Succeeded", &r.finishedAt);
    r.job.failed = conditionTrue(status, "Failed", nullptr);
    if (r.succeeded && !str(status, "completionTime").isEmpty())
        r.finishedAt = unixSeconds(str(status, "completionTime"));
}

void readJobs(Kind kind, const QJsonObject &list, RawJobs &raws)
{
    for (const auto &v : list.value(QStringLiteral("items")).toArray()) {
        const QJsonObject o = v.toObject();
        const QJsonObject md = obj(o, "metadata");
        RawJob r;
        r.object = o;
        r.job.ref.kind = kind;
        r.job.ref.ns = str(md, "namespace").toStdString();
        r.job.ref.name = str(md, "name").toStdString();
        if (kind == Kind::VolcanoJob)
            readVolcanoJob(o, r);
        else
            readKubeflowJob(kind, o, r);
        raws[jobKey(kind, str(md, "namespace"), str(md, "name"))] = std::move(r);
    }
}

// The job a pod belongs to (nullptr: none listed) and its role ("ps", "worker" or other).
struct PodOwner
{
    RawJob *job = nullptr;
    QString role;
};

PodOwner volcanoPodOwner(const QJsonObject &md, RawJobs &raws)
{
    const QJsonObject labels = obj(md, "labels");
    const auto it = raws.find(
        jobKey(Kind::VolcanoJob, str(md, "namespace"), str(labels, "volcano.sh/job-name")));
    if (it == raws.end())
        return {};
    QString task = str(labels, "volcano.sh/task-spec");
    if (task.isEmpty())
        task = str(obj(md, "annotations"), "volcano.sh/task-spec");
    const KubernetesJobRef &ref = it->second.job.ref;
    return {&it->second, task.toStdString() == ref.psTask       ? QStringLiteral("ps")
                         : task.toStdString() == ref.workerTask ? QStringLiteral("worker")
                                                                : QString()};
}

PodOwner kubeflowPodOwner(const QJsonObject &md, RawJobs &raws)
{
    const QJsonObject labels = obj(md, "labels");
    const QString name = str(labels, "training.kubeflow.org/job-name");
    QString owner;
    for (const auto &ref : md.value(QStringLiteral("ownerReferences")).toArray())
        owner = str(ref.toObject(), "kind");
    PodOwner result;
    for (Kind kind : {Kind::PyTorchJob, Kind::TFJob}) {
        const auto it = raws.find(jobKey(kind, str(md, "namespace"), name));
        if (it != raws.end() && (owner.isEmpty() || owner == QLatin1String(kindName(kind))))
            result.job = &it->second;
    }
    result.role = str(labels, "training.kubeflow.org/replica-type").toLower();
    if (result.role.isEmpty())
        result.role = str(labels, "replica-type").toLower();
    return result;
}

using NodeRequests = std::map<QString, std::pair<long long, long long>>; // cpu milli, GPUs

// Training pods -> node usage (running and pending), and running workers/PSs with their
// placement.
void readPods(const QJsonObject &list, bool volcano, const std::map<QString, int> &nodeIndex,
              RawJobs &raws, NodeRequests &nodeRequests)
{
    for (const auto &v : list.value(QStringLiteral("items")).toArray()) {
        const QJsonObject p = v.toObject();
        const QJsonObject md = obj(p, "metadata");
        const QString phase = str(obj(p, "status"), "phase");
        const QString nodeName = str(obj(p, "spec"), "nodeName");
        if (phase != QLatin1String("Running") && phase != QLatin1String("Pending"))
            continue;
        const auto [cpu, gpu] = podRequests(p);
        if (!nodeName.isEmpty()) {
            nodeRequests[nodeName].first += cpu;
            nodeRequests[nodeName].second += gpu;
        }
        const PodOwner owner = volcano ? volcanoPodOwner(md, raws) : kubeflowPodOwner(md, raws);
        if (!owner.job || phase != QLatin1String("Running"))
            continue;
        JobState &st = owner.job->job.state;
        const auto node = nodeIndex.find(nodeName);
        const int index = node == nodeIndex.end() ? -1 : node->second;
        st.usage = st.usage + slotsOf(cpu, gpu, true);
        if (owner.role == QLatin1String("ps")) {
            ++st.ps;
            st.tasks.push_back({index, TaskRole::Ps});
        } else if (owner.role == QLatin1String("worker")) {
            ++st.workers;
            st.tasks.push_back({index, TaskRole::Worker});
        } // master / chief / evaluator: usage only (the scale subresource moves workers)
    }
}

// Why a listed job is not managed ("" = it is): a known model profile and a unique id.
std::string unmanagedReason(const QJsonObject &ann, const QString &model,
                            const std::optional<int> &type, bool idOk, int id,
                            const std::map<int, std::string> &ids)
{
    if (model.isEmpty())
        return "no dl2.io/model annotation";
    if (!type)
        return "model '" + model.toStdString() + "' is not a known profile";
    if (!idOk || id < 0)
        return "dl2.io/job-id '" + str(ann, "dl2.io/job-id").toStdString() + "' is not an id";
    if (ids.count(id))
        return "job id " + std::to_string(id) + " already used by " + ids.at(id);
    return {};
}

// The managed job of a listed one with its profile `type` and `id`.
KubernetesTrainingJob managedJob(const RawJob &r, const QJsonObject &ann, const QString &model,
                                 int type, int id, double slotSeconds, int nowSlot)
{
    KubernetesTrainingJob job = r.job;
    job.model = model.toStdString();
    JobState &st = job.state;
    st.id = id;
    st.type = type;
    const double created = unixSeconds(str(obj(r.object, "metadata"), "creationTimestamp"));
    st.arrivalSlot = created < 0 ? nowSlot : static_cast<int>(std::floor(created / slotSeconds));
    bool ok = false;
    const double total = str(ann, "dl2.io/total-epochs").toDouble(&ok);
    st.totalEpochs = st.estimatedEpochs = ok && total > 0 ? total : 1.0;
    const double done = str(ann, "dl2.io/done-epochs").toDouble(&ok);
    st.doneEpochs = ok ? std::clamp(done, 0.0, st.totalEpochs) : 0.0;
    st.prevWorkers = st.workers;
    st.prevPs = st.ps;
    if (r.succeeded) {
        st.status = JobStatus::Finished;
        st.doneEpochs = st.totalEpochs;
        st.finishTime = r.finishedAt >= 0 ? r.finishedAt / slotSeconds : nowSlot;
    } else {
        // PyTorchJobs (and jobs without a PS task) run with workers alone.
        st.status =
            st.workers > 0 && (st.ps > 0 || !r.hasPs) ? JobStatus::Running : JobStatus::Queued;
    }
    return job;
}

} // namespace

KubernetesClusterState parseClusterState(const KubernetesLists &lists, const ProfileSet &profiles,
                                         double slotSeconds, int nowSlot)
{
    KubernetesClusterState s;
    s.nodes = readNodes(lists.nodes);
    std::map<QString, int> nodeIndex;
    for (size_t i = 0; i < s.nodes.size(); ++i)
        nodeIndex[QString::fromStdString(s.nodes[i].name)] = static_cast<int>(i);

    RawJobs raws;
    readJobs(Kind::PyTorchJob, lists.pytorchJobs, raws);
    readJobs(Kind::TFJob, lists.tfJobs, raws);
    readJobs(Kind::VolcanoJob, lists.volcanoJobs, raws);

    NodeRequests nodeRequests;
    readPods(lists.kubeflowPods, false, nodeIndex, raws, nodeRequests);
    readPods(lists.volcanoPods, true, nodeIndex, raws, nodeRequests);
    for (auto &node : s.nodes) {
        const auto it = nodeRequests.find(QString::fromStdString(node.name));
        if (it != nodeRequests.end())
            node.usage = slotsOf(it->second.first, it->second.second, true);
    }

    std::map<int, std::string> ids;
    for (auto &[key, r] : raws) {
        const QJsonObject md = obj(r.object, "metadata");
        const QJsonObject ann = obj(md, "annotations");
        QString model = str(ann, "dl2.io/model");
        if (model.isEmpty())
            model = str(obj(md, "labels"), "dl2.io/model");
        const auto type = profiles.indexOf(model.toStdString());
        bool idOk = true;
        int id = stableId(key);
        if (ann.contains(QStringLiteral("dl2.io/job-id")))
            id = str(ann, "dl2.io/job-id").toInt(&idOk);
        const std::string why = unmanagedReason(ann, model, type, idOk, id, ids);
        if (!why.empty()) {
            s.unmanaged.push_back(key + ": " + why);
            continue;
        }
        ids[id] = key;
        s.jobs.push_back(managedJob(r, ann, model, *type, id, slotSeconds, nowSlot));
    }
    std::sort(s.jobs.begin(), s.jobs.end(), [](const auto &a, const auto &b) {
        return std::pair(a.state.arrivalSlot, a.state.id) <
               std::pair(b.state.arrivalSlot, b.state.id);
    });
    return s;
}

void KubernetesConnector::Impl::absorb(KubernetesClusterState next)
{
    std::lock_guard lock(stateMutex);
    const int now = slotNow();
    const size_t firstNewEvent = events.size();
    std::map<int, Memo> memo;
    double progress = 0.0;
    for (const auto &job : next.jobs) {
        if (job.failed)
            continue;
        const JobState &st = job.state;
        const bool finished = st.status == JobStatus::Finished;
        const auto it = seen.find(st.id);
        auto push = [&](ClusterEvent::Kind kind, int slot) {
            ClusterEvent e;
            e.seq = ++seq;
            e.slot = slot;
            e.kind = kind;
            e.job = st.id;
            e.doneEpochs = st.doneEpochs;
            e.totalEpochs = st.totalEpochs;
            events.push_back(e);
        };
        if (it == seen.end())
            push(ClusterEvent::Kind::Arrival, st.arrivalSlot);
        if (finished && (it == seen.end() || !it->second.finished))
            push(ClusterEvent::Kind::Completion, static_cast<int>(std::floor(st.finishTime)));
        else if (it != seen.end() && !finished && st.doneEpochs != it->second.doneEpochs)
            push(ClusterEvent::Kind::Progress, now);
        if (it != seen.end() && st.totalEpochs > 0) // progress made before the first read is not
            progress += std::max(0.0, st.doneEpochs - it->second.doneEpochs) / st.totalEpochs;
        memo[st.id] = {finished, st.doneEpochs};
    }
    slotReward[now] += progress;
    cumulativeReward += progress;
    while (slotReward.size() > 2)
        slotReward.erase(slotReward.begin());
    seen = std::move(memo); // jobs that disappeared are forgotten (no event kind for them)
    state = std::move(next);
    haveState = true;
    if (SlotRecord *r = historyRecord(now)) {
        // The slot as last read in it; arrivals and completions as seen (the events above).
        r->jobs.clear();
        for (const auto &job : state.jobs)
            if (!job.failed)
                r->jobs.push_back(job.state);
        Demand capacity{0, 0}, usage{0, 0};
        for (const auto &n : state.nodes)
            if (n.schedulable)
                for (int k = 0; k < kResourceTypes; ++k) {
                    capacity[k] += n.capacity[k];
                    usage[k] += n.usage[k];
                }
        for (int k = 0; k < kResourceTypes; ++k)
            r->utilisation[k] = capacity[k] > 0 ? double(usage[k]) / capacity[k] : 0.0;
        r->reward = slotReward[now];
        r->cumulativeReward = cumulativeReward;
        for (size_t i = firstNewEvent; i < events.size(); ++i) {
            const ClusterEvent &e = events[i];
            if (e.kind == ClusterEvent::Kind::Arrival)
                r->arrivals.push_back(e.job);
            else if (e.kind == ClusterEvent::Kind::Completion)
                r->completions.push_back(e.job);
        }
    }
    changed.notify_all();
}

ClusterView KubernetesConnector::Impl::view() const
{
    ClusterView v;
    v.nextSlot = slotNow();
    // The last slot that is over, as the simulator reports it; the running slot's progress
    // so far is left out of the total too.
    const auto last = slotReward.find(v.nextSlot - 1);
    const auto running = slotReward.find(v.nextSlot);
    v.reward = last == slotReward.end() ? 0.0 : last->second;
    v.cumulativeReward = cumulativeReward - (running == slotReward.end() ? 0.0 : running->second);
    v.nodes = static_cast<int>(state.nodes.size());
    // One capacity for all nodes (the view is homogeneous): the most common among the
    // schedulable nodes, ties to the smaller.
    std::map<Demand, int> counts;
    for (const auto &n : state.nodes)
        if (n.schedulable)
            ++counts[n.capacity];
    int best = 0;
    for (const auto &[capacity, count] : counts)
        if (count > best) {
            best = count;
            v.nodeCapacity = capacity;
        }
    v.slotSeconds = options.slotSeconds;
    v.maxWorkers = options.maxWorkers;
    v.maxPs = options.maxPs;
    for (const auto &job : state.jobs) {
        if (job.failed)
            continue;
        v.jobs.push_back(job.state);
        v.targets.push_back(job.target);
        v.finished += job.state.status == JobStatus::Finished;
    }
    v.totalJobs = static_cast<int>(v.jobs.size());
    return v;
}

KubernetesConnector::KubernetesConnector(KubernetesConnectorOptions options)
    : d(std::make_unique<Impl>())
{
    d->options = std::move(options);
    if (d->options.credentials.server.empty())
        throw Error("no Kubernetes API server in the credentials");
    if (!(d->options.slotSeconds >= 1.0)) // slot numbers count from the Unix epoch (int)
        throw Error("the slot length must be at least 1 s");
    d->thread.setObjectName(QStringLiteral("dl2-kubernetes"));
    d->context = new QObject;
    d->context->moveToThread(&d->thread);
    d->thread.start();
    d->run([this] {
        const KubernetesCredentials &c = d->options.credentials;
        KubernetesOptions o;
        o.apiServer = c.server;
        o.token = c.token;
        o.tokenFile = c.tokenFile;
        o.caPem = c.caPem;
        o.clientCertPem = c.clientCertPem;
        o.clientKeyPem = c.clientKeyPem;
        o.insecureSkipTlsVerify = c.insecureSkipTlsVerify;
        o.dryRun = d->options.dryRun;
        o.timeoutMs = d->options.timeoutMs;
        o.conflictRetries = d->options.conflictRetries;
        d->applier = std::make_unique<KubernetesApplier>(o, std::map<int, KubernetesJobRef>{});
        if (d->options.printer)
            d->applier->setRequestPrinter(d->options.printer);
        if (d->options.pollMs > 0) {
            auto *timer = new QTimer(d->context);
            QObject::connect(timer, &QTimer::timeout, d->context, [this] { d->tick(); });
            timer->start(d->options.pollMs);
        }
    });
}

KubernetesConnector::~KubernetesConnector()
{
    stop();
    {
        std::lock_guard lock(d->callMutex);
        QMetaObject::invokeMethod(
            d->context,
            [this] {
                qDeleteAll(d->context->children()); // the poll timer
                d->applier.reset();
            },
            Qt::BlockingQueuedConnection);
    }
    d->thread.quit();
    d->thread.wait();
    delete d->context;
}

void KubernetesConnector::stop()
{
    {
        std::lock_guard lock(d->stateMutex);
        d->stopping = true;
    }
    d->changed.notify_all();
}

std::string KubernetesConnector::describe() const
{
    return "kubernetes " + d->options.credentials.server +
           (d->options.ns.empty() ? " (all namespaces)" : " namespace " + d->options.ns) +
           (d->options.dryRun ? ", dry run" : "");
}

int KubernetesConnector::nextSlot() const
{
    return d->slotNow();
}

void KubernetesConnector::refresh()
{
    d->run([this] { d->absorb(d->read()); });
}

KubernetesClusterState KubernetesConnector::clusterState() const
{
    std::lock_guard lock(d->stateMutex);
    return d->state;
}

ClusterView KubernetesConnector::snapshot()
{
    refresh();
    std::lock_guard lock(d->stateMutex);
    ClusterView v = d->view();
    v.scenario = describe();
    return v;
}

std::vector<ClusterEvent> KubernetesConnector::events(std::int64_t afterSeq)
{
    bool have = false;
    {
        std::lock_guard lock(d->stateMutex);
        have = d->haveState;
    }
    if (!have)
        refresh();
    std::lock_guard lock(d->stateMutex);
    std::vector<ClusterEvent> out;
    for (const auto &e : d->events)
        if (e.seq > afterSeq)
            out.push_back(e);
    return out;
}

std::vector<ClusterEvent> KubernetesConnector::waitForEvents(std::int64_t afterSeq,
                                                             std::chrono::milliseconds timeout)
{
    std::unique_lock lock(d->stateMutex);
    d->changed.wait_for(lock, timeout, [&] { return d->stopping || d->seq > afterSeq; });
    std::vector<ClusterEvent> out;
    for (const auto &e : d->events)
        if (e.seq > afterSeq)
            out.push_back(e);
    return out;
}

bool KubernetesConnector::advanceSlot(int expectedSlot)
{
    if (d->slotNow() > expectedSlot)
        return false;
    const auto boundary = std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::duration<double>((expectedSlot + 1) * d->options.slotSeconds)));
    {
        std::unique_lock lock(d->stateMutex);
        d->changed.wait_until(lock, boundary, [&] {
            return d->stopping || std::chrono::system_clock::now() >= boundary;
        });
        if (d->stopping)
            throw Error("the Kubernetes connector is stopping");
    }
    refresh();
    return true;
}

// Idempotence by decision id, at two levels:
//  - on the job object (KubernetesApplier): annotations dl2.io/last-decision and
//    dl2.io/last-decision-slot, written with the change (Volcano, TFJob: the same patch;
//    PyTorchJob: right after the scale). A re-sent id, or any decision for an older slot, is a
//    Duplicate. This record lives and dies with the job, whichever agent instance applies it
//    and wherever it runs, and needs no state directory. A one-entry watermark is enough
//    because decisions carry absolute targets ordered by slot: a bounded list of ids would
//    forget old ids and could let an older target overwrite a newer one.
//  - in memory here (fast path, and the GetApplied record): an id applied by this process is
//    answered as Duplicate without a request. After a restart the record starts empty and the
//    annotations take over (those decisions are recorded with applyCount 0).
std::vector<Acknowledgment> KubernetesConnector::apply(const std::vector<ResizeDecision> &decisions)
{
    std::vector<Acknowledgment> acks(decisions.size());
    std::vector<size_t> pending;
    {
        std::lock_guard lock(d->stateMutex);
        for (size_t i = 0; i < decisions.size(); ++i) {
            const auto it = d->applied.find(decisions[i].id);
            if (it != d->applied.end() && it->second.applyCount > 0) {
                ++it->second.duplicateReceipts;
                acks[i] = {decisions[i].id, Acknowledgment::Status::Duplicate, "already applied",
                           it->second.appliedAtSlot};
            } else {
                pending.push_back(i);
            }
        }
    }
    std::vector<Acknowledgment> results;
    auto record = [&] {
        std::lock_guard lock(d->stateMutex);
        for (size_t k = 0; k < results.size(); ++k) {
            const ResizeDecision &dec = decisions[pending[k]];
            const Acknowledgment &a = results[k];
            acks[pending[k]] = a;
            if (a.status == Acknowledgment::Status::Invalid)
                continue;
            auto [it, inserted] = d->applied.try_emplace(dec.id);
            if (inserted) {
                it->second = {dec.id, dec.job, d->slotNow(), 0, 0};
                d->appliedOrder.push_back(dec.id);
            }
            if (a.status == Acknowledgment::Status::Applied) {
                ++it->second.applyCount;
                if (SlotRecord *r = d->historyRecord(d->slotNow()))
                    r->applied.push_back(dec);
                ClusterEvent e;
                e.seq = ++d->seq;
                e.slot = d->slotNow();
                e.kind = ClusterEvent::Kind::Applied;
                e.job = dec.job;
                e.decisionId = dec.id;
                d->events.push_back(e);
            } else {
                ++it->second.duplicateReceipts;
            }
        }
        d->changed.notify_all();
    };
    if (pending.empty())
        return acks;
    try {
        d->run([&] {
            bool unknown = false;
            for (const size_t i : pending)
                unknown |= !d->jobRefs.count(decisions[i].job);
            if (unknown) // a job we have not read yet
                d->absorb(d->read());
            for (const size_t i : pending) {
                const ResizeDecision &dec = decisions[i];
                if (!d->jobRefs.count(dec.job)) {
                    results.push_back({dec.id, Acknowledgment::Status::Invalid,
                                       "job gone: job " + std::to_string(dec.job) +
                                           " is not a managed Kubernetes training job (deleted, "
                                           "failed, or without dl2.io/model)",
                                       -1});
                    continue;
                }
                results.push_back(d->withCredentials([&] { return d->applier->apply({dec}); })[0]);
            }
        });
    } catch (...) {
        record(); // what was applied before the failure stays on record
        throw;
    }
    record();
    return acks;
}

std::vector<AppliedRecord> KubernetesConnector::appliedRecord()
{
    std::lock_guard lock(d->stateMutex);
    std::vector<AppliedRecord> out;
    for (const auto &id : d->appliedOrder)
        out.push_back(d->applied.at(id));
    return out;
}

std::vector<SlotRecord> KubernetesConnector::history(int fromSlot, int toSlot, int maxSlots)
{
    std::lock_guard lock(d->stateMutex);
    std::vector<SlotRecord> out;
    for (const SlotRecord &r : d->history) {
        if (static_cast<int>(out.size()) >= maxSlots)
            break;
        if (r.slot >= fromSlot && r.slot <= toSlot)
            out.push_back(r);
    }
    return out;
}

} // namespace dl2
