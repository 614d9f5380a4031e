// sim/experiments/atomic_file.cpp — temp-file + rename writes.
#include "sim/experiments/atomic_file.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "models/input_error.h"

namespace ringsched {

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(path + ": cannot write (could not create " + tmp + ")");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw std::runtime_error(path + ": write failed");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename into place: " + ec.message());
  }
}

void ensure_directory(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec)) {
    throw InputError(path + ": exists and is not a directory");
  }
  std::filesystem::create_directories(path, ec);
  if (ec) throw InputError(path + ": cannot create directory: " + ec.message());
}

}  // namespace ringsched
