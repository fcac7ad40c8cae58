// dl2-train online-learner --init CKPT --dir DIR [--margin X] [--deadline-ms MS] [--window N]
//                          [--updates N] [--lr X] [--seed N]
// The learner of the console's Learn toggle (the console never loads libtorch): the console
// acts with its own copy of the learning policy and, after every slot, writes a frame to this
// process's stdin (core/connectors/learnerwire.h: the view planned on, the gate's entries, the
// version that planned, the policy's inferences). This process runs the same OnlineLearner as
// `dl2 operate --learn` on them - updates in a thread at nice +10 with one torch thread,
// versioned checkpoints <dir>/vN.dl2ckpt, the frozen reference in shadow and the rollback -
// and writes one JSON object per line on stdout:
//   {"type":"ready","version":0}
//   {"type":"version","version":N,"checkpoint":PATH}  the acting version changed (adopted or
//                                                     rolled back): the console loads it
//   {"type":"event","detail":TEXT,"after":{...}}      for the console's audit log
//   {"type":"point", ...}                             one point of the online curve
//   {"type":"state","version":N,"last_good":N,"paused":B,"versions":N,"rollbacks":N}
// End of stdin ends it (after the running update); errors go to stderr with exit code 2.
#ifdef DL2_HAVE_ONLINE
#include "command.h"
#include "common.h"
#include "error.h"
#include "learner.h"
#include "learnerwire.h"
#include "onlinelearner.h"
#include "registerpolicies.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <poll.h>
#include <unistd.h>

namespace dl2::cli {

namespace {

void emit(QJsonObject o, const char *type)
{
    o.insert(QStringLiteral("type"), QString::fromLatin1(type));
    std::printf("%s\n", QJsonDocument(o).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);
}

int runOnlineLearner(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "The console's online learner (its Learn toggle): reads the slots the console acted "
        "from stdin and trains as dl2 operate --learn does; reports versions, events and the "
        "online curve as JSON lines on stdout. Not meant to be run by hand."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("init"), QStringLiteral("Starting checkpoint (also the frozen reference)."),
         QStringLiteral("CKPT")},
        {QStringLiteral("dir"), QStringLiteral("Versions vN.dl2ckpt and the online curve."),
         QStringLiteral("DIR")},
        {QStringLiteral("margin"), QStringLiteral("Rollback margin (default 0.1)."),
         QStringLiteral("X"), QStringLiteral("0.1")},
        {QStringLiteral("deadline-ms"), QStringLiteral("An update's deadline (default 1000)."),
         QStringLiteral("MS"), QStringLiteral("1000")},
        {QStringLiteral("window"), QStringLiteral("Slots of the rolling rewards (default 10)."),
         QStringLiteral("N"), QStringLiteral("10")},
        {QStringLiteral("updates"), QStringLiteral("Updates per slot (default 4)."),
         QStringLiteral("N"), QStringLiteral("4")},
        {QStringLiteral("lr"), QStringLiteral("Policy learning rate (default 1e-4)."),
         QStringLiteral("X"), QStringLiteral("0.0001")},
        {QStringLiteral("seed"), QStringLiteral("The acting policy's seed (default 1)."),
         QStringLiteral("N"), QStringLiteral("1")},
        {QStringLiteral("debug-sabotage-version"),
         QStringLiteral("Testing: versions from N on are sabotaged, to see the rollback."),
         QStringLiteral("N"), QStringLiteral("0")},
    });
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("online-learner", [&] {
        OnlineOptions o;
        o.init = resolveCheckpoint(parser.value(QStringLiteral("init")).toStdString());
        o.directory = parser.value(QStringLiteral("dir")).toStdString();
        if (o.init.empty() || o.directory.empty())
            throw Error("--init CKPT and --dir DIR are required");
        o.margin = parseDouble(parser, QStringLiteral("margin"), 0.0, 1.0);
        o.deadline = std::chrono::milliseconds(
            parsePositiveInt(parser, QStringLiteral("deadline-ms"), 1, 86'400'000));
        o.window = parsePositiveInt(parser, QStringLiteral("window"), 1, 100'000);
        o.updatesPerSlot = parsePositiveInt(parser, QStringLiteral("updates"), 1, 1000);
        o.learningRate = parseDouble(parser, QStringLiteral("lr"), 1e-9, 1.0);
        o.seed = std::uint64_t(parsePositiveInt(parser, QStringLiteral("seed"), 0, 2'000'000'000));
        o.sabotageVersion =
            parsePositiveInt(parser, QStringLiteral("debug-sabotage-version"), 0, 1'000'000);
        setTorchThreads(1);
        OnlineLearner learner(o);
        learner.setEventSink([](const std::string &detail, const QJsonObject &after) {
            QJsonObject e;
            e.insert(QStringLiteral("detail"), QString::fromStdString(detail));
            e.insert(QStringLiteral("after"), after);
            emit(e, "event");
        });
        learner.setVersionListener([](int version, const std::string &checkpoint) {
            QJsonObject v;
            v.insert(QStringLiteral("version"), version);
            v.insert(QStringLiteral("checkpoint"), QString::fromStdString(checkpoint));
            emit(v, "version");
        });
        size_t points = 0;
        int lastVersions = 0;
        const auto state = [&] {
            const OnlineSummary &s = learner.summary();
            for (; points < s.curve.size(); ++points)
                emit(s.curve[points].toJson(), "point");
            QJsonObject st;
            st.insert(QStringLiteral("version"), s.version);
            st.insert(QStringLiteral("last_good"), s.lastGood);
            st.insert(QStringLiteral("paused"), s.paused);
            st.insert(QStringLiteral("versions"), s.versions);
            st.insert(QStringLiteral("rollbacks"), s.rollbacks);
            st.insert(QStringLiteral("late_updates"), s.lateUpdates);
            emit(st, "state");
            lastVersions = s.versions;
        };
        QJsonObject ready;
        ready.insert(QStringLiteral("version"), 0);
        ready.insert(QStringLiteral("directory"), QString::fromStdString(o.directory));
        emit(ready, "ready");
        const ProfileSet &profiles = o.profiles;
        QByteArray buffer;
        char chunk[1 << 16];
        for (bool open = true; open;) {
            pollfd p{STDIN_FILENO, POLLIN, 0};
            const int ready = ::poll(&p, 1, 50);
            if (ready < 0 && errno != EINTR)
                throw Error(std::string("reading stdin: ") + std::strerror(errno));
            if (ready > 0) {
                const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
                if (n < 0 && errno != EINTR && errno != EAGAIN)
                    throw Error(std::string("reading stdin: ") + std::strerror(errno));
                if (n == 0)
                    open = false;
                if (n > 0)
                    buffer.append(chunk, qsizetype(n));
            }
            while (auto frame = takeLearnerFrame(buffer, profiles)) {
                learner.beforePlan(frame->view);
                learner.afterPlan();
                learner.setActedSlot(ActingTrace::fromBytes(frame->trace), frame->version);
                learner.afterSlot(frame->view, frame->entries);
                state();
            }
            learner.poll();
            if (learner.summary().versions != lastVersions)
                state();
        }
        if (!buffer.isEmpty())
            throw Error("stdin ended inside a frame (" + std::to_string(buffer.size()) +
                        " bytes left)");
        learner.finish();
        state();
        return 0;
    });
}

} // namespace

static CommandRegistration onlinelearnerRegistration{
    {"online-learner", "the console's online learner (reads slots on stdin)", runOnlineLearner}};

} // namespace dl2::cli
#endif
