// sim/experiments/atomic_file.h — output files are written to a temporary name in the same folder and renamed into
// place, so a reader never sees a half-written file.
#pragma once

#include <string>

namespace ringsched {

// Writes `content` to `path` atomically (temp file + rename). Throws std::runtime_error on I/O failure.
void write_file_atomic(const std::string& path, const std::string& content);

// Creates the directory (and parents). Throws InputError if it cannot (e.g. a file is in the way).
void ensure_directory(const std::string& path);

}  // namespace ringsched
