#pragma once
// Where the Kubernetes connector's API server and credentials come from:
//  1. --kubeconfig FILE, else the first existing file of $KUBECONFIG (a ':'-separated list;
//     files are not merged as kubectl does), else
//  2. the in-cluster service account (DIR/token, DIR/ca.crt, DIR/namespace with
//     DIR = /var/run/secrets/kubernetes.io/serviceaccount, server from
//     $KUBERNETES_SERVICE_HOST/PORT) when $KUBERNETES_SERVICE_HOST is set, else
//  3. ~/.kube/config.
// From a kubeconfig: current-context (or the given context) -> its cluster (server,
// certificate-authority[-data], insecure-skip-tls-verify) and user (token, tokenFile,
// client-certificate[-data] + client-key[-data]). Not supported (a clear error): exec and
// auth-provider plugins, basic auth. Relative file paths are relative to the kubeconfig.
//
// The kubeconfig is read with yaml-cpp (the first document of the file). Errors name the
// file, and the line (a YAML syntax error) or the key (e.g.
// "users[name=alice].user.client-key-data").

#include <string>

namespace dl2 {

struct KubernetesCredentials
{
    std::string server; // https://host:port
    std::string token;
    std::string tokenFile; // re-read before every request (rotating service-account tokens)
    std::string caPem;
    std::string clientCertPem;
    std::string clientKeyPem;
    bool insecureSkipTlsVerify = false;
    std::string ns;     // the context's / service account's namespace; may be empty
    std::string origin; // "kubeconfig F (context C, user U)" or "in-cluster service account DIR"
};

inline constexpr const char *kServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";

// Throws dl2::Error naming the file and the key that is missing or wrong.
KubernetesCredentials loadKubeconfig(const std::string &path, const std::string &context = {});
KubernetesCredentials parseKubeconfig(const std::string &text, const std::string &origin,
                                      const std::string &baseDir, const std::string &context = {});
// host/port empty: taken from $KUBERNETES_SERVICE_HOST / $KUBERNETES_SERVICE_PORT.
KubernetesCredentials loadInCluster(const std::string &dir = kServiceAccountDir,
                                    const std::string &host = {}, const std::string &port = {});
// The order above; kubeconfig may be empty.
KubernetesCredentials resolveCredentials(const std::string &kubeconfig,
                                         const std::string &serviceAccountDir = kServiceAccountDir);

} // namespace dl2
