// sim/experiments/atomic_file.cpp — temp-file + rename writes.
#include "sim/experiments/atomic_file.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>

#include "models/input_error.h"

namespace ringsched {

void ensure_directory(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec)) {
    throw InputError(path + ": exists and is not a directory");
  }
  std::filesystem::create_directories(path, ec);
  if (ec) throw InputError(path + ": cannot create directory: " + ec.message());
}

void check_output_dir(const std::string& dir) {
  ensure_directory(dir);
  const std::string probe = dir + "/.ringsched-probe." + std::to_string(::getpid());
  std::FILE* f = std::fopen(probe.c_str(), "wb");
  bool ok = f != nullptr;
  if (f) {
    ok = std::fputs("probe\n", f) >= 0;
    ok = std::fflush(f) == 0 && ok;
    ok = std::fclose(f) == 0 && ok;
  }
  const int err = errno;
  std::remove(probe.c_str());
  if (!ok) throw InputError(dir + ": cannot write output here: " + std::strerror(err));
}

namespace {

// The PID at the end of a temporary name ("summary.json.tmp.1234", ".staging.1234"), or -1.
long temp_owner(const std::string& name) {
  std::size_t pos = name.rfind(".tmp.");
  std::size_t len = 5;
  if (pos == std::string::npos && name.rfind(".staging.", 0) == 0) {
    pos = 0;
    len = 9;
  }
  if (pos == std::string::npos) return -1;
  const std::string digits = name.substr(pos + len);
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stol(digits);
}

}  // namespace

int remove_stale_temporaries(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  int removed = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const long pid = temp_owner(it->path().filename().string());
    if (pid <= 0) continue;
    const bool alive = pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
    if (alive) continue;
    std::error_code rm;
    fs::remove_all(it->path(), rm);
    if (!rm) ++removed;
  }
  return removed;
}

namespace {

// The staging folders alive in this process, by staging path -> output folder (for remove_live_staging).
struct LiveStaging {
  std::mutex mutex;
  std::map<std::string, std::string> folders;
};

LiveStaging& live_staging() {
  static LiveStaging live;
  return live;
}

}  // namespace

std::vector<std::string> remove_live_staging() {
  LiveStaging& live = live_staging();
  const std::lock_guard<std::mutex> lock(live.mutex);
  std::vector<std::string> dirs;
  for (const auto& [stage, dir] : live.folders) {
    std::error_code ec;
    std::filesystem::remove_all(stage, ec);
    dirs.push_back(dir);
  }
  live.folders.clear();
  return dirs;
}

StagedOutput::StagedOutput(std::string dir) : dir_(std::move(dir)) {
  ensure_directory(dir_);
  remove_stale_temporaries(dir_);
  stage_ = dir_ + "/.staging." + std::to_string(::getpid());
  std::error_code ec;
  std::filesystem::remove_all(stage_, ec);
  std::filesystem::create_directory(stage_, ec);
  if (ec) throw InputError(dir_ + ": cannot write output here: " + ec.message());
  const std::lock_guard<std::mutex> lock(live_staging().mutex);
  live_staging().folders[stage_] = dir_;
}

StagedOutput::~StagedOutput() {
  streams_.clear();  // close open files before removing them
  std::error_code ec;
  std::filesystem::remove_all(stage_, ec);
  const std::lock_guard<std::mutex> lock(live_staging().mutex);
  live_staging().folders.erase(stage_);
}

void StagedOutput::write(const std::string& name, const std::string& content) {
  const std::string path = stage_ + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(dir_ + "/" + name + ": cannot write: " + std::strerror(errno));
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.flush();
  if (!out) throw std::runtime_error(dir_ + "/" + name + ": write failed (disk full?); " + dir_ + " is unchanged");
  out.close();
  if (!out) throw std::runtime_error(dir_ + "/" + name + ": write failed (disk full?); " + dir_ + " is unchanged");
  names_.push_back(name);
}

void StagedOutput::append(const std::string& name, const std::string& content) {
  auto it = streams_.find(name);
  if (it == streams_.end()) {
    it = streams_.emplace(name, std::ofstream(stage_ + "/" + name, std::ios::binary | std::ios::trunc)).first;
    if (!it->second) throw std::runtime_error(dir_ + "/" + name + ": cannot write: " + std::strerror(errno));
    names_.push_back(name);
  }
  it->second.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!it->second)
    throw std::runtime_error(dir_ + "/" + name + ": write failed (disk full?); " + dir_ + " is unchanged");
}

void StagedOutput::commit() {
  for (auto& [name, out] : streams_) {
    out.flush();
    out.close();
    if (!out) throw std::runtime_error(dir_ + "/" + name + ": write failed (disk full?); " + dir_ + " is unchanged");
  }
  streams_.clear();
  for (const auto& name : names_) {
    std::error_code ec;
    std::filesystem::rename(stage_ + "/" + name, dir_ + "/" + name, ec);
    if (ec) throw std::runtime_error(dir_ + "/" + name + ": cannot move into place: " + ec.message());
  }
  for (const auto& name : known_) {
    if (std::find(names_.begin(), names_.end(), name) != names_.end()) continue;
    std::error_code gone;
    std::filesystem::remove(dir_ + "/" + name, gone);  // absent is fine
  }
  std::error_code ec;
  std::filesystem::remove_all(stage_, ec);
}

}  // namespace ringsched
