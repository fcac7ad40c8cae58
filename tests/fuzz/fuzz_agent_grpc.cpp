// The agent's gRPC requests: an in-process dl2-agent (simulated dl2-small cluster, bearer
// token, loopback) receives the raw request bytes of the input for one of its seven methods
// (first byte modulo 7; bit 7 sends a wrong token), exactly as a client on the network could send them; gRPC's decoding, the
// handlers and the backend must answer with a status, never crash. WatchEvents runs without
// `follow` (a following stream only ends when the client goes away).
#include "agentserver.h"
#include "dl2_agent_v1.pb.h"
#include "fuzzing.h"
#include "simulatedconnector.h"

#include <chrono>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <memory>

namespace {

struct Agent
{
    dl2::SimulatedConnector backend{"dl2-small", 1};
    std::unique_ptr<dl2::AgentServer> server;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<grpc::GenericStub> stub;
    Agent()
    {
        dl2::AgentServerOptions o;
        o.listen = "127.0.0.1:0";
        o.token = "fuzz-token";
        server = std::make_unique<dl2::AgentServer>(backend, o);
        server->start();
        channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(server->port()),
                                      grpc::InsecureChannelCredentials());
        stub = std::make_unique<grpc::GenericStub>(channel);
    }
};

const char *const kMethods[] = {
    "/dl2.agent.v1.ClusterAgent/Health",      "/dl2.agent.v1.ClusterAgent/GetSnapshot",
    "/dl2.agent.v1.ClusterAgent/WatchEvents", "/dl2.agent.v1.ClusterAgent/Apply",
    "/dl2.agent.v1.ClusterAgent/AdvanceSlot", "/dl2.agent.v1.ClusterAgent/GetApplied",
    "/dl2.agent.v1.ClusterAgent/GetHistory"};
constexpr int kMethodCount = int(sizeof kMethods / sizeof kMethods[0]);

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static Agent agent;
    if (size == 0)
        return 0;
    const int method = data[0] % kMethodCount;
    std::string request = dl2::fuzz::bytes(data + 1, size - 1);
    if (method == 2) {
        dl2::agent::v1::WatchEventsRequest watch;
        if (watch.ParseFromString(request) && watch.follow()) {
            watch.set_follow(false);
            request = watch.SerializeAsString();
        }
    }
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", (data[0] & 0x80) ? "Bearer wrong" : "Bearer fuzz-token");
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    const grpc::Slice slice(request.data(), request.size());
    grpc::ByteBuffer in(&slice, 1);
    std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call;
    grpc::CompletionQueue cq;
    // A unary-shaped exchange over the generic stub: write the request, half-close, read
    // every response message, finish.
    call = agent.stub->PrepareCall(&ctx, kMethods[method], &cq);
    void *tag = nullptr;
    bool ok = false;
    call->StartCall(reinterpret_cast<void *>(1));
    cq.Next(&tag, &ok);
    call->Write(in, reinterpret_cast<void *>(2));
    cq.Next(&tag, &ok);
    call->WritesDone(reinterpret_cast<void *>(3));
    cq.Next(&tag, &ok);
    grpc::ByteBuffer out;
    for (;;) {
        call->Read(&out, reinterpret_cast<void *>(4));
        if (!cq.Next(&tag, &ok) || !ok)
            break;
    }
    grpc::Status status;
    call->Finish(&status, reinterpret_cast<void *>(5));
    cq.Next(&tag, &ok);
    cq.Shutdown();
    while (cq.Next(&tag, &ok)) {
    }
    return 0;
}
