#pragma once
// The state of the console's connection to its cluster, published on every change, and the
// reconnect state machine of a remote agent: Connecting -> Connected; a failed call ->
// Reconnecting, counted down a second at a time with exponential backoff (1 s .. 30 s) ->
// Connecting again (retry()); a rejected token is final. The embedded simulator stays
// Embedded.

#include "livetypes.h"
#include "retry.h"

#include <QObject>

class QTimer;

namespace dl2console {

class AgentConnection : public QObject
{
    Q_OBJECT
public:
    explicit AgentConnection(QObject *parent = nullptr);

    const ConnectorStatus &status() const { return m_status; }
    // Publishes the first state: Embedded (`address`: the simulator's description) or
    // Connecting to the agent at `address`.
    void begin(ConnectorStatus::State state, const QString &address);
    // A call to the agent succeeded: Connected, and the backoff starts over.
    void succeeded();
    // A call to the agent failed with `why`: counts down to the next attempt, or stops for
    // good when the agent rejected the token.
    void lost(const QString &why);

Q_SIGNALS:
    void changed(const dl2console::ConnectorStatus &status);
    void retry(); // the countdown ran out: connect again

private:
    void setState(ConnectorStatus::State state, const QString &message = {});
    void tick();

    ConnectorStatus m_status;
    dl2::Backoff m_backoff{std::chrono::seconds(1), std::chrono::seconds(30)};
    QTimer *m_timer;
};

} // namespace dl2console
