#include "trainingplots.h"

#include "plot.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dl2console {

namespace {

const QString kJct = QStringLiteral("validation_avg_jct");

QString referenceLabel(const QString &name)
{
    if (name == QLatin1String("drf"))
        return QStringLiteral("DRF");
    if (name == QLatin1String("optimus"))
        return QStringLiteral("Optimus");
    if (name == QLatin1String("lower_bound") || name == QLatin1String("best_config"))
        return QObject::tr("lower bound");
    return name;
}

// Clears a plot and sets up the common update axis.
void reset(Plot *p, double xMax)
{
    p->clearGraphs();
    p->clearItems();
    p->setMessage({});
    p->xAxis->setLabel(QObject::tr("update"));
    const double x = std::max(1.0, xMax);
    p->xAxis->setRange(-0.015 * x, 1.015 * x); // room for markers at the ends
    p->yAxis2->setVisible(false);
    p->legend->setVisible(false);
}

QCPGraph *line(Plot *p, const TrainingCurvesModel::Series &s, const QString &name, int colour,
               bool markers)
{
    QCPGraph *g = p->addGraph();
    g->setName(name);
    g->setPen(QPen(p->seriesColor(colour), 1.8));
    if (markers)
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4.5));
    g->setData(s.steps, s.values, true);
    return g;
}

void fitY(Plot *p, double lo, double hi, bool fromZero)
{
    if (!(hi >= lo)) {
        p->yAxis->setRange(0, 1);
        return;
    }
    if (fromZero)
        lo = std::min(0.0, lo);
    // A flat series (one validation so far) gets a range around its value, not one so
    // narrow that every tick reads the same number.
    const double span = hi - lo;
    const double pad = span > 1e-9 * std::max(1.0, std::abs(hi)) ? span * 0.08
                       : hi != 0.0                               ? 0.05 * std::abs(hi)
                                                                 : 1.0;
    p->yAxis->setRange(fromZero && lo >= 0 ? 0.0 : lo - pad, hi + pad);
}

void minMax(const QVector<double> &v, double &lo, double &hi)
{
    for (double x : v) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
}

// A supervised run: it measures agreement with the teacher or a validation loss.
bool isSupervised(const TrainingCurvesModel &m)
{
    return m.hasData(QStringLiteral("agreement")) || m.hasData(QStringLiteral("validation_loss"));
}

} // namespace

QStringList actionShareColumns(const TrainingCurvesModel &m)
{
    QStringList out;
    for (const char *known : {"worker_share", "ps_share", "bundle_share", "stop_share"})
        if (m.hasColumn(QLatin1String(known)))
            out << QLatin1String(known);
    QStringList others;
    for (const QString &c : m.columns())
        if (c.endsWith(QLatin1String("_share")) && !out.contains(c))
            others << c;
    others.sort();
    return out + others;
}

void plotValidationJct(Plot *p, const TrainingCurvesModel &m, const TrainingReferences &references,
                       double xMax, const ComparedCurves &compared)
{
    reset(p, xMax);
    p->yAxis->setLabel(QObject::tr("validation avg JCT (slots)"));
    const auto s = m.series(kJct);
    const auto other = compared.model ? compared.model->series(kJct) : TrainingCurvesModel::Series{};
    double lo = INFINITY, hi = -INFINITY;
    if (!other.isEmpty()) { // first, so the run's own line is drawn over it
        QCPGraph *g = line(p, other, compared.name, 3, true);
        QPen pen = g->pen();
        pen.setStyle(Qt::DashLine);
        g->setPen(pen);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, 4.5));
        minMax(other.values, lo, hi);
    }
    if (!s.isEmpty()) {
        line(p, s, QObject::tr("validation avg JCT"), 0, true);
        minMax(s.values, lo, hi);
        const auto best = std::min_element(s.values.begin(), s.values.end());
        QCPGraph *b = p->addGraph();
        b->setName(QObject::tr("best"));
        b->setLineStyle(QCPGraph::lsNone);
        b->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, p->seriesColor(0), 13));
        b->setPen(QPen(p->seriesColor(0), 2));
        b->addData(s.steps[best - s.values.begin()], *best);
    }
    for (const auto &r : references) {
        lo = std::min(lo, r.value);
        hi = std::max(hi, r.value);
    }
    // Labels sit at the right end of their line; a label too close to the previous one (in
    // value order) moves left so they do not overlap.
    QVector<int> order(references.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](int a, int b) { return references[a].value < references[b].value; });
    // Two close lines: the lower one's label goes below its line, the upper one's above;
    // a third close one moves left.
    QVector<double> labelX(references.size(), 0.995);
    QVector<bool> below(references.size(), false);
    for (int k = 1; k < order.size(); ++k) {
        const double gap = references[order[k]].value - references[order[k - 1]].value;
        if (gap >= 0.07 * (hi - lo))
            continue;
        if (k >= 2 && !below[order[k - 1]] &&
            references[order[k - 1]].value - references[order[k - 2]].value < 0.07 * (hi - lo))
            labelX[order[k]] = labelX[order[k - 1]] - 0.35;
        else
            below[order[k - 1]] = true;
    }
    for (int i = 0; i < references.size(); ++i) {
        const auto &r = references[i];
        QColor c = p->foreground();
        c.setAlphaF(0.6f);
        auto *ref = new QCPItemStraightLine(p);
        ref->setPen(QPen(c, 1.2, i % 2 ? Qt::DotLine : Qt::DashLine));
        ref->point1->setCoords(0, r.value);
        ref->point2->setCoords(1, r.value);
        auto *label = new QCPItemText(p);
        label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        label->position->setTypeY(QCPItemPosition::ptPlotCoords);
        label->position->setCoords(std::max(0.3, labelX[i]), r.value);
        label->setPositionAlignment(Qt::AlignRight | (below[i] ? Qt::AlignTop : Qt::AlignBottom));
        label->setColor(p->foreground());
        label->setText(QStringLiteral("%1 %2").arg(referenceLabel(r.name)).arg(r.value, 0, 'f', 2));
    }
    if (s.isEmpty() && other.isEmpty())
        p->setMessage(m.rowCount() == 0 ? QObject::tr("No curves yet")
                                        : QObject::tr("No validation in this curves file yet"));
    p->legend->setVisible(!s.isEmpty() || !other.isEmpty());
    fitY(p, lo, hi, false);
    p->replot(QCustomPlot::rpQueuedReplot);
}

