#pragma once
// Logging categories of the console's session layer.

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcSim)
Q_DECLARE_LOGGING_CATEGORY(lcSched)
Q_DECLARE_LOGGING_CATEGORY(lcLive) // live operations: gate, audit log, connector
