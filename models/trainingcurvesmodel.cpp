#include "trainingcurvesmodel.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>

#include <cmath>
#include <limits>

namespace dl2console {

namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();
constexpr qint64 kMaxFileBytes = 256LL * 1024 * 1024;

bool isValidationJct(const QString &column)
{
    return column == QLatin1String("validation_avg_jct");
}

// "baseline_drf" -> "drf", "optimus_avg_jct" -> "optimus"; empty if not a baseline column.
QString referenceName(const QString &column)
{
    if (column.startsWith(QLatin1String("baseline_")) && column.size() > 9)
        return column.mid(9);
    if (column.endsWith(QLatin1String("_avg_jct")) && column.size() > 8 && !isValidationJct(column))
        return column.left(column.size() - 8);
    return {};
}

} // namespace

TrainingCurvesModel::TrainingCurvesModel(QObject *parent) : QAbstractTableModel(parent)
{
    connect(&m_poll, &QTimer::timeout, this, &TrainingCurvesModel::poll);
}

bool TrainingCurvesModel::isMeasured(const QString &column, double value)
{
    if (!std::isfinite(value))
        return false;
    if (value >= 0)
        return true;
    // Quantities that cannot be negative use -1 for "not measured at this point".
    static const QSet<QString> nonNegative{
        QStringLiteral("seconds"),         QStringLiteral("validation_loss"),
        QStringLiteral("agreement"),       QStringLiteral("value_loss"),
        QStringLiteral("entropy"),         QStringLiteral("validation_avg_jct"),
        QStringLiteral("workers_per_job"), QStringLiteral("ps_per_job"),
        QStringLiteral("explored_fraction")};
    return !(nonNegative.contains(column) || column.endsWith(QLatin1String("_share")) ||
             column.endsWith(QLatin1String("_jct")) || !referenceName(column).isEmpty());
}

bool TrainingCurvesModel::setFile(const QString &path)
{
    if (path != m_path) {
        clear();
        m_path = path;
    }
    return reload();
}

void TrainingCurvesModel::clear()
{
    beginResetModel();
    m_columns.clear();
    m_rows.clear();
    m_updateColumns.clear();
    endResetModel();
    m_path.clear();
    m_error.clear();
    m_lastReported.clear();
    m_seenSize = -1;
    m_seenModified = {};
    Q_EMIT curvesChanged();
}

void TrainingCurvesModel::setFollowing(bool on, int intervalMs)
{
    if (!on) {
        m_poll.stop();
        return;
    }
    m_poll.start(intervalMs);
}

void TrainingCurvesModel::poll()
{
    if (m_path.isEmpty())
        return;
    const QFileInfo info(m_path);
    const qint64 size = info.exists() ? info.size() : -1;
    const QDateTime modified = info.exists() ? info.lastModified() : QDateTime();
    if (size == m_seenSize && modified == m_seenModified)
        return;
    reload();
}

void TrainingCurvesModel::fail(const QString &message)
{
    m_error = message;
    if (message != m_lastReported) {
        m_lastReported = message;
        Q_EMIT errorOccurred(message);
    }
}

bool TrainingCurvesModel::reload()
{
    if (m_path.isEmpty())
        return false;
    const QString name = QDir::toNativeSeparators(m_path);
    QFile file(m_path);
    const QFileInfo info(m_path);
    m_seenSize = info.exists() ? info.size() : -1;
    m_seenModified = info.exists() ? info.lastModified() : QDateTime();
    if (!info.exists() && isFollowing()) {
        m_error.clear(); // the run has not written its first validation yet
        return true;
    }
    if (info.isDir()) {
        fail(tr("%1: is a directory, not a curves file").arg(name));
        return false;
    }
    if (info.size() > kMaxFileBytes) {
        fail(tr("%1: %2 MB is too large for a curves file").arg(name).arg(info.size() >> 20));
        return false;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        fail(tr("%1: cannot be read (%2)").arg(name, file.errorString()));
        return false;
    }
    Parsed parsed;
    QString error;
    if (!parse(file.readAll(), parsed, error)) {
        fail(error);
        return false;
    }
    m_error.clear();
    m_lastReported.clear();
    apply(std::move(parsed));
    return true;
}

