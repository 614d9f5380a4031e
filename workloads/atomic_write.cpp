// workloads/atomic_write.cpp — temporary file, fsync, rename.
#include "workloads/atomic_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "models/input_error.h"

namespace ringsched {

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
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
