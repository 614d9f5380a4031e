// test/sim/experiments/test_thread_refusal.cpp — a system that refuses new threads (issue 33: std::system_error from
// std::thread ended in std::terminate, in the CLI and the Python interpreter): through start_thread's seam, the
// replicate pool and the sweep pool go on with the threads that started (down to the calling thread), every index
// run once, the files the same as with every thread.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>
#include <vector>

#include "sim/experiments/parallel.h"
#include "sim/sweeps/sweep.h"

using namespace ringsched;
namespace fs = std::filesystem;

namespace {

// Restores normal thread starts when the test ends, whatever happens.
struct RefuseAfter {
  explicit RefuseAfter(int starts) { refuse_thread_starts_after(starts); }
  ~RefuseAfter() { refuse_thread_starts_after(-1); }
  RefuseAfter(const RefuseAfter&) = delete;
  RefuseAfter& operator=(const RefuseAfter&) = delete;
};

std::string file_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("sim::start_thread: the seam refuses as the system does (std::system_error, EAGAIN) after N starts",
          "[threads]") {
  RefuseAfter refuse(1);
  std::thread first = start_thread([] {});
  first.join();
  try {
    (void)start_thread([] {});
    FAIL("a second start was not refused");
  } catch (const std::system_error& e) {
    CHECK(e.code() == std::errc::resource_unavailable_try_again);
  }
  refuse_thread_starts_after(-1);
  std::thread again = start_thread([] {});
  again.join();
}

TEST_CASE(
    "sim::parallel_for_index: refused threads leave the work to those that started and the caller, each index "
    "once",
    "[threads]") {
  for (int started : {0, 1, 2}) {
    DYNAMIC_SECTION(started << " of 4 threads start") {
      RefuseAfter refuse(started);
      std::vector<std::atomic<int>> calls(200);
      std::mutex mu;
      std::set<std::thread::id> ids;
      parallel_for_index(calls.size(), 4, [&](std::size_t i) {
        calls[i].fetch_add(1);
        const std::lock_guard<std::mutex> lock(mu);
        ids.insert(std::this_thread::get_id());
      });
      for (std::size_t i = 0; i < calls.size(); ++i)
        CHECK(calls[i].load() == 1);
      CHECK(ids.size() <= static_cast<std::size_t>(started) + 1);
      if (started == 0) CHECK(ids == std::set<std::thread::id>{std::this_thread::get_id()});
    }
  }
}

TEST_CASE("sim::sweep: refused threads give the same files as a sweep on every thread", "[threads][sweep]") {
  const SweepSpec spec = load_sweep(std::string(RINGSCHED_TEST_DIR) + "/fixtures/sweep/tiny-sweep.json");
  const fs::path root = fs::temp_directory_path() / ("ringsched-test-refused-" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto comm = make_local_comm();
  auto run = [&](const std::string& name, int threads) {
    SweepOptions o;
    o.out_dir = (root / name).string();
    o.threads = threads;
    o.quiet = true;
    return run_sweep(spec, o, *comm);
  };
  const SweepOutcome full = run("full", 3);
  SweepOutcome none;
  SweepOutcome one;
  {
    RefuseAfter refuse(0);
    none = run("none", 3);
  }
  {
    RefuseAfter refuse(1);
    one = run("one", 3);
  }
  CHECK(none.runs == full.runs);
  CHECK(one.runs == full.runs);
  CHECK(none.failed_cells == 0);
  for (const char* f : {"sweep.json", "runs.csv", "cells.csv"}) {
    INFO(f);
    CHECK(file_text(root / "none" / f) == file_text(root / "full" / f));
    CHECK(file_text(root / "one" / f) == file_text(root / "full" / f));
  }
  fs::remove_all(root);
}
