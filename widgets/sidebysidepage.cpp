#include "sidebysidepage.h"

#include "clusteroccupancyview.h"
#include "consolesession.h"
#include "lockstepreplay.h"
#include "pairjobtablemodel.h"
#include "pairmetricsplot.h"
#include "tablefit.h"
#include "timelinescrubber.h"
#include "viewrefresher.h"

#include <QAction>
#include <QComboBox>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace dl2console {

namespace {
constexpr double kPairSpeeds[] = {0.5, 1, 2, 4, 8, 15, 30, 0};

QString traceText(const SessionSetup &t)
{
    return t.traceFile.isEmpty() ? QObject::tr("%1, seed %2").arg(t.scenario).arg(t.seed)
                                 : QFileInfo(t.traceFile).fileName();
}
} // namespace

SideBySidePage::SideBySidePage(QWidget *parent)
    : QWidget(parent), m_replay(new LockstepReplay(this)), m_refresher(new ViewRefresher(this)),
      m_jobModel(new PairJobTableModel(this)), m_jobProxy(new PairJobFilterProxyModel(this))
{
    m_jobProxy->setSourceModel(m_jobModel);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addWidget(buildControls());

    m_clusterRow = new QSplitter(Qt::Horizontal, this);
    auto *clusters = static_cast<QSplitter *>(m_clusterRow);
    clusters->setChildrenCollapsible(false);
    for (int side = 0; side < 2; ++side)
        clusters->addWidget(buildSide(side));

    m_plot = new PairMetricsPlot(this);
    m_bottom = new QSplitter(Qt::Horizontal, this);
    m_bottom->addWidget(buildJobs());
    m_bottom->addWidget(m_plot);
    m_bottom->setStretchFactor(0, 3);
    m_bottom->setStretchFactor(1, 2);

    m_vertical = new QSplitter(Qt::Vertical, this);
    m_vertical->setChildrenCollapsible(false);
    m_vertical->addWidget(m_clusterRow);
    m_vertical->addWidget(m_bottom);
    m_vertical->setStretchFactor(0, 3);
    m_vertical->setStretchFactor(1, 2);
    layout->addWidget(m_vertical, 1);
    m_vertical->installEventFilter(this); // presentation: sized in proportion on resize
    m_bottom->installEventFilter(this);

    // The page lives in the main window's tabs: it must not raise the window's minimum size
    // (its splitters squeeze the views in a window that small).
    setMinimumHeight(240);
    connectReplay();
    setPolicyPair(QStringLiteral("drf"), QStringLiteral("dl2"));
    for (QAction *a : playbackActions())
        a->setEnabled(false); // enabled while the page is shown
}

SideBySidePage::~SideBySidePage() = default;

