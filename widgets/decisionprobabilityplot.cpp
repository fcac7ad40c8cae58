#include "decisionprobabilityplot.h"

#include "decisionstepsmodel.h"
#include "plot.h"

#include <QVBoxLayout>
#include <algorithm>
#include <numeric>

namespace dl2console {

namespace {

// Probabilities 0..1 as "0 %", "25 %", ...
class PercentTicker : public QCPAxisTicker
{
protected:
    QString getTickLabel(double tick, const QLocale &locale, QChar, int) override
    {
        if (tick > 1.0001) // room for the bar labels, not a probability
            return {};
        return locale.toString(qRound(tick * 100.0)) + QStringLiteral(" %");
    }
};

} // namespace

DecisionProbabilityPlot::DecisionProbabilityPlot(QWidget *parent)
    : QWidget(parent), m_plot(new Plot(this))
{
    m_plot->setObjectName(QStringLiteral("decisionProbabilities"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    // Horizontal bars: keys on the left axis (one per action), probability along the bottom.
    m_bars = new QCPBars(m_plot->yAxis, m_plot->xAxis);
    m_chosen = new QCPBars(m_plot->yAxis, m_plot->xAxis);
    for (QCPBars *b : {m_bars, m_chosen}) {
        b->setWidth(0.7);
        b->setSelectable(QCP::stNone);
    }
    auto percent = QSharedPointer<PercentTicker>::create();
    percent->setTickCount(4); // the axis is narrow; its upper part is room for labels
    m_plot->xAxis->setTicker(percent);
    m_plot->xAxis->setRange(0, 1.0);
    m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    m_plot->yAxis->grid()->setVisible(false);
    m_plot->yAxis->setTickLength(0, 0);
    m_plot->yAxis->setSubTicks(false);
    m_plot->setTitle(QString());
    connect(m_plot, &Plot::colorsChanged, this, &DecisionProbabilityPlot::restyle);
    restyle();
    rebuild();
}

void DecisionProbabilityPlot::restyle()
{
    QColor other = m_plot->seriesColor(0);
    other.setAlphaF(0.45f);
    m_bars->setPen(Qt::NoPen);
    m_bars->setBrush(other);
    m_chosen->setPen(Qt::NoPen);
    m_chosen->setBrush(palette().color(QPalette::Highlight));
    for (QCPItemText *t : m_labels)
        t->setColor(m_plot->foreground());
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void DecisionProbabilityPlot::setStep(const dl2::DecisionRecord *step)
{
    m_haveStep = step != nullptr;
    m_step = step ? *step : dl2::DecisionRecord{};
    rebuild();
}

void DecisionProbabilityPlot::setTopK(int k)
{
    m_k = std::max(1, k);
    rebuild();
}

void DecisionProbabilityPlot::rebuild()
{
    for (QCPItemText *t : m_labels)
        m_plot->removeItem(t);
    m_labels.clear();
    m_actions.clear();
    auto ticker = m_plot->yAxis->ticker().dynamicCast<QCPAxisTickerText>();
    ticker->clear();
    const int n = static_cast<int>(m_step.probabilities.size());
    if (!m_haveStep || n == 0) {
        m_bars->data()->clear();
        m_chosen->data()->clear();
        m_plot->setTitle(tr("Action probabilities"));
        m_plot->setMessage(tr("no inference in this slot"));
        m_plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    m_plot->setMessage({});
    std::vector<int> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    const auto &p = m_step.probabilities;
    // Valid actions first (one can have probability 0 after rounding), most probable on top.
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const bool va = !m_step.isMasked(a), vb = !m_step.isMasked(b);
        return va != vb ? va : p[size_t(a)] > p[size_t(b)];
    });
    const int valid = m_step.validActions();
    const int shown = std::min(m_k, valid);
    // The chosen action is always on display, even when it is not among the k best.
    order.resize(static_cast<size_t>(shown));
    if (std::find(order.begin(), order.end(), m_step.action) == order.end() && shown > 0)
        order.back() = m_step.action;
    m_actions = order;

    QVector<double> keys, values, chosenKeys, chosenValues;
    const int rows = m_step.rows();
    for (int i = 0; i < shown; ++i) {
        const int a = order[size_t(i)];
        const double key = shown - 1 - i; // most probable on top
        const double v = p[size_t(a)];
        QString label = actionKindName(a, rows);
        if (a != 3 * rows)
            label = tr("job %1 · %2").arg(m_step.jobIds[size_t(a / 3)]).arg(label);
        ticker->addTick(key, label);
        if (a == m_step.action) {
            chosenKeys << key;
            chosenValues << v;
        } else {
            keys << key;
            values << v;
        }
        auto *text = new QCPItemText(m_plot);
        text->setClipToAxisRect(false);
        // A long bar carries its label inside (right-aligned), so it never runs off the plot.
        const bool inside = v > 0.5;
        text->setPositionAlignment((inside ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
        text->position->setCoords(v, key);
        text->setPadding(inside ? QMargins(0, 0, 4, 0) : QMargins(4, 0, 0, 0));
        text->setText(a == m_step.action ? tr("%1 ← chosen").arg(DecisionStepsModel::percent(v))
                                         : DecisionStepsModel::percent(v));
        QFont f = m_plot->font();
        f.setBold(a == m_step.action);
        text->setFont(f);
        text->setColor(m_plot->foreground());
        m_labels.push_back(text);
    }
    m_bars->setData(keys, values, true);
    m_chosen->setData(chosenKeys, chosenValues, true);
    m_plot->yAxis->setRange(-0.6, std::max(1, shown) - 0.4);
    // Leave room right of the longest bar for its label.
    const double top = shown > 0 ? p[size_t(order.front())] : 1.0;
    m_plot->xAxis->setRange(0, top > 0.5 ? 1.02 : top * 1.8 + 0.02);
    const int masked = n - valid;
    m_plot->setTitle(
        shown < valid
            ? tr("Top %1 of %2 valid actions (%3 masked)").arg(shown).arg(valid).arg(masked)
            : tr("All %1 valid actions (%2 masked)").arg(valid).arg(masked));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace dl2console
