// workloads/io/input_path.cpp — resolving a config's or catalog's file names, and the ".." rule.
#include "workloads/io/input_path.h"

#include <filesystem>
#include <utility>

#include "models/input_error.h"

namespace ringsched {
namespace {

// Per thread: configs are parsed on the thread that runs them (sweeps parse cells on worker threads).
thread_local bool parent_paths_allowed = false;
thread_local std::string input_base_dir;

}  // namespace

ParentPathsAllowed::ParentPathsAllowed(bool allow) : previous_(parent_paths_allowed) {
  parent_paths_allowed = previous_ || allow;
}

ParentPathsAllowed::~ParentPathsAllowed() {
  parent_paths_allowed = previous_;
}

InputBaseDir::InputBaseDir(std::string dir) : previous_(std::exchange(input_base_dir, std::move(dir))) {}

InputBaseDir::~InputBaseDir() {
  input_base_dir = std::move(previous_);
}

const std::string& current_input_base_dir() {
  return input_base_dir;
}

std::string resolve_input_path(const std::string& file, const std::string& base_dir) {
  const std::filesystem::path p(file);
  if (!p.is_relative()) return p.string();
  if (!parent_paths_allowed) {
    // Lexically: "a/../b" stays inside, "a/../../b" and "../b" do not (a symbolic link inside is the user's own).
    const std::filesystem::path inside = p.lexically_normal();
    if (!inside.empty() && *inside.begin() == "..") {
      throw InputError("'" + file + "' climbs above " +
                       (base_dir.empty() ? std::string("the working directory") : "its folder " + base_dir) +
                       " through '..': write an absolute path, or set \"allow_parent_paths\": true at the top level of "
                       "the config (or catalog file) to let its relative paths leave its folder");
    }
  }
  return base_dir.empty() ? p.string() : (std::filesystem::path(base_dir) / p).string();
}

}  // namespace ringsched
