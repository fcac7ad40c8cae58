#pragma once
// ClusterConnector over gRPC to a dl2-agent (dl2.agent.v1.ClusterAgent). Every call carries
// the bearer token, has a deadline, and is retried with exponential backoff while the agent
// is unreachable or slow (UNAVAILABLE, DEADLINE_EXCEEDED) up to a total retry budget; Apply
// and AdvanceSlot are idempotent on the agent, so a retry never applies anything twice.
// A wrong token fails at once: "agent rejected the token (UNAUTHENTICATED)".

#include "clusterconnector.h"
#include "modelprofile.h"

#include <chrono>
#include <functional>
#include <memory>

namespace dl2 {

struct GrpcConnectorOptions
{
    std::string address; // host:port
    std::string token;
    std::string tlsCaFile; // PEM root certificate; empty = plaintext
    std::chrono::milliseconds deadline{5'000};
    std::chrono::milliseconds retryBudget{30'000};
    std::chrono::milliseconds initialBackoff{100};
    std::chrono::milliseconds maxBackoff{2'000};
};

struct AgentHealth
{
    std::string backend;
    std::string scenario;
    int nextSlot = 0;
    std::string version;
    std::string description; // "simulated cluster (dl2-small, seed 1)"; empty from old agents
};

class GrpcConnector : public ClusterConnector
{
public:
    explicit GrpcConnector(GrpcConnectorOptions options,
                           ProfileSet profiles = ProfileSet::reference());
    ~GrpcConnector() override;

    std::string describe() const override;
    AgentHealth health();
    ClusterView snapshot() override;
    std::vector<ClusterEvent> events(std::int64_t afterSeq) override;
    // Streams events as they come until `keepGoing` returns false or `timeout` passes.
    void watch(std::int64_t afterSeq, const std::function<bool(const ClusterEvent &)> &keepGoing,
               std::chrono::milliseconds timeout);
    std::vector<Acknowledgment> apply(const std::vector<ResizeDecision> &decisions) override;
    bool advanceSlot(int expectedSlot) override;
    std::vector<AppliedRecord> appliedRecord() override;
    // Pages through GetHistory; empty when the agent keeps none (or predates the RPC).
    std::vector<SlotRecord> history(int fromSlot, int toSlot, int maxSlots = 1 << 30) override;

    int retries() const { return m_retries; } // failed attempts that were retried

private:
    struct Impl;
    std::unique_ptr<Impl> d;
    int m_retries = 0;
};

} // namespace dl2