QWidget *SideBySidePage::buildControls()
{
    m_controls = new QWidget(this);
    auto *v = new QVBoxLayout(m_controls);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    auto *row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    const QString labels[2] = {tr("&Left"), tr("&Right")};
    for (int side = 0; side < 2; ++side) {
        auto *label = new QLabel(labels[side], m_controls);
        auto *box = m_policyBoxes[side] = new QComboBox(m_controls);
        box->setObjectName(side == 0 ? QStringLiteral("leftPolicy") : QStringLiteral("rightPolicy"));
        box->setMinimumContentsLength(8);
        box->setToolTip(side == 0 ? tr("Policy of the left half") : tr("Policy of the right half"));
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        label->setBuddy(box);
        row->addWidget(label);
        row->addWidget(box);
        row->addSpacing(8);
        connect(box, &QComboBox::activated, this, &SideBySidePage::ensureLoaded);
    }
    m_traceLabel = new QLabel(m_controls);
    m_traceLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_traceLabel->setMinimumWidth(60);
    m_traceLabel->setToolTip(tr("Both policies replay the trace chosen in the main toolbar"));
    row->addWidget(m_traceLabel, 1);

    QStyle *s = style();
    auto action = [this, s](QStyle::StandardPixmap icon, const QString &text,
                            QList<QKeySequence> keys) {
        auto *a = new QAction(s->standardIcon(icon), text, this);
        a->setShortcuts(keys);
        a->setToolTip(text + QStringLiteral(" — ") + keys.front().toString(QKeySequence::NativeText));
        addAction(a);
        return a;
    };
    m_first = action(QStyle::SP_MediaSkipBackward, tr("First slot (both)"),
                     {QKeySequence(Qt::CTRL | Qt::Key_Home)});
    m_stepBack = action(QStyle::SP_MediaSeekBackward, tr("Step back (both)"),
                        {QKeySequence(Qt::Key_Comma), QKeySequence(Qt::CTRL | Qt::Key_Left)});
    m_play = action(QStyle::SP_MediaPlay, tr("Play both"), {QKeySequence(Qt::Key_Space)});
    m_stepForward = action(QStyle::SP_MediaSeekForward, tr("Step forward (both)"),
                           {QKeySequence(Qt::Key_Period), QKeySequence(Qt::CTRL | Qt::Key_Right)});
    m_last = action(QStyle::SP_MediaSkipForward, tr("Last slot (both)"),
                    {QKeySequence(Qt::CTRL | Qt::Key_End)});
    for (QAction *a : playbackActions()) {
        auto *button = new QToolButton(m_controls);
        button->setDefaultAction(a);
        button->setAutoRaise(true);
        row->addWidget(button);
    }
    m_speed = new QComboBox(m_controls);
    for (double v : kPairSpeeds)
        m_speed->addItem(v > 0 ? tr("%1 slots/s").arg(v) : tr("max"), v);
    m_speed->setCurrentIndex(2);
    m_speed->setToolTip(tr("Playback speed of both replays"));
    row->addWidget(m_speed);
    v->addLayout(row);
    m_scrubber = new TimelineScrubber(m_controls);
    v->addWidget(m_scrubber);

    connect(m_first, &QAction::triggered, m_replay, [this] { m_replay->seek(0); });
    connect(m_stepBack, &QAction::triggered, m_replay, &LockstepReplay::stepBack);
    connect(m_play, &QAction::triggered, m_replay, &LockstepReplay::togglePlaying);
    connect(m_stepForward, &QAction::triggered, m_replay, &LockstepReplay::stepForward);
    connect(m_last, &QAction::triggered, m_replay, &LockstepReplay::seekToEnd);
    connect(m_speed, &QComboBox::activated, this,
            [this] { m_replay->setSpeed(m_speed->currentData().toDouble()); });
    connect(m_scrubber, &TimelineScrubber::seekRequested, m_replay, [this](int slot) {
        m_replay->setPlaying(false);
        m_replay->seek(slot);
    });
    return m_controls;
}

QWidget *SideBySidePage::buildSide(int side)
{
    auto *panel = new QWidget(this);
    auto *v = new QVBoxLayout(panel);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    auto *header = m_headers[side] = new QLabel(panel);
    header->setTextFormat(Qt::RichText);
    // One line that never widens the window: refreshHeaders() leaves out what does not fit.
    header->setWordWrap(false);
    header->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    header->installEventFilter(this); // re-fitted on resize and font change
    header->setObjectName(side == 0 ? QStringLiteral("leftHeader") : QStringLiteral("rightHeader"));
    auto *view = m_views[side] = new ClusterOccupancyView(panel);
    view->setObjectName(side == 0 ? QStringLiteral("leftCluster") : QStringLiteral("rightCluster"));
    v->addWidget(header);
    v->addWidget(view, 1);
    connect(view, &ClusterOccupancyView::jobClicked, this, &SideBySidePage::selectJob);
    return panel;
}

