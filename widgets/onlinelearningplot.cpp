#include "onlinelearningplot.h"

#include "plot.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

namespace dl2console {

namespace {
constexpr int kMaxLabels = 14; // version labels drawn; more marks are drawn without a label
}

OnlineLearningPlot::OnlineLearningPlot(QWidget *parent)
    : QWidget(parent), m_plot(new Plot(this)), m_status(new QLabel(this))
{
    m_plot->setObjectName(QStringLiteral("onlineLearning"));
    m_status->setObjectName(QStringLiteral("onlineLearningStatus"));
    m_status->setContentsMargins(6, 2, 6, 0);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(m_status);
    layout->addWidget(m_plot, 1);
    // Per-slot rewards, faint, behind the rolling ones.
    m_learningSlot = m_plot->addGraph();
    m_learningSlot->removeFromLegend();
    m_referenceSlot = m_plot->addGraph();
    m_referenceSlot->removeFromLegend();
    m_learning = m_plot->addGraph();
    m_learning->setName(tr("learning policy (rolling)"));
    m_reference = m_plot->addGraph();
    m_reference->setName(tr("frozen reference (rolling)"));
    m_plot->xAxis->setTicker(QSharedPointer<SlotTicker>::create());
    m_plot->xAxis->setLabel(tr("slot"));
    m_plot->yAxis->setLabel(tr("reward per slot"));
    m_plot->legend->setVisible(true);
    m_plot->placeLegendAbove();
    connect(m_plot, &Plot::colorsChanged, this, &OnlineLearningPlot::restyle);
    restyle();
    setCurve({}, {}, {});
}

void OnlineLearningPlot::restyle()
{
    const QColor learn = m_plot->seriesColor(0), ref = m_plot->seriesColor(2);
    m_learning->setPen(QPen(learn, 2.0));
    m_reference->setPen(QPen(ref, 1.8, Qt::DashLine));
    QColor faintLearn = learn, faintRef = ref;
    faintLearn.setAlphaF(0.35f);
    faintRef.setAlphaF(0.35f);
    m_learningSlot->setPen(QPen(faintLearn, 1.0));
    m_referenceSlot->setPen(QPen(faintRef, 1.0, Qt::DotLine));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void OnlineLearningPlot::setCurve(const std::vector<LearningPoint> &curve,
                                  const std::vector<LearningMark> &marks,
                                  const LearningStatus &status)
{
    QVector<double> x, rl, rr, sl, sr;
    double lo = 0.0, hi = 0.1;
    for (const LearningPoint &p : curve) {
        x << p.slot;
        rl << p.rollingReward;
        rr << p.rollingReference;
        sl << p.reward;
        sr << p.reference;
        hi = std::max({hi, p.rollingReward, p.rollingReference, p.reward, p.reference});
    }
    m_learning->setData(x, rl, true);
    m_reference->setData(x, rr, true);
    m_learningSlot->setData(x, sl, true);
    m_referenceSlot->setData(x, sr, true);
    const double x0 = curve.empty() ? 0.0 : curve.front().slot;
    const double x1 = curve.empty() ? 10.0 : std::max<double>(curve.back().slot, x0 + 10);
    m_plot->xAxis->setRange(x0 - 0.5, x1 + 0.5);
    m_plot->yAxis->setRange(lo, hi * 1.18); // headroom for the version labels

    // Version marks: every change of the deciding version, labelled while there is room.
    for (int i = m_plot->itemCount() - 1; i >= 0; --i) {
        QCPAbstractItem *item = m_plot->item(i);
        if (item->property("learningMark").toBool())
            m_plot->removeItem(item);
    }
    m_versionMarks = m_rollbackMarks = 0;
    // Labels at least 1/kMaxLabels of the axis apart (a rollback's always).
    const double spacing = (x1 - x0) / kMaxLabels;
    double lastLabel = -1e9;
    const QColor fg = m_plot->foreground();
    const QColor red(200, 40, 40);
    for (const LearningMark &m : marks) {
        auto *line = new QCPItemStraightLine(m_plot);
        line->setProperty("learningMark", true);
        line->setSelectable(false);
        QColor c = m.rollback ? red : fg;
        c.setAlphaF(m.rollback ? 0.9f : 0.28f);
        line->setPen(QPen(c, m.rollback ? 2.0 : 1.0, m.rollback ? Qt::SolidLine : Qt::DotLine));
        line->point1->setCoords(m.slot - 0.5, 0);
        line->point2->setCoords(m.slot - 0.5, 1);
        const bool label = m.rollback || m.slot - lastLabel >= spacing;
        if (label && !m.rollback)
            lastLabel = m.slot;
        if (m.rollback)
            ++m_rollbackMarks;
        else
            ++m_versionMarks;
        if (!label)
            continue;
        auto *text = new QCPItemText(m_plot);
        text->setProperty("learningMark", true);
        text->setSelectable(false);
        text->position->setTypeX(QCPItemPosition::ptPlotCoords);
        text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        text->position->setCoords(m.slot - 0.5, m.rollback ? 0.12 : 0.01);
        text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        text->setColor(m.rollback ? red : fg);
        QFont f = m_plot->font();
        f.setPointSizeF(f.pointSizeF() * 0.85);
        f.setBold(m.rollback);
        text->setFont(f);
        text->setText(m.rollback ? tr("rollback to v%1").arg(m.version)
                                 : QStringLiteral("v%1").arg(m.version));
    }

    QString line = status.stateText();
    if (status.state != LearningStatus::State::Off || status.versions > 0)
        line += tr(" · %n version(s) published", nullptr, status.versions) +
                tr(" · last good v%1 · %n rollback(s)", nullptr, status.rollbacks)
                    .arg(status.lastGood);
    if (!curve.empty())
        line += tr(" · rolling reward %1 vs reference %2")
                    .arg(curve.back().rollingReward, 0, 'f', 3)
                    .arg(curve.back().rollingReference, 0, 'f', 3);
    m_status->setText(line);
    m_status->setToolTip(status.message);
    if (curve.empty())
        m_plot->setMessage(
            status.state == LearningStatus::State::Off && marks.empty()
                ? tr("Turn on Operations > Learn (live mode, dl2 or dl2-plus)\nto fine-tune the "
                     "policy online and see its curve here")
                : tr("Learning: the curve starts when the first slot's reward is in"));
    else
        m_plot->setMessage({});
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QVector<QPointF> OnlineLearningPlot::learningPoints() const
{
    return dataPoints(m_learning);
}

QVector<QPointF> OnlineLearningPlot::referencePoints() const
{
    return dataPoints(m_reference);
}

QString OnlineLearningPlot::statusText() const
{
    return m_status->text();
}

} // namespace dl2console
