#include "agentserver.h"

#include "dl2_agent_v1.grpc.pb.h"
#include "error.h"
#include "fileio.h"
#include "protoconvert.h"

#include <QHostAddress>
#include <QLoggingCategory>
#include <grpcpp/grpcpp.h>
#include <thread>

Q_LOGGING_CATEGORY(lcAgent, "dl2.connector.agent")

namespace dl2 {

namespace pb = agent::v1;

namespace {

bool sameSecret(const std::string &given, const std::string &expected)
{
    if (expected.empty() || given.size() != expected.size())
        return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < given.size(); ++i)
        diff |= static_cast<unsigned char>(given[i] ^ expected[i]);
    return diff == 0;
}

constexpr int kMaxDecisionsPerApply = 100'000;

} // namespace

bool isLoopbackListenAddress(const std::string &listen)
{
    const QString address = QString::fromStdString(listen).trimmed();
    if (address.startsWith(QLatin1String("unix:")) ||
        address.startsWith(QLatin1String("unix-abstract:")))
        return true;
    QString host = address;
    if (host.startsWith(QLatin1String("ipv4:")) || host.startsWith(QLatin1String("ipv6:")))
        host = host.mid(5);
    if (host.startsWith(QLatin1Char('['))) {
        const qsizetype close = host.indexOf(QLatin1Char(']'));
        host = close < 0 ? QString() : host.mid(1, close - 1);
    } else if (const qsizetype colon = host.lastIndexOf(QLatin1Char(':')); colon >= 0) {
        host = host.left(colon);
    }
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0)
        return true;
    const QHostAddress ip(host);
    return !ip.isNull() && ip.isLoopback();
}

class AgentServer::Service final : public pb::ClusterAgent::Service
{
public:
    Service(ServedConnector &backend, const AgentServerOptions &options)
        : m_backend(backend), m_options(options),
          m_profiles(ProfileSet::reference())
    {
    }
    std::atomic<bool> stopping{false};

    grpc::Status Health(grpc::ServerContext *ctx, const pb::HealthRequest *,
                        pb::HealthResponse *out) override
    {
        if (auto s = authorize(ctx); !s.ok())
            return s;
        try {
            out->set_backend(m_backend.backendName());
            out->set_scenario(m_backend.scenarioName());
            out->set_next_slot(m_backend.nextSlot());
            out->set_description(m_backend.describe());
        } catch (const std::exception &e) {
            return grpc::Status(grpc::StatusCode::UNAVAILABLE, e.what());
        }
        out->set_agent_version("1");
        return grpc::Status::OK;
    }

    grpc::Status GetSnapshot(grpc::ServerContext *ctx, const pb::GetSnapshotRequest *,
                             pb::Snapshot *out) override
    {
        if (auto s = authorize(ctx); !s.ok())
            return s;
        try {
            agentproto::fill(*out, m_backend.snapshot(), m_profiles);
        } catch (const std::exception &e) {
            return grpc::Status(grpc::StatusCode::UNAVAILABLE, e.what());
        }
        return grpc::Status::OK;
    }

    grpc::Status WatchEvents(grpc::ServerContext *ctx, const pb::WatchEventsRequest *request,
                             grpc::ServerWriter<pb::Event> *writer) override
    {
        if (auto s = authorize(ctx); !s.ok())
            return s;
        std::int64_t after = request->after_seq();
        for (;;) {
            if (ctx->IsCancelled() || stopping)
                return grpc::Status(grpc::StatusCode::CANCELLED, "stream closed");
            std::vector<ClusterEvent> events;
            try {
                events = request->follow()
                             ? m_backend.waitForEvents(after, std::chrono::milliseconds(200))
                             : m_backend.events(after);
            } catch (const std::exception &e) {
                return grpc::Status(grpc::StatusCode::UNAVAILABLE, e.what());
            }
            for (const auto &e : events) {
                pb::Event msg;
                agentproto::fill(msg, e);
                if (!writer->Write(msg))
                    return grpc::Status(grpc::StatusCode::CANCELLED, "client went away");
                after = e.seq;
            }
            if (!request->follow())
                return grpc::Status::OK;
        }
    }