bool TrainingCurvesModel::parse(const QByteArray &bytes, Parsed &out, QString &error) const
{
    const QString name = QDir::toNativeSeparators(m_path);
    auto at = [&](int line, const QString &what) {
        error = tr("%1:%2: %3").arg(name).arg(line).arg(what);
        return false;
    };
    int lineNo = 0;
    qsizetype pos = 0;
    int stepColumn = -1;
    while (pos < bytes.size()) {
        qsizetype end = bytes.indexOf('\n', pos);
        const bool terminated = end >= 0;
        if (!terminated)
            end = bytes.size();
        QByteArray line = bytes.mid(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.trimmed().isEmpty())
            continue;
        // While following a run, an unterminated last line may still be being written.
        const bool mayBePartial = !terminated && isFollowing();
        const QList<QByteArray> fields = line.split(',');
        if (out.columns.isEmpty()) {
            QSet<QString> seen;
            for (const QByteArray &f : fields) {
                const QString column = QString::fromUtf8(f.trimmed());
                if (column.isEmpty())
                    return mayBePartial ? true : at(lineNo, tr("empty column name in the header"));
                if (seen.contains(column))
                    return at(lineNo, tr("column '%1' appears twice in the header").arg(column));
                seen.insert(column);
                out.columns << column;
            }
            stepColumn = int(out.columns.indexOf(QStringLiteral("step")));
            if (stepColumn < 0) {
                if (mayBePartial) {
                    out.columns.clear();
                    return true;
                }
                return at(lineNo, tr("the header has no 'step' column (is this a curves file "
                                     "written by dl2 train?)"));
            }
            continue;
        }
        if (fields.size() != out.columns.size()) {
            if (mayBePartial)
                break;
            return at(lineNo, tr("%1 fields, but the header has %2")
                                  .arg(fields.size())
                                  .arg(out.columns.size()));
        }
        std::vector<double> row(size_t(fields.size()), kMissing);
        for (int c = 0; c < fields.size(); ++c) {
            const QByteArray f = fields[c].trimmed();
            if (f.isEmpty() || f.compare("nan", Qt::CaseInsensitive) == 0)
                continue;
            bool ok = false;
            const double v = f.toDouble(&ok);
            if (!ok) {
                if (mayBePartial)
                    return true;
                return at(lineNo, tr("column '%1': '%2' is not a number")
                                      .arg(out.columns[c], QString::fromUtf8(f.left(40))));
            }
            row[size_t(c)] = v;
        }
        if (!std::isfinite(row[size_t(stepColumn)])) {
            if (mayBePartial)
                break;
            return at(lineNo, tr("no step"));
        }
        out.rows.push_back(std::move(row));
    }
    if (out.columns.isEmpty() && !isFollowing()) {
        error = tr("%1: empty file (no header line)").arg(name);
        return false;
    }
    return true;
}

void TrainingCurvesModel::apply(Parsed parsed)
{
    auto sameValue = [](double a, double b) {
        return a == b || (std::isnan(a) && std::isnan(b));
    };
    bool prefix = parsed.columns == m_columns && parsed.rows.size() >= m_rows.size();
    for (size_t r = 0; prefix && r < m_rows.size(); ++r)
        for (size_t c = 0; prefix && c < m_rows[r].size(); ++c)
            prefix = sameValue(m_rows[r][c], parsed.rows[r][c]);
    if (prefix) {
        if (parsed.rows.size() == m_rows.size())
            return; // rewritten, same content
        beginInsertRows({}, int(m_rows.size()), int(parsed.rows.size()) - 1);
        m_rows = std::move(parsed.rows);
        endInsertRows();
    } else {
        beginResetModel();
        m_columns = std::move(parsed.columns);
        m_rows = std::move(parsed.rows);
        m_updateColumns.clear();
        for (const char *name : {"train_loss", "value_loss", "entropy", "reward"})
            if (const int c = int(m_columns.indexOf(QLatin1String(name))); c >= 0)
                m_updateColumns << c;
        if (m_updateColumns.size() < 2) // one column alone cannot tell "no update" from 0
            m_updateColumns.clear();
        endResetModel();
    }
    Q_EMIT curvesChanged();
}

double TrainingCurvesModel::value(int row, int column) const
{
    if (row < 0 || row >= int(m_rows.size()) || column < 0 || column >= m_columns.size())
        return kMissing;
    const auto &values = m_rows[size_t(row)];
    const double v = values[size_t(column)];
    if (!isMeasured(m_columns[column], v))
        return kMissing;
    // A row without an update (RL's validation of its starting point at step 0) writes 0
    // for every update statistic: they were not measured there.
    if (v == 0.0 && m_updateColumns.contains(column)) {
        bool allZero = true;
        for (int c : m_updateColumns)
            allZero = allZero && values[size_t(c)] == 0.0;
        if (allZero)
            return kMissing;
    }
    return v;
}

TrainingCurvesModel::Series TrainingCurvesModel::series(const QString &column) const
{
    Series s;
    const int c = columnIndex(column);
    const int step = columnIndex(QStringLiteral("step"));
    if (c < 0 || step < 0)
        return s;
    for (int r = 0; r < int(m_rows.size()); ++r) {
        const double v = value(r, c);
        if (std::isnan(v))
            continue;
        s.steps << m_rows[size_t(r)][size_t(step)];
        s.values << v;
    }
    return s;
}

bool TrainingCurvesModel::hasData(const QString &column) const
{
    const Series s = series(column);
    for (double v : s.values)
        if (v != 0.0)
            return true;
    return false;
}

double TrainingCurvesModel::lastStep() const
{
    const int step = columnIndex(QStringLiteral("step"));
    return step < 0 || m_rows.empty() ? 0.0 : m_rows.back()[size_t(step)];
}

QVector<TrainingCurvesModel::Reference> TrainingCurvesModel::references() const
{
    QVector<Reference> out;
    for (const QString &column : m_columns) {
        const QString name = referenceName(column);
        if (name.isEmpty())
            continue;
        const Series s = series(column);
        if (!s.isEmpty())
            out.push_back({name, s.values.back()});
    }
    return out;
}

int TrainingCurvesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int TrainingCurvesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_columns.size());
}

QVariant TrainingCurvesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const double v = value(index.row(), index.column());
    switch (role) {
    case ValueRole:
        return v;
    case Qt::DisplayRole:
        return std::isnan(v) ? QVariant() : QVariant(v);
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant TrainingCurvesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Horizontal)
        return section >= 0 && section < m_columns.size() ? QVariant(m_columns[section])
                                                           : QVariant();
    return section + 1;
}

} // namespace dl2console
