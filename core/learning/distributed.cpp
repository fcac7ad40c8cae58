// The one translation unit that includes torch.distributed's c10d (TCPStore, ProcessGroupGloo);
// see distributed.h.

#include "distributed.h"

#include "error.h"

#include <ATen/ATen.h>
#include <glog/logging.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>

namespace dl2 {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kHeartbeat = std::chrono::milliseconds(200);
// A rank whose heartbeat has not moved for this long is taken as gone when rank 0 leaves.
constexpr auto kGone = 10 * kHeartbeat;

std::string message(const std::exception &e)
{
    if (const auto *c = dynamic_cast<const c10::Error *>(&e))
        return c->what_without_backtrace();
    return e.what();
}

// The address this host reaches `host` from (the interface Gloo must listen on so that the
// other ranks can connect): a UDP "connect" sends nothing, it only picks the route.
std::string localAddressFor(const std::string &host, int port)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    addrinfo *res = nullptr;
    if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0 || !res)
        throw Error("--master: cannot resolve host '" + host + "'");
    std::string out;
    const int fd = socket(res->ai_family, SOCK_DGRAM, 0);
    if (fd >= 0 && ::connect(fd, res->ai_addr, res->ai_addrlen) == 0) {
        sockaddr_storage local{};
        socklen_t len = sizeof local;
        char buf[INET6_ADDRSTRLEN] = {};
        if (getsockname(fd, reinterpret_cast<sockaddr *>(&local), &len) == 0) {
            if (local.ss_family == AF_INET)
                inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in *>(&local)->sin_addr, buf, sizeof buf);
            else
                inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6 *>(&local)->sin6_addr, buf, sizeof buf);
            out = buf;
        }
    }
    if (fd >= 0)
        ::close(fd);
    freeaddrinfo(res);
    if (out.empty())
        throw Error("--master: no route to '" + host + "'");
    return out;
}

std::string key(const char *what, int rank) { return std::string("dl2/") + what + "/" + std::to_string(rank); }

std::string text(const std::vector<std::uint8_t> &v) { return std::string(v.begin(), v.end()); }
std::vector<std::uint8_t> bytes(const std::string &s) { return std::vector<std::uint8_t>(s.begin(), s.end()); }

} // namespace

struct Communicator::Impl
{
    DistributedOptions o;
    std::chrono::milliseconds timeout{};
    c10::intrusive_ptr<c10d::TCPStore> store;     // rank 0: the server (and a client)
    c10::intrusive_ptr<c10d::TCPStore> beatStore; // own connection for the heartbeat thread
    c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
    std::thread heartbeat;
    std::mutex mutex;
    std::condition_variable cv;
    bool stopBeat = false;
    bool failed = false;
    Stats stats;

    std::string where() const { return o.masterHost + ":" + std::to_string(o.masterPort); }

    void startHeartbeat()
    {
        heartbeat = std::thread([this] {
            std::unique_lock lock(mutex);
            while (!stopBeat) {
                lock.unlock();
                try {
                    beatStore->add(key("alive", o.rank), 1);
                } catch (...) {
                    return; // the store is gone: whoever collects next will say so
                }
                lock.lock();
                cv.wait_for(lock, kHeartbeat, [this] { return stopBeat; });
            }
        });
    }

    void stopHeartbeat()
    {
        {
            std::lock_guard lock(mutex);
            stopBeat = true;
        }
        cv.notify_all();
        if (heartbeat.joinable())
            heartbeat.join();
    }

