// dl2 policy list | show: the shipped policies (what each was trained on, when it is the
// default) and what a checkpoint file holds.
#include "command.h"
#include "common.h"

#include "checkpoint.h"
#include "error.h"
#include "registerpolicies.h"
#include "scheduler.h"
#include "trainingrecipe.h"

#include <QJsonArray>

#include <cstdio>

namespace dl2::cli {

namespace {

QJsonObject describe(const Checkpoint &c)
{
    QJsonObject o;
    o[opt("kind")] = QString::fromLatin1(toString(c.spec.kind));
    o[opt("scenario")] = QString::fromStdString(c.info.scenario);
    o[opt("trainer")] = QString::fromStdString(c.info.trainer);
    o[opt("teacher")] = QString::fromStdString(c.info.teacher);
    o[opt("step")] = static_cast<qint64>(c.info.step);
    o[opt("validation_avg_jct_slots")] = c.info.validationAvgJct;
    o[opt("window")] = c.spec.window;
    o[opt("hidden")] = QJsonArray{c.spec.hidden1, c.spec.hidden2};
    o[opt("decode")] = QString::fromLatin1(toString(c.spec.decode));
    // How the network reads a job: what a checkpoint needs from the state encoder.
    if (c.spec.kind == PolicyKind::Dl2) {
        o[opt("type_input")] = c.spec.features.oneHotType ? opt("one-hot") : opt("raw id");
        o[opt("normalised_features")] = c.spec.features.normalise;
        o[opt("count_features")] = QString::fromLatin1(toString(c.spec.features.counts));
    } else {
        o[opt("best_setting_features")] = c.spec.features.bestSetting;
    }
    o[opt("has_optimizer")] = c.hasOptimizer;
    // Whether V(s) means anything (the console and the audit log show it only then).
    o[opt("value_network_trained")] = c.info.valueTrained;
    if (c.info.trainer != "init") {
        QJsonObject training;
        for (const auto &[key, value] : trainingRecipe(c.info))
            training[key] = value;
        o[opt("training")] = training;
    }
    return o;
}

int runList(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(opt(
        "List the scheduling policies (--policy) and the shipped learned policies with what each "
        "was trained on. A shipped policy can be given by name wherever a policy file is taken "
        "(--checkpoint dl2-plus-contended on simulate, compare, evaluate, operate and "
        "dl2-console)."));
    parser.addHelpOption();
    parser.addOption({opt("json"), opt("Print JSON: {\"schedulers\": [...], \"shipped\": [...]}.")});
    parser.addOption({opt("names"), opt("Print only the names of the schedulers or of the shipped "
                                        "policies, one per line (shell completion)."),
                      opt("schedulers|shipped")});
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("policy list", [&] {
        const QString names = parser.value(opt("names"));
        if (!names.isEmpty() && names != opt("schedulers") && names != opt("shipped"))
            throw Error("--names: expected schedulers or shipped, got '" + names.toStdString() + "'");
        if (names == opt("schedulers")) {
            for (const auto &s : registeredSchedulers())
                std::printf("%s\n", s.name.c_str());
            return 0;
        }
        if (names == opt("shipped")) {
            for (const ShippedPolicy &p : shippedPolicies())
                std::printf("%s\n", p.name.c_str());
            return 0;
        }
        const bool json = parser.isSet(opt("json"));
        QJsonArray schedulers, shipped;
        if (!json)
            std::printf("Scheduling policies (--policy NAME):\n");
        for (const auto &s : registeredSchedulers()) {
            if (json)
                schedulers.append(QJsonObject{{opt("name"), QString::fromStdString(s.name)},
                                              {opt("description"), QString::fromStdString(s.description)}});
            else
                std::printf("  %-16s %s\n", s.name.c_str(), s.description.c_str());
        }
        if (!json)
            std::printf("\nShipped learned policies (--checkpoint NAME):\n");
        for (const ShippedPolicy &p : shippedPolicies()) {
            const Checkpoint c = readCheckpoint(shippedPolicyFile(p.name), p.kind);
            if (json) {
                QJsonObject o = describe(c);
                o[opt("name")] = QString::fromStdString(p.name);
                o[opt("speed_model")] = QString::fromStdString(p.speedModel);
                o[opt("default_for")] = QString::fromStdString(p.usedFor);
                o[opt("trained_on")] = QString::fromStdString(p.trainedOn);
                shipped.append(o);
                continue;
            }
            const std::string when = p.usedFor.empty()
                                         ? "not a default: name it with --checkpoint " + p.name
                                         : "default for " + p.usedFor;
            std::printf("  %-26s %s, trained on %s, validation avg JCT %.2f slots (%s, step %lld)\n"
                        "  %-26s %s\n  %-26s %s\n",
                        p.name.c_str(), toString(p.kind),
                        p.speedModel == "rbf" ? "measured speeds" : "the fitted speed model",
                        c.info.validationAvgJct, c.info.trainer.c_str(), c.info.step, "",
                        when.c_str(), "", p.trainedOn.c_str());
        }
        if (json)
            printJson(QJsonObject{{opt("schedulers"), schedulers}, {opt("shipped"), shipped}});
        return 0;
    });
}

int runShow(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(opt("What a checkpoint (a file, or a shipped policy's name) holds: the network, "
                                         "and how it was trained (\"training\": the options its trainer recorded)."));
    parser.addHelpOption();
    parser.addPositionalArgument(opt("checkpoint"), opt("File or shipped policy name."));
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("policy show", [&] {
        if (parser.positionalArguments().size() != 1)
            throw Error("give one checkpoint file or shipped policy name");
        const std::string path = resolveCheckpoint(parser.positionalArguments().constFirst().toStdString());
        QJsonObject o = describe(readCheckpoint(path));
        o[opt("file")] = QString::fromStdString(path);
        printJson(o);
        return 0;
    });
}

int runPolicy(const QStringList &args)
{
    const QString sub = args.value(1);
    if (sub != opt("list") && sub != opt("show")) {
        std::fprintf(sub.isEmpty() || sub.startsWith(QLatin1Char('-')) ? stdout : stderr,
                     "Usage: dl2 policy list [--json]\n       dl2 policy show CHECKPOINT|NAME\n");
        return sub == opt("--help") || sub == opt("-h") ? 0 : kExitBadInput;
    }
    QStringList rest = args.mid(1);
    rest[0] = args[0] + QLatin1Char(' ') + sub;
    return sub == opt("list") ? runList(rest) : runShow(rest);
}

} // namespace

static CommandRegistration policyRegistration{
    {"policy", "list the policies and the shipped learned ones; show what a checkpoint holds", runPolicy}};

} // namespace dl2::cli
