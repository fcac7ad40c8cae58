// dl2-agent --backend sim [--scenario S] [--seed N] --listen ADDR --token-file F
//           [--tls-cert PEM --tls-key PEM | --insecure] [--state-dir DIR]
// A listen address that is not loopback needs TLS or --insecure (the token would travel in
// clear text).
// dl2-agent --backend kubernetes [--kubeconfig F] [--namespace NS] [--dry-run]
//           [--slot-seconds S] [--poll-seconds S] [--history-slots N] --listen ADDR
//           --token-file F [--tls-...]
// Serves the dl2.agent.v1.ClusterAgent gRPC service until SIGINT/SIGTERM. Prints one line
// "dl2-agent: listening on HOST:PORT ..." once it accepts calls (port 0 picks a free port).

#include "agentserver.h"
#include "error.h"
#include "fileio.h"
#include "kubernetesconnector.h"
#include "simulatedconnector.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <pthread.h>

namespace {

std::string readToken(const QString &path)
{
    if (path.isEmpty())
        throw dl2::Error("--token-file is required");
    std::string token = dl2::readFile(path.toStdString());
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back())))
        token.pop_back();
    if (token.empty())
        throw dl2::Error("token file '" + path.toStdString() + "' is empty");
    return token;
}

double positive(const QCommandLineParser &parser, const QString &name)
{
    bool ok = false;
    const double value = parser.value(name).toDouble(&ok);
    if (!ok || !(value > 0))
        throw dl2::Error("--" + name.toStdString() + " must be a positive number");
    return value;
}

