// test/sim/experiments/test_runner_stop.cpp — RunHooks::stop (the Python module's Ctrl-C and interpreter exit): asked
// before each run, true ends the experiment there, every later run failing as "not run" instead of running.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>

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