QWidget *SideBySidePage::buildJobs()
{
    m_jobsPanel = new QWidget(this);
    auto *v = new QVBoxLayout(m_jobsPanel);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    m_jobFilter = new QComboBox(m_jobsPanel);
    using F = PairJobFilterProxyModel::Filter;
    m_jobFilter->addItem(tr("Active under either policy"), int(F::Active));
    m_jobFilter->addItem(tr("Allocations differ"), int(F::Differing));
    m_jobFilter->addItem(tr("All jobs"), int(F::All));
    m_jobFilter->setToolTip(tr("Which jobs to list"));
    v->addWidget(m_jobFilter);
    m_jobView = new QTableView(m_jobsPanel);
    m_jobView->setObjectName(QStringLiteral("pairJobs"));
    m_jobView->setModel(m_jobProxy);
    m_jobView->setSortingEnabled(true);
    m_jobView->sortByColumn(PairJobTableModel::IdColumn, Qt::AscendingOrder);
    m_jobView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_jobView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_jobView->setAlternatingRowColors(true);
    m_jobView->setWordWrap(false);
    m_jobView->verticalHeader()->hide();
    m_jobView->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // What the two policies do is the point: those columns always fit their text (measured on
    // at most the header's resizeContentsPrecision rows, so large traces stay cheap).
    for (int c : {PairJobTableModel::LeftAllocationColumn, PairJobTableModel::RightAllocationColumn,
                  PairJobTableModel::DifferenceColumn})
        m_jobView->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_jobView->horizontalHeader()->setStretchLastSection(true);
    connect(m_jobProxy, &QAbstractItemModel::modelReset, m_jobView,
            &QTableView::resizeColumnsToContents);
    fitTableToFont(m_jobView); // and again at presentation mode's larger font
    v->addWidget(m_jobView, 1);
    connect(m_jobFilter, &QComboBox::currentIndexChanged, this, [this] {
        m_jobProxy->setFilter(static_cast<F>(m_jobFilter->currentData().toInt()));
    });
    connect(m_jobView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &SideBySidePage::onTableSelection);
    return m_jobsPanel;
}

void SideBySidePage::connectReplay()
{
    connect(m_replay, &LockstepReplay::slotChanged, m_refresher, &ViewRefresher::markDirty);
    connect(m_replay, &LockstepReplay::timelineChanged, m_refresher, &ViewRefresher::markDirty);
    connect(m_replay, &LockstepReplay::loadStarted, this, [this] {
        m_jobModel->clear();
        m_refresher->markDirty();
    });
    connect(m_replay, &LockstepReplay::loaded, this, &SideBySidePage::onLoaded);
    connect(m_replay, &LockstepReplay::errorOccurred, this, &SideBySidePage::errorOccurred);
    connect(m_replay, &LockstepReplay::playingChanged, this, [this](bool playing) {
        m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause
                                                      : QStyle::SP_MediaPlay));
        m_play->setText(playing ? tr("Pause both") : tr("Play both"));
    });
    m_replay->setSpeed(kPairSpeeds[2]);

    for (int side = 0; side < 2; ++side)
        m_refresher->add(m_views[side], [this, side] {
            m_views[side]->setSnapshot(m_replay->shownSnapshot(side));
        });
    m_refresher->add(m_jobsPanel, [this] {
        m_jobModel->setSnapshots(m_replay->shownSnapshot(0), m_replay->shownSnapshot(1));
        if (m_presenting) { // every column whole in every frame of a video
            growColumnsToContents();
            arrangeForPresentation();
        }
    });
    m_refresher->add(m_plot, [this] {
        m_plot->setTimelines(m_replay->session(0)->timeline(), m_replay->session(1)->timeline(),
                             m_replay->currentSlot(), m_replay->lastKnownSlot());
    });
    m_refresher->add(m_scrubber, [this] {
        const ConsoleSession *a = m_replay->session(0), *b = m_replay->session(1);
        const ConsoleSession *longer = a->lastKnownSlot() >= b->lastKnownSlot() ? a : b;
        m_scrubber->setTimeline(longer->timeline(), m_replay->runComplete());
        m_scrubber->setCurrentSlot(m_replay->currentSlot());
    });
    m_refresher->add(m_clusterRow, [this] { refreshHeaders(); });
}

void SideBySidePage::onLoaded()
{
    const ConsoleSession *s = m_replay->session(0);
    for (int side = 0; side < 2; ++side)
        m_views[side]->setProfiles(m_replay->session(side)->profiles());
    m_jobModel->setProfiles(s->profiles());
    m_jobModel->setPolicies(policy(0), policy(1));
    m_plot->setPolicies(policy(0), policy(1));
    m_traceLabel->setText(tr("on <b>%1</b>").arg(s->runInfo().traceName.toHtmlEscaped()));
    m_refresher->markDirty();
}

