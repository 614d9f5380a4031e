// test/sim/fitting/test_fit_command.cpp — fitting protocols: recovery of known coefficients, cross-validation with a
// known answer, the protocols' point selection, the catalog entry, and bad input (too few points, bad CSV) with exit 2.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "models/input_error.h"
#include "models/network_model.h"
#include "sim/fitting/fit_command.h"
#include "sim/fitting/fit_study.h"
#include "sim/fitting/speed_fit.h"
#include "workloads/catalog.h"
#include "workloads/measurement/points_csv.h"
#include "workloads/pollux.h"

using namespace ringsched;

namespace {
const std::string kDir = std::string(RINGSCHED_TEST_DIR) + "/fixtures/heldout/";

int run_cli_code(const std::string& args) {
  std::string cmd = RINGSCHED_BINARY;  // appended step by step: GCC 12 warns falsely on a + b + c (bug 105329)
  cmd += ' ';
  cmd += args;
  cmd += " > /dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  return WEXITSTATUS(rc);
}
}  // namespace

TEST_CASE("sim::Fit: two-level fit recovers the coefficients the points were made with", "[fit]") {
  // points-twolevel.csv: t0 = 0.001, t3 = 0.02, intra (t1, t2) = (0.003, 0.0005), inter = (0.01, 0.004), n = 10,
  // per-GPU batches 32 and 64 (so t0 and t3 are separable).
  const auto pts = read_points_csv(kDir + "points-twolevel.csv");
  REQUIRE(pts.size() == 14);
  const FitOutcome o = fit_with_protocol(FitProtocol::kTwoLevelAll, pts, 10.0, 4, "points-twolevel.csv");
  CHECK(o.fit.two.t0 == Approx(0.001).epsilon(1e-6));
  CHECK(o.fit.two.t3 == Approx(0.02).epsilon(1e-6));
  CHECK(o.fit.two.t1_intra == Approx(0.003).epsilon(1e-6));
  CHECK(o.fit.two.t2_intra == Approx(0.0005).epsilon(1e-6));
  CHECK(o.fit.two.t1_inter == Approx(0.01).epsilon(1e-6));
  CHECK(o.fit.two.t2_inter == Approx(0.004).epsilon(1e-6));
  CHECK(o.quality.r2 == Approx(1.0));
  // The model written as an `allreduce` speed kind predicts the same step times.
  const auto model = o.fit.model();
  for (const auto& p : pts)
    CHECK(model->step_seconds(p.w, p.nodes, p.global_batch) == Approx(p.step_seconds).epsilon(1e-9));
}

TEST_CASE("sim::Fit: cross-validation and held-out error have known answers", "[fit]") {
  // points-eq5.csv: exact Eq. 5 (t0 = 0.002, t1 = 0.004, t2 = 0.001, t3 = 0.01, n = 20) at w = 1, 2, 3, 4, 6, 8 and
  // two global batches: leaving any GPU count out still leaves an identifiable fit, which predicts it exactly.
  const auto eq5 = read_points_csv(kDir + "points-eq5.csv");
  const FitOutcome all = fit_with_protocol(FitProtocol::kEq5All, eq5, 20.0, 4, "points-eq5.csv");
  CHECK(all.quality.cv_mape == Approx(0.0).margin(1e-6));
  CHECK(all.fit.eq5.t1 == Approx(0.004).epsilon(1e-6));
  const auto pts = read_points_csv(kDir + "points-twolevel.csv");
  // Within the two-level family, the protocol's 10 points identify all six coefficients: no error elsewhere.
  const FitOutcome two = fit_with_protocol(FitProtocol::kTwoLevel, pts, 10.0, 4, "p");
  CHECK(two.quality.points_fit == 10);  // w = 1, 2, 4 in one node and 2, 8 GPUs on 2 nodes, 2 batches each
  CHECK(two.quality.points_heldout == 4);
  CHECK(two.quality.mape_heldout == Approx(0.0).margin(1e-6));
  CHECK(two.quality.points_heldout_16 == 4);
  // The paper protocol sees one node only: it cannot know the inter-node cost and under-predicts step times there.
  const FitOutcome paper = fit_with_protocol(FitProtocol::kPaper, pts, 10.0, 4, "p");
  CHECK(paper.quality.points_fit == 6);
  CHECK(paper.quality.mape_fit == Approx(0.0).margin(1e-6));
  // At (w=16, 4 nodes, b=32) the truth is 0.032+0.02+0.15+0.0375 = 0.2395 s; the one-node fit predicts
  // 0.032+0.02+0.045+0.0046875 = 0.1016875 s, so its speed error there is 0.2395/0.1016875 - 1 = 135.5%.
  const double want = 100.0 * (0.2395 / 0.1016875 - 1.0);
  std::vector<models::SpeedPoint> one{{16, 4, 512.0, 0.2395}};
  CHECK(speed_mape(paper.fit, one) == Approx(want).epsilon(1e-6));
}

