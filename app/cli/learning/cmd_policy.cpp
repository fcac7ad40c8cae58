// dl2 policy list | show | probe: the shipped policies (what each was trained on, when it is
// the default), what a checkpoint file holds, and what a dl2 network has learnt about job
// types (policyprobe.h).
#include "command.h"
#include "common.h"

#include "checkpoint.h"
#include "error.h"
#include "policyprobe.h"
#include "registerpolicies.h"
#include "scenario.h"
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

// The one positional argument of show and probe: a checkpoint file or a shipped policy's name.
std::string checkpointArgument(const QCommandLineParser &parser)
{
    if (parser.positionalArguments().size() != 1)
        throw Error("give one checkpoint file or shipped policy name");
    return resolveCheckpoint(parser.positionalArguments().constFirst().toStdString());
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
        const std::string path = checkpointArgument(parser);
        QJsonObject o = describe(readCheckpoint(path));
        o[opt("file")] = QString::fromStdString(path);
        printJson(o);
        return 0;
    });
}

// "kept from 18 slots, 10-29": how many slots the kept states come from, and the first and last.
std::string stateSlotsText(const std::vector<int> &kept)
{
    if (kept.empty())
        return "no decision there";
    int distinct = 1;
    for (size_t i = 1; i < kept.size(); ++i)
        distinct += kept[i] != kept[i - 1];
    return "kept from " + std::to_string(distinct) + (distinct == 1 ? " slot, " : " slots, ") +
           std::to_string(kept.front()) + "-" + std::to_string(kept.back());
}

QJsonObject probeJson(const TypeProbe &r)
{
    QJsonObject o;
    QJsonArray types;
    for (const std::string &t : r.types)
        types.append(QString::fromStdString(t));
    o[opt("types")] = types;
    o[opt("states")] = r.statesKept;
    QJsonArray stateSlots;
    for (const int slot : r.stateSlots)
        stateSlots.append(slot);
    o[opt("state_slots")] = stateSlots;
    for (int w = 0; w < TypeProbe::kBands; ++w) {
        QJsonArray rows;
        for (size_t own = 0; own < r.types.size(); ++own) {
            QJsonArray q;
            for (double v : r.q[w][own])
                q.append(v);
            rows.append(QJsonObject{{opt("type"), types[qsizetype(own)]},
                                    {opt("rows"), r.rows[w][own]},
                                    {opt("q_worker_as_type"), q}});
        }
        o[opt(TypeProbe::bandKey(w))] = rows;
        o[QStringLiteral("spread_") + opt(TypeProbe::bandKey(w))] = r.spread(w);
    }
    if (!r.tied)
        return o;
    QJsonArray layers; // layer 1, layer 2
    for (const TypeProbe::Layer &l : r.layers)
        layers.append(QJsonObject{{opt("own_per_position"), l.own},
                                  {opt("own_active"), l.ownActive},
                                  {opt("own_varying"), l.ownVarying},
                                  {opt("global"), l.global},
                                  {opt("global_active"), l.globalActive}});
    o[opt("units")] = QJsonObject{
        {opt("layers"), layers}, {opt("type_weight"), r.typeWeight}, {opt("other_weight"), r.otherWeight}};
    return o;
}

void printProbe(const TypeProbe &r)
{
    for (int w = 0; w < TypeProbe::kBands; ++w) {
        std::printf(
            "q(worker | row) %s: rows of each type (n), re-scored as if the job were each type\n",
            TypeProbe::bandText(w));
        std::printf("  %-24s %5s", "type", "n");
        for (const std::string &t : r.types)
            std::printf(" %8.8s", t.c_str());
        std::printf("\n");
        for (size_t own = 0; own < r.types.size(); ++own) {
            if (r.rows[w][own] == 0)
                continue;
            std::printf("  %-24s %5d", r.types[own].c_str(), r.rows[w][own]);
            for (double v : r.q[w][own])
                std::printf(" %8.3f", v);
            std::printf("\n");
        }
        std::printf("  spread %.3f: the largest change of one type's mean q when its rows are given another type\n",
                    r.spread(w));
    }
    if (!r.tied) {
        std::printf("units: not counted (the network is not tied across the window)\n");
        return;
    }
    for (size_t l = 0; l < r.layers.size(); ++l) {
        const TypeProbe::Layer &layer = r.layers[l];
        std::printf("layer %zu: a position's own units active (ReLU > 0) %.2f of %d per row (%d of them on for "
                    "some rows and off for others); global units active %.1f of %d per state\n",
                    l + 1, layer.ownActive, layer.own, layer.ownVarying, layer.globalActive, layer.global);
    }
    std::printf("mean |weight| from a position's inputs to its own layer-1 units: type one-hot %.4f, other "
                "features %.4f\n",
                r.typeWeight, r.otherWeight);
}

