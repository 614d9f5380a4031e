// test/sim/experiments/test_work_estimate.cpp — the warning before a run whose work will be very large (issue 33):
// a Gavel LP policy with thousands of jobs active at once, millions of rounds with jobs active; none for the shipped
// examples, and none for a long idle gap (round-based runs skip idle rounds). The warning changes no result.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/experiments/config.h"
#include "sim/experiments/replicate.h"
#include "sim/experiments/work_estimate.h"
#include "test/sim/cli_util.h"
#include "workloads/io/json_reader.h"

using namespace ringsched;
using Catch::Contains;

namespace {

nlohmann::json example(const std::string& name) {
  std::ifstream in(std::string(RINGSCHED_SOURCE_DIR) + "/workloads/examples/" + name);
  return nlohmann::json::parse(in);
}

std::string examples_dir() {
  std::string dir = RINGSCHED_SOURCE_DIR;
  dir += "/workloads/examples";
  return dir;
}

}  // namespace

TEST_CASE("sim::large_work_warning: a Gavel LP policy with thousands of jobs active at once is warned about",
          "[sim][work_estimate]") {
  // Gavel's continuous experiment at 40 jobs/hour on 108 GPUs: each job needs about 60,000 s alone, so the offered
  // load is about 6 and most of the 6,000 jobs wait at once (the backlog 6,000 x (1 - 1/6) = 5,000 jobs).
  nlohmann::json doc = example("gavel-continuous.json");
  doc["levels"] = nlohmann::json::parse(R"([{"name": "40/h", "rate_per_hour": 40}])");
  const ExperimentConfig c = parse_experiment(doc, "g.json", examples_dir());
  const WorkEstimate e = estimate_work(c);
  CHECK(e.lp_strategy == "max_min_fairness");
  CHECK(e.gpu_types == 3);
  CHECK(e.active_jobs > 4000.0);
  CHECK(e.active_jobs < 6000.0);
  const std::string w = large_work_warning(c);
  CHECK_THAT(w, Contains("a large run (estimated before running): 6000 jobs per run, about ") &&
                    Contains("max_min_fairness's LP over about") && Contains("jobs x 3 GPU types = ") &&
                    Contains("grows about as jobs^3") && Contains("lower workload.jobs (--jobs) or the load") &&
                    Contains("or drop max_min_fairness"));
  // At the example's own rates (at most 4.8 jobs/hour) nothing is said.
  const ExperimentConfig shipped = parse_experiment(example("gavel-continuous.json"), "g.json", examples_dir());
  CHECK(estimate_work(shipped).active_jobs < kWarnLpJobs);
  CHECK(large_work_warning(shipped).empty());
}

TEST_CASE("sim::large_work_warning: millions of rounds with jobs active are warned about, an idle gap is not",
          "[sim][work_estimate][rounds]") {
  test::TempDir dir;
  const auto doc_for = [&](const std::string& rows) {
    std::ofstream(dir / "t.csv") << "timestamp,duration,num_gpus\n" << rows;
    return parse_json_text(R"({
      "cluster": {"nodes": 1, "gpus_per_node": 4},
      "workload": {"catalog": {"name": "c", "classes": [
        {"name": "lin", "batch": {"mode": "fixed_global", "size": 100}, "model_size_mparams": 1,
         "work": {"samples": 1000}, "gpus": {"max": 4}, "speed": {"kind": "eq5", "t0": 0.01, "t1": 0, "t2": 0, "t3": 0}}
      ]}, "trace": {"file": "t.csv", "format": "generic"}},
      "strategies": ["eight"], "scheduler": {"interval_s": 1}, "restart": {"cost_s": 0}, "seeds": 1})",
                           "t.json");
  };
  // Two jobs of 1e7 s each on one GPU, 1 s rounds: about 1e7 rounds with a job active.
  const ExperimentConfig busy = parse_experiment(doc_for("0,10000000,1\n10,10000000,1\n"), "t.json", dir.path());
  CHECK(estimate_work(busy).rounds == Approx(1e7 + 10).epsilon(1e-9));
  CHECK_THAT(large_work_warning(busy),
             Contains("about 1e+07 rounds of 1 s with jobs active") && Contains("or lengthen scheduler.interval_s"));
  // Two 100 s jobs 9e11 s apart: 200 rounds with a job active (the idle ones are skipped), nothing to say.
  const ExperimentConfig gap = parse_experiment(doc_for("0,100,1\n900000000000,100,1\n"), "t.json", dir.path());
  CHECK(estimate_work(gap).rounds == Approx(200.0));
  CHECK(large_work_warning(gap).empty());
  // And it runs in well under a second (it walked 9e11 rounds before).
  const auto t0 = std::chrono::steady_clock::now();
  const CellRun run = run_cell(gap, 0, 0, 0, false);
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 0.5);
  CHECK(run.error.empty());
  REQUIRE(run.jobs.size() == 2);
  CHECK(run.jobs[1].first_start == 9e11);
}

TEST_CASE("sim::large_work_warning: none of the shipped example configs is warned about", "[sim][work_estimate]") {
  int parsed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(examples_dir())) {
    if (entry.path().extension() != ".json") continue;
    const nlohmann::json doc = read_json_file(entry.path().string());
    if (!doc.contains("workload")) continue;  // sweep files (sweep-*.json) name a base config instead
    INFO(entry.path().filename().string());
    const ExperimentConfig c = parse_experiment(doc, entry.path().string(), examples_dir());
    CHECK(large_work_warning(c).empty());
    ++parsed;
  }
  CHECK(parsed >= 10);
}

TEST_CASE("sim::cli: validate of a large run prints one warning line on stderr and still passes",
          "[cli][work_estimate]") {
  test::TempDir dir;
  nlohmann::json doc = example("gavel-continuous.json");
  doc["levels"] = nlohmann::json::parse(R"([{"name": "40/h", "rate_per_hour": 40}])");
  std::ofstream(dir / "big.json") << doc.dump();
  const test::CliResult r = test::run_cli("validate --config " + test::shell_quote(dir / "big.json"));
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::StartsWith("ringsched: warning: a large run (estimated before running): 6000 jobs"));
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  const test::CliResult quiet =
      test::run_cli("validate --config " + test::shell_quote(examples_dir() + "/gavel-continuous.json"));
  CHECK(quiet.code == 0);
  CHECK(quiet.err.empty());
}
