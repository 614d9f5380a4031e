// sim/experiments/atomic_file.h — output files are written to a temporary name in the same folder and renamed into
// place, so a reader never sees a half-written file.
#pragma once

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "workloads/atomic_write.h"  // write_file_atomic

namespace ringsched {

// Creates the directory (and parents). Throws InputError if it cannot (e.g. a file is in the way).
void ensure_directory(const std::string& path);

// Checks, before any work, that `dir` can take output: creates it if needed and writes and removes a probe file.
// InputError naming the folder otherwise (a file in the way, /dev/full, no permission, a full disk).
void check_output_dir(const std::string& dir);

// Removes temporary files (`NAME.tmp.PID`) and staging folders (`.staging.PID`) in `dir` left by processes that no
// longer run (a kill -9 during a write). Returns how many it removed.
int remove_stale_temporaries(const std::string& dir);

// A set of output files written as a whole: each file goes to a staging folder inside `dir` and all move into
// `dir` only at commit(). A run that fails before commit() leaves `dir` as it was (the previous run's files intact).
class StagedOutput {
 public:
  explicit StagedOutput(std::string dir);
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;
  ~StagedOutput();

  // Writes one file (a name inside `dir`) to the staging folder.
  void write(const std::string& name, const std::string& content);
  // Appends to one file in the staging folder, created on the first call (streamed outputs: jobs.csv and events.csv
  // grow run by run). Write errors are reported here or by commit().
  void append(const std::string& name, const std::string& content);
  // Moves every staged file into `dir` (a rename each, same file system) and removes the staging folder; with
  // replace(), also removes the named files this set did not write (an earlier run's stale results).
  void commit();
  // Names of files of the same kind of output (e.g. every file a run can write) that commit() removes when this set
  // did not write them, so `dir` holds one run's files only.
  void replace(std::vector<std::string> known) { known_ = std::move(known); }

 private:
  std::string dir_;
  std::string stage_;
  std::vector<std::string> names_;
  std::map<std::string, std::ofstream> streams_;  // files being appended to
  std::vector<std::string> known_;                // replace()
};

// Removes the staging folders of every StagedOutput alive in this process (an interrupted run: SIGINT, SIGTERM) and
// returns their output folders. Safe to call from any thread; the objects' later destruction finds nothing to remove.
std::vector<std::string> remove_live_staging();

}  // namespace ringsched
