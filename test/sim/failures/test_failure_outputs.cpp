// test/sim/failures/test_failure_outputs.cpp — cluster.failures through an experiment config: strategies that plan
// nodes themselves are refused, and an experiment's summary holds the failures block with MTTF by size.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "sim/experiments/config.h"
#include "sim/experiments/failure_summary.h"
#include "sim/experiments/report.h"
#include "sim/experiments/runner.h"
#include "test/input_error_of.h"

using namespace ringsched;

namespace {

nlohmann::json failout_config(bool failures, const std::string& strategy) {
  nlohmann::json c = {{"cluster", {{"nodes", 4}, {"gpus_per_node", 8}, {"placement", "packed"}}},
                      {"workload", {{"catalog", "paper"}, {"jobs", 12}, {"arrival", {{"process", "poisson"}}}}},
                      {"levels", {{{"name", "heavy"}, {"load", 0.9}}}},
                      {"strategies", {strategy}},
                      {"seeds", 2}};
  if (failures) c["cluster"]["failures"] = {{"node_mtbf_h", 2}, {"repair_h", 0.5}};
  return c;
}

}  // namespace

TEST_CASE("failures::Outputs: a strategy that plans every node itself is refused with failures", "[failures][input]") {
  const std::string err =
      test::error_of([] { (void)parse_experiment(failout_config(true, "pollux"), "cfg.json", "."); });
  CHECK_THAT(err, Catch::Contains("cfg.json") && Catch::Contains("pollux") && Catch::Contains("cluster.failures"));
  CHECK(test::error_of([] { (void)parse_experiment(failout_config(false, "pollux"), "cfg.json", "."); }) == "");
}

TEST_CASE("failures::Outputs: the summary's failures block has every metric and MTTF by size", "[failures][report]") {
  const ExperimentConfig c = parse_experiment(failout_config(true, "precompute"), "cfg.json", ".");
  const ExperimentResult r = run_experiment(c, 1);
  const nlohmann::json j = failures_json(c, r);
  REQUIRE(j.size() == 1);
  for (const std::string& m : failure_metric_names())
    CHECK(j[0]["metrics"].contains(m));
  CHECK(j[0]["metrics"]["failures_per_job"]["n"] == 2);
  REQUIRE(!j[0]["mttf_by_gpus"].empty());  // nodes fail every 2 h: 12 jobs over hours see failures
  int failures = 0;
  for (const auto& s : j[0]["mttf_by_gpus"])
    failures += s["failures"].get<int>();
  CHECK(failures > 0);
  CHECK(summary_json(c, r).contains("failures"));
}
