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
    // Without TLS the bearer token crosses the network in clear text: a listen address that is
    // not loopback (or a Unix socket) is refused unless this is set (dl2-agent --insecure).
    bool insecure = false;
    // Fault injection for tests: the first `slowApplies` Apply calls sleep `applyDelay`
    // after applying (and persisting), before answering.
    int slowApplies = 0;
    std::chrono::milliseconds applyDelay{0};
};

// True when `listen` (gRPC form: HOST:PORT, [IPv6]:PORT, unix:PATH) only accepts local
// callers: 127.0.0.0/8, ::1, localhost, a Unix socket. 0.0.0.0, [::], an empty host or any
// other name or address may be reached from the network.
bool isLoopbackListenAddress(const std::string &listen);
// Throws dl2::Error for a missing token, half a TLS pair, or a plaintext listen address that is
// not loopback without `insecure` (the message says why and what to do). The AgentServer
// constructor calls it; dl2-agent calls it first, before building a backend.
void checkAgentServerOptions(const AgentServerOptions &options);

class AgentServer
{
public:
    // Throws what checkAgentServerOptions() throws.
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
