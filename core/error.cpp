#include "error.h"

namespace dl2 {

Error Error::at(const std::string &file, int line, const std::string &message)
{
    std::string where = file;
    if (line > 0)
        where += ':' + std::to_string(line);
    return Error(where + ": " + message);
}

void checkKnown(const char *what, const std::string &value, std::initializer_list<const char *> known)
{
    std::string list;
    for (const char *k : known) {
        if (value == k)
            return;
        list += (list.empty() ? "" : ", ") + std::string(k);
    }
    throw Error("unknown " + std::string(what) + " '" + value + "' (known: " + list + ")");
}

} // namespace dl2