void plotEntropy(Plot *p, const TrainingCurvesModel &m, double xMax)
{
    reset(p, xMax);
    p->yAxis->setLabel(QObject::tr("policy entropy (nats)"));
    double lo = INFINITY, hi = -INFINITY;
    if (m.hasData(QStringLiteral("entropy"))) {
        const auto s = m.series(QStringLiteral("entropy"));
        line(p, s, QObject::tr("entropy"), 1, false);
        minMax(s.values, lo, hi);
    } else {
        p->setMessage(m.rowCount() == 0 ? QObject::tr("No curves yet")
                      : isSupervised(m)
                          ? QObject::tr("No entropy in this curves file\n(supervised runs do "
                                        "not measure it)")
                          : QObject::tr("No entropy measured yet"));
    }
    fitY(p, lo, hi, true);
    p->replot(QCustomPlot::rpQueuedReplot);
}

void plotLosses(Plot *p, const TrainingCurvesModel &m, double xMax)
{
    reset(p, xMax);
    double lo = INFINITY, hi = -INFINITY;
    if (m.hasData(QStringLiteral("value_loss"))) {
        p->setTitle(QObject::tr("Value loss (the critic's squared error)"));
        p->yAxis->setLabel(QObject::tr("value loss"));
        const auto s = m.series(QStringLiteral("value_loss"));
        line(p, s, QObject::tr("value loss"), 2, false);
        minMax(s.values, lo, hi);
    } else if (m.hasData(QStringLiteral("train_loss"))) {
        // Without value loss: a supervised run, or RL without a critic (the episode credits'
        // policy-gradient loss; ES's distance moved).
        const bool supervised = isSupervised(m);
        p->setTitle(supervised ? QObject::tr("Loss (supervised: cross-entropy against the teacher)")
                               : QObject::tr("Loss the trainer reports (RL without a critic)"));
        p->yAxis->setLabel(supervised ? QObject::tr("cross-entropy")
                                      : QObject::tr("policy loss (ES: distance moved)"));
        const auto train = m.series(QStringLiteral("train_loss"));
        line(p, train, QObject::tr("training"), 2, false);
        minMax(train.values, lo, hi);
        const auto val = m.series(QStringLiteral("validation_loss"));
        if (!val.isEmpty()) {
            line(p, val, QObject::tr("validation"), 0, true);
            minMax(val.values, lo, hi);
        }
        p->legend->setVisible(true);
    } else {
        p->setTitle(QObject::tr("Value loss"));
        p->setMessage(m.rowCount() == 0 ? QObject::tr("No curves yet")
                                        : QObject::tr("No losses measured yet"));
    }
    fitY(p, lo, hi, true);
    p->replot(QCustomPlot::rpQueuedReplot);
}

