// test/sim/cli/test_cli_out.cpp — `--out DIR` through the binary: an interrupt during the final moves, a failed move
// and a kill -9 mid-commit all leave DIR with one run's files; a folder where an output file goes, a second writer and
// a full file system are refused (exit 2) before the run; table3's two blocks commit together; a user's
// `*.tmp.<digits>` entries survive the clean-up of temporaries.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include "sim/experiments/atomic_file.h"
#include "test/sim/cli_util.h"

using namespace ringsched;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using ringsched::test::read_whole_file;
using ringsched::test::run_cli;
using ringsched::test::shell_quote;
using ringsched::test::TempDir;

namespace {

const std::string kOutTiny =
    shell_quote((fs::path(RINGSCHED_TEST_DIR) / ".." / "workloads" / "examples" / "tiny-2node.json").string());

// Every entry under `d` (files with their content, folders as "/"), hidden ones included.
std::map<std::string, std::string> entries(const fs::path& d) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(d)) {
    const std::string name = fs::relative(e.path(), d).string();
    out[name] = e.is_directory() ? "/" : read_whole_file(e.path());
  }
  return out;
}

void restore(const fs::path& d, const std::map<std::string, std::string>& files) {
  fs::remove_all(d);
  fs::create_directories(d);
  for (const auto& [name, content] : files) {
    if (content == "/") {
      fs::create_directories(d / name);
    } else {
      std::ofstream(d / name, std::ios::binary) << content;
    }
  }
}

// `ringsched <args>` with RINGSCHED_TEST_COMMIT=<hook> (sim/experiments/atomic_file.h); code -1 when killed.
ringsched::test::CliResult run_with_hook(const std::string& hook, const std::string& args) {
  ::setenv("RINGSCHED_TEST_COMMIT", hook.c_str(), 1);
  auto r = run_cli(args);
  ::unsetenv("RINGSCHED_TEST_COMMIT");
  return r;
}

}  // namespace

TEST_CASE("sim::cli: SIGINT or SIGTERM during --out --force's final moves waits for the commit and says so",
          "[sim][cli][out]") {
  TempDir tmp;
  const fs::path ref = tmp.path() / "ref";
  const fs::path d = tmp.path() / "o";
  REQUIRE(run_cli("simulate --config " + kOutTiny + " --seeds 2 --quiet --out " + shell_quote(ref.string())).code == 0);
  REQUIRE(run_cli("simulate --config " + kOutTiny + " --seeds 1 --quiet --out " + shell_quote(d.string())).code == 0);
  const auto earlier = entries(d);
  REQUIRE(earlier != entries(ref));
  for (const auto& [sig, hook, code] : {std::tuple{"SIGINT", "int:2", 130}, std::tuple{"SIGTERM", "term:5", 143}}) {
    CAPTURE(sig);
    restore(d, earlier);
    const auto r = run_with_hook(
        hook, "simulate --config " + kOutTiny + " --seeds 2 --quiet --force --out " + shell_quote(d.string()));
    CHECK(r.code == code);
    // Before: the handler removed the staging folder mid-commit and said "earlier results there are unchanged"
    // beside a new jobs.csv. Now it waits: the whole new set is there, and the message says so.
    CHECK_THAT(r.err, Contains(std::string("interrupted (") + sig + "); the new results in " + d.string() +
                               " were written in full before the interrupt"));
    CHECK(entries(d) == entries(ref));
  }
}

TEST_CASE("sim::cli: a move that fails during --out's commit puts the earlier files back", "[sim][cli][out]") {
  TempDir tmp;
  const fs::path d = tmp.path() / "o";
  REQUIRE(run_cli("simulate --config " + kOutTiny + " --seeds 1 --quiet --out " + shell_quote(d.string())).code == 0);
  const auto earlier = entries(d);
  for (const char* hook : {"fail:0", "fail:3", "fail:6", "fail:10"}) {
    CAPTURE(hook);
    const auto r = run_with_hook(
        hook, "simulate --config " + kOutTiny + " --seeds 2 --quiet --force --out " + shell_quote(d.string()));
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Contains("injected failure") && Contains(d.string() + " is unchanged"));
    CHECK(entries(d) == earlier);
  }
}

TEST_CASE("sim::cli: a run killed (SIGKILL) mid-commit is rolled back by the next run on that folder",
          "[sim][cli][out]") {
  TempDir tmp;
  const fs::path d = tmp.path() / "o";
  REQUIRE(run_cli("simulate --config " + kOutTiny + " --seeds 1 --quiet --out " + shell_quote(d.string())).code == 0);
  const auto earlier = entries(d);
  const auto killed = run_with_hook(
      "kill:3", "simulate --config " + kOutTiny + " --seeds 2 --quiet --force --out " + shell_quote(d.string()));
  CHECK((killed.code == -1 || killed.code == 137));
  CHECK(entries(d) != earlier);  // a mixed set and the journal, until the folder is next written
  // The next run on the folder (here refused: earlier results, no --force) first rolls the commit back.
  const auto next = run_cli("simulate --config " + kOutTiny + " --seeds 2 --quiet --out " + shell_quote(d.string()));
  CHECK(next.code == 2);
  CHECK_THAT(next.err, Contains("rolled back an output commit cut short") && Contains("holds the results"));
  CHECK(entries(d) == earlier);
}

