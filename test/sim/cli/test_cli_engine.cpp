// test/sim/cli/test_cli_engine.cpp — the command line on issue 33's engine items: `validate` exits 2 with one line
// naming the JSON path for a restart longer than the round and for a trace pushed past the clock's horizon, and
// `simulate` runs a 2-row trace with a 9e11 s gap on 1 s rounds in well under a second.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

#include "test/sim/cli_util.h"

using namespace ringsched::test;
using Catch::Contains;
using Catch::StartsWith;

namespace {

// One node of 4 GPUs, the paper catalog, a generic trace of `rows`, 1 s rounds, and `extra` keys.
std::string write_config(const TempDir& dir, const std::string& rows, const std::string& extra) {
  std::ofstream(dir / "t.csv") << "timestamp,duration,num_gpus\n" << rows;
  const std::string path = dir / "t.json";
  std::ofstream(path) << R"({"cluster": {"nodes": 1, "gpus_per_node": 4},
    "workload": {"catalog": "paper", "trace": {"file": "t.csv", "format": "generic")"
                      << (extra.empty() ? "" : ", " + extra) << R"(}},
    "strategies": ["eight"], "scheduler": {"interval_s": 1}, "restart": {"cost_s": 0}, "seeds": 1})";
  return path;
}

}  // namespace

TEST_CASE("sim::cli: validate of a run that would fail at the horizon or never progress exits 2 naming the JSON path",
          "[cli][run_checks]") {
  TempDir dir;
  const std::string cfg = write_config(dir, "0,100,1\n10,100,1\n", R"("time_scale": 1e300)");
  const CliResult r = run_cli("validate --config " + shell_quote(cfg));
  CHECK(r.code == 2);
  CHECK_THAT(r.err, StartsWith("ringsched: error: " + cfg + ": workload.trace.time_scale: "));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.out.empty());
  // A restart of 10 s (--restart-cost sets restart.cost_s) on 1 s rounds.
  const std::string ok = write_config(dir, "0,100,1\n10,100,1\n", "");
  const CliResult s = run_cli("simulate --config " + shell_quote(ok) + " --restart-cost 10");
  CHECK(s.code == 2);
  CHECK_THAT(s.err, StartsWith("ringsched: error: " + ok + ": restart.cost_s: a restart of 10 s") &&
                        Contains("is not shorter than the round (scheduler.interval_s 1 s)"));
}

TEST_CASE("sim::cli: simulate of a 2-row trace 9e11 s apart on 1 s rounds runs in well under a second",
          "[cli][rounds]") {
  TempDir dir;
  const std::string cfg = write_config(dir, "0,100,1\n900000000000,100,1\n", "");
  const auto t0 = std::chrono::steady_clock::now();
  const CliResult r = run_cli("simulate --config " + shell_quote(cfg) + " --format csv --quiet");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Contains("makespan_s") && Contains("9e+11"));
  CHECK(secs < 1.0);
}
