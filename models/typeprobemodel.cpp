#include "typeprobemodel.h"

#include "error.h"

#include <QtConcurrent/QtConcurrentRun>

#ifdef DL2_CONSOLE_LEARNING
#include "checkpoint.h"
#include "policyprobe.h"
#include "registerpolicies.h"
#include "scenario.h"
#endif

namespace dl2console {

TypeProbeResult probeCheckpointTypes(const QString &nameOrPath)
{
#ifdef DL2_CONSOLE_LEARNING
    const std::string path = dl2::resolveCheckpoint(nameOrPath.toStdString());
    const dl2::Checkpoint c = dl2::readCheckpoint(path); // its errors name the file
    // As `dl2 policy probe` without options: the checkpoint's scenario, seed 100, 40 states
    // drawn from slots 10-29.
    const std::string scenario = dl2::defaultProbeScenario(c);
    const dl2::TypeProbeOptions options;
    dl2::TypeProbe p;
    try {
        p = dl2::probeTypes(c, dl2::scenarioByName(scenario), dl2::ProfileSet::reference(),
                            options);
    } catch (const dl2::Error &e) {
        // Its errors name the file: a shipped policy by the name it was asked for instead of
        // its resource path.
        std::string message = e.what();
        if (path.starts_with(":/") && message.starts_with(path))
            message.replace(0, path.size(), nameOrPath.toStdString());
        throw dl2::Error(message);
    }
    TypeProbeResult r;
    r.checkpoint = nameOrPath;
    r.scenario = QString::fromStdString(scenario);
    r.seed = options.seed;
    r.firstSlot = options.firstSlot;
    r.lastSlot = options.playSlots - 1;
    r.states = p.statesKept;
    for (const std::string &t : p.types)
        r.types << QString::fromStdString(t);
    static_assert(TypeProbeResult::kBands == dl2::TypeProbe::kBands &&
                  int(TypeProbeModel::OneWorkerManyPs) == dl2::TypeProbe::OneWorkerManyPs &&
                  int(TypeProbeModel::MoreWorkers) == dl2::TypeProbe::MoreWorkers);
    for (int band = 0; band < TypeProbeResult::kBands; ++band) {
        r.rows[band] = QList<int>(p.rows[band].begin(), p.rows[band].end());
        for (const auto &ofOwnType : p.q[band])
            r.q[band] << QList<double>(ofOwnType.begin(), ofOwnType.end());
    }
    r.tied = p.tied;
    for (size_t l = 0; l < p.layers.size(); ++l)
        r.layers[l] = {p.layers[l].own, p.layers[l].global, p.layers[l].ownActive,
                       p.layers[l].globalActive, p.layers[l].ownVarying};
    r.typeWeight = p.typeWeight;
    r.otherWeight = p.otherWeight;
    for (int band = 0; band < TypeProbeResult::kBands; ++band)
        r.spreads[band] = p.spread(band);
    return r;
#else
    throw dl2::Error(nameOrPath.toStdString() + ": this build cannot read checkpoints");
#endif
}

TypeProbeModel::TypeProbeModel(QObject *parent) : QAbstractTableModel(parent)
{
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, [this] {
        const Outcome out = m_watcher.result();
        if (!out.error.isEmpty()) {
            setResult({});
            Q_EMIT errorOccurred(out.error);
            return;
        }
        setResult(out.result);
        Q_EMIT probed();
    });
}

TypeProbeModel::~TypeProbeModel()
{
    m_watcher.waitForFinished();
}

void TypeProbeModel::probe(const QString &nameOrPath)
{
    m_watcher.setFuture(QtConcurrent::run([nameOrPath]() -> Outcome {
        try {
            return {probeCheckpointTypes(nameOrPath), {}};
        } catch (const std::exception &e) {
            return {{}, QString::fromStdString(e.what())};
        }
    }));
}

void TypeProbeModel::setResult(const TypeProbeResult &result)
{
    beginResetModel();
    m_result = result;
    endResetModel();
}

QString TypeProbeModel::bandTitle(Band band)
{
    switch (band) {
    case OneWorkerOnePs:
        return tr("1 worker, 1 PS");
    case OneWorkerFewPs:
        return tr("1 worker, 2-8 PSs");
    case OneWorkerManyPs:
        return tr("1 worker, 9+ PSs");
    case MoreWorkers:
        return tr("2+ workers");
    }
    return {};
}

QByteArray TypeProbeModel::bandKey(Band band)
{
#ifdef DL2_CONSOLE_LEARNING
    return dl2::TypeProbe::bandKey(band); // the CLI's JSON keys, from one place
#else
    Q_UNUSED(band);
    return {}; // this build probes nothing, so the CSV has no rows
#endif
}

void TypeProbeModel::setBand(Band band)
{
    if (band == m_band)
        return;
    beginResetModel();
    m_band = band;
    endResetModel();
}

QByteArray TypeProbeModel::toCsv() const
{
    QByteArray out = "band,type,rows";
    for (const QString &t : m_result.types)
        out += ",q_as_" + t.toUtf8();
    out += '\n';
    for (int band = 0; band < TypeProbeResult::kBands; ++band)
        for (qsizetype own = 0; own < m_result.types.size(); ++own) {
            const int rows = m_result.rows[band].value(own);
            if (rows == 0)
                continue;
            out += bandKey(Band(band)) + ',' + m_result.types[own].toUtf8() + ',' +
                   QByteArray::number(rows);
            for (const double v : m_result.q[band][own])
                out += ',' + QByteArray::number(v, 'g', 6);
            out += '\n';
        }
    return out;
}

int TypeProbeModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_result.types.size());
}

int TypeProbeModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_result.types.size());
}

QVariant TypeProbeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const int rows = m_result.rows[m_band].value(index.row());
    if (role == RowsRole)
        return rows;
    if (rows == 0) // no row of this type was seen
        return {};
    const double q = m_result.q[m_band][index.row()][index.column()];
    switch (role) {
    case Qt::DisplayRole:
        return QString::number(q, 'f', 3);
    case ValueRole:
        return q;
    case Qt::TextAlignmentRole:
        return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return tr("%1 rows (%2) given %3's type: mean q(worker | row) %4")
            .arg(m_result.types[index.row()])
            .arg(rows)
            .arg(m_result.types[index.column()])
            .arg(q, 0, 'f', 3);
    default:
        return {};
    }
}

QVariant TypeProbeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (section < 0 || section >= m_result.types.size())
        return {};
    const QString &type = m_result.types[section];
    if (role == Qt::ToolTipRole)
        return orientation == Qt::Horizontal ? tr("Rows given %1's type").arg(type)
                                             : tr("Rows whose job is %1: %2 seen")
                                                   .arg(type)
                                                   .arg(m_result.rows[m_band].value(section));
    if (role != Qt::DisplayRole)
        return {};
    return orientation == Qt::Horizontal
               ? type
               : QStringLiteral("%1 (%2)").arg(type).arg(m_result.rows[m_band].value(section));
}

} // namespace dl2console
