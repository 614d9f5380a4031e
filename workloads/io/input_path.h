// workloads/io/input_path.h — where a file name written in a config or catalog points: a relative name is resolved
// against the folder of the file that names it and may not leave that folder through ".." unless the config (or
// catalog) says "allow_parent_paths": true; absolute names are the user's choice and are taken as written.
#pragma once

#include <string>

namespace ringsched {

// The file `file` names from `base_dir` (its folder; "" = the working directory). A relative name whose ".." would
// climb above base_dir is an InputError (without the caller's JSON path: callers add it) unless a ParentPathsAllowed
// scope allows it on this thread.
std::string resolve_input_path(const std::string& file, const std::string& base_dir);

// While alive, relative names may climb above their folder on this thread (a config's or catalog's
// "allow_parent_paths": true). Scopes nest: a config that allows it lets the catalog files it loads do so too.
class ParentPathsAllowed {
 public:
  explicit ParentPathsAllowed(bool allow);
  ~ParentPathsAllowed();
  ParentPathsAllowed(const ParentPathsAllowed&) = delete;
  ParentPathsAllowed& operator=(const ParentPathsAllowed&) = delete;

 private:
  bool previous_;
};

// While alive, the folder of the config being parsed on this thread (relative names in keys parsed without a base
// directory argument, such as cluster.topology.file, resolve against it). Scopes nest; "" = the working directory.
class InputBaseDir {
 public:
  explicit InputBaseDir(std::string dir);
  ~InputBaseDir();
  InputBaseDir(const InputBaseDir&) = delete;
  InputBaseDir& operator=(const InputBaseDir&) = delete;

 private:
  std::string previous_;
};

// The innermost InputBaseDir's folder on this thread ("" when none).
const std::string& current_input_base_dir();

}  // namespace ringsched
