#include "logging.h"

Q_LOGGING_CATEGORY(lcSim, "dl2.sim", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSched, "dl2.sched", QtInfoMsg)
Q_LOGGING_CATEGORY(lcLive, "dl2.connector.console")