TEST_CASE("sim::Fit: Eq. 5 on every point is the paper model, the entry loads as a catalog class", "[fit]") {
  const auto pts = read_points_csv(kDir + "points-twolevel.csv");
  const FitOutcome o = fit_with_protocol(FitProtocol::kTwoLevel, pts, 10.0, 4, "p");
  const auto entry = class_entry_json("x", "d", o.fit, BatchMode::kFixedPerWorker, 32, 1e6, 64, {"derived"});
  const nlohmann::json cat{{"name", "c"}, {"classes", nlohmann::json::array({entry})}};
  const Catalog c = parse_catalog(cat, "fitted.json");
  CHECK(c.classes[0].speed->kind() == "allreduce");
  CHECK(c.classes[0].speed->step_seconds(8, 2, 256.0) == Approx(o.fit.step_seconds(8, 2, 256.0)));
  const FitOutcome e = fit_with_protocol(FitProtocol::kEq5All, pts, 10.0, 4, "p");
  const auto e_entry = class_entry_json("y", "d", e.fit, BatchMode::kFixedPerWorker, 32, 1e6, 64, {});
  const Catalog c2 = parse_catalog(nlohmann::json{{"name", "c"}, {"classes", nlohmann::json::array({e_entry})}}, "f");
  CHECK(c2.classes[0].speed->kind() == "eq5");
  CHECK(std::isnan(e.quality.mape_heldout));  // every point was fitted: nothing held out
}

