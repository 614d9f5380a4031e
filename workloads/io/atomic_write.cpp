// workloads/io/atomic_write.cpp — temporary file (a distinctive `.ringsched-tmp.PID.NAME`), fsync, rename.
#include "workloads/io/atomic_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "models/input_error.h"

namespace ringsched {

namespace {
constexpr char kTempPrefix[] = ".ringsched-tmp.";
}  // namespace

std::string atomic_temp_path(const std::string& path) {
  const std::filesystem::path p(path);
  std::string name = kTempPrefix + std::to_string(::getpid()) + "." + p.filename().string();
  if (name.size() > 255) name.resize(255);  // NAME_MAX; the PID keeps it unique to this process
  return (p.parent_path() / name).string();
}

long atomic_temp_owner(const std::string& file_name) {
  const std::string prefix = kTempPrefix;
  if (file_name.rfind(prefix, 0) != 0) return -1;
  const std::size_t dot = file_name.find('.', prefix.size());
  if (dot == std::string::npos || dot + 1 >= file_name.size()) return -1;  // a NAME after the PID
  const std::string digits = file_name.substr(prefix.size(), dot - prefix.size());
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stol(digits);
}

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = atomic_temp_path(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw std::runtime_error(path + ": cannot write (could not create " + tmp + ": " + std::strerror(errno) + ")");
  }
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw std::runtime_error(path + ": write failed: " + err);
    }
    done += static_cast<std::size_t>(n);
  }
  // Durable before it is visible: a checkpoint or result that survives a crash is whole.
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": write failed (fsync/close): " + err);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename into place: " + err);
  }
}

void check_output_file(const std::string& path, const std::string& flag) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::exists(st)) {
    if (fs::is_directory(st)) throw InputError(flag + ": " + path + " is a folder; give a file name");
    if (!fs::is_regular_file(st)) {
      throw InputError(flag + ": " + path + " is not a regular file (a device, FIFO or socket); give a file name");
    }
    return;
  }
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    throw InputError(flag + ": " + path + ": folder " + parent.string() + " does not exist (create it first)");
  }
}

}  // namespace ringsched
