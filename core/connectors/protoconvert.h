#pragma once
// Conversions between the dl2.agent.v1 messages and the connector value types (internal to
// dl2connectors: the client and the server share them).

#include "clusterconnector.h"
#include "dl2_agent_v1.pb.h"
#include "modelprofile.h"

#include <QByteArray>
#include <string>

namespace dl2::agentproto {

void fill(agent::v1::Allocation &out, const Allocation &in);
Allocation toAllocation(const agent::v1::Allocation &in);
void fill(agent::v1::ResizeDecision &out, const ResizeDecision &in);
ResizeDecision toDecision(const agent::v1::ResizeDecision &in);
void fill(agent::v1::Snapshot &out, const ClusterView &in, const ProfileSet &profiles);
ClusterView toView(const agent::v1::Snapshot &in, const ProfileSet &profiles);
// The view as the records keep it (the audit log's slot states, the console's learner frames):
// the serialised Snapshot with each job's true total epochs where they differ from the
// scheduler's estimate (toView reads them back), so what the policy saw can be rebuilt.
std::string recordedView(const ClusterView &view, const ProfileSet &profiles);
// Reads it back; throws dl2::Error ("not a readable snapshot", or the job it cannot read).
ClusterView fromRecordedView(const QByteArray &bytes, const ProfileSet &profiles);
void fill(agent::v1::SlotRecord &out, const SlotRecord &in, const ProfileSet &profiles);
SlotRecord toSlotRecord(const agent::v1::SlotRecord &in, const ProfileSet &profiles);
void fill(agent::v1::Ack &out, const Acknowledgment &in);
Acknowledgment toAck(const agent::v1::Ack &in);
void fill(agent::v1::Event &out, const ClusterEvent &in);
ClusterEvent toEvent(const agent::v1::Event &in);

} // namespace dl2::agentproto