int run(const QCommandLineParser &parser)
{
    const QString backendName = parser.value(QStringLiteral("backend"));
    if (backendName != QLatin1String("sim") && backendName != QLatin1String("kubernetes"))
        throw dl2::Error("unknown backend '" + backendName.toStdString() +
                         "' (known: sim, kubernetes)");
    bool ok = false;
    const qulonglong seed = parser.value(QStringLiteral("seed")).toULongLong(&ok);
    if (!ok)
        throw dl2::Error("--seed must be a non-negative integer");
    dl2::AgentServerOptions options;
    options.listen = parser.value(QStringLiteral("listen")).toStdString();
    options.token = readToken(parser.value(QStringLiteral("token-file")));
    options.tlsCertFile = parser.value(QStringLiteral("tls-cert")).toStdString();
    options.tlsKeyFile = parser.value(QStringLiteral("tls-key")).toStdString();
    options.insecure = parser.isSet(QStringLiteral("insecure"));
    dl2::checkAgentServerOptions(options); // before a backend is built or a cluster read
    if (options.insecure && options.tlsCertFile.empty() &&
        !dl2::isLoopbackListenAddress(options.listen))
        std::fprintf(stderr,
                     "dl2-agent: warning: --insecure: serving %s without TLS, the bearer token "
                     "crosses the network in clear text\n",
                     options.listen.c_str());
    options.slowApplies = parser.value(QStringLiteral("debug-slow-applies")).toInt();
    options.applyDelay =
        std::chrono::milliseconds(parser.value(QStringLiteral("debug-apply-delay-ms")).toInt());

    // Signals are taken synchronously by the main thread; gRPC threads inherit the mask.
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGINT);
    sigaddset(&stopSignals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

    if (backendName == QLatin1String("kubernetes")) {
        dl2::KubernetesConnectorOptions k;
        k.credentials = dl2::resolveCredentials(
            parser.value(QStringLiteral("kubeconfig")).toStdString(),
            qEnvironmentVariable("DL2_SERVICEACCOUNT_DIR",
                                 QString::fromLatin1(dl2::kServiceAccountDir))
                .toStdString());
        k.ns = parser.isSet(QStringLiteral("namespace"))
                   ? parser.value(QStringLiteral("namespace")).toStdString()
                   : k.credentials.ns;
        if (k.ns == "*")
            k.ns.clear();
        k.dryRun = parser.isSet(QStringLiteral("dry-run"));
        k.slotSeconds = positive(parser, QStringLiteral("slot-seconds"));
        k.pollMs = static_cast<int>(positive(parser, QStringLiteral("poll-seconds")) * 1000.0);
        bool historyOk = false;
        k.historySlots = parser.value(QStringLiteral("history-slots")).toInt(&historyOk);
        if (!historyOk || k.historySlots < 0 || k.historySlots > 1'000'000)
            throw dl2::Error("--history-slots: expected an integer in 0..1000000, got '" +
                             parser.value(QStringLiteral("history-slots")).toStdString() + "'");
        dl2::KubernetesConnector kube(k);
        kube.refresh(); // fail early on wrong credentials or an unreachable API server
        dl2::AgentServer server(kube, options);
        server.start();
        const std::string host = options.listen.substr(0, options.listen.rfind(':'));
        const auto state = kube.clusterState();
        std::cout << "dl2-agent: listening on " << host << ':' << server.port() << " ("
                  << kube.describe() << ", " << k.credentials.origin << ", " << state.nodes.size()
                  << " nodes, " << state.jobs.size() << " managed jobs, " << state.unmanaged.size()
                  << " unmanaged, slot " << kube.nextSlot() << ")" << std::endl;
        int sig = 0;
        sigwait(&stopSignals, &sig);
        std::cout << "dl2-agent: stopping (signal " << sig << ")" << std::endl;
        kube.stop();
        server.shutdown();
        return 0;
    }

    dl2::SimulatedConnector backend(parser.value(QStringLiteral("scenario")).toStdString(), seed,
                                    parser.value(QStringLiteral("state-dir")).toStdString());
    dl2::AgentServer server(backend, options);
    server.start();
    const std::string host = options.listen.substr(0, options.listen.rfind(':'));
    std::cout << "dl2-agent: listening on " << host << ':' << server.port() << " ("
              << backend.describe() << ", next slot " << backend.nextSlot()
              << (backend.restored() ? ", restored" : "") << ")" << std::endl;
    int sig = 0;
    sigwait(&stopSignals, &sig);
    std::cout << "dl2-agent: stopping (signal " << sig << ")" << std::endl;
    server.shutdown();
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("dl2-agent"));
    QCoreApplication::setApplicationVersion(QStringLiteral(DL2_VERSION));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("DL2 cluster agent (gRPC dl2.agent.v1)"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions({
        {QStringLiteral("backend"), QStringLiteral("Cluster backend: sim or kubernetes."),
         QStringLiteral("NAME"), QStringLiteral("sim")},
        {QStringLiteral("kubeconfig"),
         QStringLiteral("kubernetes: kubeconfig file (default $KUBECONFIG, the in-cluster service "
                        "account, ~/.kube/config)."),
         QStringLiteral("F")},
        {QStringLiteral("namespace"),
         QStringLiteral("kubernetes: namespace to manage ('*': all; default the context's or "
                        "service account's namespace, else all)."),
         QStringLiteral("NS")},
        {QStringLiteral("dry-run"),
         QStringLiteral("kubernetes: read the cluster, print the writes instead of sending them.")},
        {QStringLiteral("slot-seconds"), QStringLiteral("kubernetes: slot length (wall clock)."),
         QStringLiteral("S"), QStringLiteral("1200")},
        {QStringLiteral("poll-seconds"),
         QStringLiteral("kubernetes: how often the cluster is read for events."),
         QStringLiteral("S"), QStringLiteral("10")},
        {QStringLiteral("history-slots"),
         QStringLiteral("kubernetes: observed slots kept for consoles that attach later "
                        "(GetHistory; memory ~ N x jobs x 150 bytes; 0: none)."),
         QStringLiteral("N"), QStringLiteral("1000")},
        {QStringLiteral("scenario"), QStringLiteral("Scenario of the simulated backend."),
         QStringLiteral("S"), QStringLiteral("dl2-small")},
        {QStringLiteral("seed"), QStringLiteral("Trace seed of the simulated backend."),
         QStringLiteral("N"), QStringLiteral("1")},
        {QStringLiteral("listen"), QStringLiteral("Address to listen on (port 0: any free port)."),
         QStringLiteral("ADDR"), QStringLiteral("127.0.0.1:0")},
        {QStringLiteral("token-file"),
         QStringLiteral("File holding the bearer token clients must send."), QStringLiteral("F")},
        {QStringLiteral("tls-cert"), QStringLiteral("PEM certificate (with --tls-key): serve TLS."),
         QStringLiteral("PEM")},
        {QStringLiteral("tls-key"), QStringLiteral("PEM private key."), QStringLiteral("PEM")},
        {QStringLiteral("insecure"),
         QStringLiteral("Allow listening on a non-loopback address without TLS (the bearer "
                        "token then crosses the network in clear text).")},
        {QStringLiteral("state-dir"),
         QStringLiteral("Persist the cluster state and applied decisions here; resume from it."),
         QStringLiteral("DIR")},
        {QStringLiteral("debug-slow-applies"),
         QStringLiteral("Testing: the first K Apply calls answer late."), QStringLiteral("K"),
         QStringLiteral("0")},
        {QStringLiteral("debug-apply-delay-ms"), QStringLiteral("Testing: how late."),
         QStringLiteral("MS"), QStringLiteral("0")},
    });
    parser.process(app);
    try {
        return run(parser);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "dl2-agent: %s\n", e.what());
        return 2;
    }
}
