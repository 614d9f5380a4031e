// workloads/atomic_write.h — the one atomic file write of the project: a temporary name in the same folder, then a
// rename into place, so a reader never sees a half-written file (outputs, sweep results, profiler measurements).
#pragma once

#include <string>

namespace ringsched {

// Writes `content` to `path` through `path.tmp.PID`, fsync and a rename. Throws std::runtime_error naming the path (and
// the system's reason) on I/O failure; the temporary file is removed then.
void write_file_atomic(const std::string& path, const std::string& content);

// Before any work: `path` can take a file written by write_file_atomic: its folder exists, and it is absent or a
// regular file (not a folder, device or FIFO, which the rename would replace with a plain file). InputError naming
// `flag` and the path otherwise.
void check_output_file(const std::string& path, const std::string& flag);

}  // namespace ringsched
