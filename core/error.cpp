#include "error.h"

namespace dl2 {

Error Error::at(const std::string &file, int line, const std::string &message)
{
    std::string where = file;
    if (line > 0)
        where += ':' + std::to_string(line);
    return Error(where + ": " + message);
}

} // namespace dl2
