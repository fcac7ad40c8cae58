#pragma once
// Sub-commands of the `dl2` CLI register themselves (one file each), so the learning and
// connector libraries add theirs without touching a shared table.

#include <QStringList>

#include <functional>
#include <vector>

namespace dl2::cli {

struct Command
{
    const char *name;
    const char *summary;
    // args[0] is "dl2 <name>"; returns the process exit code.
    std::function<int(const QStringList &args)> run;
};

std::vector<Command> &commands();

struct CommandRegistration
{
    explicit CommandRegistration(Command command) { commands().push_back(std::move(command)); }
};

} // namespace dl2::cli
