#pragma once
// The server side of dl2.agent.v1: a gRPC ClusterAgent service in front of a cluster backend
// (any ServedConnector: the simulated cluster or Kubernetes). Checks
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

class AgentServer
{
public:
    AgentServer(ServedConnector &backend, AgentServerOptions options);
    ~AgentServer();

    // Binds and starts serving; throws dl2::Error when the address cannot be bound.
    void start();
    int port() const { return m_port; }
    void wait();
    void shutdown();

private:
    class Service;
    ServedConnector &m_backend;
    AgentServerOptions m_options;
    std::unique_ptr<Service> m_service;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    int m_port = 0;
};

} // namespace dl2
