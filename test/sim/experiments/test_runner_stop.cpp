// test/sim/experiments/test_runner_stop.cpp — RunHooks::stop (the Python module's Ctrl-C and interpreter exit): asked
// before each run and every 65,536 events of one: true ends the experiment there, the run going on failing as
// "stopped after N events" and every later run as "not run" instead of running.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>

#include "sim/experiments/replicate.h"
#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"

using namespace ringsched;

namespace {
const std::string kExampleDir = std::string(RINGSCHED_TEST_DIR) + "/../workloads/examples/";
}  // namespace

TEST_CASE("sim::run_experiment: a stop hook that answers true skips every later run", "[sim][runner]") {
  const ExperimentConfig c = load_experiment(kExampleDir + "tiny-2node.json");
  const ExperimentResult full = run_experiment(c, 1);
  REQUIRE(full.runs.size() >= 3);
  REQUIRE(failed_runs(full) == 0);

  // Asked once per run, in run order at one thread: the first two run, the rest are stopped.
  std::atomic<int> asked{0};
  RunHooks hooks;
  hooks.stop = [&asked] { return ++asked > 2; };
  const ExperimentResult stopped = run_experiment(c, 1, hooks);
  CHECK(asked.load() == static_cast<int>(full.runs.size()));
  REQUIRE(stopped.runs.size() == full.runs.size());
  CHECK(failed_runs(stopped) == static_cast<int>(full.runs.size()) - 2);
  for (std::size_t i = 0; i < stopped.runs.size(); ++i) {
    if (i < 2) {
      CHECK(stopped.runs[i].error.empty());
      CHECK(stopped.runs[i].metrics.mean_jct_s == full.runs[i].metrics.mean_jct_s);
    } else {
      CHECK(stopped.runs[i].error == "not run: the experiment was stopped");
      CHECK(stopped.runs[i].seed == full.runs[i].seed);  // still names its cell
    }
  }

  // A hook that never stops changes nothing.
  hooks.stop = [] { return false; };
  CHECK(summary_json(c, run_experiment(c, 2, hooks)) == summary_json(c, full));
}

TEST_CASE("sim::run_experiment: a stop hook is also asked during a long run, which it ends", "[sim][runner]") {
  ExperimentConfig c = load_experiment(kExampleDir + "tiny-2node.json");
  c.workload.jobs = 40000;  // at least an arrival and a finish each: more than 65,536 events
  c.levels.resize(1);
  c.strategies.resize(1);
  c.seeds = 1;
  // run_cell: the engine asks every 65,536 events; true ends the run there.
  CHECK_THROWS_WITH(run_cell(c, 0, 0, 0, false, nullptr, false, [] { return true; }),
                    Catch::Contains("stopped after 65536 events"));
  // Through run_experiment: "no" before the run starts, "yes" at the first ask inside it.
  std::atomic<int> asked{0};
  RunHooks hooks;
  hooks.stop = [&asked] { return ++asked > 1; };
  const ExperimentResult r = run_experiment(c, 1, hooks);
  REQUIRE(r.runs.size() == 1);
  CHECK(asked.load() == 2);
  CHECK(r.runs[0].error.find("stopped after 65536 events") == 0);
  // Never stopping: the run completes.
  CHECK(failed_runs(run_experiment(c, 1)) == 0);
}