TEST_CASE("sim::cli: --force onto results where an output name is a folder is refused before the run",
          "[sim][cli][out]") {
  TempDir tmp;
  const fs::path d = tmp.path() / "o";
  REQUIRE(run_cli("simulate --config " + kOutTiny + " --seeds 1 --quiet --out " + shell_quote(d.string())).code == 0);
  fs::remove(d / "table.csv");
  fs::create_directories(d / "table.csv");
  std::ofstream(d / "table.csv" / "mine.txt") << "mine\n";
  const auto earlier = entries(d);
  const auto r =
      run_cli("simulate --config " + kOutTiny + " --seeds 2 --quiet --force --out " + shell_quote(d.string()));
  CHECK(r.code == 2);
  CHECK(r.out.empty());  // nothing ran
  CHECK_THAT(r.err, Contains((d / "table.csv").string() + ": is a folder where ringsched writes its output file"));
  CHECK(entries(d) == earlier);
  // table3: a folder in the held-out block's place is found before either block runs.
  const fs::path t = tmp.path() / "t3";
  fs::create_directories(t / "held-out" / "summary.json");
  const auto t3 = run_cli("table3 --seeds 1 --jobs 4 --quiet --force --out " + shell_quote(t.string()));
  CHECK(t3.code == 2);
  CHECK(t3.out.empty());
  CHECK_THAT(t3.err, Contains((t / "held-out" / "summary.json").string() + ": is a folder"));
  CHECK_FALSE(fs::exists(t / "summary.json"));
}

TEST_CASE("sim::cli: a second writer of an --out folder is refused at once, naming the first one's pid",
          "[sim][cli][out]") {
  TempDir tmp;
  const fs::path d = tmp.path() / "o";
  const OutputLock held(d.string());  // this test process is the first writer
  const std::string holder = "another ringsched process (pid " + std::to_string(::getpid()) + ") is writing here";
  const auto sim =
      run_cli("simulate --config " + kOutTiny + " --seeds 1 --quiet --force --out " + shell_quote(d.string()));
  CHECK(sim.code == 2);
  CHECK(sim.out.empty());
  CHECK_THAT(sim.err, Contains(d.string() + ": " + holder));
  const auto t3 = run_cli("table3 --seeds 1 --jobs 4 --quiet --force --out " + shell_quote(d.string()));
  CHECK(t3.code == 2);
  CHECK_THAT(t3.err, Contains(holder));
  const std::string sweep = shell_quote(std::string(RINGSCHED_TEST_DIR) + "/fixtures/sweep/tiny-sweep.json");
  const auto sw = run_cli("sweep --config " + sweep + " --quiet --force --out " + shell_quote(d.string()));
  CHECK(sw.code == 2);
  CHECK_THAT(sw.err, Contains(holder));
  int files = 0;
  for (const auto& e : fs::directory_iterator(d))
    files += e.path().filename() == kOutputLockName ? 0 : 1;
  CHECK(files == 0);
}

TEST_CASE("sim::cli: the clean-up of temporaries leaves a user's thesis.tmp.20240101 folder alone", "[sim][cli][out]") {
  TempDir tmp;
  const fs::path d = tmp.path() / "o";
  fs::create_directories(d / "thesis.tmp.20240101");
  std::ofstream(d / "thesis.tmp.20240101" / "chapter.tex") << "years of work\n";
  std::ofstream(d / "draft.tmp.999999999") << "mine\n";
  REQUIRE(
      run_cli("simulate --config " + kOutTiny + " --seeds 1 --quiet --force --out " + shell_quote(d.string())).code ==
      0);
  CHECK(read_whole_file(d / "thesis.tmp.20240101" / "chapter.tex") == "years of work\n");
  CHECK(read_whole_file(d / "draft.tmp.999999999") == "mine\n");
}

TEST_CASE("sim::cli: table3 --out --force interrupted in its held-out block leaves both blocks' earlier files",
          "[sim][cli][out]") {
  TempDir tmp;
  const fs::path d = tmp.path() / "o";
  const std::string args = "table3 --config " + kOutTiny + " --eval both --strategies eight,precompute --threads 1 ";
  REQUIRE(run_cli(args + "--seeds 1 --jobs 4 --quiet --out " + shell_quote(d.string())).code == 0);
  REQUIRE(fs::exists(d / "held-out" / "summary.json"));
  const auto earlier = entries(d);
  // The in-sample block is done when its "in-sample: N runs" line is printed; the held-out block is still running.
  const std::string script = shell_quote(RINGSCHED_BINARY) + " " + args + "--seeds 100 --jobs 200 --force --out " +
                             shell_quote(d.string()) + " >/dev/null 2>" + shell_quote(tmp / "err") +
                             " & p=$!; i=0; while [ $i -lt 1200 ] && ! grep -q 'in-sample: ' 2>/dev/null " +
                             shell_quote(tmp / "err") + "; do sleep 0.02; i=$((i+1)); done; kill -INT $p; wait $p; " +
                             "echo $? >" + shell_quote(tmp / "rc");
  REQUIRE(std::system(("/bin/sh -c " + shell_quote(script)).c_str()) == 0);
  REQUIRE(read_whole_file(tmp / "rc") == "130\n");  // interrupted before the held-out block finished
  CHECK_THAT(read_whole_file(tmp / "err"), Contains("removed the unfinished output in " + d.string()));
  // Before: the in-sample block's new files were in place beside the held-out block's earlier ones.
  CHECK(entries(d) == earlier);
}