void SideBySidePage::setPolicies(const QStringList &names, const QStringList &descriptions)
{
    for (QComboBox *box : m_policyBoxes) {
        const QString current = box->currentText();
        box->clear();
        for (int i = 0; i < names.size(); ++i) {
            box->addItem(names[i]);
            box->setItemData(i, descriptions.value(i), Qt::ToolTipRole);
        }
        if (!current.isEmpty() && names.contains(current))
            box->setCurrentText(current);
    }
    // Default pair: the learned policy against DRF when both exist, else the first two.
    if (m_policyBoxes[0]->findText(QStringLiteral("drf")) >= 0)
        m_policyBoxes[0]->setCurrentText(QStringLiteral("drf"));
    if (m_policyBoxes[1]->findText(QStringLiteral("dl2")) >= 0)
        m_policyBoxes[1]->setCurrentText(QStringLiteral("dl2"));
    else if (names.size() > 1 && m_policyBoxes[1]->currentText() == m_policyBoxes[0]->currentText())
        m_policyBoxes[1]->setCurrentIndex(m_policyBoxes[0]->currentIndex() == 0 ? 1 : 0);
}

void SideBySidePage::setTrace(const SessionSetup &trace)
{
    m_trace = trace;
    m_trace.policy.clear();
    m_traceLabel->setText(tr("on <b>%1</b>").arg(traceText(m_trace).toHtmlEscaped()));
    if (isVisible())
        ensureLoaded();
}

void SideBySidePage::setPolicyPair(const QString &left, const QString &right)
{
    const QString names[2] = {left, right};
    for (int side = 0; side < 2; ++side) {
        if (m_policyBoxes[side]->findText(names[side]) < 0)
            m_policyBoxes[side]->addItem(names[side]);
        m_policyBoxes[side]->setCurrentText(names[side]);
    }
    if (isVisible())
        ensureLoaded();
}

QString SideBySidePage::policy(int side) const
{
    return m_policyBoxes[side]->currentText();
}

void SideBySidePage::ensureLoaded()
{
    SessionSetup a = m_trace, b = m_trace;
    a.policy = policy(0);
    b.policy = policy(1);
    if (m_replay->session(0)->setup() == a && m_replay->session(1)->setup() == b)
        return; // loaded or loading already
    reload();
}

void SideBySidePage::reload()
{
    m_replay->load(m_trace, policy(0), policy(1));
    m_jobModel->setPolicies(policy(0), policy(1));
    m_plot->setPolicies(policy(0), policy(1));
    selectJob(-1);
}

QList<QAction *> SideBySidePage::playbackActions() const
{
    return {m_first, m_stepBack, m_play, m_stepForward, m_last};
}

QStringList SideBySidePage::sectionNames()
{
    return {QStringLiteral("cluster"), QStringLiteral("jobs"), QStringLiteral("plot")};
}

void SideBySidePage::setSectionsVisible(const QStringList &sections)
{
    m_clusterRow->setVisible(sections.contains(QLatin1String("cluster")));
    m_jobsPanel->setVisible(sections.contains(QLatin1String("jobs")));
    m_plot->setVisible(sections.contains(QLatin1String("plot")));
    m_bottom->setVisible(m_jobsPanel->isVisibleTo(this) || m_plot->isVisibleTo(this));
}


void SideBySidePage::setControlsVisible(bool on)
{
    m_controls->setVisible(on);
}

void SideBySidePage::setPresenting(bool on)
{
    if (on == m_presenting)
        return;
    if (on) {
        m_verticalSizes = m_vertical->sizes();
        m_bottomSizes = m_bottom->sizes();
    }
    m_presenting = on;
    setControlsVisible(!on);
    for (ClusterOccupancyView *v : m_views)
        v->setHintsShown(!on);
    m_plot->setLegendInTwoRows(on);
    // What the two policies do is the point of a slide; the model and arrival are in the
    // captions when they matter (arrived / finished).
    m_jobView->setColumnHidden(PairJobTableModel::ModelColumn, on);
    m_jobView->setColumnHidden(PairJobTableModel::ArrivalColumn, on);
    if (on) {
        m_tableNeed = 0;
        arrangeForPresentation();
    } else {
        m_vertical->setSizes(m_verticalSizes);
        m_bottom->setSizes(m_bottomSizes);
    }
}