    // Who is at fault, from the store: a rank that left an error, the first diagnosis another
    // rank made, ranks whose heartbeat stopped; rank 0 when the store itself is gone.
    std::string diagnose()
    {
        try {
            auto reported = [&]() -> std::string {
                if (store->check({"dl2/blame"}))
                    return text(store->get("dl2/blame"));
                for (int k = 0; k < o.worldSize; ++k)
                    if (k != o.rank && store->check({key("error", k)}))
                        return "rank " + std::to_string(k) + " stopped: " + text(store->get(key("error", k)));
                return {};
            };
            if (auto r = reported(); !r.empty())
                return r;
            std::vector<std::int64_t> before(size_t(o.worldSize), 0);
            for (int k = 0; k < o.worldSize; ++k)
                before[size_t(k)] = store->add(key("alive", k), 0);
            std::this_thread::sleep_for(5 * kHeartbeat);
            if (auto r = reported(); !r.empty())
                return r;
            std::vector<int> dead;
            for (int k = 0; k < o.worldSize; ++k)
                if (k != o.rank && store->add(key("alive", k), 0) == before[size_t(k)])
                    dead.push_back(k);
            std::string blame;
            if (dead.size() == 1) {
                blame = "rank " + std::to_string(dead[0]) + " is gone (its heartbeat stopped)";
            } else if (!dead.empty()) {
                blame = "ranks";
                for (size_t i = 0; i < dead.size(); ++i)
                    blame += (i ? ", " : " ") + std::to_string(dead[i]);
                blame += " are gone (their heartbeats stopped)";
            } else {
                return "every rank is still alive: the network dropped or a rank is stuck beyond the " +
                       std::to_string(int(o.timeoutSeconds)) + " s timeout";
            }
            // The first diagnosis wins, so every rank names the same culprit.
            store->compareSet("dl2/blame", {}, bytes(blame));
            return text(store->get("dl2/blame"));
        } catch (const Error &) {
            throw;
        } catch (const std::exception &) {
            return "rank 0 is gone (the master " + where() + ", which holds the rendezvous store, does not answer)";
        }
    }

    // Leaving on a failure: close our connections so that the others notice at once, and
    // rank 0 keeps the store up until every other rank has read the diagnosis and left
    // (dl2/left/R) or is gone (no heartbeat for kGone), at most min(--timeout, 30 s; 10 s for
    // a rank that has not joined). Each rank is waited for by name: a count of the ranks that
    // had left once let rank 0 go while one was still reading its inputs, because the failed
    // rank's own leaving stood in for it.
    void leave()
    {
        failed = true;
        group.reset();
        try {
            store->set(key("left", o.rank), bytes("1"));
            if (o.rank == 0) {
                const auto start = Clock::now();
                const auto deadline = start + std::min(timeout, std::chrono::milliseconds(30000));
                const auto joinBy = start + std::min(timeout, std::chrono::milliseconds(10000));
                std::vector<std::int64_t> beats(size_t(o.worldSize), -1);
                std::vector<Clock::time_point> beatAt(size_t(o.worldSize), start);
                while (Clock::now() < deadline) {
                    bool waiting = false;
                    for (int k = 1; k < o.worldSize; ++k) {
                        if (store->check({key("left", k)}))
                            continue;
                        const std::int64_t b = store->add(key("alive", k), 0);
                        if (b != beats[size_t(k)]) {
                            beats[size_t(k)] = b;
                            beatAt[size_t(k)] = Clock::now();
                        }
                        // Not joined yet: on its way, given 10 s as before (it may never come).
                        if (!store->check({key("joined", k)}))
                            waiting = waiting || Clock::now() < joinBy;
                        else if (Clock::now() - beatAt[size_t(k)] < kGone)
                            waiting = true;
                    }
                    if (!waiting)
                        break;
                    std::this_thread::sleep_for(kHeartbeat);
                }
            }
        } catch (...) {
        }
        stopHeartbeat();
    }

    [[noreturn]] void fail(const char *what, const std::exception &cause)
    {
        if (failed)
            throw Error(std::string(what) + " after the distributed run failed");
        const std::string blame = diagnose();
        leave();
        throw Error("distributed training stopped: " + blame + " (" + what + ": " + message(cause) + ")");
    }

