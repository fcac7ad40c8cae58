#include "kubernetescredentials.h"

#include "error.h"
#include "fileio.h"

#include <QByteArray>
#include <QDir>
#include <QFileInfo>
#include <cctype>
#include <cstdlib>
#include <optional>

#include <yaml-cpp/yaml.h>

namespace dl2 {

namespace {

// ---- YAML access (yaml-cpp) ----

// The value of `key` in the mapping `map`; nullopt when absent or `map` is no mapping.
std::optional<YAML::Node> get(const YAML::Node &map, const std::string &key)
{
    if (!map.IsMap())
        return std::nullopt;
    for (const auto &entry : map)
        if (entry.first.IsScalar() && entry.first.Scalar() == key)
            return entry.second;
    return std::nullopt;
}

// The scalar value of `key`, or "" (absent, null or not a scalar).
std::string scalar(const YAML::Node &map, const std::string &key)
{
    const auto value = get(map, key);
    return value && value->IsScalar() ? value->Scalar() : std::string();
}

// The mapping under `key`, or nullopt.
std::optional<YAML::Node> mapping(const YAML::Node &map, const std::string &key)
{
    auto value = get(map, key);
    if (value && value->IsMap())
        return value;
    return std::nullopt;
}

YAML::Node parseYaml(const std::string &text, const std::string &origin)
{
    try {
        return YAML::Load(text);
    } catch (const YAML::Exception &e) {
        // Marks are 0-based; the message without yaml-cpp's own "error at line" prefix.
        throw Error::at(origin, e.mark.line + 1,
                        e.msg + " (column " + std::to_string(e.mark.column + 1) + ")");
    }
}

// ---- kubeconfig ----

std::string decodeBase64(const std::string &data, const std::string &what)
{
    const auto result = QByteArray::fromBase64Encoding(QByteArray::fromStdString(data),
                                                       QByteArray::AbortOnBase64DecodingErrors);
    if (!result)
        throw Error(what + " is not valid base64");
    return result.decoded.toStdString();
}

YAML::Node named(const YAML::Node &root, const std::string &section, const std::string &name,
                 const std::string &origin, const std::string &why)
{
    const auto list = get(root, section);
    if (list && list->IsSequence())
        for (const YAML::Node &entry : *list)
            if (scalar(entry, "name") == name)
                return entry;
    throw Error(origin + ": " + section + ": no entry named '" + name + "' (" + why + ")");
}

// PEM from KEY-data (base64) or KEY (a file, relative to the kubeconfig).
std::string pem(const YAML::Node &section, const std::string &key, const std::string &where,
                const std::string &baseDir)
{
    const std::string data = scalar(section, key + "-data");
    if (!data.empty())
        return decodeBase64(data, where + "." + key + "-data");
    const std::string file = scalar(section, key);
    if (file.empty())
        return {};
    const QString path =
        QDir(QString::fromStdString(baseDir)).filePath(QString::fromStdString(file));
    try {
        return readFile(path.toStdString());
    } catch (const Error &e) {
        throw Error(where + "." + key + ": " + e.what());
    }
}

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

} // namespace

KubernetesCredentials parseKubeconfig(const std::string &text, const std::string &origin,
                                      const std::string &baseDir, const std::string &context)
{
    const YAML::Node root = parseYaml(text, origin);
    if (!root.IsMap())
        throw Error(origin + ": not a kubeconfig (expected a mapping with clusters, contexts, "
                             "users, current-context)");
    const std::string contextName = context.empty() ? scalar(root, "current-context") : context;
    if (contextName.empty())
        throw Error(origin + ": current-context is missing or empty");
    const auto ctx =
        mapping(named(root, "contexts", contextName, origin, "current-context"), "context");
    if (!ctx)
        throw Error(origin + ": contexts[name=" + contextName + "].context is missing");
    const std::string clusterName = scalar(*ctx, "cluster");
    const std::string userName = scalar(*ctx, "user");
    if (clusterName.empty())
        throw Error(origin + ": contexts[name=" + contextName + "].context.cluster is missing");

    KubernetesCredentials c;
    c.ns = scalar(*ctx, "namespace");
    c.origin = "kubeconfig " + origin + " (context " + contextName + ", user " +
               (userName.empty() ? "<none>" : userName) + ")";
    const std::string clusterWhere = origin + ": clusters[name=" + clusterName + "].cluster";
    const auto cluster =
        mapping(named(root, "clusters", clusterName, origin, "context " + contextName), "cluster");
    if (!cluster)
        throw Error(clusterWhere + " is missing");
    c.server = scalar(*cluster, "server");
    if (c.server.empty())
        throw Error(clusterWhere + ".server is missing");
    const std::string insecure = scalar(*cluster, "insecure-skip-tls-verify");
    c.insecureSkipTlsVerify = insecure == "true" || insecure == "True" || insecure == "TRUE";
    c.caPem = pem(*cluster, "certificate-authority", clusterWhere, baseDir);

    if (userName.empty())
        return c; // anonymous
    const std::string userWhere = origin + ": users[name=" + userName + "].user";
    const auto user =
        mapping(named(root, "users", userName, origin, "context " + contextName), "user");
    if (!user)
        throw Error(userWhere + " is missing");
    c.token = scalar(*user, "token");
    if (c.token.empty() && !scalar(*user, "tokenFile").empty()) {
        c.tokenFile = QDir(QString::fromStdString(baseDir))
                          .filePath(QString::fromStdString(scalar(*user, "tokenFile")))
                          .toStdString();
        try {
            c.token = readFile(c.tokenFile);
        } catch (const Error &e) {
            throw Error(userWhere + ".tokenFile: " + e.what());
        }
    }
    c.clientCertPem = pem(*user, "client-certificate", userWhere, baseDir);
    c.clientKeyPem = pem(*user, "client-key", userWhere, baseDir);
    if (c.clientCertPem.empty() != c.clientKeyPem.empty())
        throw Error(userWhere +
                    (c.clientKeyPem.empty() ? ".client-key-data (or client-key)"
                                            : ".client-certificate-data (or "
                                              "client-certificate)") +
                    " is missing: a client certificate needs its key");
    if (c.token.empty() && c.clientCertPem.empty()) {
        for (const char *plugin : {"exec", "auth-provider"})
            if (get(*user, plugin))
                throw Error(userWhere + "." + plugin +
                            ": credential plugins are not supported; use a token or a client "
                            "certificate");
        if (get(*user, "username") || get(*user, "password"))
            throw Error(userWhere + ".username: basic authentication is not supported");
        throw Error(userWhere + ": no token, tokenFile or client-certificate[-data]");
    }
    while (!c.token.empty() && std::isspace(static_cast<unsigned char>(c.token.back())))
        c.token.pop_back();
    return c;
}

KubernetesCredentials loadKubeconfig(const std::string &path, const std::string &context)
{
    const std::string text = readFile(path);
    return parseKubeconfig(
        text, path, QFileInfo(QString::fromStdString(path)).absolutePath().toStdString(), context);
}

KubernetesCredentials loadInCluster(const std::string &dir, const std::string &hostArg,
                                    const std::string &portArg)
{
    const std::string host = hostArg.empty() ? env("KUBERNETES_SERVICE_HOST") : hostArg;
    const std::string port = portArg.empty() ? env("KUBERNETES_SERVICE_PORT") : portArg;
    if (host.empty())
        throw Error("in-cluster credentials: KUBERNETES_SERVICE_HOST is not set");
    KubernetesCredentials c;
    c.server = "https://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
               (port.empty() ? std::string("443") : port);
    c.tokenFile = dir + "/token";
    c.token = readFile(c.tokenFile); // names the file when it is missing
    while (!c.token.empty() && std::isspace(static_cast<unsigned char>(c.token.back())))
        c.token.pop_back();
    if (c.token.empty())
        throw Error("in-cluster credentials: " + c.tokenFile + " is empty");
    c.caPem = readFile(dir + "/ca.crt");
    if (QFileInfo::exists(QString::fromStdString(dir + "/namespace"))) {
        c.ns = readFile(dir + "/namespace");
        while (!c.ns.empty() && std::isspace(static_cast<unsigned char>(c.ns.back())))
            c.ns.pop_back();
    }
    c.origin = "in-cluster service account " + dir;
    return c;
}

KubernetesCredentials resolveCredentials(const std::string &kubeconfig,
                                         const std::string &serviceAccountDir)
{
    if (!kubeconfig.empty())
        return loadKubeconfig(kubeconfig);
    const std::string list = env("KUBECONFIG");
    if (!list.empty()) {
        for (const QString &path : QString::fromStdString(list).split(QLatin1Char(':')))
            if (!path.isEmpty() && QFileInfo::exists(path))
                return loadKubeconfig(path.toStdString());
        throw Error("$KUBECONFIG (" + list + ") names no existing file");
    }
    if (!env("KUBERNETES_SERVICE_HOST").empty())
        return loadInCluster(serviceAccountDir);
    const std::string home = QDir::homePath().toStdString() + "/.kube/config";
    if (QFileInfo::exists(QString::fromStdString(home)))
        return loadKubeconfig(home);
    throw Error("no Kubernetes credentials: give --kubeconfig FILE, set $KUBECONFIG, run in a pod "
                "(service account), or create " +
                home);
}

} // namespace dl2
