// workloads/input_file.h — reading a user's input file whole, with the limits every reader shares: it must exist, be a
// regular file (not a directory, FIFO or device such as /dev/zero) and be at most a size cap; failures are
// InputError naming the file.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace ringsched {

// The largest input file any reader accepts (configs, traces, tables, measurement and results files): 1 GiB. The
// largest shipped input is a few MB; the Philly trace as CSV is ~20 MB.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 30;

// The whole file as bytes. `what` names the kind of file in messages ("config", "trace", ...).
// The block size of streamed reads: 1 MiB.
inline constexpr std::size_t kReadBlockBytes = std::size_t{1} << 20;

// The same checks and cap, the bytes handed to `chunk` a block of `block_bytes` (>= 1) at a time (readers that
// stream: traces).
void for_each_input_chunk(const std::string& path, const std::string& what,
                          const std::function<void(const char*, std::size_t)>& chunk,
                          std::size_t max_bytes = kMaxInputFileBytes, std::size_t block_bytes = kReadBlockBytes);

std::string read_input_file(const std::string& path, const std::string& what = "file",
                            std::size_t max_bytes = kMaxInputFileBytes);

}  // namespace ringsched
