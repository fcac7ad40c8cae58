#include "types.h"

namespace dl2 {

const char *toString(TaskRole role) { return role == TaskRole::Worker ? "worker" : "ps"; }

const char *toString(TaskKind kind)
{
    switch (kind) {
    case TaskKind::Worker: return "worker";
    case TaskKind::Ps: return "ps";
    case TaskKind::Bundle: return "bundle";
    }
    return "?";
}

} // namespace dl2
