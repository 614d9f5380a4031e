// test/sim/experiments/test_staged_commit.cpp — StagedOutput's one-step commit (a move that fails puts the earlier
// files back; a commit killed with SIGKILL is rolled back, or forward past its end marker, by the next writer), the
// output lock against a second writer, the target checks, and the clean-up that takes ringsched's own temporaries only.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "models/input_error.h"
#include "sim/experiments/atomic_file.h"
#include "test/sim/cli_util.h"

using namespace ringsched;
namespace fs = std::filesystem;
using ringsched::test::read_whole_file;
using ringsched::test::TempDir;

namespace {

// An earlier run's set: summary.json, jobs.csv and a stale prediction_errors.csv.
void write_earlier(const fs::path& d) {
  fs::create_directories(d);
  std::ofstream(d / "summary.json") << "old summary\n";
  std::ofstream(d / "jobs.csv") << "old jobs\n";
  std::ofstream(d / "prediction_errors.csv") << "old errors\n";
}

// The new set (summary.json, jobs.csv; prediction_errors.csv to be removed), committed with RINGSCHED_TEST_COMMIT
// set to `hook`. The commit's steps: 0 link old summary.json, 1 move the new one in, 2 link old jobs.csv, 3 move the
// new one in, 4 move prediction_errors.csv out, 5 end marker, 6 removal of the backups.
void commit_new(const fs::path& d, const std::string& hook) {
  ::setenv(kCommitTestEnv, hook.c_str(), 1);
  StagedOutput s(d.string());
  s.replace({"summary.json", "jobs.csv", "prediction_errors.csv"});
  s.write("summary.json", "new summary\n");
  s.append("jobs.csv", "new jobs\n");
  s.commit();
}

// Runs commit_new in a child process; returns its wait status.
int commit_in_child(const fs::path& d, const std::string& hook) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      commit_new(d, hook);
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

int staging_folders(const fs::path& d) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(d))
    n += e.path().filename().string().find("staging") != std::string::npos ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("sim::StagedOutput: a move that fails part-way through the commit puts every earlier file back",
          "[hostile][out]") {
  TempDir tmp;
  const fs::path d = tmp.path() / "o";
  write_earlier(d);
  for (int step = 0; step <= 5; ++step) {
    CAPTURE(step);
    std::string err;
    try {
      commit_new(d, "fail:" + std::to_string(step));
    } catch (const std::runtime_error& e) {
      err = e.what();
    }
    CHECK_THAT(err, Catch::Contains("injected failure") && Catch::EndsWith(d.string() + " is unchanged"));
    CHECK(read_whole_file(d / "summary.json") == "old summary\n");
    CHECK(read_whole_file(d / "jobs.csv") == "old jobs\n");
    CHECK(read_whole_file(d / "prediction_errors.csv") == "old errors\n");
    CHECK(staging_folders(d) == 0);
  }
  ::unsetenv(kCommitTestEnv);
  commit_new(d, "");
  CHECK(read_whole_file(d / "summary.json") == "new summary\n");
  CHECK(read_whole_file(d / "jobs.csv") == "new jobs\n");
  CHECK_FALSE(fs::exists(d / "prediction_errors.csv"));
  CHECK(staging_folders(d) == 0);
  CHECK_FALSE(fs::exists(d / kOutputLockName));  // the lock file goes with its last holder
  ::unsetenv(kCommitTestEnv);
}

TEST_CASE("sim::StagedOutput: a commit killed between two moves is rolled back by the next writer of the folder",
          "[hostile][out]") {
  TempDir tmp;
  const fs::path d = tmp.path() / "o";
  for (int step = 0; step <= 5; ++step) {
    CAPTURE(step);
    write_earlier(d);
    const int status = commit_in_child(d, "kill:" + std::to_string(step));
    REQUIRE(WIFSIGNALED(status));
    REQUIRE(WTERMSIG(status) == SIGKILL);
    // What a kill -9 leaves: a mixed set (the new summary.json beside the old jobs.csv at step 2) and the journal.
    if (step == 2) {
      CHECK(read_whole_file(d / "summary.json") == "new summary\n");
      CHECK(read_whole_file(d / "jobs.csv") == "old jobs\n");
    }
    CHECK(staging_folders(d) == 1);
    { const OutputLock next(d.string()); }  // the next writer: rolls back
    CHECK(read_whole_file(d / "summary.json") == "old summary\n");
    CHECK(read_whole_file(d / "jobs.csv") == "old jobs\n");
    CHECK(read_whole_file(d / "prediction_errors.csv") == "old errors\n");
    CHECK(staging_folders(d) == 0);
  }
}

TEST_CASE("sim::StagedOutput: a commit killed after its end marker is rolled forward by the next writer",
          "[hostile][out]") {
  TempDir tmp;
  const fs::path d = tmp.path() / "o";
  write_earlier(d);
  const int status = commit_in_child(d, "kill:6");
  REQUIRE(WIFSIGNALED(status));
  CHECK(staging_folders(d) == 1);  // the backups are still there
  { const OutputLock next(d.string()); }
  CHECK(read_whole_file(d / "summary.json") == "new summary\n");
  CHECK(read_whole_file(d / "jobs.csv") == "new jobs\n");
  CHECK_FALSE(fs::exists(d / "prediction_errors.csv"));
  CHECK(staging_folders(d) == 0);
}

