// workloads/io/atomic_write.h — the one atomic file write of the project: a temporary name in the same folder, then a
// rename into place, so a reader never sees a half-written file (outputs, sweep results, profiler measurements).
#pragma once

#include <string>

namespace ringsched {

// Writes `content` to `path` through a temporary file in the same folder (atomic_temp_path), fsync and a rename.
// Throws std::runtime_error naming the path (and the system's reason) on I/O failure; the temporary file is removed
// then.
void write_file_atomic(const std::string& path, const std::string& content);

// The temporary file write_file_atomic uses for `path`: `.ringsched-tmp.PID.NAME` beside it (NAME: the file name,
// shortened to keep the name within 255 bytes). A name no user file is likely to have, so that the clean-up of a
// killed writer's temporaries (remove_stale_temporaries) can never take a user's file.
std::string atomic_temp_path(const std::string& path);

// The PID in a temporary file name made by atomic_temp_path (".ringsched-tmp.PID.NAME"), or -1 for any other name.
long atomic_temp_owner(const std::string& file_name);

// Before any work: `path` can take a file written by write_file_atomic: its folder exists, and it is absent or a
// regular file (not a folder, device or FIFO, which the rename would replace with a plain file). InputError naming
// `flag` and the path otherwise.
void check_output_file(const std::string& path, const std::string& flag);

}  // namespace ringsched