    grpc::Status Apply(grpc::ServerContext *ctx, const pb::ApplyRequest *request,
                       pb::ApplyResponse *out) override
    {
        if (auto s = authorize(ctx); !s.ok())
            return s;
        if (request->decisions_size() > kMaxDecisionsPerApply)
            return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                "more than " + std::to_string(kMaxDecisionsPerApply) +
                                    " decisions in one Apply");
        std::vector<ResizeDecision> decisions;
        decisions.reserve(static_cast<size_t>(request->decisions_size()));
        for (const auto &d : request->decisions())
            decisions.push_back(agentproto::toDecision(d));
        std::vector<Acknowledgment> acks;
        try {
            acks = m_backend.apply(decisions);
        } catch (const std::exception &e) {
            return grpc::Status(grpc::StatusCode::INTERNAL, e.what());
        }
        for (const auto &a : acks)
            agentproto::fill(*out->add_acks(), a);
        if (m_slowLeft.fetch_sub(1) > 0)
            std::this_thread::sleep_for(m_options.applyDelay);
        return grpc::Status::OK;
    }

    grpc::Status AdvanceSlot(grpc::ServerContext *ctx, const pb::AdvanceSlotRequest *request,
                             pb::AdvanceSlotResponse *out) override
    {
        if (auto s = authorize(ctx); !s.ok())
            return s;
        try {
            out->set_advanced(m_backend.advanceSlot(request->expected_slot()));
        } catch (const std::exception &e) {
            return grpc::Status(grpc::StatusCode::INTERNAL, e.what());
        }
        try {
            const ClusterView v = m_backend.snapshot();
            out->set_next_slot(v.nextSlot);
            out->set_done(v.done);
        } catch (const std::exception &e) {
            return grpc::Status(grpc::StatusCode::UNAVAILABLE, e.what());
        }
        return grpc::Status::OK;
    }

    grpc::Status GetApplied(grpc::ServerContext *ctx, const pb::GetAppliedRequest *,
                            pb::GetAppliedResponse *out) override
    {
        if (auto s = authorize(ctx); !s.ok())
            return s;
        std::vector<AppliedRecord> applied;
        try {
            applied = m_backend.appliedRecord();
        } catch (const std::exception &e) {
            return grpc::Status(grpc::StatusCode::INTERNAL, e.what());
        }
        for (const auto &r : applied) {
            auto *a = out->add_applied();
            a->set_decision_id(r.decisionId);
            a->set_job(r.job);
            a->set_applied_at_slot(r.appliedAtSlot);
            a->set_apply_count(r.applyCount);
            a->set_duplicate_receipts(r.duplicateReceipts);
        }
        return grpc::Status::OK;
    }

    grpc::Status GetHistory(grpc::ServerContext *ctx, const pb::GetHistoryRequest *request,
                            pb::GetHistoryResponse *out) override
    {
        if (auto s = authorize(ctx); !s.ok())
            return s;
        // Bounded by count and by size (a slot of a 30,000-job cluster is ~2 MB): the client
        // asks again from the slot after the last one it got.
        constexpr int kMaxSlots = 256;
        constexpr size_t kMaxBytes = 16u << 20;
        const int maxSlots =
            request->max_records() > 0 ? std::min(request->max_records(), kMaxSlots) : kMaxSlots;
        try {
            out->set_next_slot(m_backend.nextSlot());
            for (const SlotRecord &r :
                 m_backend.history(request->from_slot(), request->to_slot(), maxSlots)) {
                pb::SlotRecord record;
                agentproto::fill(record, r, m_profiles);
                if (out->records_size() > 0 &&
                    out->ByteSizeLong() + record.ByteSizeLong() > kMaxBytes)
                    break;
                *out->add_records() = std::move(record);
            }
        } catch (const std::exception &e) {
            return grpc::Status(grpc::StatusCode::UNAVAILABLE, e.what());
        }
        return grpc::Status::OK;
    }

private:
    grpc::Status authorize(grpc::ServerContext *ctx) const
    {
        const auto &md = ctx->client_metadata();
        const auto it = md.find("authorization");
        if (it == md.end())
            return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "missing bearer token");
        const std::string value(it->second.data(), it->second.size());
        const std::string prefix = "Bearer ";
        if (value.rfind(prefix, 0) != 0 ||
            !sameSecret(value.substr(prefix.size()), m_options.token)) {
            qCWarning(lcAgent, "rejected a call from %s: wrong token", ctx->peer().c_str());
            return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "wrong bearer token");
        }
        return grpc::Status::OK;
    }

    ServedConnector &m_backend;
    const AgentServerOptions &m_options;
    ProfileSet m_profiles;
    std::atomic<int> m_slowLeft{0};

public:
    void armSlowApplies(int n) { m_slowLeft = n; }
};

void checkAgentServerOptions(const AgentServerOptions &options)
{
    if (options.token.empty())
        throw Error("the agent needs a token (--token-file)");
    if (options.tlsCertFile.empty() != options.tlsKeyFile.empty())
        throw Error("--tls-cert and --tls-key go together");
    if (options.tlsCertFile.empty() && !options.insecure &&
        !isLoopbackListenAddress(options.listen))
        throw Error("refusing to listen on " + options.listen +
                    " without TLS: it is not a loopback address, so every client's bearer "
                    "token would cross the network in clear text. Give --tls-cert and "
                    "--tls-key, listen on 127.0.0.1 (reach it through an SSH tunnel), or pass "
                    "--insecure to accept the risk");
}

struct AgentServer::Impl
{
    std::unique_ptr<grpc::Server> server;
};

AgentServer::AgentServer(ServedConnector &backend, AgentServerOptions options)
    : m_backend(backend), m_options(std::move(options)), m_impl(std::make_unique<Impl>())
{
    checkAgentServerOptions(m_options);
}

AgentServer::~AgentServer()
{
    shutdown();
}

void AgentServer::start()
{
    m_service = std::make_unique<Service>(m_backend, m_options);
    m_service->armSlowApplies(m_options.slowApplies);
    std::shared_ptr<grpc::ServerCredentials> creds;
    if (m_options.tlsCertFile.empty()) {
        creds = grpc::InsecureServerCredentials();
    } else {
        grpc::SslServerCredentialsOptions ssl;
        ssl.pem_key_cert_pairs.push_back(
            {readFile(m_options.tlsKeyFile), readFile(m_options.tlsCertFile)});
        creds = grpc::SslServerCredentials(ssl);
    }
    grpc::ServerBuilder builder;
    builder.AddListeningPort(m_options.listen, creds, &m_port);
    builder.RegisterService(m_service.get());
    builder.SetMaxReceiveMessageSize(64 * 1024 * 1024);
    m_impl->server = builder.BuildAndStart();
    if (!m_impl->server || m_port == 0)
        throw Error("cannot listen on " + m_options.listen);
}

void AgentServer::wait()
{
    if (m_impl->server)
        m_impl->server->Wait();
}

void AgentServer::shutdown()
{
    if (m_service)
        m_service->stopping = true;
    if (m_impl->server) {
        m_impl->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
        m_impl->server.reset();
    }
}

} // namespace dl2