void plotActionMix(Plot *p, const TrainingCurvesModel &m, double xMax)
{
    reset(p, xMax);
    p->yAxis->setLabel(QObject::tr("share of decisions (%)"));
    p->yAxis->setRange(0, 100);
    const QStringList shares = actionShareColumns(m);
    QVector<int> columns;
    for (const QString &c : shares)
        columns << m.columnIndex(c);
    const int stepColumn = m.columnIndex(QStringLiteral("step"));
    // Stack: graph k is the cumulative share of columns 0..k, filled down to graph k-1.
    QVector<QVector<double>> cumulative(shares.size());
    QVector<double> steps;
    for (int r = 0; r < m.rowCount(); ++r) {
        bool any = false;
        for (int c : columns)
            any = any || !std::isnan(m.value(r, c));
        if (!any)
            continue;
        steps << m.value(r, stepColumn);
        double sum = 0.0;
        for (int k = 0; k < columns.size(); ++k) {
            const double v = m.value(r, columns[k]);
            sum += std::isnan(v) ? 0.0 : v;
            cumulative[k] << 100.0 * sum;
        }
    }
    QCPGraph *below = nullptr;
    for (int k = 0; k < shares.size() && !steps.isEmpty(); ++k) {
        QCPGraph *g = p->addGraph();
        QString name = shares[k];
        name.chop(6); // "_share"
        g->setName(name == QLatin1String("ps") ? QStringLiteral("PS") : name);
        QColor c = p->seriesColor(k);
        g->setPen(QPen(c.darker(115), 1.2));
        c.setAlphaF(0.55f);
        g->setBrush(c);
        g->setChannelFillGraph(below); // nullptr: filled down to zero
        g->setData(steps, cumulative[k], true);
        below = g;
    }
    // Not a kind of action, so not in the stack: the share exploration decided, as a line.
    const auto explored = m.series(QStringLiteral("explored_fraction"));
    if (!explored.isEmpty()) {
        QVector<double> percent;
        for (double v : explored.values)
            percent << 100.0 * v;
        QCPGraph *g = p->addGraph();
        g->setName(QObject::tr("explored"));
        g->setPen(QPen(p->foreground(), 1.5, Qt::DotLine));
        g->setData(explored.steps, percent, true);
    }
    const auto workers = m.series(QStringLiteral("workers_per_job"));
    if (!workers.isEmpty()) {
        p->yAxis2->setVisible(true);
        p->yAxis2->setLabel(QObject::tr("workers per job"));
        QCPGraph *g = p->addGraph(p->xAxis, p->yAxis2);
        g->setName(QObject::tr("workers per job"));
        g->setPen(QPen(p->foreground(), 2.0, Qt::DashLine));
        g->setData(workers.steps, workers.values, true);
        double lo = 0.0, hi = 1.0;
        minMax(workers.values, lo, hi);
        p->yAxis2->setRange(0, hi * 1.1);
    }
    p->legend->setVisible(p->graphCount() > 0);
    if (p->graphCount() == 0)
        p->setMessage(m.rowCount() == 0
                          ? QObject::tr("No curves yet")
                          : QObject::tr("This curves file records no action mix\n(columns "
                                        "worker_share, ps_share,\nbundle_share, stop_share)"));
    p->replot(QCustomPlot::rpQueuedReplot);
}

QString trainingSummary(const TrainingCurvesModel &m, const TrainingReferences &references,
                        const ComparedCurves &compared)
{
    auto change = [](double v, double base) -> QString {
        if (!(base > 0))
            return QString();
        const double pct = 100.0 * (v / base - 1.0);
        return QString(pct < 0 ? QChar(0x2212) : QChar(u'+')) +
               QString::number(std::fabs(pct), 'f', 1) + QStringLiteral(" %");
    };
    // "start S (update U) → best B at update V (±x %) · last L"; the best's value in `best`.
    auto describe = [&](const TrainingCurvesModel::Series &s, double &best) {
        const auto b = std::min_element(s.values.begin(), s.values.end());
        best = *b;
        return QObject::tr("start <b>%1</b> (update %2) → best <b>%3</b> at update %4 (%5) · "
                           "last %6")
            .arg(s.values.front(), 0, 'f', 2)
            .arg(s.steps.front())
            .arg(*b, 0, 'f', 2)
            .arg(s.steps[b - s.values.begin()])
            .arg(change(*b, s.values.front()))
            .arg(s.values.back(), 0, 'f', 2);
    };
    const auto s = m.series(kJct);
    const auto other = compared.model ? compared.model->series(kJct) : TrainingCurvesModel::Series{};
    QString text;
    double best = NAN, otherBest = NAN;
    if (!s.isEmpty()) {
        text = QObject::tr("Validation avg JCT: ") + describe(s, best);
        for (const auto &r : references)
            text += QObject::tr(" · best vs %1: %2").arg(referenceLabel(r.name), change(best, r.value));
    }
    if (!other.isEmpty()) {
        if (!text.isEmpty())
            text += QStringLiteral("<br>");
        text += QObject::tr("Compared, %1: ").arg(compared.name.toHtmlEscaped()) +
                describe(other, otherBest);
        if (!s.isEmpty())
            text += QObject::tr(" · this run's best vs its best: %1").arg(change(best, otherBest));
    }
    return text;
}

} // namespace dl2console