void SideBySidePage::arrangeForPresentation()
{
    if (!m_presenting)
        return;
    // Half the height for the cluster views (they fit their nodes to it), half for the table
    // and plot, whose rows would otherwise be a handful at a slide's font.
    const int h = m_vertical->height();
    if (h > 0 && m_clusterRow->isVisibleTo(this) && m_bottom->isVisibleTo(this))
        m_vertical->setSizes({h / 2, h - h / 2});
    // The table as wide as its columns (at most 3/5 of the width), the plot the rest.
    const int w = m_bottom->width() - m_bottom->handleWidth();
    if (w > 0 && m_jobsPanel->isVisibleTo(this) && m_plot->isVisibleTo(this)) {
        const QHeaderView *header = m_jobView->horizontalHeader();
        const QAbstractItemView *view = m_jobView; // sizeHintForColumn is public here
        // Frame and vertical scroll bar: as laid out, or as they will be.
        int need = std::max(
            m_jobView->width() - m_jobView->viewport()->width(),
            2 * m_jobView->frameWidth() +
                m_jobView->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, m_jobView));
        int last = -1; // the last visible column, which stretches
        for (int v = header->count() - 1; v >= 0 && last < 0; --v)
            if (!header->isSectionHidden(header->logicalIndex(v)))
                last = header->logicalIndex(v);
        for (int c = 0; c < PairJobTableModel::ColumnCount; ++c)
            if (!m_jobView->isColumnHidden(c))
                need += c == last ? std::max(view->sizeHintForColumn(c), header->sectionSizeHint(c))
                                  : m_jobView->columnWidth(c);
        // Only wider while presenting: a video's table does not jump back and forth.
        m_tableNeed = std::max(m_tableNeed, need);
        const int table = std::min(m_tableNeed, w * 3 / 5);
        m_bottom->setSizes({table, w - table});
    }
}

void SideBySidePage::growColumnsToContents()
{
    const QHeaderView *header = m_jobView->horizontalHeader();
    const QAbstractItemView *view = m_jobView;
    for (int c = 0; c < PairJobTableModel::ColumnCount; ++c) {
        if (m_jobView->isColumnHidden(c))
            continue;
        const int want = std::max(view->sizeHintForColumn(c), header->sectionSizeHint(c));
        if (m_jobView->columnWidth(c) < want)
            m_jobView->setColumnWidth(c, want);
    }
}

QString SideBySidePage::headerText(int side, int width, QString *full) const
{
    const dl2::SlotSnapshot &s = m_replay->shownSnapshot(side);
    const QString name = policy(side);
    const QString head = QStringLiteral("<span style=\"color:%1\">&#9632;</span> <b>%2</b> &nbsp;")
                             .arg(m_plot->policyColor(side).name(), name.toHtmlEscaped());
    *full = name;
    if (s.slot < 0)
        return head;
    // Longest first; the last one is shown however narrow the header.
    QStringList variants;
    const double jct = PairMetricsPlot::cumulativeJct(m_replay->session(side)->timeline(), s.slot);
    const QString jctText = QString::number(jct, 'f', 0);
    if (s.slot < m_replay->currentSlot()) {
        variants << tr("every job done at slot %1 · cumulative JCT %2 job-slots")
                        .arg(s.slot)
                        .arg(jctText)
                 << tr("every job done at slot %1 · cumulative JCT %2").arg(s.slot).arg(jctText)
                 << tr("all done at slot %1 · JCT %2").arg(s.slot).arg(jctText);
    } else {
        const QString slot = tr("slot %1").arg(s.slot);
        const QString running = tr("%1 running").arg(s.running);
        const QString queued = tr("%1 queued").arg(s.queued);
        const QString done = tr("%1 done").arg(s.finished);
        const QString gpu =
            tr("GPU %1 %")
                .arg(100.0 * s.utilisation[static_cast<int>(dl2::Resource::Gpu)], 0, 'f', 0);
        const QString cumulative = tr("cumulative JCT %1").arg(jctText);
        const QString dot = QStringLiteral(" · ");
        variants << QStringList{slot, running, queued, done, gpu, cumulative}.join(dot)
                 << QStringList{slot, running, done, gpu, cumulative}.join(dot)
                 << QStringList{slot, done, gpu, cumulative}.join(dot)
                 << QStringList{slot, done, cumulative}.join(dot)
                 << QStringList{done, cumulative}.join(dot);
    }
    *full = name + QStringLiteral("  ") + variants.front();
    const QLabel *label = m_headers[side];
    const QFontMetrics fm(label->font());
    QFont boldFont = label->font();
    boldFont.setBold(true);
    const int used = fm.horizontalAdvance(QStringLiteral("\u25A0 ")) +
                     QFontMetrics(boldFont).horizontalAdvance(name) +
                     fm.horizontalAdvance(QStringLiteral("  ")) + fm.averageCharWidth();
    QString chosen = variants.back();
    for (const QString &v : std::as_const(variants))
        if (used + fm.horizontalAdvance(v) <= width) {
            chosen = v;
            break;
        }
    return head + chosen.toHtmlEscaped();
}

