// workloads/io/input_file.h — reading a user's input file whole, with the limits every reader shares: it must exist, be
// a regular file (not a directory, FIFO or device such as /dev/zero) and be at most a size cap; failures are InputError
// naming the file.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace ringsched {

// The largest input file any reader accepts (configs, traces, tables, measurement and results files): 1 GiB. The
// largest shipped input is a few MB; the Philly trace as CSV is ~20 MB.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 30;

// The longest line (a CSV row, quoted line breaks included; a trace line; its line end counted) the line-based
// readers accept: 1 MiB.
// Shipped rows are at most a few hundred bytes; a longer one is refused with file:line as soon as it passes the cap,
// so that a file of one huge line is never held whole.
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

// "path:12: a line longer than the limit of 1048576 bytes (1 MiB) ..." — the one message for an over-long line.
[[noreturn]] void line_too_long(const std::string& path, long long line, const std::string& what,
                                std::size_t max_bytes = kMaxLineBytes);

// The whole file as bytes. `what` names the kind of file in messages ("config", "trace", ...).
// The block size of streamed reads: 1 MiB.
inline constexpr std::size_t kReadBlockBytes = std::size_t{1} << 20;

// The same checks and cap, the bytes handed to `chunk` a block of `block_bytes` (>= 1) at a time (readers that
// stream: traces).
void for_each_input_chunk(const std::string& path, const std::string& what,
                          const std::function<void(const char*, std::size_t)>& chunk,
                          std::size_t max_bytes = kMaxInputFileBytes, std::size_t block_bytes = kReadBlockBytes);

// Each line of the file, streamed (for_each_input_chunk): `line` gets its text without the '\n' (a '\r' kept), the
// last line also when it does not end in '\n'; a line over kMaxLineBytes fails naming its number (line_too_long).
// Only one line is held at a time.
void for_each_input_line(const std::string& path, const std::string& what,
                         const std::function<void(std::string&)>& line);

std::string read_input_file(const std::string& path, const std::string& what = "file",
                            std::size_t max_bytes = kMaxInputFileBytes);

}  // namespace ringsched
