#pragma once
// The server side of dl2.agent.v1: a gRPC ClusterAgent service in front of a cluster backend
// (the SimulatedConnector, or any ClusterConnector described by an AgentBackend). Checks
// "authorization: Bearer <token>" on every call (constant time), serves snapshots, streams events,
// applies decisions idempotently (the backend writes its state before the acknowledgment leaves)
// and advances slots on request.

#include "simulatedconnector.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace dl2 {

struct AgentServerOptions
{
    std::string listen = "127.0.0.1:0"; // port 0: any free port (see port())
    std::string token;
    std::string tlsCertFile; // PEM; both or neither
    std::string tlsKeyFile;
    // Fault injection for tests: the first `slowApplies` Apply calls sleep `applyDelay`
    // after applying (and persisting), before answering.
    int slowApplies = 0;
    std::chrono::milliseconds applyDelay{0};
};

// What the service needs from a backend beyond ClusterConnector: its name and scenario for
// Health, the next slot, and a blocking wait for events (followed WatchEvents streams).
struct AgentBackend
{
    ClusterConnector *connector = nullptr;
    std::string name; // "sim", "kubernetes"
    std::function<std::string()> scenario;
    std::function<int()> nextSlot;
    std::function<std::vector<ClusterEvent>(std::int64_t, std::chrono::milliseconds)> waitForEvents;
};

class AgentServer
{
public:
    AgentServer(SimulatedConnector &backend, AgentServerOptions options);
    AgentServer(AgentBackend backend, AgentServerOptions options);
    ~AgentServer();

    // Binds and starts serving; throws dl2::Error when the address cannot be bound.
    void start();
    int port() const { return m_port; }
    void wait();
    void shutdown();

private:
    class Service;
    AgentBackend m_backend;
    AgentServerOptions m_options;
    std::unique_ptr<Service> m_service;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    int m_port = 0;
};

} // namespace dl2