TEST_CASE("sim::cli: --out on a full file system is refused before the run", "[sim][cli][out]") {
  TempDir tmp;
  const std::string mnt = tmp / "mnt";
  fs::create_directories(mnt);
  // A 1 MiB tmpfs in a private mount namespace (as a user namespace's root, or as root): full, then 16 KiB free.
  const std::string inner =
      "mount -t tmpfs -o size=1m tmpfs " + shell_quote(mnt) + " || exit 99; mkdir " + shell_quote(mnt + "/o") + " " +
      shell_quote(mnt + "/p") + "; dd if=/dev/zero of=" + shell_quote(mnt + "/fill") +
      " bs=4k count=252 2>/dev/null; " + shell_quote(RINGSCHED_BINARY) + " simulate --config " + kOutTiny +
      " --seeds 1 --quiet --out " + shell_quote(mnt + "/o") + " >" + shell_quote(tmp / "out1") + " 2>" +
      shell_quote(tmp / "err1") + "; echo $? >" + shell_quote(tmp / "rc1") +
      "; dd if=/dev/zero of=" + shell_quote(mnt + "/fill2") + " bs=4k 2>/dev/null; " + shell_quote(RINGSCHED_BINARY) +
      " simulate --config " + kOutTiny + " --seeds 1 --quiet --out " + shell_quote(mnt + "/p") + " >" +
      shell_quote(tmp / "out2") + " 2>" + shell_quote(tmp / "err2") + "; echo $? >" + shell_quote(tmp / "rc2");
  bool mounted = false;
  for (const char* how : {"unshare -rm", "unshare -m"}) {
    const std::string cmd = std::string(how) + " /bin/sh -c " + shell_quote(inner) + " 2>/dev/null";
    const int status = std::system(cmd.c_str());
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && fs::exists(tmp / "rc2")) {
      mounted = true;
      break;
    }
  }
  if (!mounted) {
    WARN("cannot mount a small tmpfs here (no unshare/mount rights): the full-disk check is not exercised");
    return;
  }
  // 16 KiB free: the 64 KiB probe finds it (ENOSPC); no free block: statvfs finds it.
  CHECK(read_whole_file(tmp / "rc1") == "2\n");
  CHECK(read_whole_file(tmp / "out1").empty());
  CHECK_THAT(read_whole_file(tmp / "err1"), Contains(mnt + "/o: cannot write output here: No space left on device"));
  CHECK(read_whole_file(tmp / "rc2") == "2\n");
  CHECK(read_whole_file(tmp / "out2").empty());
  CHECK_THAT(read_whole_file(tmp / "err2"),
             Contains(mnt + "/p: cannot write output here: no space left on the file system"));
}

TEST_CASE("sim::cli: two --force writers started at once leave one run's set, the other refused", "[sim][cli][out]") {
  TempDir tmp;
  const fs::path a = tmp.path() / "a";
  const fs::path b = tmp.path() / "b";
  const fs::path d = tmp.path() / "o";
  REQUIRE(run_cli("simulate --config " + kOutTiny + " --seeds 1 --quiet --out " + shell_quote(a.string())).code == 0);
  REQUIRE(run_cli("simulate --config " + kOutTiny + " --seeds 3 --quiet --out " + shell_quote(b.string())).code == 0);
  const auto set_a = entries(a);
  const auto set_b = entries(b);
  const std::string bin = shell_quote(RINGSCHED_BINARY) + " simulate --config " + kOutTiny + " --quiet --force --out " +
                          shell_quote(d.string());
  for (int round = 0; round < 8; ++round) {
    CAPTURE(round);
    const std::string script = bin + " --seeds 1 2>" + shell_quote(tmp / "e1") + " >/dev/null & " + bin +
                               " --seeds 3 2>" + shell_quote(tmp / "e2") + " >/dev/null; r2=$?; wait $!; r1=$?; " +
                               "echo $r1 $r2 >" + shell_quote(tmp / "rc");
    REQUIRE(std::system(("/bin/sh -c " + shell_quote(script)).c_str()) == 0);
    const std::string rc = read_whole_file(tmp / "rc");
    CHECK((rc == "0 0\n" || rc == "0 2\n" || rc == "2 0\n"));  // one after the other, or one refused at once
    if (rc == "0 2\n") CHECK_THAT(read_whole_file(tmp / "e2"), Contains("another ringsched process (pid "));
    if (rc == "2 0\n") CHECK_THAT(read_whole_file(tmp / "e1"), Contains("another ringsched process (pid "));
    const auto now = entries(d);
    CHECK((now == set_a || now == set_b));
  }
}
