// Kubernetes API responses. The input is split at NUL bytes: the first six parts are the list
// responses one read of the cluster consists of (nodes, PyTorchJobs, TFJobs, Volcano jobs,
// kubeflow pods, Volcano pods) and go through parseClusterState(); the rest answer, in turn,
// the requests KubernetesApplier makes to apply one decision to each kind of job (a part
// "409 {...}" answers with that status, else 200).
#include "fuzzing.h"
#include "kubernetesconnector.h"
#include "modelprofile.h"

#include <QJsonDocument>
#include <cstdlib>

namespace {

QJsonObject object(const std::string &text)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const dl2::ProfileSet profiles = dl2::ProfileSet::reference();
    const auto parts =
        dl2::fuzz::split(dl2::fuzz::bytes(data, size), std::string_view("\0", 1), 32);
    auto part = [&](std::size_t i) { return i < parts.size() ? parts[i] : std::string(); };

    dl2::KubernetesLists lists;
    lists.nodes = object(part(0));
    lists.pytorchJobs = object(part(1));
    lists.tfJobs = object(part(2));
    lists.volcanoJobs = object(part(3));
    lists.kubeflowPods = object(part(4));
    lists.volcanoPods = object(part(5));
    const dl2::KubernetesClusterState state = dl2::parseClusterState(lists, profiles, 1200.0, 1000);
    for (const auto &job : state.jobs)
        if (job.state.tasks.size() != static_cast<size_t>(job.state.ps + job.state.workers))
            std::abort(); // every counted task has its placement

    static dl2::KubernetesApplier applier = [] {
        dl2::KubernetesOptions options;
        options.apiServer = "http://127.0.0.1:1"; // never contacted: the transport answers
        options.conflictRetries = 2;
        std::map<int, dl2::KubernetesJobRef> jobs;
        jobs[1] = {dl2::KubernetesJobRef::Kind::PyTorchJob, "ml", "p", "ps", "worker"};
        jobs[2] = {dl2::KubernetesJobRef::Kind::VolcanoJob, "ml", "v", "ps", "worker"};
        jobs[3] = {dl2::KubernetesJobRef::Kind::TFJob, "ml", "t", "ps", "worker"};
        return dl2::KubernetesApplier(options, jobs);
    }();
    std::size_t next = 6;
    applier.setTransport(
        [&](const QByteArray &, const std::string &, const QByteArray &, const QByteArray &) {
            std::string answer = part(next++);
            dl2::KubernetesApplier::Reply r;
            r.status = 200;
            if (answer.size() >= 4 && answer[3] == ' ' && answer[0] >= '1' && answer[0] <= '5') {
                r.status = std::atoi(answer.substr(0, 3).c_str());
                answer.erase(0, 4);
            }
            r.body = QByteArray::fromStdString(answer);
            return r;
        });
    for (int job : {1, 2, 3}) {
        dl2::ResizeDecision d;
        d.id = "run/7/" + std::to_string(job);
        d.slot = 7;
        d.job = job;
        d.from = {{1, 2}, {}};
        d.to = {{2, 3}, {}};
        dl2::fuzz::expectParsedOrError([&] { applier.apply({d}); });
    }
    return 0;
}
