#include "agentconnection.h"

#include "logging.h"

#include <QTimer>

namespace dl2console {

AgentConnection::AgentConnection(QObject *parent) : QObject(parent), m_timer(new QTimer(this))
{
    m_timer->setInterval(1000);
    connect(m_timer, &QTimer::timeout, this, &AgentConnection::tick);
}

void AgentConnection::begin(ConnectorStatus::State state, const QString &address)
{
    m_status.address = address;
    m_status.state = state;
    Q_EMIT changed(m_status);
}

void AgentConnection::succeeded()
{
    m_backoff.succeeded();
    setState(ConnectorStatus::State::Connected);
}

void AgentConnection::lost(const QString &why)
{
    if (why.contains(QLatin1String("UNAUTHENTICATED"))) {
        m_timer->stop();
        setState(ConnectorStatus::State::RejectedToken, why);
        return;
    }
    qCWarning(lcLive) << "agent" << m_status.address << "unreachable:" << why;
    setState(ConnectorStatus::State::Reconnecting, why);
    m_timer->start();
}

void AgentConnection::setState(ConnectorStatus::State state, const QString &message)
{
    m_status.state = state;
    m_status.message = message;
    m_status.retryInSeconds = state == ConnectorStatus::State::Reconnecting
                                   ? static_cast<int>(m_backoff.delay().count() / 1000)
                                   : 0;
    Q_EMIT changed(m_status);
}

void AgentConnection::tick()
{
    if (--m_status.retryInSeconds > 0) {
        Q_EMIT changed(m_status);
        return;
    }
    m_timer->stop();
    m_backoff.failed();
    setState(ConnectorStatus::State::Connecting, m_status.message);
    Q_EMIT retry();
}

} // namespace dl2console