TEST_CASE("sim::Fit: a CSV with a UTF-8 byte-order mark reads as without it", "[fit][hostile]") {
  // Spreadsheets write a BOM: it was read as part of the first column's name ("missing column 'gpus' (columns:
  // gpus, ...)").
  std::ifstream in(kDir + "points-eq5.csv", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const auto plain = parse_points_csv_text(text.str(), "plain.csv");
  const auto bom = parse_points_csv_text("\xEF\xBB\xBF" + text.str(), "bom.csv");
  REQUIRE(bom.size() == plain.size());
  for (std::size_t i = 0; i < bom.size(); ++i) {
    CHECK(bom[i].w == plain[i].w);
    CHECK(bom[i].step_seconds == plain[i].step_seconds);
  }
}

TEST_CASE("sim::Fit: too few points says how many are needed, bad CSV names file and line", "[fit]") {
  const auto three = read_points_csv(kDir + "points-three.csv");
  CHECK_THROWS_WITH(fit_with_protocol(FitProtocol::kPaper, three, 1.0, 4, "points-three.csv"),
                    Catch::Contains("points-three.csv: too few points to fit") &&
                        Catch::Contains("needs at least 4 point(s)") && Catch::Contains("select 3"));
  CHECK_THROWS_WITH(fit_with_protocol(FitProtocol::kTwoLevelAll, three, 1.0, 4, "p"),
                    Catch::Contains("needs at least 6"));
  CHECK_THROWS_WITH(read_points_csv(kDir + "points-bad.csv"),
                    Catch::Contains("points-bad.csv:3: column 'nodes': expected an integer in [1, 2]"));
  CHECK_THROWS_AS(parse_fit_protocol("magic", "--protocol"), InputError);
}

TEST_CASE("sim::Fit: Pollux tables fit under both protocols, and the CLI's exit codes", "[fit]") {
  const auto app = pollux_app(default_pollux_dir(), "cifar10");
  const auto pts = pollux_speed_points(*app);
  const FitOutcome paper = fit_with_protocol(FitProtocol::kPaper, pts, pollux_model_size("cifar10"), 4, "cifar10");
  const FitOutcome two = fit_with_protocol(FitProtocol::kTwoLevel, pts, pollux_model_size("cifar10"), 4, "cifar10");
  CHECK(paper.quality.points_fit < two.quality.points_fit);
  CHECK(paper.quality.points_heldout_16 > 0);
  std::ostringstream out;
  FitCommandOptions opt;
  opt.pollux = "bert";
  std::ostringstream err;
  CHECK(run_fit_command(opt, out, err) == 0);
  const auto doc = nlohmann::json::parse(out.str());
  CHECK(doc.at("class").at("name") == "bert");
  CHECK(doc.at("eq1").contains("error"));  // validation files of bert hold 2 epochs: Eq. 1 needs 3

  CHECK(run_cli_code("fit --pollux cifar10") == 0);
  CHECK(run_cli_code("fit --pollux gpt5") == 2);
  CHECK(run_cli_code("fit --csv " + kDir + "points-three.csv --model-size 1 --protocol paper") == 2);
  CHECK(run_cli_code("fit --csv " + kDir + "missing.csv --model-size 1") == 2);
  // --model-size: needed by the eq5 / two-level models, not by net (auto picks two-node on these 2-node points)
  CHECK(run_cli_code("fit --csv " + kDir + "points-twolevel.csv --protocol paper") == 2);
  CHECK(run_cli_code("fit --csv " + kDir + "points-twolevel.csv") == 0);
  // Probes: one the table lacks (44 packed GPUs), a malformed one, probes with the fixed study: exit 2.
  CHECK(run_cli_code("fit --pollux bert --probes 1,2,44") == 2);
  CHECK(run_cli_code("fit --pollux bert --probes 1,x") == 2);
  CHECK(run_cli_code("fit --pollux all --probes 1") == 2);
  CHECK(run_cli_code("fit --pollux bert --probes 1,2,4,4+4,8@2") == 0);
}

TEST_CASE("sim::Fit: a table with one-node and multi-node rows fits without --model-size, and its entry loads as is",
          "[fit]") {
  // The net model (models/network_model.h) with known coefficients, on 4-GPU nodes: 1, 2, 4 GPUs on one node and
  // 8 and 16 GPUs on 4 nodes (no 2-node row), two per-GPU batches each.
  models::NetCoeffs k;
  k.per_sample = 0.002;
  k.per_step = 0.05;
  k.intra_bw = 0.01;
  k.intra_hop = 0.002;
  k.inter_bw = 0.04;
  k.inter_const = 0.01;
  std::string text = "gpus,nodes,global_batch,step_seconds\n";
  for (const auto& [w, n] : std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {4, 1}, {8, 4}, {16, 4}}) {
    for (double b : {16.0, 64.0}) {
      std::ostringstream row;
      row.precision(17);
      row << w << ',' << n << ',' << b * w << ',' << models::net_step_time(k, w, n, b * w) << '\n';
      text += row.str();
    }
  }
  char name[] = "/tmp/ringsched-fit-XXXXXX";
  const int fd = mkstemp(name);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fd);
  FitCommandOptions o;
  o.csv = name;
  std::ostringstream out;
  std::ostringstream err;
  CHECK(run_fit_command(o, out, err) == 0);
  std::remove(name);
  CHECK(err.str().find("net-all chosen automatically") != std::string::npos);
  const nlohmann::json doc = nlohmann::json::parse(out.str());
  const nlohmann::json& entry = doc.at("class");
  CHECK(entry.at("speed").at("kind") == "net");
  CHECK(entry.at("model_size_mparams").get<double>() == 1.0);  // the placeholder the derivation names, not 0
  const Catalog cat = parse_catalog({{"name", "mine"}, {"classes", {entry}}}, "fitted.json");
  REQUIRE(cat.classes.size() == 1);
  // Exact points: the fitted model reproduces a measured step.
  CHECK(cat.classes[0].speed->step_seconds(16, 4, 64.0 * 16) ==
        Approx(models::net_step_time(k, 16, 4, 64.0 * 16)).epsilon(1e-6));
}
