#pragma once
// The console's online learning runs its learner in a dl2-train child (the console never loads
// libtorch): after every slot the console writes one frame to the child's stdin - the view the
// policy planned on, the gate's final entries, the version that planned and every inference
// of the acting policy (state, action, its probability, job) - and the child answers with one
// JSON object per line (versions, events, curve points; see app/train/cmd_onlinelearner.cpp).
// A frame is a 4-byte big-endian length and a QDataStream payload; the view travels as the
// agent's wire format (a serialised dl2.agent.v1.Snapshot, with the true epochs), as the audit
// log stores it.

#include "clusterconnector.h"
#include "decisiongate.h"
#include "modelprofile.h"

#include <QByteArray>
#include <cstdint>
#include <optional>
#include <vector>

namespace dl2 {

struct LearnerSlotFrame
{
    ClusterView view; // planned on
    std::vector<GateEntry> entries;
    int version = 0;  // of the acting policy that planned
    QByteArray trace; // its inferences: core/learning/actingtrace.h's byte form
};

QByteArray encodeLearnerFrame(const LearnerSlotFrame &frame, const ProfileSet &profiles);
// Takes one complete frame off the front of `buffer` (nullopt: not complete yet); throws
// dl2::Error for a frame that does not decode.
std::optional<LearnerSlotFrame> takeLearnerFrame(QByteArray &buffer, const ProfileSet &profiles);

} // namespace dl2
