#include "liverig.h"

#include "auditlog.h"
#include "decisionadapter.h"
#include "grpcconnector.h"
#include "policyplanner.h"
#ifdef DL2_CONSOLE_LEARNING
#include "registerpolicies.h"
#endif
#include "simulatedconnector.h"

#include <QFileInfo>
#include <QUndoStack>
#include <QUuid>

namespace dl2console {

LiveRig::LiveRig() = default;
LiveRig::~LiveRig() = default;
LiveRig::LiveRig(LiveRig &&) noexcept = default;
LiveRig &LiveRig::operator=(LiveRig &&) noexcept = default;

dl2::ClusterConnector &LiveRig::connector() const
{
    if (remote)
        return *remote;
    return *simulated;
}

namespace {

std::unique_ptr<dl2::PolicyPlanner> makePlanner(const LiveSetup &setup)
{
    dl2::SchedulerConfig policyConfig;
    policyConfig.checkpoint = setup.checkpoint.toStdString();
    policyConfig.scenario = setup.scenario.toStdString();
    auto planner = std::make_unique<dl2::PolicyPlanner>(setup.policy.toStdString(), policyConfig);
    attachDecisionReader(*planner); // learned policies: confidence of each decision
#ifdef DL2_CONSOLE_LEARNING
    // The audit log names a frozen learned policy by its checkpoint's name.
    if (setup.policy == QLatin1String("dl2") || setup.policy == QLatin1String("dl2-plus")) {
        const QFileInfo file(QString::fromStdString(
            setup.checkpoint.isEmpty()
                ? dl2::shippedPolicyPath(dl2::policyKindFromString(setup.policy.toStdString()),
                                         policyConfig.scenario, policyConfig.measuredSpeeds)
                : dl2::resolveCheckpoint(setup.checkpoint.toStdString())));
        planner->setVersion(file.completeBaseName().toStdString());
    }
#endif
    return planner;
}

} // namespace

LiveRig buildLiveRig(const LiveSetup &setup)
{
    LiveRig rig;
    rig.audit = std::make_unique<dl2::AuditLog>(setup.auditFile.toStdString());
    rig.planner = makePlanner(setup);
    rig.undo = std::make_unique<QUndoStack>();
    if (setup.agentAddress.isEmpty()) {
        rig.simulated =
            std::make_unique<dl2::SimulatedConnector>(setup.scenario.toStdString(), setup.seed);
        // A fresh simulator on a reused audit log: its own run id, nothing to re-send.
        rig.runId = rig.audit->runId() + "-" +
                    QUuid::createUuid().toString(QUuid::Id128).left(6).toStdString();
    } else {
        dl2::GrpcConnectorOptions o;
        o.address = setup.agentAddress.toStdString();
        o.token = setup.token.toStdString();
        o.deadline = std::chrono::milliseconds(setup.callDeadlineMs);
        o.retryBudget = std::chrono::milliseconds(0); // one attempt: we reconnect ourselves
        rig.remote = std::make_unique<dl2::GrpcConnector>(o);
        rig.runId = rig.audit->runId();
    }
    return rig;
}

} // namespace dl2console
