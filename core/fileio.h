#pragma once
// Whole-file reads and atomic writes (QSaveFile: temporary file, then rename), so a failed
// write never leaves a partial file behind.

#include <string>

namespace dl2 {

// Throws dl2::Error naming the file when it cannot be read.
std::string readFile(const std::string &path);
// Throws dl2::Error naming the file; the previous content (if any) stays intact on failure.
void writeFileAtomically(const std::string &path, const std::string &content);

} // namespace dl2
