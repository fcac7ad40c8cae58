#pragma once
// A ClusterConnector over the Kubernetes API (docs/model.md section 8). See KUBERNETES.md.
//  - snapshot(): reads Nodes (allocatable cpu and nvidia.com/gpu), the training pods
//    (label selectors training.kubeflow.org/job-name and volcano.sh/job-name) and the training
//    jobs (PyTorchJob and TFJob kubeflow.org/v1, Volcano Job batch.volcano.sh/v1alpha1; a kind
//    whose CRD is not installed is skipped) and maps them onto a ClusterView.
//  - events(): diffs between successive reads (a new job = Arrival, a Succeeded job =
//    Completion, a changed dl2.io/done-epochs = Progress, an applied decision = Applied). A
//    background poll (pollMs) keeps the event stream moving; no ?watch=1.
//  - apply(): through KubernetesApplier (PyTorchJob scale subresource, TFJob replica patch,
//    Volcano task replicas); idempotent by decision id, see the .cpp for the record kept.
//  - history(): the slots this connector observed (one SlotRecord per slot in which it read the
//    cluster: the jobs and utilisation as last read in that slot, the arrivals and completions
//    it saw, the decisions it applied), so a console attaching mid-run gets them (GetHistory).
//    Bounded: the newest historySlots observed slots (default 1,000: ~14 days of 20-minute
//    slots; memory ~ historySlots x managed jobs x ~150 bytes). Lost with the process (an
//    agent restart starts a new history).
//  - Reward (snapshots and history): the normalised progress the jobs report through their
//    dl2.io/done-epochs annotations (epochs done / total epochs, summed over managed jobs, as
//    the simulator's reward; a completion counts what was left), seen between successive
//    reads and credited to the slot of the read that saw it; a snapshot carries the last slot
//    that is over. Jobs that do not write the annotation show progress only when they finish.
// Slots follow the wall clock: slot = floor(unix seconds / slotSeconds), so slot numbers stay
// the same across agent restarts; advanceSlot(s) waits until slot s is over.
// A job is managed when it names its model profile (annotation or label dl2.io/model); its id
// is the annotation dl2.io/job-id, else a stable 31-bit hash of "Kind/namespace/name".
//
// Thread-safe. All HTTP runs on one worker thread owned by the connector (Qt network objects
// belong to one thread); callers from any thread block on it, one call at a time.

#include "clusterconnector.h"
#include "kubernetesapplier.h"
#include "kubernetescredentials.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dl2 {

// Resources -> DL2 slots, as the reference setting counts them (types.h).
inline constexpr int kSlotsPerCpuCore = 1; // allocatable cpu, whole cores (millicores / 1000)
inline constexpr int kSlotsPerGpu = 4;     // allocatable nvidia.com/gpu

struct KubernetesConnectorOptions
{
    KubernetesCredentials credentials;
    std::string ns; // empty: all namespaces
    bool dryRun = false;
    double slotSeconds = 1200.0;
    int pollMs = 10'000; // background refresh feeding events(); 0: only on demand
    int timeoutMs = 10'000;
    int conflictRetries = 3;
    int maxWorkers = 16;
    int maxPs = 16;
    int historySlots = 1000; // observed slots kept for history(); 0: none
    std::function<void(const std::string &)> printer; // --dry-run output; default stdout
};

struct KubernetesNode
{
    std::string name;
    Demand capacity{0, 0};   // slots
    Demand usage{0, 0};      // requests of the training pods placed on it, in slots
    bool schedulable = true; // Ready and not cordoned
};

struct KubernetesTrainingJob
{
    KubernetesJobRef ref;
    std::string model;
    JobState state;    // workers/ps/tasks: running pods; status, epochs from the job object
    Allocation target; // replica counts in the spec
    bool failed = false;
};

struct KubernetesClusterState
{
    std::vector<KubernetesNode> nodes;       // sorted by name; TaskPlacement::node indexes this
    std::vector<KubernetesTrainingJob> jobs; // managed jobs, by arrival then id
    std::vector<std::string> unmanaged;      // "Kind ns/name: reason"
};

// The list responses (JSON bodies) one read of the cluster consists of.
struct KubernetesLists
{
    QJsonObject nodes;       // GET /api/v1/nodes
    QJsonObject pytorchJobs; // GET /apis/kubeflow.org/v1[/namespaces/NS]/pytorchjobs
    QJsonObject tfJobs;      // ... /tfjobs
    QJsonObject volcanoJobs; // GET /apis/batch.volcano.sh/v1alpha1[/namespaces/NS]/jobs
    QJsonObject
        kubeflowPods; // GET
                      // /api/v1[/namespaces/NS]/pods?labelSelector=training.kubeflow.org/job-name
    QJsonObject volcanoPods; // ... ?labelSelector=volcano.sh/job-name
};

class ProfileSet;
// Maps what the API returned onto nodes, managed jobs and unmanaged ones (no I/O; any JSON is
// accepted, missing or mistyped fields read as absent). `nowSlot` dates jobs without a
// creation time.
KubernetesClusterState parseClusterState(const KubernetesLists &lists, const ProfileSet &profiles,
                                         double slotSeconds, int nowSlot);

class KubernetesConnector : public ServedConnector
{
public:
    explicit KubernetesConnector(KubernetesConnectorOptions options);
    ~KubernetesConnector() override;

    std::string describe() const override;
    ClusterView snapshot() override;
    std::vector<ClusterEvent> events(std::int64_t afterSeq) override;
    std::vector<Acknowledgment> apply(const std::vector<ResizeDecision> &decisions) override;
    bool advanceSlot(int expectedSlot) override;
    std::vector<AppliedRecord> appliedRecord() override;
    std::vector<SlotRecord> history(int fromSlot, int toSlot, int maxSlots = 1 << 30) override;

    std::string backendName() const override { return "kubernetes"; }
    std::string scenarioName() const override { return describe(); }
    std::vector<ClusterEvent> waitForEvents(std::int64_t afterSeq,
                                            std::chrono::milliseconds timeout) override;
    int nextSlot() const override;
    // Reads the cluster now (events from the difference to the last read).
    void refresh();
    KubernetesClusterState clusterState() const; // as of the last read
    // Wakes and refuses blocked and further calls (before the gRPC server shuts down).
    void stop();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace dl2
