// workloads/io/input_file.cpp — bounded whole-file reads for user input.
#include "workloads/io/input_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include "models/input_error.h"

namespace ringsched {

namespace {

// The checks every reader shares; returns the file's size as stat saw it (0 when unknown) and opens `in`.
std::uintmax_t open_checked(const std::string& path, const std::string& what, std::size_t max_bytes,
                            std::ifstream& in) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw InputError(path + ": cannot open " + what + ": no such file");
  if (fs::is_directory(st)) throw InputError(path + ": cannot read " + what + ": it is a directory");
  if (!fs::is_regular_file(st)) {
    throw InputError(path + ": cannot read " + what + ": not a regular file (a device, FIFO or socket)");
  }
  const auto size = fs::file_size(path, ec);
  if (!ec && size > max_bytes) {
    throw InputError(path + ": " + what + " is " + std::to_string(size) + " bytes, more than the limit of " +
                     std::to_string(max_bytes));
  }
  in.open(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open " + what + ": " + std::strerror(errno));
  return ec ? 0 : size;
}

[[noreturn]] void grew_beyond(const std::string& path, const std::string& what, std::size_t max_bytes) {
  throw InputError(path + ": " + what + " is more than the limit of " + std::to_string(max_bytes) + " bytes");
}

}  // namespace

void line_too_long(const std::string& path, long long line, const std::string& what, std::size_t max_bytes) {
  throw InputError(path + ":" + std::to_string(line) + ": a " + what + " longer than the limit of " +
                   std::to_string(max_bytes) + " bytes; is this the right file?");
}

std::string read_input_file(const std::string& path, const std::string& what, std::size_t max_bytes) {
  std::ifstream in;
  const auto size = open_checked(path, what, max_bytes, in);
  std::string out;
  out.resize(static_cast<std::size_t>(size));
  if (!out.empty()) in.read(out.data(), static_cast<std::streamsize>(out.size()));
  if (in.bad()) throw InputError(path + ": cannot read " + what);
  out.resize(static_cast<std::size_t>(in.gcount()));
  // The file may have grown since stat: read the rest, still within the cap.
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    out.append(buf, static_cast<std::size_t>(in.gcount()));
    if (out.size() > max_bytes) grew_beyond(path, what, max_bytes);
  }
  if (in.bad()) throw InputError(path + ": cannot read " + what);
  return out;
}

void for_each_input_chunk(const std::string& path, const std::string& what,
                          const std::function<void(const char*, std::size_t)>& chunk, std::size_t max_bytes,
                          std::size_t block_bytes) {
  std::ifstream in;
  (void)open_checked(path, what, max_bytes, in);
  std::vector<char> buf(std::max<std::size_t>(1, block_bytes));
  std::size_t total = 0;
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    const auto n = static_cast<std::size_t>(in.gcount());
    total += n;
    if (total > max_bytes) grew_beyond(path, what, max_bytes);
    chunk(buf.data(), n);
  }
  if (in.bad()) throw InputError(path + ": cannot read " + what);
}

void for_each_input_line(const std::string& path, const std::string& what,
                         const std::function<void(std::string&)>& line) {
  long long number = 0;
  std::string pending;
  for_each_input_chunk(path, what, [&](const char* data, std::size_t size) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < size; ++i) {
      if (data[i] != '\n') continue;
      if (pending.size() + (i - start) + 1 > kMaxLineBytes) line_too_long(path, number + 1, "line");
      pending.append(data + start, i - start);
      ++number;
      line(pending);
      pending.clear();
      start = i + 1;
    }
    // A line that has not ended is held only up to the cap (never a whole file of one line).
    if (pending.size() + (size - start) > kMaxLineBytes) line_too_long(path, number + 1, "line");
    pending.append(data + start, size - start);
  });
  if (!pending.empty()) line(pending);
}

}  // namespace ringsched
