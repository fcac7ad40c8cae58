#include "sessionstatusbar.h"

#include <algorithm>

#include <QFileInfo>
#include <QLabel>
#include <QStringList>

namespace dl2console {

SessionStatusBar::SessionStatusBar(QWidget *parent)
    : QStatusBar(parent), m_hint(new QLabel(this)), m_slot(new QLabel(this)),
      m_time(new QLabel(this)), m_jobs(new QLabel(this)), m_util(new QLabel(this)),
      m_run(new QLabel(this)), m_connector(new QLabel(this))
{
    setObjectName(QStringLiteral("statusBar"));
    m_hint->setForegroundRole(QPalette::PlaceholderText);
    m_hint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // never widens the window
    addWidget(m_hint, 1);
    for (QLabel *l : {m_slot, m_time, m_jobs, m_util, m_run, m_connector}) {
        l->setContentsMargins(6, 0, 6, 0);
        addPermanentWidget(l);
    }
    m_slot->setToolTip(tr("Slot on display"));
    m_time->setToolTip(tr("Simulated time at the end of this slot"));
    m_jobs->setToolTip(tr("Jobs running / queued (arrived, no allocation) / done; under dl2, "
                          "the jobs left out of its window this slot (they run on the one bundle "
                          "every job gets first)"));
    m_util->setToolTip(tr("Cluster utilisation in this slot"));
    m_run->setObjectName(QStringLiteral("runLabel"));
    m_run->setToolTip(tr("Speed model of the simulation (Simulation > Speed model), cluster size "
                         "and policy file"));
    m_connector->setToolTip(tr("Where the cluster state comes from"));
    setConnectorState(tr("embedded simulator"));
    setSnapshot({}, 1200);
}

void SessionStatusBar::setSnapshot(const dl2::SlotSnapshot &s, double slotSeconds)
{
    if (s.slot < 0) {
        m_slot->setText(tr("slot –"));
        m_time->clear();
        m_jobs->clear();
        m_util->clear();
        return;
    }
    m_slot->setText(tr("slot %1").arg(s.slot));
    const qint64 seconds = static_cast<qint64>((s.slot + 1) * slotSeconds);
    m_time->setText(tr("t = %1 d %2 h %3 min")
                        .arg(seconds / 86400)
                        .arg((seconds % 86400) / 3600, 2, 10, QLatin1Char('0'))
                        .arg((seconds % 3600) / 60, 2, 10, QLatin1Char('0')));
    QString jobs =
        tr("jobs: %1 running · %2 queued · %3 done").arg(s.running).arg(s.queued).arg(s.finished);
    const auto outside = std::count_if(
        s.jobs.begin(), s.jobs.end(), [](const dl2::JobState &j) { return j.outsideViewThisSlot; });
    if (outside > 0)
        jobs += tr(" · %1 outside window").arg(outside);
    m_jobs->setText(jobs);
    m_util->setText(tr("CPU %1 % · GPU %2 %")
                        .arg(100 * s.utilisation[0], 0, 'f', 0)
                        .arg(100 * s.utilisation[1], 0, 'f', 0));
}

void SessionStatusBar::setRun(const QString &speedModel, int nodes, const QString &checkpoint)
{
    // A cluster behind an agent has no speed model of ours: the part is left out.
    QStringList parts;
    if (!speedModel.isEmpty())
        parts << tr("speeds: %1").arg(speedModel);
    if (nodes > 0)
        parts << tr("%1 nodes").arg(nodes);
    if (!checkpoint.isEmpty())
        parts << tr("policy %1").arg(QFileInfo(checkpoint).fileName());
    m_run->setText(parts.join(QStringLiteral(" · ")));
}

QString SessionStatusBar::runText() const
{
    return m_run->text();
}

void SessionStatusBar::setConnectorState(const QString &text)
{
    m_connector->setText(QStringLiteral("● ") + text);
}

void SessionStatusBar::setConnector(const ConnectorStatus &status, const QString &gate)
{
    QString text;
    if (status.state == ConnectorStatus::State::Embedded)
        text = tr("embedded simulator");
    else
        text = tr("agent %1 · %2").arg(status.address, status.stateText());
    if (!gate.isEmpty())
        text += tr(" · gate: %1").arg(gate);
    setConnectorState(text);
    m_connector->setToolTip(status.message.isEmpty()
                                ? tr("Where the cluster state comes from")
                                : tr("Last connector error: %1").arg(status.message));
}

QString SessionStatusBar::connectorText() const
{
    return m_connector->text();
}

void SessionStatusBar::setHint(const QString &text)
{
    m_hint->setText(text);
}

QString SessionStatusBar::slotText() const
{
    return m_slot->text();
}

QString SessionStatusBar::jobsText() const
{
    return m_jobs->text();
}

} // namespace dl2console
