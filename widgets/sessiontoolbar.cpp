#include "sessiontoolbar.h"

#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QSpinBox>
#include <QStyle>
#include <QToolButton>

namespace dl2console {

namespace {
// Item data: scenario name, or "file:" + path for trace files.
const QString kFilePrefix = QStringLiteral("file:");
constexpr int kCheckpointRole = Qt::UserRole + 1; // policy box: the entry's checkpoint
constexpr double kSpeeds[] = {0.5, 1, 2, 4, 8, 15, 30, 60, 0};
} // namespace

SessionToolBar::SessionToolBar(QWidget *parent)
    : QToolBar(tr("Simulation"), parent), m_scenario(new QComboBox(this)),
      m_seed(new QSpinBox(this)), m_nodes(new QSpinBox(this)), m_policy(new QComboBox(this)),
      m_speed(new QComboBox(this)), m_cluster(new QLabel(this))
{
    setObjectName(QStringLiteral("simulationToolBar"));
    setToolButtonStyle(Qt::ToolButtonIconOnly);
    QStyle *s = style();

    auto *traceLabel = new QLabel(tr(" &Trace "), this);
    traceLabel->setBuddy(m_scenario);
    m_replayOnly << addWidget(traceLabel);
    m_scenario->setMinimumContentsLength(14);
    m_scenario->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_scenario->setToolTip(tr("Built-in scenario or trace file — Alt+T"));
    m_replayOnly << addWidget(m_scenario);
    auto *seedLabel = new QLabel(tr(" s&eed "), this);
    seedLabel->setBuddy(m_seed);
    m_replayOnly << addWidget(seedLabel);
    m_seed->setRange(1, 1000000);
    m_seed->setToolTip(tr("Seed of the scenario's trace generator — Alt+E"));
    m_replayOnly << addWidget(m_seed);
    auto *nodesLabel = new QLabel(tr(" n&odes "), this);
    nodesLabel->setBuddy(m_nodes);
    m_replayOnly << addWidget(nodesLabel);
    m_nodes->setRange(1, 1000000);
    m_nodes->setValue(500);
    m_nodes->setAccelerated(true);
    m_nodes->setToolTip(tr("Cluster size: nodes of 8 CPU + 8 GPU slots (default: the scenario's; "
                           "a trace file runs on the scenario's cluster) — Alt+O"));
    m_replayOnly << addWidget(m_nodes);
    m_cluster->setObjectName(QStringLiteral("liveCluster"));
    m_cluster->setTextFormat(Qt::PlainText);
    m_clusterAction = addWidget(m_cluster);
    m_clusterAction->setVisible(false);
    m_openTrace = addAction(s->standardIcon(QStyle::SP_DialogOpenButton), tr("Open trace file…"));
    m_openTrace->setShortcut(QKeySequence::Open);
    m_openTrace->setToolTip(tr("Open trace file (.csv, .pb, .textproto) — Ctrl+O"));
    addSeparator();
    auto *policyLabel = new QLabel(tr(" &Policy "), this);
    policyLabel->setBuddy(m_policy);
    addWidget(policyLabel);
    m_policy->setMinimumContentsLength(10);
    m_policy->setToolTip(tr("Scheduling policy — Alt+P"));
    m_policy->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    addWidget(m_policy);
    addSeparator();

    m_first = addAction(s->standardIcon(QStyle::SP_MediaSkipBackward), tr("First slot"));
    m_first->setShortcut(Qt::CTRL | Qt::Key_Home);
    m_stepBack = addAction(s->standardIcon(QStyle::SP_MediaSeekBackward), tr("Step back"));
    m_stepBack->setShortcuts({QKeySequence(Qt::Key_Comma), QKeySequence(Qt::CTRL | Qt::Key_Left)});
    m_play = addAction(s->standardIcon(QStyle::SP_MediaPlay), tr("Play"));
    m_play->setShortcut(Qt::Key_Space);
    m_stepForward = addAction(s->standardIcon(QStyle::SP_MediaSeekForward), tr("Step forward"));
    m_stepForward->setShortcuts(
        {QKeySequence(Qt::Key_Period), QKeySequence(Qt::CTRL | Qt::Key_Right)});
    m_last = addAction(s->standardIcon(QStyle::SP_MediaSkipForward), tr("Last slot"));
    m_last->setShortcut(Qt::CTRL | Qt::Key_End);
    for (QAction *a : {m_first, m_stepBack, m_play, m_stepForward, m_last})
        a->setToolTip(a->text() + QStringLiteral(" — ") +
                      a->shortcut().toString(QKeySequence::NativeText));
    m_backToLive =
        new QAction(s->standardIcon(QStyle::SP_MediaSkipForward), tr("Back to live"), this);
    m_backToLive->setObjectName(QStringLiteral("backToLive"));
    m_backToLive->setShortcut(Qt::CTRL | Qt::Key_L);
    m_backToLive->setToolTip(tr("Leave the slot of the history on display and follow the live "
                                "cluster again — Ctrl+L"));
    auto *backButton = new QToolButton(this);
    backButton->setDefaultAction(m_backToLive);
    backButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_backToLiveButton = addWidget(backButton);
    m_backToLiveButton->setVisible(false);
    m_backToLive->setEnabled(false);

    auto *speedLabel = new QLabel(tr("  Spee&d "), this);
    speedLabel->setBuddy(m_speed);
    addWidget(speedLabel);
    for (double v : kSpeeds)
        m_speed->addItem(v > 0 ? tr("%1 slots/s").arg(v) : tr("max"), v);
    m_speed->setToolTip(tr("Playback speed — Alt+D; [ slower, ] faster"));
    addWidget(m_speed);
    m_slower = new QAction(tr("Slower"), this);
    m_slower->setShortcut(Qt::Key_BracketLeft);
    m_faster = new QAction(tr("Faster"), this);
    m_faster->setShortcut(Qt::Key_BracketRight);
    // Keyboard-only (and in the Simulation menu): not shown in the bar.
    connect(m_slower, &QAction::triggered, this, [this] { stepSpeed(-1); });
    connect(m_faster, &QAction::triggered, this, [this] { stepSpeed(+1); });

    connect(m_scenario, &QComboBox::activated, this, [this](int index) {
        if (m_scenario->itemData(index).toString() == QLatin1String("open")) {
            Q_EMIT openTraceRequested();
            return;
        }
        m_nodes->setValue(defaultNodes()); // a new scenario comes with its own cluster
        emitSetup();
    });
    // editingFinished also comes on a mere focus change (e.g. when live mode hides the box):
    // only a new seed or cluster size is a request.
    connect(m_seed, &QSpinBox::editingFinished, this, [this] {
        if (m_seed->isVisible() && static_cast<quint64>(m_seed->value()) != m_shown.seed)
            emitSetup();
    });
    connect(m_nodes, &QSpinBox::editingFinished, this, [this] {
        if (!m_updating && m_nodes->isVisible() && setup().nodes != m_menuParts.nodes)
            emitSetup();
    });
    connect(m_policy, &QComboBox::activated, this, &SessionToolBar::emitSetup);
    connect(m_openTrace, &QAction::triggered, this, &SessionToolBar::openTraceRequested);
    connect(m_speed, &QComboBox::activated, this,
            [this] { Q_EMIT speedRequested(m_speed->currentData().toDouble()); });
}

void SessionToolBar::setScenarios(const QStringList &names, const QStringList &descriptions)
{
    m_updating = true;
    m_scenario->clear();
    for (int i = 0; i < names.size(); ++i) {
        m_scenario->addItem(names[i], names[i]);
        m_scenario->setItemData(i, descriptions.value(i), Qt::ToolTipRole);
    }
    m_scenario->insertSeparator(m_scenario->count());
    m_scenario->addItem(tr("Open trace file…"), QStringLiteral("open"));
    m_updating = false;
}

void SessionToolBar::setScenarioNodes(const QHash<QString, int> &nodes)
{
    m_scenarioNodes = nodes;
}

void SessionToolBar::setTraceNodes(const QString &traceFile, int nodes)
{
    const bool shownDefault = m_nodes->value() == defaultNodes();
    m_traceNodes[traceFile] = nodes;
    if (shownDefault && m_scenario->currentData().toString() == kFilePrefix + traceFile) {
        m_updating = true;
        m_nodes->setValue(nodes);
        m_shown = setup();
        m_updating = false;
    }
}

int SessionToolBar::defaultNodes() const
{
    // A trace file runs on its own cluster when it records one, else on the cluster of the
    // scenario it was opened from.
    const QString data = m_scenario->currentData().toString();
    if (data.startsWith(kFilePrefix)) {
        const auto it = m_traceNodes.constFind(data.mid(kFilePrefix.size()));
        if (it != m_traceNodes.constEnd())
            return *it;
    }
    return m_scenarioNodes.value(data.startsWith(kFilePrefix) ? m_menuParts.scenario : data, 500);
}

void SessionToolBar::addPolicyFile(const QString &kind, const QString &checkpoint)
{
    for (int i = 0; i < m_policy->count(); ++i)
        if (m_policy->itemData(i, kCheckpointRole).toString() == checkpoint &&
            m_policy->itemData(i).toString() == kind)
            return;
    m_policy->addItem(tr("%1 · %2").arg(kind, QFileInfo(checkpoint).fileName()), kind);
    const int at = m_policy->count() - 1;
    m_policy->setItemData(at, checkpoint, kCheckpointRole);
    m_policy->setItemData(at, tr("%1 policy from %2").arg(kind, checkpoint), Qt::ToolTipRole);
}

void SessionToolBar::addTraceFile(const QString &path)
{
    const QString key = kFilePrefix + path;
    if (m_scenario->findData(key) >= 0)
        return;
    const int at = m_scenario->count() - 1; // before "Open trace file…"
    m_scenario->insertItem(at, QFileInfo(path).fileName(), key);
    m_scenario->setItemData(at, path, Qt::ToolTipRole);
}

void SessionToolBar::setPolicies(const QStringList &names, const QStringList &descriptions)
{
    m_updating = true;
    m_policy->clear();
    for (int i = 0; i < names.size(); ++i) {
        m_policy->addItem(names[i], names[i]);
        m_policy->setItemData(i, descriptions.value(i), Qt::ToolTipRole);
    }
    m_updating = false;
}

void SessionToolBar::setSetup(const SessionSetup &setup)
{
    m_updating = true;
    if (!setup.traceFile.isEmpty()) {
        addTraceFile(setup.traceFile);
        m_scenario->setCurrentIndex(m_scenario->findData(QString(kFilePrefix + setup.traceFile)));
    } else {
        m_scenario->setCurrentIndex(std::max(0, m_scenario->findData(setup.scenario)));
    }
    m_seed->setValue(static_cast<int>(setup.seed));
    m_seed->setEnabled(setup.traceFile.isEmpty());
    m_nodes->setValue(setup.nodes > 0 ? setup.nodes : defaultNodes());
    if (!setup.checkpoint.isEmpty())
        addPolicyFile(setup.policy, setup.checkpoint);
    int policy = 0;
    for (int i = 0; i < m_policy->count(); ++i)
        if (m_policy->itemData(i).toString() == setup.policy &&
            m_policy->itemData(i, kCheckpointRole).toString() == setup.checkpoint)
            policy = i;
    m_policy->setCurrentIndex(policy);
    m_menuParts = setup;
    m_shown = this->setup();
    m_updating = false;
}

SessionSetup SessionToolBar::setup() const
{
    SessionSetup s = m_menuParts;
    s.traceFile.clear();
    const QString data = m_scenario->currentData().toString();
    if (data.startsWith(kFilePrefix))
        s.traceFile = data.mid(kFilePrefix.size());
    else if (!data.isEmpty() && data != QLatin1String("open"))
        s.scenario = data;
    s.seed = static_cast<quint64>(m_seed->value());
    s.nodes = m_nodes->value() == defaultNodes() ? 0 : m_nodes->value();
    s.policy = m_policy->currentData().toString();
    s.checkpoint = m_policy->currentData(kCheckpointRole).toString();
    return s;
}

void SessionToolBar::emitSetup()
{
    if (m_updating)
        return;
    m_seed->setEnabled(setup().traceFile.isEmpty());
    m_shown = setup();
    Q_EMIT setupRequested(m_shown);
}

void SessionToolBar::setPlaying(bool playing)
{
    m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    m_play->setText(playing ? tr("Pause") : tr("Play"));
    m_play->setToolTip(m_play->text() + tr(" — Space"));
}

void SessionToolBar::setSpeed(double slotsPerSecond)
{
    int best = 0;
    for (int i = 0; i < m_speed->count(); ++i)
        if (qFuzzyCompare(m_speed->itemData(i).toDouble() + 1, slotsPerSecond + 1))
            best = i;
    m_speed->setCurrentIndex(best);
}

void SessionToolBar::setLiveCluster(const QString &backend, const QString &cluster,
                                    const QString &address)
{
    const bool live = !backend.isEmpty();
    for (QAction *a : std::as_const(m_replayOnly))
        a->setVisible(!live);
    m_openTrace->setEnabled(!live);
    m_openTrace->setVisible(!live);
    m_clusterAction->setVisible(live);
    if (!live) {
        m_cluster->clear();
        return;
    }
    const QString where = address.isEmpty() ? backend : tr("%1 agent %2").arg(backend, address);
    m_cluster->setText(tr(" Live: %1 · %2 ").arg(cluster, where));
    m_cluster->setToolTip(tr("Operating %1 through %2. Trace and seed are replay settings: they "
                             "do not apply to a live cluster.")
                              .arg(cluster, where));
}

QString SessionToolBar::liveClusterText() const
{
    return m_cluster->text().trimmed();
}

bool SessionToolBar::isLiveCluster() const
{
    return m_clusterAction->isVisible();
}

void SessionToolBar::setLiveView(bool live, bool viewingHistory)
{
    m_backToLiveButton->setVisible(live);
    m_backToLive->setEnabled(live && viewingHistory);
}

void SessionToolBar::stepSpeed(int delta)
{
    const int i = std::clamp(m_speed->currentIndex() + delta, 0, m_speed->count() - 1);
    m_speed->setCurrentIndex(i);
    Q_EMIT speedRequested(m_speed->currentData().toDouble());
}

} // namespace dl2console