void SideBySidePage::refreshHeaders()
{
    for (int side = 0; side < 2; ++side) {
        QString full;
        m_headers[side]->setText(headerText(side, m_headers[side]->contentsRect().width(), &full));
        m_headers[side]->setToolTip(full);
    }
}

QList<CaptionBar::Line> SideBySidePage::captionLines() const
{
    QList<CaptionBar::Line> lines;
    for (int side = 0; side < 2; ++side) {
        const dl2::SlotSnapshot &s = m_replay->shownSnapshot(side);
        if (s.slot < 0)
            continue;
        lines << CaptionBar::Line{policy(side), m_plot->policyColor(side),
                                  captionFor(s, m_replay->session(side)->profiles())};
    }
    return lines;
}

void SideBySidePage::selectJob(int jobId)
{
    if (m_selecting)
        return;
    m_selecting = true;
    m_selected = jobId;
    for (ClusterOccupancyView *v : m_views)
        v->setSelectedJob(jobId);
    const int row = m_jobModel->rowOfJob(jobId);
    if (row < 0) {
        m_jobView->clearSelection();
    } else {
        QModelIndex index = m_jobProxy->mapFromSource(m_jobModel->index(row, 0));
        if (!index.isValid()) { // filtered out: list every job so the selection shows
            m_jobFilter->setCurrentIndex(m_jobFilter->count() - 1);
            index = m_jobProxy->mapFromSource(m_jobModel->index(row, 0));
        }
        m_jobView->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect |
                                                       QItemSelectionModel::Rows);
        m_jobView->scrollTo(index);
    }
    m_selecting = false;
    Q_EMIT selectionChanged(jobId);
}

void SideBySidePage::onTableSelection()
{
    if (m_selecting)
        return;
    const auto rows = m_jobView->selectionModel()->selectedRows();
    if (rows.isEmpty())
        return; // a model reset clears the view's selection, not the page's
    selectJob(rows.front().data(PairJobTableModel::JobIdRole).toInt());
}

bool SideBySidePage::eventFilter(QObject *watched, QEvent *event)
{
    const QEvent::Type t = event->type();
    if ((watched == m_headers[0] || watched == m_headers[1]) &&
        (t == QEvent::Resize || t == QEvent::FontChange))
        refreshHeaders();
    else if ((watched == m_vertical || watched == m_bottom) && t == QEvent::Resize)
        arrangeForPresentation();
    return QWidget::eventFilter(watched, event);
}

void SideBySidePage::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::FontChange) // after the table re-fitted its columns
        arrangeForPresentation();
}

void SideBySidePage::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    for (QAction *a : playbackActions())
        a->setEnabled(true);
    ensureLoaded();
}

void SideBySidePage::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    for (QAction *a : playbackActions())
        a->setEnabled(false);
    m_replay->setPlaying(false);
}

} // namespace dl2console