TEST_CASE("sim::StagedOutput: a folder where an output file goes is refused before any work and at commit",
          "[hostile][out]") {
  TempDir tmp;
  const fs::path d = tmp.path() / "o";
  write_earlier(d);
  fs::remove(d / "summary.json");
  fs::create_directories(d / "summary.json" / "inside");
  {
    StagedOutput s(d.string());
    CHECK_THROWS_AS(s.replace({"jobs.csv", "summary.json"}), InputError);
  }
  fs::remove_all(d / "summary.json");
  // A folder that appears during the run (a name the set removes): refused at commit, nothing moved.
  StagedOutput s(d.string());
  s.replace({"summary.json", "jobs.csv", "prediction_errors.csv"});
  s.write("summary.json", "new summary\n");
  fs::remove(d / "prediction_errors.csv");
  fs::create_directories(d / "prediction_errors.csv");
  std::string err;
  try {
    s.commit();
  } catch (const InputError& e) {
    err = e.what();
  }
  CHECK(err == (d / "prediction_errors.csv").string() +
                   ": is a folder where ringsched writes its output file; nothing was written (move it away or "
                   "choose another --out folder)");
  CHECK(read_whole_file(d / "jobs.csv") == "old jobs\n");
  CHECK_FALSE(fs::exists(d / "summary.json"));
}

TEST_CASE("sim::OutputLock: a second writer is refused at once, in another process or another thread",
          "[hostile][out]") {
  TempDir tmp;
  const fs::path d = tmp.path() / "o";
  const OutputLock held(d.string());
  { const OutputLock nested(d.string()); }  // the same thread nests (simulate's lock, then StagedOutput's)
  std::string from_thread;
  std::thread([&] {
    try {
      const OutputLock other(d.string());
    } catch (const InputError& e) {
      from_thread = e.what();
    }
  }).join();
  CHECK(from_thread == d.string() +
                           ": another thread of this process is writing here; wait for it or choose "
                           "another folder");
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      const OutputLock other(d.string());
    } catch (const InputError& e) {
      const std::string want = "another ringsched process (pid " + std::to_string(::getppid()) + ") is writing here";
      ::_exit(std::string(e.what()).find(want) != std::string::npos ? 2 : 4);
    }
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(fs::exists(d / kOutputLockName));
}

TEST_CASE("sim::remove_stale_temporaries: only ringsched's own temporaries of a gone process are removed",
          "[hostile][out]") {
  TempDir tmp;
  const fs::path d = tmp.path();
  const std::string gone = "999999999";  // above the kernel's pid_max: not running
  // A user's entries that look like temporaries of older versions: kept, never entered.
  fs::create_directories(d / "thesis.tmp.20240101");
  std::ofstream(d / "thesis.tmp.20240101" / "chapter.tex") << "years of work\n";
  std::ofstream(d / ("notes.tmp." + gone)) << "x";
  fs::create_directories(d / (".staging." + gone));
  // ringsched's own: a temporary file and a staging folder (with its marker) of a gone process.
  std::ofstream(d / (".ringsched-tmp." + gone + ".summary.json")) << "partial";
  std::ofstream(d / (".ringsched-probe." + gone)) << "probe";
  fs::create_directories(d / (".ringsched-staging." + gone + ".0"));
  std::ofstream(d / (".ringsched-staging." + gone + ".0") / ".ringsched-staging") << "marker";
  // Right names, wrong kinds: a folder named like a temporary file, a staging name without the marker, a link.
  fs::create_directories(d / (".ringsched-tmp." + gone + ".dir") / "x");
  fs::create_directories(d / (".ringsched-staging." + gone + ".1"));
  fs::create_directories(d / "elsewhere");
  std::ofstream(d / "elsewhere" / ".ringsched-staging") << "marker";
  fs::create_directory_symlink(d / "elsewhere", d / (".ringsched-staging." + gone + ".2"));
  // A live process's temporary (ours).
  std::ofstream(d / (".ringsched-tmp." + std::to_string(::getpid()) + ".jobs.csv")) << "being written";

  CHECK(remove_stale_temporaries(d.string()) == 3);
  CHECK(read_whole_file(d / "thesis.tmp.20240101" / "chapter.tex") == "years of work\n");
  CHECK(fs::exists(d / ("notes.tmp." + gone)));
  CHECK(fs::exists(d / (".staging." + gone)));
  CHECK_FALSE(fs::exists(d / (".ringsched-tmp." + gone + ".summary.json")));
  CHECK_FALSE(fs::exists(d / (".ringsched-probe." + gone)));
  CHECK_FALSE(fs::exists(d / (".ringsched-staging." + gone + ".0")));
  CHECK(fs::exists(d / (".ringsched-tmp." + gone + ".dir") / "x"));
  CHECK(fs::exists(d / (".ringsched-staging." + gone + ".1")));
  CHECK(fs::exists(d / "elsewhere" / ".ringsched-staging"));
  CHECK(fs::is_symlink(d / (".ringsched-staging." + gone + ".2")));
  CHECK(fs::exists(d / (".ringsched-tmp." + std::to_string(::getpid()) + ".jobs.csv")));
}

TEST_CASE("sim::write_file_atomic: its temporary is a distinctive .ringsched-tmp.PID.NAME beside the file",
          "[hostile][out]") {
  CHECK(atomic_temp_path("/a/b/sweep.json") == "/a/b/.ringsched-tmp." + std::to_string(::getpid()) + ".sweep.json");
  CHECK(atomic_temp_owner(".ringsched-tmp.1234.sweep.json") == 1234);
  CHECK(atomic_temp_owner("sweep.json.tmp.1234") == -1);
  CHECK(atomic_temp_owner("thesis.tmp.20240101") == -1);
  CHECK(atomic_temp_owner(".ringsched-tmp.1234.") == -1);
  CHECK(atomic_temp_owner(".ringsched-tmp.12a4.x") == -1);
  CHECK(atomic_temp_path(std::string(300, 'x')).size() == 255);
}
