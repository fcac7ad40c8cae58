#include "consoleoptions.h"

#include "fileio.h"
#include "gaterules.h"
#include "instructortools.h"
#include "mainwindow.h"
#include "modelprofile.h"
#include "policyfiles.h"
#include "replayexporter.h"
#include "scenario.h"
#include "scheduler.h"
#include "settings.h"
#include "sidebysidepage.h"
#include "videowriter.h"

namespace dl2console {

void ConsoleOptions::configure(QCommandLineParser &parser) const
{
    parser.setApplicationDescription(
        QStringLiteral("Replay, inspect and compare deep-learning cluster schedulers."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions({scenario, seed, trace, policy, checkpoint, speedModel, speedTable, nodes,
                       slot, shot, size, compare, select, dark,
                       showDock, inference, zoom, gate, rules, reviewDeadline, atDeadline, audit, agent,
                       tokenFile, firstFrame, trainingCurves, trainingCompare, trainingBaselines, probeTypes,
                       historySlot, sideBySide, presentation, views, exportVideo, slotRange,
                       fps, noCaptions, learn, learnSabotage});
}

QString InstructorOptions::parse(const QCommandLineParser &parser, const ConsoleOptions &o,
                                 const Settings &settings)
{
    if (parser.isSet(o.sideBySide)) {
        pair = parser.value(o.sideBySide).split(QLatin1Char(','));
        if (pair.size() != 2)
            return QStringLiteral("--side-by-side needs two policies, e.g. drf,dl2");
        for (const QString &p : std::as_const(pair))
            if (!dl2::isScheduler(p.toStdString()))
                return QStringLiteral("--side-by-side: unknown policy '%1'").arg(p);
    }
    const QStringList known = pair.isEmpty() ? InstructorTools::replayViewNames()
                                             : SideBySidePage::sectionNames();
    if (parser.isSet(o.views)) {
        views = parser.value(o.views).split(QLatin1Char(','), Qt::SkipEmptyParts);
        for (const QString &v : std::as_const(views))
            if (!known.contains(v))
                return QStringLiteral("--views: unknown view '%1' (one of %2)")
                    .arg(v, known.join(QStringLiteral(", ")));
    } else {
        views = pair.isEmpty() ? settings.presentationViews() : known;
    }
    presentation = parser.isSet(o.presentation);
    if (parser.isSet(o.slotRange) &&
        !ReplayExporter::parseSlotRange(parser.value(o.slotRange), &firstSlot, &lastSlot))
        return QStringLiteral("--slots must look like 10-40 (first <= last)");
    if (parser.isSet(o.fps)) {
        bool ok = false;
        fps = parser.value(o.fps).toDouble(&ok);
        if (!ok || fps < 0.1 || fps > 60)
            return QStringLiteral("--fps must be a number from 0.1 to 60");
    }
    captions = !parser.isSet(o.noCaptions);
    if (parser.isSet(o.exportVideo) &&
        !VideoWriter::formatForFile(parser.value(o.exportVideo), nullptr))
        return QStringLiteral("--export-video %1: unknown format; use %2")
            .arg(parser.value(o.exportVideo), VideoWriter::supportedExtensions());
    return {};
}

QString ConsoleRun::parse(const QCommandLineParser &parser, const ConsoleOptions &o,
                          const Settings &settings)
{
    screenshot = parser.isSet(o.shot);
    exporting = parser.isSet(o.exportVideo);
    if (QString error = parseSession(parser, o, settings); !error.isEmpty())
        return error;
    if (QString error = parseView(parser, o, settings); !error.isEmpty())
        return error;
    if (QString error = parseLive(parser, o); !error.isEmpty())
        return error;
    if (exporting && screenshot)
        return QStringLiteral("--export-video and --screenshot do not go together");
    if (exporting && liveMode)
        return QStringLiteral("--export-video replays a run; it does not operate a cluster "
                              "(--gate, --agent)");
    return {};
}

// What to replay: scenario or trace, seed, policy (or policy file), speed model, nodes.
QString ConsoleRun::parseSession(const QCommandLineParser &parser, const ConsoleOptions &o,
                                 const Settings &settings)
{
    setup.scenario = parser.isSet(o.scenario) ? parser.value(o.scenario) : settings.scenario();
    bool ok = true;
    setup.seed = parser.isSet(o.seed) ? parser.value(o.seed).toULongLong(&ok) : settings.seed();
    if (!ok || setup.seed == 0)
        return QStringLiteral("--seed needs a positive integer");
    setup.traceFile = parser.isSet(o.trace)      ? parser.value(o.trace)
                      : parser.isSet(o.scenario) ? QString()
                                                 : settings.traceFile();
    setup.policy = parser.isSet(o.policy) ? parser.value(o.policy) : settings.policy();
    if (parser.isSet(o.policy) && !dl2::isScheduler(setup.policy.toStdString()))
        return QStringLiteral("unknown policy '%1'").arg(setup.policy);
    // A policy file: its kind is the policy (and must agree with --policy).
    const bool fromCommandLine = parser.isSet(o.scenario) || parser.isSet(o.trace) || parser.isSet(o.policy);
    setup.checkpoint = parser.isSet(o.checkpoint) ? parser.value(o.checkpoint)
                       : fromCommandLine           ? QString()
                                                   : settings.checkpoint();
    if (!setup.checkpoint.isEmpty()) {
        try {
            const PolicyFile file = inspectPolicyFile(setup.checkpoint);
            if (parser.isSet(o.policy) && file.kind != setup.policy)
                return QStringLiteral("--checkpoint %1 holds a %2 policy, not %3")
                                .arg(setup.checkpoint, file.kind, setup.policy);
            setup.policy = file.kind;
        } catch (const std::exception &e) {
            if (parser.isSet(o.checkpoint))
                return QString::fromStdString(e.what());
            setup.checkpoint.clear(); // a remembered file that went away: the shipped default
        }
    }
    setup.speedModel = parser.isSet(o.speedModel) ? parser.value(o.speedModel) : settings.speedModel();
    setup.speedTable = parser.isSet(o.speedTable) ? parser.value(o.speedTable) : settings.speedTable();
    try {
        setup.speedModel = QString::fromLatin1(
            dl2::toString(dl2::speedModelChoiceFromString(setup.speedModel.toStdString())));
        if (parser.isSet(o.speedTable) || parser.isSet(o.speedModel)) // a bad table fails here, not later
            dl2::profilesFor(dl2::speedModelChoiceFromString(setup.speedModel.toStdString()),
                             setup.speedTable.toStdString());
    } catch (const std::exception &e) {
        return QStringLiteral("--speed-model/--speed-table: %1").arg(QString::fromStdString(e.what()));
    }
    setup.nodes = parser.isSet(o.nodes) ? parser.value(o.nodes).toInt(&ok)
                  : fromCommandLine     ? 0
                                        : settings.nodes();
    if (!ok || setup.nodes < 0 || (parser.isSet(o.nodes) && setup.nodes < 1) || setup.nodes > 1000000)
        return QStringLiteral("--nodes needs an integer from 1 to 1000000");
    return {};
}

// What to show: slot, window size, dock, instructor tools, inference, training baselines.
QString ConsoleRun::parseView(const QCommandLineParser &parser, const ConsoleOptions &o,
                              const Settings &settings)
{
    bool ok = true;
    slot = parser.isSet(o.slot) ? parser.value(o.slot).toInt(&ok) : 0;
    if (!ok || slot < 0)
        return QStringLiteral("--slot needs a non-negative integer");
    size = exporting ? QSize(1280, 720) : QSize(1600, 1000);
    if (parser.isSet(o.size)) {
        const QStringList wh = parser.value(o.size).split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (wh.size() == 2)
            size = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
        if (!okW || !okH || size.width() < 200 || size.height() < 150)
            return QStringLiteral("--size must look like 1600x1000");
    }

    dockName = parser.value(o.showDock);
    if (!dockName.isEmpty() && !MainWindow::dockNames().contains(dockName))
        return QStringLiteral("--show-dock must be one of %1")
                        .arg(MainWindow::dockNames().join(QStringLiteral(", ")));
    if (const QString error = instructor.parse(parser, o, settings); !error.isEmpty())
        return error;
    if (parser.isSet(o.inference)) {
        inferenceNumber = parser.value(o.inference).toInt(&ok);
        if (!ok || inferenceNumber < 1)
            return QStringLiteral("--inference needs a positive integer");
    }

    if (parser.isSet(o.trainingBaselines)) {
        const QString v = parser.value(o.trainingBaselines);
        const qsizetype colon = v.indexOf(QLatin1Char(':'));
        baselineScenario = colon < 0 ? v : v.left(colon);
        if (colon >= 0)
            baselineSeeds = v.mid(colon + 1);
        try {
            dl2::scenarioByName(baselineScenario.toStdString());
        } catch (const std::exception &e) {
            return QStringLiteral("--training-baselines: %1").arg(QString::fromUtf8(e.what()));
        }
    }
    return {};
}

// Operating a cluster: gate, rules, review deadline, audit log, agent and its token.
QString ConsoleRun::parseLive(const QCommandLineParser &parser, const ConsoleOptions &o)
{
    try {
        live.mode = parser.isSet(o.gate) ? dl2::gateModeFromString(parser.value(o.gate).toStdString())
                    : parser.isSet(o.rules) ? dl2::GateMode::Rules
                                            : dl2::GateMode::Automatic;
        live.rulesFile = parser.value(o.rules);
        if (!live.rulesFile.isEmpty())
            dl2::GateRules::load(live.rulesFile.toStdString()); // fail early on a bad file
        if (parser.isSet(o.reviewDeadline)) {
            bool ok = false;
            const int s = parser.value(o.reviewDeadline).toInt(&ok);
            if (!ok || s < 1)
                return QStringLiteral("--review-deadline needs a positive number of seconds");
            live.reviewDeadlineMs = s * 1000;
        }
        const QString at = parser.value(o.atDeadline);
        if (!at.isEmpty() && at != QLatin1String("keep") && at != QLatin1String("apply"))
            return QStringLiteral("--at-deadline must be keep or apply");
        live.atDeadline = at == QLatin1String("apply") ? dl2::DeadlineDefault::Apply
                                                       : dl2::DeadlineDefault::KeepCurrent;
        live.auditFile = parser.value(o.audit);
        live.agentAddress = parser.value(o.agent);
        if (!live.agentAddress.isEmpty()) {
            if (!parser.isSet(o.tokenFile))
                return QStringLiteral("--agent needs --token-file");
            live.token = QString::fromStdString(
                dl2::readFile(parser.value(o.tokenFile).toStdString())).trimmed();
            if (live.token.isEmpty())
                return QStringLiteral("the token file is empty");
        }
        live.learn = parser.isSet(o.learn);
        if (parser.isSet(o.learnSabotage)) {
            bool number = false;
            live.learning.sabotageVersion = parser.value(o.learnSabotage).toInt(&number);
            if (!number || live.learning.sabotageVersion < 1)
                return QStringLiteral("--learn-debug-sabotage-version needs a version >= 1");
        }
        liveMode = live.mode != dl2::GateMode::Automatic || !live.agentAddress.isEmpty() ||
                   live.learn;
    } catch (const std::exception &e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace dl2console
