#include "grpcconnector.h"

#include "dl2_agent_v1.grpc.pb.h"
#include "error.h"
#include "fileio.h"
#include "protoconvert.h"
#include "retry.h"

#include <QLoggingCategory>
#include <algorithm>
#include <grpcpp/grpcpp.h>
#include <thread>

Q_LOGGING_CATEGORY(lcGrpcConnector, "dl2.connector.grpc")

namespace dl2 {

namespace pb = agent::v1;

struct GrpcConnector::Impl
{
    GrpcConnectorOptions options;
    ProfileSet profiles;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<pb::ClusterAgent::Stub> stub;

    void prepare(grpc::ClientContext &ctx, std::chrono::milliseconds deadline) const
    {
        ctx.set_deadline(std::chrono::system_clock::now() + deadline);
        ctx.AddMetadata("authorization", "Bearer " + options.token);
    }
};

namespace {

// Every RPC of the agent is idempotent (Apply by decision id, AdvanceSlot by the slot it
// expects), so transport failures are retried. UNKNOWN is what a client sees when the agent
// dies in the middle of a call ("Stream removed"), so it counts as a transport failure too.
bool retryable(grpc::StatusCode code)
{
    return code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::DEADLINE_EXCEEDED ||
           code == grpc::StatusCode::RESOURCE_EXHAUSTED || code == grpc::StatusCode::ABORTED ||
           code == grpc::StatusCode::UNKNOWN;
}

const char *codeName(grpc::StatusCode code)
{
    switch (code) {
    case grpc::StatusCode::OK:
        return "OK";
    case grpc::StatusCode::CANCELLED:
        return "CANCELLED";
    case grpc::StatusCode::INVALID_ARGUMENT:
        return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
        return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
        return "NOT_FOUND";
    case grpc::StatusCode::PERMISSION_DENIED:
        return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED:
        return "UNAUTHENTICATED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
        return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
        return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
        return "ABORTED";
    case grpc::StatusCode::UNIMPLEMENTED:
        return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
        return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
        return "UNAVAILABLE";
    default:
        return "UNKNOWN";
    }
}

} // namespace

GrpcConnector::GrpcConnector(GrpcConnectorOptions options, ProfileSet profiles)
    : d(std::make_unique<Impl>())
{
    d->options = std::move(options);
    d->profiles = std::move(profiles);
    if (d->options.address.empty())
        throw Error("no agent address (--agent HOST:PORT)");
    std::shared_ptr<grpc::ChannelCredentials> creds;
    if (d->options.tlsCaFile.empty()) {
        creds = grpc::InsecureChannelCredentials();
    } else {
        grpc::SslCredentialsOptions ssl;
        ssl.pem_root_certs = readFile(d->options.tlsCaFile);
        creds = grpc::SslCredentials(ssl);
    }
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
                static_cast<int>(d->options.initialBackoff.count()));
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS,
                static_cast<int>(d->options.initialBackoff.count()));
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, static_cast<int>(d->options.maxBackoff.count()));
    args.SetMaxReceiveMessageSize(64 * 1024 * 1024);
    d->channel = grpc::CreateCustomChannel(d->options.address, creds, args);
    d->stub = pb::ClusterAgent::NewStub(d->channel);
}

GrpcConnector::~GrpcConnector() = default;

std::string GrpcConnector::describe() const
{
    return "agent at " + d->options.address;
}

// Runs `call` until it succeeds, fails for good, or the retry budget is spent.
template <typename Call>
static void withRetry(const char *what, const GrpcConnectorOptions &o, int &retries, Call &&call)
{
    const auto start = std::chrono::steady_clock::now();
    Backoff backoff(o.initialBackoff, o.maxBackoff);
    for (int attempt = 1;; ++attempt) {
        const grpc::Status status = call();
        if (status.ok())
            return;
        const auto code = status.error_code();
        if (code == grpc::StatusCode::UNAUTHENTICATED)
            throw Error("agent rejected the token (UNAUTHENTICATED)");
        const std::string detail =
            std::string(codeName(code)) +
            (status.error_message().empty() ? "" : ": " + status.error_message());
        if (!retryable(code))
            throw Error(std::string("agent refused ") + what + " (" + detail + ")");
        const auto elapsed = std::chrono::steady_clock::now() - start;
        if (!backoff.fits(elapsed, o.retryBudget))
            throw Error(
                std::string(what) + " to agent at " + o.address + " failed after " +
                std::to_string(attempt) + " attempts in " +
                std::to_string(
                    std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()) +
                " ms (" + detail + ")");
        ++retries;
        qCDebug(lcGrpcConnector, "%s failed (%s), retrying in %lld ms", what, detail.c_str(),
                static_cast<long long>(backoff.delay().count()));
        std::this_thread::sleep_for(backoff.delay());
        backoff.failed();
    }
}

AgentHealth GrpcConnector::health()
{
    pb::HealthResponse response;
    withRetry("Health", d->options, m_retries, [&] {
        grpc::ClientContext ctx;
        d->prepare(ctx, d->options.deadline);
        return d->stub->Health(&ctx, pb::HealthRequest(), &response);
    });
    return {response.backend(), response.scenario(), response.next_slot(), response.agent_version(),
            response.description()};
}