int runProbe(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        opt("What a faithful dl2 network has learnt about job types: plays a few slots of a trace with the policy "
            "as deployed and re-scores every window row of some decision states as if its job were each type, "
            "q(worker | row) the worker's share of the row's worker/PS/bundle mix; for a network tied across the "
            "window, also how many of each position's own hidden units are active."));
    parser.addHelpOption();
    parser.addPositionalArgument(opt("checkpoint"), opt("File or shipped policy name."));
    parser.addOption({opt("scenario"), opt("Scenario whose trace is played (default: the checkpoint's)."), opt("NAME")});
    parser.addOption({opt("seed"), opt("Trace seed (default 100, a validation seed)."), opt("N"), opt("100")});
    parser.addOption({opt("slots"), opt("Slots played (default 30)."), opt("N"), opt("30")});
    parser.addOption({opt("from-slot"),
                      opt("States are drawn from the decisions of this slot on, to the last slot played (default 10, "
                          "or the last slot when fewer are played)."),
                      opt("K")});
    parser.addOption({opt("states"),
                      opt("Decision states kept, drawn uniformly (seeded by --seed) among those decisions (default 40)."),
                      opt("N"), opt("40")});
    parser.addOption({opt("json"), opt("Print JSON.")});
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("policy probe", [&] {
        const std::string path = checkpointArgument(parser);
        const Checkpoint c = readCheckpoint(path);
        std::string scenario = parser.value(opt("scenario")).toStdString();
        if (scenario.empty())
            scenario = defaultProbeScenario(c);
        TypeProbeOptions o;
        o.seed = std::uint64_t(parsePositiveInt(parser, opt("seed"), 0, 2000000000));
        o.playSlots = parsePositiveInt(parser, opt("slots"), 1, 100000);
        o.states = parsePositiveInt(parser, opt("states"), 1, 100000);
        if (parser.isSet(opt("from-slot"))) {
            o.firstSlot = parsePositiveInt(parser, opt("from-slot"), 0, 100000);
            if (o.firstSlot >= o.playSlots)
                throw Error("--from-slot " + std::to_string(o.firstSlot) + " is not among the " +
                            std::to_string(o.playSlots) + " slots played (--slots): give at most " +
                            std::to_string(o.playSlots - 1));
        } else {
            o.firstSlot = std::min(o.firstSlot, o.playSlots - 1);
        }
        const TypeProbe r = probeTypes(c, scenarioByName(scenario), ProfileSet::reference(), o);
        if (parser.isSet(opt("json"))) {
            QJsonObject j = probeJson(r);
            j[opt("file")] = QString::fromStdString(path);
            j[opt("scenario")] = QString::fromStdString(scenario);
            j[opt("seed")] = qint64(o.seed);
            printJson(j);
            return 0;
        }
        std::printf("%s: %d decision states of %s seed %llu, drawn from slots %d-%d (%s), the policy as deployed (%s)\n",
                    path.c_str(), r.statesKept, scenario.c_str(), static_cast<unsigned long long>(o.seed), o.firstSlot,
                    o.playSlots - 1, stateSlotsText(r.stateSlots).c_str(), toString(c.spec.decode));
        printProbe(r);
        return 0;
    });
}

int runStrip(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        opt("A copy of a checkpoint to deploy or ship: the policy network and the record of its training, without "
            "the optimizer state and the value network (for the window-60 dl2 a trained critic is 15 MB that no "
            "policy reads). A trainer starting from the copy trains a fresh critic first, as from an SL warm-up."));
    parser.addHelpOption();
    parser.addPositionalArgument(opt("checkpoint"), opt("File or shipped policy name."));
    parser.addOption({{opt("o"), opt("output")}, opt("The copy to write (atomically)."), opt("FILE")});
    int code = 0;
    if (!parseOrExit(parser, args, code))
        return code;
    return guarded("policy strip", [&] {
        const std::string path = checkpointArgument(parser);
        const std::string output = parser.value(opt("output")).toStdString();
        if (output.empty())
            throw Error("give the copy to write with -o FILE");
        const Checkpoint c = readCheckpoint(path);
        TrainingInfo info = c.info;
        info.valueTrained = false; // left out: readers draw a fresh one
        writeCheckpoint(output, c.spec, info, *c.parameters);
        std::printf("%s: the policy of %s (step %lld), without optimizer state or value network\n", output.c_str(),
                    path.c_str(), c.info.step);
        return 0;
    });
}

int runPolicy(const QStringList &args)
{
    const QString sub = args.value(1);
    if (sub != opt("list") && sub != opt("show") && sub != opt("probe") && sub != opt("strip")) {
        std::fprintf(sub.isEmpty() || sub.startsWith(QLatin1Char('-')) ? stdout : stderr,
                     "Usage: dl2 policy list [--json]\n       dl2 policy show CHECKPOINT|NAME\n"
                     "       dl2 policy probe CHECKPOINT|NAME [--scenario NAME] [--seed N] [--slots N] [--from-slot K] [--states N] [--json]\n"
                     "       dl2 policy strip CHECKPOINT|NAME -o FILE\n");
        return sub == opt("--help") || sub == opt("-h") ? 0 : kExitBadInput;
    }
    QStringList rest = args.mid(1);
    rest[0] = args[0] + QLatin1Char(' ') + sub;
    return sub == opt("list")    ? runList(rest)
           : sub == opt("show")  ? runShow(rest)
           : sub == opt("strip") ? runStrip(rest)
                                 : runProbe(rest);
}

} // namespace

static CommandRegistration policyRegistration{
    {"policy", "list the policies and the shipped learned ones; show what a checkpoint holds; probe what it learnt about job types; strip one for shipping", runPolicy}};

} // namespace dl2::cli
