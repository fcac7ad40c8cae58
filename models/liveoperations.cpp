#include "liveoperations.h"

#include "operationsworker.h"

#include <QThread>

namespace dl2console {

LiveOperations::LiveOperations(const LiveSetup &setup, QObject *parent)
    : QObject(parent), m_setup(setup),
      m_gateSettings{setup.mode, setup.rulesFile, setup.reviewDeadlineMs, setup.atDeadline},
      m_thread(new QThread(this))
{
    qRegisterMetaType<dl2console::LiveSetup>();
    qRegisterMetaType<dl2console::GateSettings>();
    qRegisterMetaType<dl2console::ConnectorStatus>();
    qRegisterMetaType<dl2console::GateBatch>();
    qRegisterMetaType<dl2console::LiveSlotPacket>();
    qRegisterMetaType<std::vector<dl2console::LiveSlotPacket>>();
    qRegisterMetaType<dl2console::RunInfo>();
    qRegisterMetaType<dl2console::LearningStatus>();
    qRegisterMetaType<dl2console::LearningPoint>();
    qRegisterMetaType<dl2console::LearningMark>();
    m_learnWanted = setup.learn;

    m_connector.address = setup.agentAddress;
    m_connector.state = setup.agentAddress.isEmpty() ? ConnectorStatus::State::Embedded
                                                     : ConnectorStatus::State::Connecting;
    m_batch.mode = setup.mode;
    m_batch.atDeadline = setup.atDeadline;

    m_thread->setObjectName(QStringLiteral("dl2-operations"));
    auto *worker = new OperationsWorker;
    worker->moveToThread(m_thread);
    m_worker = worker;
    connect(m_thread, &QThread::finished, worker, &QObject::deleteLater);
    connect(worker, &OperationsWorker::started, this, [this](const RunInfo &info) {
        m_started = true;
        Q_EMIT started(info);
    });
    connect(worker, &OperationsWorker::failed, this, [this](const QString &message) {
        m_busy = false;
        Q_EMIT failed(message);
    });
    connect(worker, &OperationsWorker::connectorChanged, this,
            [this](const ConnectorStatus &status) {
                m_connector = status;
                using State = ConnectorStatus::State;
                if (status.state != State::Connected && status.state != State::Embedded)
                    m_busy = false; // the worker runs a wanted slot itself once reconnected
                Q_EMIT connectorChanged();
            });
    connect(worker, &OperationsWorker::batchChanged, this, [this](const GateBatch &batch) {
        m_batch = batch;
        if (batch.open)
            m_busy = false;
        Q_EMIT batchChanged();
    });
    connect(worker, &OperationsWorker::slotCompleted, this, [this](const LiveSlotPacket &p) {
        m_busy = false;
        Q_EMIT slotCompleted(p);
    });
    connect(worker, &OperationsWorker::historyLoaded, this, &LiveOperations::historyLoaded);
    connect(worker, &OperationsWorker::runComplete, this, [this] {
        m_busy = false;
        m_runComplete = true;
        Q_EMIT finished();
    });
    connect(worker, &OperationsWorker::commandFailed, this, [this](const QString &message) {
        m_busy = false; // a failed slot request (e.g. connection lost) is no longer in flight
        Q_EMIT commandFailed(message);
    });
    connect(worker, &OperationsWorker::overrideFinished, this, &LiveOperations::overrideFinished);
    connect(worker, &OperationsWorker::learningChanged, this, [this](const LearningStatus &s) {
        m_learning = s;
        Q_EMIT learningChanged();
    });
    connect(worker, &OperationsWorker::learningPoint, this, [this](const LearningPoint &p) {
        m_curve.push_back(p);
        Q_EMIT learningChanged();
    });
    connect(worker, &OperationsWorker::learningMark, this, [this](const LearningMark &m) {
        m_marks.push_back(m);
        Q_EMIT learningChanged();
    });
    connect(worker, &OperationsWorker::learningFailed, this, [this](const QString &message) {
        m_learnWanted = false;
        if (m_learning.state == LearningStatus::State::Starting ||
            m_learning.state == LearningStatus::State::Learning ||
            m_learning.state == LearningStatus::State::Paused)
            m_learning.state = LearningStatus::State::Failed;
        m_learning.message = message;
        Q_EMIT learningFailed(message);
        Q_EMIT learningChanged();
    });
    m_thread->start();
    post([setup](OperationsWorker *w) { w->start(setup); });
}

LiveOperations::~LiveOperations()
{
    m_thread->quit();
    m_thread->wait(); // at most one call deadline when a remote call is in flight
}

template <typename F>
void LiveOperations::post(F &&call)
{
    JobTracker::post(m_worker, std::forward<F>(call));
}

void LiveOperations::runSlot()
{
    if (!canRunSlot())
        return;
    m_busy = true;
    post([](OperationsWorker *w) { w->runSlot(); });
}

void LiveOperations::approve(const QString &id)
{
    post([id](OperationsWorker *w) { w->approve(id); });
}

void LiveOperations::reject(const QString &id)
{
    post([id](OperationsWorker *w) { w->reject(id); });
}

void LiveOperations::overrideDecision(const QString &id, int ps, int workers)
{
    post([id, ps, workers](OperationsWorker *w) { w->overrideDecision(id, ps, workers); });
}

void LiveOperations::approveAll()
{
    post([](OperationsWorker *w) { w->approveAll(); });
}

void LiveOperations::undo()
{
    post([](OperationsWorker *w) { w->undo(); });
}

void LiveOperations::redo()
{
    post([](OperationsWorker *w) { w->redo(); });
}

void LiveOperations::commit()
{
    if (!m_batch.open || m_busy)
        return; // nothing to commit, or its commit is on its way
    m_busy = true; // the slot completes (or the commit fails) asynchronously
    post([](OperationsWorker *w) { w->commit(); });
}

void LiveOperations::setLearning(bool on)
{
    if (on == m_learnWanted)
        return;
    m_learnWanted = on;
    post([on](OperationsWorker *w) { w->setLearning(on); });
}

void LiveOperations::setGateSettings(const GateSettings &settings)
{
    if (settings == m_gateSettings)
        return;
    m_gateSettings = settings;
    post([settings](OperationsWorker *w) { w->setGateSettings(settings); });
}

} // namespace dl2console
