// sim/experiments/atomic_file.h — output folders written as a whole: one writer per folder (OutputLock); every file of
// a run is staged in a folder inside the output folder and all move into place in one commit, which is all-or-nothing
// whatever the signal or failure (a journal, backups of the earlier files, rollback); checks before any work (a usable
// folder, free space, no folder where a file goes); and the clean-up of ringsched's own temporaries only.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "workloads/io/atomic_write.h"  // write_file_atomic

namespace ringsched {

// Takes the output lock of `dir` (created if needed, as ensure_directory) for this object's lifetime. Refused with
// InputError naming the folder and the holder's pid when another process holds it, or when another thread of this
// process does; the same thread may take it again (nested: simulate holds it for the run, StagedOutput inside).
// The first taker in this process finishes what a killed writer left in `dir` (remove_stale_temporaries under the
// lock: a commit cut short is rolled back). The lock file is removed when the last holder lets go; a file system
// without flock support (ENOLCK, EOPNOTSUPP) gets a warning on stderr and no lock.
class OutputLock {
 public:
  explicit OutputLock(const std::string& dir);
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  ~OutputLock();

 private:
  std::string key_;  // the folder's canonical path
};

// The name of the lock file inside an output folder.
inline constexpr const char* kOutputLockName = ".ringsched.lock";

// For the interrupt handler, just before the process exits: removes the lock files this process holds (the locks go
// with the process).
void remove_held_lock_files();

// Creates the directory (and parents). Throws InputError if it cannot (e.g. a file is in the way).
void ensure_directory(const std::string& path);

// Checks, before any work, that `dir` can take output: creates it if needed, refuses a file system with no free block
// (statvfs) and writes, fsyncs and removes a 64 KiB probe file. InputError naming the folder otherwise (a file in the
// way, /dev/full, no permission, a full disk: "no space left").
void check_output_dir(const std::string& dir);

// Checks that each name (a file inside `dir`, or `sub/file`) can be replaced by a file: absent, a regular file or a
// symbolic link; `sub` absent or a folder. InputError naming the first path that is a folder (or a device, FIFO,
// socket) otherwise, so that a run that could only leave a mixed set is refused before it starts.
void check_output_targets(const std::string& dir, const std::vector<std::string>& names);

// Removes what ringsched's writers left in `dir` when they were killed, and nothing else: regular files named
// `.ringsched-tmp.PID.NAME` (write_file_atomic) or `.ringsched-probe.PID` whose process no longer runs, and staging
// folders `.ringsched-staging.PID.N` (real folders holding the `.ringsched-staging` marker) of such a process. A
// staging folder holding a commit journal is first finished: rolled back (the earlier files restored, the new ones
// taken out) unless the commit had reached its end marker, then rolled forward (the backups dropped). With `locked`
// (the caller holds dir's OutputLock, so no other writer can be at work) every staging folder that no live
// StagedOutput of this process owns is finished, whatever its pid (a killed writer's pid may have been reused).
// User entries such as `thesis.tmp.20240101/` or the names of older ringsched versions are never touched. Returns how
// many entries it removed.
int remove_stale_temporaries(const std::string& dir, bool locked = false);

// A set of output files written as a whole: each file goes to a staging folder inside `dir` (holding dir's
// OutputLock for the object's lifetime) and all move into `dir` only at commit(). A run that fails before commit()
// leaves `dir` as it was (the previous run's files intact).
class StagedOutput {
 public:
  explicit StagedOutput(std::string dir);
  StagedOutput(const StagedOutput&) = delete;
  StagedOutput& operator=(const StagedOutput&) = delete;
  ~StagedOutput();

  // Names given to write, append and replace after this go into `dir`/`sub` (created at commit); "" = `dir` itself.
  // table3 stages its held-out block as "held-out" in the same set, so that both blocks commit in one step.
  void set_subfolder(const std::string& sub);
  // Writes one file (a name inside `dir`) to the staging folder.
  void write(const std::string& name, const std::string& content);
  // Appends to one file in the staging folder, created on the first call (streamed outputs: jobs.csv and events.csv
  // grow run by run). Write errors are reported here or by commit().
  void append(const std::string& name, const std::string& content);
  // Moves every staged file into `dir` and removes the named files this set did not write (replace()), as one step:
  // SIGINT and SIGTERM are blocked in this thread and the interrupt handler waits (remove_live_staging) while it
  // runs; the earlier files are kept as backups in the staging folder until every new file is in place, and put back
  // if any move fails (std::runtime_error saying `dir` is unchanged); a journal written first lets the next writer of
  // `dir` roll back a commit cut short by SIGKILL (remove_stale_temporaries). Targets are checked again first
  // (check_output_targets: InputError).
  void commit();
  // Names of files of the same kind of output (e.g. every file a run can write; under the current subfolder) that
  // commit() removes when this set did not write them, so `dir` holds one run's files only. Checks them at once
  // (check_output_targets: InputError before any work when one is a folder).
  void replace(const std::vector<std::string>& known);

 private:
  void make_parent(const std::filesystem::path& path) const;

  std::unique_ptr<OutputLock> lock_;
  std::string dir_;
  std::string stage_;
  std::string sub_;                               // set_subfolder, with a trailing '/'
  std::vector<std::string> names_;                // written, relative to dir_
  std::map<std::string, std::ofstream> streams_;  // files being appended to
  std::vector<std::string> known_;                // replace()
};

// What remove_live_staging found: output folders whose unfinished staging was removed (earlier results there are
// unchanged) and those this process committed in full before the interrupt.
struct LiveOutputs {
  std::vector<std::string> removed;
  std::vector<std::string> committed;
};

// Removes the staging folders of every StagedOutput alive in this process (an interrupted run: SIGINT, SIGTERM) and
// says which output folders they were and which were committed already. A commit in progress is finished first (this
// waits for it), never cut short. Safe to call from any thread; the objects' later destruction finds nothing to remove.
LiveOutputs remove_live_staging();

// Test seam: RINGSCHED_TEST_COMMIT=ACTION:N acts just before the commit's step N (0-based; each link or rename is a
// step; the step after the last is the end marker, the one after that the removal of the backups): `fail` (that step
// fails as an I/O error would), `kill` (SIGKILL to this process), `int` / `term` (SIGINT / SIGTERM to this process,
// then 300 ms for a handler to act before the commit goes on).
inline constexpr const char* kCommitTestEnv = "RINGSCHED_TEST_COMMIT";

}  // namespace ringsched