    // Every rank joined and read its inputs (dl2/ready/R), or one left an error, or the
    // timeout passed: then the ranks that never joined, or joined but are not ready, are named.
    void waitForRanks()
    {
        const auto deadline = Clock::now() + timeout;
        auto ranksText = [](const std::vector<int> &ranks) {
            std::string s = ranks.size() == 1 ? "rank" : "ranks";
            for (size_t i = 0; i < ranks.size(); ++i)
                s += (i ? ", " : " ") + std::to_string(ranks[i]);
            return s;
        };
        std::string blame;
        try {
            store->set(key("ready", o.rank), bytes("1"));
            while (blame.empty()) {
                std::vector<int> absent, unready;
                for (int k = 0; k < o.worldSize; ++k) {
                    if (k == o.rank)
                        continue;
                    if (store->check({key("error", k)})) {
                        blame = "rank " + std::to_string(k) + " stopped: " + text(store->get(key("error", k)));
                        break;
                    }
                    if (!store->check({key("ready", k)}))
                        (store->check({key("joined", k)}) ? unready : absent).push_back(k);
                }
                if (!blame.empty() || (absent.empty() && unready.empty()))
                    break;
                if (Clock::now() >= deadline) {
                    const std::string t = std::to_string(int(o.timeoutSeconds)) + " s";
                    if (!absent.empty())
                        blame = ranksText(absent) + " did not join the rendezvous at " + where() + " within " + t +
                                " (not started, another --master or --world-size, or it failed before connecting)";
                    if (!unready.empty())
                        blame += (blame.empty() ? "" : "; ") + ranksText(unready) +
                                 " joined but did not finish reading its inputs within " + t;
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
        } catch (const std::exception &) {
            blame = "rank 0 is gone (the master " + where() + ", which holds the rendezvous store, does not answer)";
        }
        if (blame.empty())
            return;
        leave();
        throw Error("distributed training stopped: " + blame);
    }

    template <typename T>
    void allReduce(T *data, size_t count, at::ScalarType type, c10d::ReduceOp op)
    {
        if (count == 0)
            return;
        const auto start = Clock::now();
        std::vector<at::Tensor> tensors{
            at::from_blob(data, {std::int64_t(count)}, at::TensorOptions().dtype(type))};
        c10d::AllreduceOptions ro;
        ro.reduceOp = op;
        run("all-reduce", [&] { return group->allreduce(tensors, ro); });
        stats.allReduces += 1;
        stats.bytes += double(count * sizeof(T));
        stats.seconds += std::chrono::duration<double>(Clock::now() - start).count();
    }

    void run(const char *what, const std::function<c10::intrusive_ptr<c10d::Work>()> &start)
    {
        if (failed || !group)
            throw Error(std::string(what) + " after the distributed run failed");
        try {
            auto work = start();
            work->wait(timeout);
        } catch (const Error &) {
            throw;
        } catch (const std::exception &e) {
            fail(what, e);
        }
    }
};

void parseMaster(const std::string &value, DistributedOptions &options, const std::string &what)
{
    const auto colon = value.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 >= value.size())
        throw Error(what + ": expected HOST:PORT, got '" + value + "'");
    std::string host = value.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    const std::string port = value.substr(colon + 1);
    int p = 0;
    for (char c : port) {
        if (c < '0' || c > '9' || p > 65535)
            throw Error(what + ": port must be a number 1-65535, got '" + port + "'");
        p = p * 10 + (c - '0');
    }
    if (p < 1 || p > 65535)
        throw Error(what + ": port must be a number 1-65535, got '" + port + "'");
    options.masterHost = host;
    options.masterPort = p;
}

Communicator::Communicator(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

Communicator::~Communicator()
{
    m_impl->stopHeartbeat();
    m_impl->group.reset();
    m_impl->beatStore.reset();
    m_impl->store.reset();
}

std::shared_ptr<Communicator> Communicator::connect(const DistributedOptions &options,
                                                    const std::function<void()> &prepare)
{
    if (options.worldSize < 1)
        throw Error("--world-size must be at least 1");
    if (options.rank < 0 || options.rank >= options.worldSize)
        throw Error("--rank must be in 0-" + std::to_string(options.worldSize - 1) + ", got " +
                    std::to_string(options.rank));
    if (!(options.timeoutSeconds > 0))
        throw Error("--timeout must be positive");
    // c10d logs each failure to stderr as well; the error we throw says it once, with the rank
    // at fault. GLOG_minloglevel=0 in the environment brings c10d's own log back.
    if (!std::getenv("GLOG_minloglevel"))
        FLAGS_minloglevel = google::GLOG_FATAL;
    auto impl = std::make_unique<Impl>();
    impl->o = options;
    impl->timeout = std::chrono::milliseconds(std::int64_t(options.timeoutSeconds * 1000.0));
    const std::string local = localAddressFor(options.masterHost, options.masterPort);
    try {
        c10d::TCPStoreOptions so;
        so.port = std::uint16_t(options.masterPort);
        so.isServer = options.rank == 0;
        so.numWorkers = size_t(options.worldSize);
        so.waitWorkers = false; // waitForRanks() below names the ranks that do not come
        so.timeout = impl->timeout;
        impl->store = c10::make_intrusive<c10d::TCPStore>(options.masterHost, so);
        c10d::TCPStoreOptions beat;
        beat.port = so.port;
        beat.timeout = impl->timeout;
        beat.waitWorkers = false;
        impl->beatStore = c10::make_intrusive<c10d::TCPStore>(options.masterHost, beat);
    } catch (const std::exception &e) {
        throw Error("rendezvous at " + impl->where() + " failed within " +
                    std::to_string(int(options.timeoutSeconds)) + " s (" +
                    (options.rank == 0 ? "not every one of the " + std::to_string(options.worldSize) +
                                             " ranks joined, or the port is taken"
                                       : std::string("is rank 0 running there?")) +
                    "): " + message(e));
    }
    impl->startHeartbeat();
    try {
        impl->store->set(key("joined", options.rank), bytes("1"));
    } catch (const std::exception &e) {
        impl->stopHeartbeat();
        throw Error("rendezvous at " + impl->where() + " failed: " + message(e));
    }
    if (prepare) {
        try {
            prepare();
        } catch (const std::exception &e) {
            try {
                impl->store->set(key("error", options.rank), bytes(e.what()));
            } catch (...) {
            }
            impl->leave();
            throw;
        }
    }
    impl->waitForRanks();
    try {
        auto go = c10d::ProcessGroupGloo::Options::create(impl->timeout);
        go->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(local));
        go->threads = 1;
        impl->group = c10::make_intrusive<c10d::ProcessGroupGloo>(
            c10::make_intrusive<c10d::PrefixStore>("gloo", impl->store), options.rank,
            options.worldSize, go);
    } catch (const std::exception &e) {
        impl->stopHeartbeat();
        throw Error("the Gloo process group did not form over " + local + " (" + message(e) + ")");
    }
    return std::shared_ptr<Communicator>(new Communicator(std::move(impl)));
}

int Communicator::rank() const { return m_impl->o.rank; }
int Communicator::worldSize() const { return m_impl->o.worldSize; }


void Communicator::allReduceSum(float *data, size_t count)
{
    m_impl->allReduce(data, count, at::kFloat, c10d::ReduceOp::SUM);
}

void Communicator::allReduceSum(double *data, size_t count)
{
    m_impl->allReduce(data, count, at::kDouble, c10d::ReduceOp::SUM);
}

void Communicator::allReduceMax(std::int64_t *data, size_t count)
{
    m_impl->allReduce(data, count, at::kLong, c10d::ReduceOp::MAX);
}

std::vector<std::uint64_t> Communicator::allGather(std::uint64_t value)
{
    const int W = worldSize();
    std::int64_t in = std::int64_t(value);
    std::vector<at::Tensor> input{at::from_blob(&in, {1}, at::kLong)};
    std::vector<std::vector<at::Tensor>> output(1);
    for (int k = 0; k < W; ++k)
        output[0].push_back(at::zeros({1}, at::kLong));
    m_impl->run("all-gather", [&] { return m_impl->group->allgather(output, input); });
    std::vector<std::uint64_t> out;
    for (const auto &t : output[0])
        out.push_back(std::uint64_t(t.item<std::int64_t>()));
    return out;
}

void Communicator::barrier()
{
    m_impl->run("barrier", [&] { return m_impl->group->barrier(); });
}

void Communicator::reportError(const std::string &message)
{
    if (m_impl->failed)
        return;
    try {
        m_impl->store->set(key("error", rank()), bytes(message));
    } catch (...) {
    }
    m_impl->leave();
}

void Communicator::finish()
{
    barrier();
    m_impl->stopHeartbeat();
}

Communicator::Stats Communicator::stats() const { return m_impl->stats; }

} // namespace dl2
