#include "kubernetescredentials.h"

#include "error.h"
#include "fileio.h"

#include <QByteArray>
#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>
#include <vector>

namespace dl2 {

namespace {

// ---- The YAML subset (see the header) ----

struct Yaml
{
    enum class Type
    {
        Null,
        Scalar,
        Map,
        List
    };
    Type type = Type::Null;
    std::string scalar;
    // A mapping as two parallel lists: std::pair<std::string, Yaml> inside Yaml itself does
    // not compile with clang 14 and libstdc++ 12 in C++20 (the fuzz preset).
    std::vector<std::string> keys;
    std::vector<Yaml> values;
    std::vector<Yaml> list;
    int line = 0;

    const Yaml *get(const std::string &key) const
    {
        for (size_t i = 0; i < keys.size(); ++i)
            if (keys[i] == key)
                return &values[i];
        return nullptr;
    }
    std::string text(const std::string &key) const
    {
        const Yaml *v = get(key);
        return v && v->type == Type::Scalar ? v->scalar : std::string();
    }
};

struct Line
{
    int indent = 0;
    std::string text;
    int number = 0;
};

std::string trim(const std::string &s)
{
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
        return {};
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Position of the ':' that ends a mapping key (followed by a space or the end), outside
// quotes; npos when the text is not "key: ...".
size_t keyColon(const std::string &t)
{
    char quote = 0;
    for (size_t i = 0; i < t.size(); ++i) {
        const char c = t[i];
        if (quote) {
            if (c == quote)
                quote = 0;
        } else if ((c == '"' || c == '\'') && i == 0) {
            quote = c;
        } else if (c == ':' && (i + 1 == t.size() || t[i + 1] == ' ')) {
            return i;
        }
    }
    return std::string::npos;
}

bool isListItem(const std::string &t)
{
    return t == "-" || t.rfind("- ", 0) == 0;
}

class YamlParser
{
public:
    YamlParser(const std::string &text, std::string origin) : m_origin(std::move(origin))
    {
        int number = 0;
        size_t start = 0;
        while (start <= text.size()) {
            size_t end = text.find('\n', start);
            if (end == std::string::npos)
                end = text.size();
            std::string raw = text.substr(start, end - start);
            start = end + 1;
            ++number;
            if (!raw.empty() && raw.back() == '\r')
                raw.pop_back();
            m_raw.push_back({0, raw, number});
            size_t indent = raw.find_first_not_of(' ');
            if (indent != std::string::npos && raw[indent] == '\t')
                throw Error::at(m_origin, number, "tab in indentation (YAML allows spaces only)");
            const std::string t = trim(stripComment(raw));
            if (t.empty() || t == "---" || t == "...")
                continue;
            m_lines.push_back({static_cast<int>(indent), t, number});
        }
    }

    Yaml parse()
    {
        if (m_lines.empty())
            return {};
        Yaml root = node(m_lines[0].indent);
        if (m_pos < m_lines.size())
            throw Error::at(m_origin, m_lines[m_pos].number, "unexpected indentation");
        return root;
    }

private:
    static std::string stripComment(const std::string &s)
    {
        char quote = 0;
        for (size_t i = 0; i < s.size(); ++i) {
            const char c = s[i];
            if (quote) {
                if (c == quote)
                    quote = 0;
            } else if (c == '"' || c == '\'') {
                if (i == 0 || s[i - 1] == ' ' || s[i - 1] == ':' || s[i - 1] == '-')
                    quote = c;
            } else if (c == '#' && (i == 0 || s[i - 1] == ' ')) {
                return s.substr(0, i);
            }
        }
        return s;
    }

    Yaml scalar(const std::string &t, int number)
    {
        Yaml y;
        y.line = number;
        if (t == "{}") {
            y.type = Yaml::Type::Map;
            return y;
        }
        if (t == "[]") {
            y.type = Yaml::Type::List;
            return y;
        }
        if (t == "~" || t == "null" || t == "Null" || t == "NULL")
            return y;
        y.type = Yaml::Type::Scalar;
        if (t.size() >= 2 && t.front() == '\'' && t.back() == '\'') {
            for (size_t i = 1; i + 1 < t.size(); ++i) {
                y.scalar += t[i];
                if (t[i] == '\'' && t[i + 1] == '\'')
                    ++i;
            }
        } else if (t.size() >= 2 && t.front() == '"' && t.back() == '"') {
            for (size_t i = 1; i + 1 < t.size(); ++i) {
                if (t[i] != '\\') {
                    y.scalar += t[i];
                    continue;
                }
                const char e = t[++i];
                y.scalar += e == 'n' ? '\n' : e == 't' ? '\t' : e;
            }
        } else if (t.front() == '"' || t.front() == '\'') {
            throw Error::at(m_origin, number, "unterminated quoted string");
        } else {
            y.scalar = t;
        }
        return y;
    }

    // '|' or '>' (with an optional chomping indicator): the following, deeper lines verbatim.
    Yaml blockScalar(const std::string &indicator, int indent, int number)
    {
        Yaml y;
        y.type = Yaml::Type::Scalar;
        y.line = number;
        while (m_pos < m_lines.size() && m_lines[m_pos].indent > indent)
            ++m_pos; // the body, read from the raw lines below
        const int next =
            m_pos < m_lines.size() ? m_lines[m_pos].number : static_cast<int>(m_raw.size()) + 1;
        int bodyIndent = -1;
        std::string out;
        for (int n = number + 1; n < next; ++n) {
            const std::string &raw = m_raw[static_cast<size_t>(n - 1)].text;
            const size_t first = raw.find_first_not_of(' ');
            if (first == std::string::npos) {
                out += '\n';
                continue;
            }
            if (bodyIndent < 0)
                bodyIndent = static_cast<int>(first);
            out += raw.substr(std::min(first, static_cast<size_t>(bodyIndent)));
            out += indicator[0] == '>' ? ' ' : '\n';
        }
        if (indicator.find('-') != std::string::npos || indicator[0] == '>')
            while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
                out.pop_back();
        y.scalar = out;
        return y;
    }

    Yaml value(const std::string &rest, int indent, int number)
    {
        if (!rest.empty() && (rest[0] == '|' || rest[0] == '>'))
            return blockScalar(rest, indent, number);
        if (!rest.empty())
            return scalar(rest, number);
        if (m_pos < m_lines.size() && m_lines[m_pos].indent > indent)
            return node(m_lines[m_pos].indent);
        if (m_pos < m_lines.size() && m_lines[m_pos].indent == indent &&
            isListItem(m_lines[m_pos].text))
            return list(indent);
        Yaml y;
        y.line = number;
        return y;
    }

    Yaml node(int indent) { return isListItem(m_lines[m_pos].text) ? list(indent) : map(indent); }

    Yaml map(int indent)
    {
        Yaml m;
        m.type = Yaml::Type::Map;
        m.line = m_lines[m_pos].number;
        while (m_pos < m_lines.size() && m_lines[m_pos].indent == indent &&
               !isListItem(m_lines[m_pos].text)) {
            const Line l = m_lines[m_pos];
            const size_t colon = keyColon(l.text);
            if (colon == std::string::npos)
                throw Error::at(m_origin, l.number, "expected 'key: value', got '" + l.text + "'");
            const std::string key = scalar(trim(l.text.substr(0, colon)), l.number).scalar;
            if (m.get(key))
                throw Error::at(m_origin, l.number, "duplicate key '" + key + "'");
            ++m_pos;
            Yaml v = value(trim(l.text.substr(colon + 1)), indent, l.number);
            m.keys.push_back(key);
            m.values.push_back(std::move(v));
        }
        if (m_pos < m_lines.size() && m_lines[m_pos].indent > indent)
            throw Error::at(m_origin, m_lines[m_pos].number, "unexpected indentation");
        return m;
    }

    Yaml list(int indent)
    {
        Yaml y;
        y.type = Yaml::Type::List;
        y.line = m_lines[m_pos].number;
        while (m_pos < m_lines.size() && m_lines[m_pos].indent == indent &&
               isListItem(m_lines[m_pos].text)) {
            Line &l = m_lines[m_pos];
            const std::string rest = trim(l.text.substr(1));
            if (rest.empty()) {
                ++m_pos;
                y.list.push_back(value({}, indent, l.number));
            } else if (keyColon(rest) != std::string::npos) {
                // "- key: v" opens a mapping whose keys sit at the column of "key".
                const size_t column = l.text.find(rest);
                l = {indent + static_cast<int>(column), rest, l.number};
                y.list.push_back(map(l.indent));
            } else {
                ++m_pos;
                y.list.push_back(scalar(rest, l.number));
            }
        }
        return y;
    }

    std::string m_origin;
    std::vector<Line> m_raw; // every line, 1-based by index + 1
    std::vector<Line> m_lines;
    size_t m_pos = 0;
};

// ---- kubeconfig ----

std::string decodeBase64(const std::string &data, const std::string &what)
{
    const auto result = QByteArray::fromBase64Encoding(QByteArray::fromStdString(data),
                                                       QByteArray::AbortOnBase64DecodingErrors);
    if (!result)
        throw Error(what + " is not valid base64");
    return result.decoded.toStdString();
}

const Yaml &named(const Yaml &root, const std::string &section, const std::string &name,
                  const std::string &origin, const std::string &why)
{
    const Yaml *list = root.get(section);
    if (list && list->type == Yaml::Type::List)
        for (const Yaml &entry : list->list)
            if (entry.text("name") == name)
                return entry;
    throw Error(origin + ": " + section + ": no entry named '" + name + "' (" + why + ")");
}

// PEM from KEY-data (base64) or KEY (a file, relative to the kubeconfig).
std::string pem(const Yaml &section, const std::string &key, const std::string &where,
                const std::string &baseDir)
{
    const std::string data = section.text(key + "-data");
    if (!data.empty())
        return decodeBase64(data, where + "." + key + "-data");
    const std::string file = section.text(key);
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
    const Yaml root = YamlParser(text, origin).parse();
    if (root.type != Yaml::Type::Map)
        throw Error(origin + ": not a kubeconfig (expected a mapping with clusters, contexts, "
                             "users, current-context)");
    const std::string contextName = context.empty() ? root.text("current-context") : context;
    if (contextName.empty())
        throw Error(origin + ": current-context is missing or empty");
    const Yaml *ctx =
        named(root, "contexts", contextName, origin, "current-context").get("context");
    if (!ctx || ctx->type != Yaml::Type::Map)
        throw Error(origin + ": contexts[name=" + contextName + "].context is missing");
    const std::string clusterName = ctx->text("cluster");
    const std::string userName = ctx->text("user");
    if (clusterName.empty())
        throw Error(origin + ": contexts[name=" + contextName + "].context.cluster is missing");

    KubernetesCredentials c;
    c.ns = ctx->text("namespace");
    c.origin = "kubeconfig " + origin + " (context " + contextName + ", user " +
               (userName.empty() ? "<none>" : userName) + ")";
    const std::string clusterWhere = origin + ": clusters[name=" + clusterName + "].cluster";
    const Yaml *cluster =
        named(root, "clusters", clusterName, origin, "context " + contextName).get("cluster");
    if (!cluster || cluster->type != Yaml::Type::Map)
        throw Error(clusterWhere + " is missing");
    c.server = cluster->text("server");
    if (c.server.empty())
        throw Error(clusterWhere + ".server is missing");
    const std::string insecure = cluster->text("insecure-skip-tls-verify");
    c.insecureSkipTlsVerify = insecure == "true" || insecure == "True" || insecure == "TRUE";
    c.caPem = pem(*cluster, "certificate-authority", clusterWhere, baseDir);

    if (userName.empty())
        return c; // anonymous
    const std::string userWhere = origin + ": users[name=" + userName + "].user";
    const Yaml *user = named(root, "users", userName, origin, "context " + contextName).get("user");
    if (!user || user->type != Yaml::Type::Map)
        throw Error(userWhere + " is missing");
    c.token = user->text("token");
    if (c.token.empty() && !user->text("tokenFile").empty()) {
        c.tokenFile = QDir(QString::fromStdString(baseDir))
                          .filePath(QString::fromStdString(user->text("tokenFile")))
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
            if (user->get(plugin))
                throw Error(userWhere + "." + plugin +
                            ": credential plugins are not supported; use a token or a client "
                            "certificate");
        if (user->get("username") || user->get("password"))
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