ClusterView GrpcConnector::snapshot()
{
    pb::Snapshot response;
    withRetry("GetSnapshot", d->options, m_retries, [&] {
        grpc::ClientContext ctx;
        d->prepare(ctx, d->options.deadline);
        response.Clear();
        return d->stub->GetSnapshot(&ctx, pb::GetSnapshotRequest(), &response);
    });
    return agentproto::toView(response, d->profiles);
}

std::vector<ClusterEvent> GrpcConnector::events(std::int64_t afterSeq)
{
    std::vector<ClusterEvent> out;
    withRetry("WatchEvents", d->options, m_retries, [&] {
        out.clear();
        grpc::ClientContext ctx;
        d->prepare(ctx, d->options.deadline);
        pb::WatchEventsRequest request;
        request.set_after_seq(afterSeq);
        request.set_follow(false);
        auto reader = d->stub->WatchEvents(&ctx, request);
        pb::Event e;
        while (reader->Read(&e))
            out.push_back(agentproto::toEvent(e));
        return reader->Finish();
    });
    return out;
}

void GrpcConnector::watch(std::int64_t afterSeq,
                          const std::function<bool(const ClusterEvent &)> &keepGoing,
                          std::chrono::milliseconds timeout)
{
    grpc::ClientContext ctx;
    d->prepare(ctx, timeout);
    pb::WatchEventsRequest request;
    request.set_after_seq(afterSeq);
    request.set_follow(true);
    auto reader = d->stub->WatchEvents(&ctx, request);
    pb::Event e;
    while (reader->Read(&e)) {
        if (!keepGoing(agentproto::toEvent(e))) {
            ctx.TryCancel();
            break;
        }
    }
    const grpc::Status status = reader->Finish();
    if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED)
        throw Error("agent rejected the token (UNAUTHENTICATED)");
}

std::vector<Acknowledgment> GrpcConnector::apply(const std::vector<ResizeDecision> &decisions)
{
    pb::ApplyRequest request;
    for (const auto &dec : decisions)
        agentproto::fill(*request.add_decisions(), dec);
    pb::ApplyResponse response;
    withRetry("Apply", d->options, m_retries, [&] {
        grpc::ClientContext ctx;
        d->prepare(ctx, d->options.deadline);
        response.Clear();
        return d->stub->Apply(&ctx, request, &response);
    });
    std::vector<Acknowledgment> acks;
    for (const auto &a : response.acks())
        acks.push_back(agentproto::toAck(a));
    if (acks.size() != decisions.size())
        throw Error("agent sent " + std::to_string(acks.size()) + " acknowledgments for " +
                    std::to_string(decisions.size()) + " decisions");
    return acks;
}

bool GrpcConnector::advanceSlot(int expectedSlot)
{
    pb::AdvanceSlotRequest request;
    request.set_expected_slot(expectedSlot);
    pb::AdvanceSlotResponse response;
    withRetry("AdvanceSlot", d->options, m_retries, [&] {
        grpc::ClientContext ctx;
        d->prepare(ctx, d->options.deadline);
        return d->stub->AdvanceSlot(&ctx, request, &response);
    });
    return response.advanced();
}

std::vector<AppliedRecord> GrpcConnector::appliedRecord()
{
    pb::GetAppliedResponse response;
    withRetry("GetApplied", d->options, m_retries, [&] {
        grpc::ClientContext ctx;
        d->prepare(ctx, d->options.deadline);
        response.Clear();
        return d->stub->GetApplied(&ctx, pb::GetAppliedRequest(), &response);
    });
    std::vector<AppliedRecord> out;
    for (const auto &a : response.applied())
        out.push_back({a.decision_id(), a.job(), a.applied_at_slot(), a.apply_count(),
                       a.duplicate_receipts()});
    return out;
}

std::vector<SlotRecord> GrpcConnector::history(int fromSlot, int toSlot, int maxSlots)
{
    std::vector<SlotRecord> out;
    bool unimplemented = false;
    while (fromSlot <= toSlot && static_cast<int>(out.size()) < maxSlots) {
        pb::GetHistoryRequest request;
        request.set_from_slot(fromSlot);
        request.set_to_slot(toSlot);
        request.set_max_records(std::min(maxSlots - static_cast<int>(out.size()), 1 << 20));
        pb::GetHistoryResponse response;
        withRetry("GetHistory", d->options, m_retries, [&] {
            grpc::ClientContext ctx;
            d->prepare(ctx, d->options.deadline);
            response.Clear();
            grpc::Status status = d->stub->GetHistory(&ctx, request, &response);
            if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
                unimplemented = true; // an agent older than the history RPC: no history
                return grpc::Status::OK;
            }
            return status;
        });
        if (unimplemented || response.records().empty())
            break;
        for (const auto &r : response.records()) {
            if (r.slot() < fromSlot || r.slot() > toSlot)
                throw Error("agent sent the history of slot " + std::to_string(r.slot()) +
                            " for slots " + std::to_string(fromSlot) + ".." +
                            std::to_string(toSlot));
            out.push_back(agentproto::toSlotRecord(r, d->profiles));
        }
        fromSlot = out.back().slot + 1;
    }
    return out;
}

} // namespace dl2
