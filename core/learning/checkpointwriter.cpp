#include "checkpointwriter.h"

#include "curves.h"
#include "error.h"
#include "fileio.h"

#include <QFile>
#include <QFileInfo>

namespace dl2 {

std::string resumePath(const std::string &checkpoint) { return checkpoint + ".resume"; }

Checkpoint readResumeCheckpoint(const std::string &path, std::optional<PolicyKind> expected)
{
    const std::string latest = resumePath(path);
    if (path.size() > 7 && path.compare(path.size() - 7, 7, ".resume") == 0)
        return readCheckpoint(path, expected);
    if (!QFileInfo::exists(QString::fromStdString(latest)))
        return readCheckpoint(path, expected);
    Checkpoint l = readCheckpoint(latest, expected);
    if (QFileInfo::exists(QString::fromStdString(path))) {
        Checkpoint best = readCheckpoint(path, expected);
        if (best.info.resume.present && l.info.resume.present &&
            best.info.resume.step > l.info.resume.step)
            return best;
    }
    return l;
}

std::vector<CurvePoint> curveBefore(const Checkpoint &resumed)
{
    std::string base = resumed.origin;
    if (base.size() > 7 && base.compare(base.size() - 7, 7, ".resume") == 0)
        base.resize(base.size() - 7);
    std::vector<CurvePoint> out = readCurves(base);
    std::erase_if(out, [&](const CurvePoint &p) {
        return p.step < 0 || p.step > resumed.info.resume.step;
    });
    return out;
}

void checkResumeWorldSize(const ResumeState &resume, int worldSize, const std::string &origin)
{
    if (resume.worldSize > 0 && resume.worldSize != worldSize)
        throw Error(origin + ": written by a run of world size " + std::to_string(resume.worldSize) +
                    ", this run has world size " + std::to_string(worldSize) +
                    " (resume with --world-size " + std::to_string(resume.worldSize) + " or --nproc " +
                    std::to_string(resume.worldSize) +
                    ": each rank's environments, data and random numbers depend on it)");
}

CheckpointWriter::CheckpointWriter(std::string path, PolicySpec spec, TrainingInfo info,
                                   int worldSize, bool withOptimizer, bool fresh)
    : m_path(std::move(path)), m_spec(std::move(spec)), m_info(std::move(info)),
      m_worldSize(worldSize), m_withOptimizer(withOptimizer)
{
    if (fresh && !m_path.empty())
        QFile::remove(QString::fromStdString(resumePath(m_path)));
}

void CheckpointWriter::fill(long long step, double jct, const TrainResult &result,
                            TrainerState state)
{
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
}

void CheckpointWriter::save(long long step, double jct, const TrainResult &result,
                            TrainerState state, const std::function<NetworkArchive()> &network)
{
    if (m_path.empty())
        return;
    fill(step, jct, result, std::move(state));
    writeFileAtomically(m_path, encodeCheckpoint(m_spec, m_info, network(), m_withOptimizer));
}

void CheckpointWriter::saveResume(long long step, const TrainResult &result, TrainerState state,
                                  const std::function<NetworkArchive()> &network)
{
    if (m_path.empty() || step == m_lastResumeStep)
        return;
    double jct = -1.0;
    if (!result.curve.empty() && result.curve.back().step == step)
        jct = result.curve.back().validationAvgJct;
    fill(step, jct, result, std::move(state));
    writeFileAtomically(resumePath(m_path), encodeCheckpoint(m_spec, m_info, network(), true));
    m_lastResumeStep = step;
}

} // namespace dl2
