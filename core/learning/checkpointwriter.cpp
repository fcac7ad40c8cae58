#include "checkpointwriter.h"

#include "curves.h"
#include "fileio.h"

namespace dl2 {

CheckpointWriter::CheckpointWriter(std::string path, PolicySpec spec, TrainingInfo info,
                                   int worldSize, bool withOptimizer)
    : m_path(std::move(path)), m_spec(std::move(spec)), m_info(std::move(info)),
      m_worldSize(worldSize), m_withOptimizer(withOptimizer)
{
}

void CheckpointWriter::save(long long step, double jct, const TrainResult &result,
                            TrainerState state, const std::function<NetworkArchive()> &network)
{
    if (m_path.empty())
        return;
    m_info.step = step;
    m_info.validationAvgJct = jct;
    ResumeState &r = m_info.resume;
    r.present = true;
    r.step = step;
    r.rng = {state.rng};
    r.nextSeed = state.nextSeed;
    r.bestValidationAvgJct = result.bestValidationAvgJct;
    r.bestStep = result.bestStep;
    r.values = std::move(state.values);
    r.worldSize = m_worldSize;
    writeFileAtomically(m_path, encodeCheckpoint(m_spec, m_info, network(), m_withOptimizer));
}

} // namespace dl2
