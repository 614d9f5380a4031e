// test/sim/sweeps/test_sweep_absent.cpp — sweep results and `ringsched check` show what cannot be computed as absent
// (issue 33): a group whose replicates all failed has a null mean in sweep.json and empty fields in cells.csv, never 0;
// one replicate gives no sd and no CI; check names a side with no successful replicate as `-`.
#include <catch2/catch.hpp>

#include <string>

#include "sim/sweeps/check.h"
#include "sim/sweeps/sweep_results.h"
#include "sim/sweeps/sweep_spec.h"

using namespace ringsched;

namespace {

// Cell 0 of the tiny sweep (3 loads x 2 restart costs): level "mid", strategies eight and precompute; eight with one
// successful replicate of mean JCT 600 s (two failed), precompute with every replicate failed.
SweepResults one_cell(const SweepSpec& spec) {
  SweepResults res;
  res.cells.resize(spec.size());
  SweepCellResult& c = res.cells[0];
  c.done = true;
  c.levels = {"mid"};
  c.strategies = {"eight", "precompute"};
  for (int s = 0; s < 2; ++s) {
    for (int rep = 0; rep < 3; ++rep) {
      SweepRun run;
      run.strategy = s;
      run.replicate = rep;
      run.seed = static_cast<std::uint64_t>(1 + rep);
      if (s == 0 && rep == 1) {
        run.metrics.mean_jct_s = 600.0;
      } else {
        run.error = "boom";
      }
      c.runs.push_back(run);
    }
  }
  return res;
}

}  // namespace

TEST_CASE("sim::sweep: a group with no successful replicate has a null mean, one replicate no sd or CI",
          "[sweep][report]") {
  const SweepSpec spec = load_sweep(std::string(RINGSCHED_TEST_DIR) + "/fixtures/sweep/tiny-sweep.json");
  const SweepResults res = one_cell(spec);
  const nlohmann::json j = sweep_results_json(spec, res);
  const nlohmann::json& eight = j.at("cells").at(0).at("groups").at(0);
  const nlohmann::json& pre = j.at("cells").at(0).at("groups").at(1);
  CHECK(eight.at("n") == 1);
  CHECK(eight.at("metrics").at("mean_jct_s").at("mean") == 600.0);
  CHECK(eight.at("metrics").at("mean_jct_s").at("sd").is_null());
  CHECK(eight.at("metrics").at("mean_jct_s").at("ci95").is_null());
  CHECK(pre.at("n") == 0);
  CHECK(pre.at("failed") == 3);
  CHECK(pre.at("metrics").at("mean_jct_s").at("mean").is_null());
  CHECK(pre.at("metrics").at("mean_jct_s").at("ci95").is_null());
  // cells.csv: cell,load,restart.cost_s,level,strategy,n,failed, then mean,sd,ci95 per metric, error.
  const std::string csv = sweep_cells_csv(spec, res);
  CHECK(csv.find("\n0,0.3,0,mid,eight,1,2,600.0,,,") != std::string::npos);
  const std::string empty_metrics(metric_names().size() * 3, ',');
  CHECK(csv.find("\n0,0.3,0,mid,precompute,0,3" + empty_metrics + ",boom\n") != std::string::npos);
  // The runs are read back by --resume exactly as before (the aggregates are not).
  CHECK(read_sweep_results(spec, j, "sweep.json").cells[0].runs.size() == 6);
}

TEST_CASE("sim::check: a side whose replicates all failed shows its mean as -, not 0", "[check][report]") {
  const auto summary = [](bool failed) {
    nlohmann::json run = {{"level", "mid"}, {"strategy", "eight"}, {"seed", 1}};
    if (failed) {
      run["error"] = "boom";
    } else {
      run["metrics"] = {{"mean_jct_s", 600.0}};
    }
    return nlohmann::json{{"cells", nlohmann::json::array()}, {"runs", nlohmann::json::array({run})}};
  };
  CheckOptions o;
  o.metrics = {"mean_jct_s"};
  const CheckReport rep = check_results(summary(false), "base.json", summary(true), "results.json", o);
  CHECK(rep.drifted == 2);  // failed replicates 0 -> 1, and the metric
  const std::string text = rep.render();
  CHECK(text.find("DRIFT: level mid, strategy eight: mean_jct_s 600 -> - (no successful replicate in the results)\n") !=
        std::string::npos);
  const CheckReport back = check_results(summary(true), "base.json", summary(false), "results.json", o);
  CHECK(back.render().find("mean_jct_s - -> 600 (no successful replicate in the baseline)") != std::string::npos);
}
