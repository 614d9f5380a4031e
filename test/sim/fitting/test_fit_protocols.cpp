// test/sim/fitting/test_fit_protocols.cpp — the `multi-node` fit protocol: hand-computed step times, its probe
// selection, exact recovery (zero held-out error) when the data follow its model, its table form, the noise-floor
// estimates on hand-computed tables, and selection by name (CLI and held-out protocol). The `net` model and the
// `two-node` protocol: hand-computed steps, recovery and variant choice, identifiability (fixed coefficients, no
// dependence on model size), probes and their errors, warnings, automatic protocol and GPUs per node.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "models/table_speed.h"
#include "sim/fitting/fit_command.h"
#include "sim/fitting/fit_study.h"
#include "sim/fitting/speed_fit.h"
#include "workloads/catalog.h"
#include "workloads/pollux.h"

using namespace ringsched;

namespace {
MultiNodeCoeffs known() {
  MultiNodeCoeffs c;
  c.t0 = 0.001;
  c.t3 = 0.01;
  c.a_in = 0.001;
  c.b_in = 0.0005;
  c.a_x = 0.002;
  c.b_x = 0.003;
  c.g_x = 0.005;
  return c;
}
}  // namespace

TEST_CASE("sim::MultiNode: step time matches a hand computation", "[fit][multinode]") {
  const MultiNodeCoeffs c = known();
  // w = 8 on 2 nodes, m = 256, n = 10: 0.001*32 + 0.01 + 0.002*7 + 0.003*2*(7/8)*10 + 0.005*2 = 0.1185
  CHECK(multi_node_step_time(c, 8, 2, 256.0, 10.0) == Approx(0.1185).epsilon(1e-12));
  // w = 4 in 1 node, m = 128: 0.001*32 + 0.01 + 0.001*3 + 0.0005*2*(3/4)*10 = 0.0525
  CHECK(multi_node_step_time(c, 4, 1, 128.0, 10.0) == Approx(0.0525).epsilon(1e-12));
  // w = 1: compute and overhead only: 0.001*64 + 0.01
  CHECK(multi_node_step_time(c, 1, 1, 64.0, 10.0) == Approx(0.074).epsilon(1e-12));
  CHECK(MultiNodeStepTime(c, 10.0).step_seconds(8, 2, 256.0) == Approx(0.1185).epsilon(1e-12));
}

TEST_CASE("sim::MultiNode: the protocol profiles exactly its six declared (w, nodes) probes", "[fit][multinode]") {
  int count = 0;
  for (int w = 1; w <= 64; ++w)
    for (int k = 1; k <= w; ++k)
      if (protocol_profiles(FitProtocol::kMultiNode, w, k, 4)) {
        ++count;
        const bool expected =
            (k == 1 && (w == 1 || w == 2 || w == 4)) || (k == 2 && (w == 2 || w == 8)) || (k == 4 && w == 16);
        CHECK(expected);
      }
  CHECK(count == 6);
  CHECK(parse_fit_protocol("multi-node", "--protocol") == FitProtocol::kMultiNode);
  CHECK(to_string(FitProtocol::kMultiNode) == "multi-node");
}

TEST_CASE("sim::MultiNode: data from its own model are predicted with ~0 held-out error", "[fit][multinode]") {
  const MultiNodeCoeffs c = known();
  const double n = 10.0;
  std::vector<models::SpeedPoint> pts;
  // Pollux-like layout: single-node w = 1..4, 2-4 nodes of 1..4 GPUs, and 6-16 nodes up to 64 GPUs.
  for (double b : {16.0, 32.0, 64.0}) {
    for (int w = 1; w <= 4; ++w)
      pts.push_back({w, 1, b * w, multi_node_step_time(c, w, 1, b * w, n)});
    for (int k = 2; k <= 4; ++k)
      for (int g = 1; g <= 4; ++g)
        pts.push_back({k * g, k, b * k * g, multi_node_step_time(c, k * g, k, b * k * g, n)});
    for (int k : {6, 8, 12, 16})
      for (int w = k; w <= 4 * k; w += 4)
        pts.push_back({w, k, b * w, multi_node_step_time(c, w, k, b * w, n)});
  }
  const FitOutcome o = fit_with_protocol(FitProtocol::kMultiNode, pts, n, 4, "synthetic");
  CHECK(o.quality.points_fit == 18);  // 6 probes x 3 batches
  CHECK(o.quality.points_heldout_16 > 0);
  CHECK(o.quality.mape_heldout < 1e-6);
  CHECK(o.quality.mape_heldout_16 < 1e-6);
  CHECK(o.fit.multi.t0 == Approx(c.t0).epsilon(1e-6));
  CHECK(o.fit.multi.g_x == Approx(c.g_x).epsilon(1e-6));
  CHECK(o.fit.multi.a_x == Approx(c.a_x).epsilon(1e-6));
  CHECK(o.fit.multi.b_x == Approx(c.b_x).epsilon(1e-6));
  // The paper protocol cannot see the inter-node terms and fails on the same data.
  const FitOutcome paper = fit_with_protocol(FitProtocol::kPaper, pts, n, 4, "synthetic");
  CHECK(paper.quality.mape_heldout_16 > 10.0);

  // Its catalog form (a sampled table) reproduces the model at unsampled node counts and batches.
  const auto js = multi_node_table_json(c, n, 64);
  std::vector<models::TablePoint> tp;
  for (const auto& p : js.at("points"))
    tp.push_back({p.at(0).get<int>(), p.at(1).get<int>(), p.at(2).get<double>(), p.at(3).get<double>()});
  const models::TableStepTime table(tp);
  for (auto [w, k, b] : {std::tuple{24, 6, 32.0}, std::tuple{40, 10, 7.5}, std::tuple{3, 1, 100.0}}) {
    bool clamped = true;
    CHECK(table.lookup(w, k, b, &clamped) == Approx(multi_node_step_time(c, w, k, b * w, n)).epsilon(1e-9));
    CHECK_FALSE(clamped);
  }
}

TEST_CASE("sim::MultiNode: too few probes fail with the count needed", "[fit][multinode]") {
  std::vector<models::SpeedPoint> one_node;
  for (int w : {1, 2, 4})
    for (double b : {8.0, 16.0, 32.0})
      one_node.push_back({w, 1, b * w, 0.1 * w + b * 0.01});
  CHECK_THROWS_WITH(fit_speed_points(FitProtocol::kMultiNode, one_node, 1.0, "pts"),
                    Catch::Contains("needs at least 1 point spanning several nodes"));
  CHECK_THROWS_WITH(fit_speed_points(FitProtocol::kMultiNode, {one_node.begin(), one_node.begin() + 6}, 1.0, "pts"),
                    Catch::Contains("needs at least 7"));
}

TEST_CASE("sim::NoiseFloor: leave-one-out estimates on hand-computed tables", "[fit][multinode]") {
  // Two measurements of one (w, nodes, batch) group (like placements 13 and 22): each predicted by the other.
  // speed APE = |meas/pred - 1|: 1.0 from 1.5 -> 33.33%, 1.5 from 1.0 -> 50%; mean 41.67%.
  const NoiseFloor g = noise_floor({{4, 2, 32.0, 1.0}, {4, 2, 32.0, 1.5}});
  CHECK(g.group_points == 2);
  CHECK(g.group_mape == Approx(125.0 / 3.0));
  CHECK(g.table_points_16 == 0);
  CHECK(std::isnan(g.table_mape_16));
  // Three 16+ rows at 4 GPUs per node, per-GPU batch 8: step 2.0 (16 GPUs), 3.0 (32), 5.0 (48).
  // w = 32 interpolated between 16 and 48: 3.5 -> |3/3.5 - 1| = 14.29%; w = 16 and 48 lie outside the rest: edge
  // value 3.0 (clamped) -> 33.33% and 66.67%. Mean 38.10%, median 33.33%, 2 clamped.
  const NoiseFloor t = noise_floor({{16, 4, 128.0, 2.0}, {32, 8, 256.0, 3.0}, {48, 12, 384.0, 5.0}});
  CHECK(t.group_points == 0);
  REQUIRE(t.table_points_16 == 3);
  CHECK(t.table_mape_16 == Approx((100.0 / 3.0 + 100.0 / 7.0 + 200.0 / 3.0) / 3.0));
  CHECK(t.table_median_16 == Approx(100.0 / 3.0));
  CHECK(t.table_clamped_16 == 2);
}

TEST_CASE("sim::MultiNode: selectable by name in `ringsched fit` on a Pollux table", "[fit][multinode]") {
  FitCommandOptions opt;
  opt.pollux = "cifar10";
  opt.protocol = "multi-node";
  std::ostringstream out;
  std::ostringstream err;
  CHECK(run_fit_command(opt, out, err) == 0);
  const auto doc = nlohmann::json::parse(out.str());
  CHECK(doc.at("quality").at("protocol") == "multi-node");
  CHECK(doc.at("quality").at("points_fit") == 65);  // 5 probe placements x 11 per-GPU batches + 4444 x 10
  CHECK(doc.at("class").at("speed").at("kind") == "table");
}

// ---- the `net` model and the two-node protocol (models/network_model.h) ----

namespace {
const std::string kFitFixtures = std::string(RINGSCHED_TEST_DIR) + "/fixtures/heldout/";

models::NetCoeffs known_net() {
  models::NetCoeffs c;
  c.per_sample = 0.01;
  c.per_step = 0.1;
  c.intra_bw = 0.2;
  c.intra_hop = 0.01;
  c.inter_bw = 0.5;
  c.inter_const = 0.05;
  c.inter_nic = 0.02;
  return c;
}

// Every position of at most 2 nodes of 4 GPUs (1-4 GPUs on one node, 2-8 on two), per-GPU batches 16 and 32, step
// times from the model.
std::vector<models::SpeedPoint> two_node_points(const models::NetCoeffs& c) {
  std::vector<models::SpeedPoint> pts;
  for (int nodes = 1; nodes <= 2; ++nodes)
    for (int w = nodes; w <= 4 * nodes; ++w)
      for (double local : {16.0, 32.0})
        pts.push_back({w, nodes, local * w, models::net_step_time(c, w, nodes, local * w)});
  return pts;
}
}  // namespace

TEST_CASE("models::Net: step time matches a hand computation", "[fit][net]") {
  const models::NetCoeffs c = known_net();
  // w = 4 on 1 node, m = 128 (b = 32): 0.01*32 + 0.1 + 0.2*2*(3/4) + 0.01*3 = 0.75
  CHECK(models::net_step_time(c, 4, 1, 128.0) == Approx(0.75).epsilon(1e-12));
  // w = 8 on 2 nodes, m = 256 (b = 32): 0.32 + 0.1 + 0.5*2*(7/8) + 0.05 + 0.02*2*7/2 = 1.485
  CHECK(models::net_step_time(c, 8, 2, 256.0) == Approx(1.485).epsilon(1e-12));
  // w = 1: compute only: 0.01*64 + 0.1
  CHECK(models::net_step_time(c, 1, 1, 64.0) == Approx(0.74).epsilon(1e-12));
  CHECK(models::NetStepTime(c).step_seconds(8, 2, 256.0) == Approx(1.485).epsilon(1e-12));
}

TEST_CASE("models::Net: data from a variant are recovered from 2-node probes and predict 16 nodes", "[fit][net]") {
  models::NetCoeffs c = known_net();
  c.inter_const = 0.0;  // a ring+nic truth
  const auto pts = two_node_points(c);
  const models::NetFit f = models::fit_net(pts);
  REQUIRE(f.candidates.size() == 3);
  CHECK(f.selected.variant == models::NetVariant::kRingNic);
  CHECK(f.candidates[2].lopo_mape_pct < 1e-6);  // exact data: every left-out position predicted exactly
  CHECK(f.candidates[0].lopo_mape_pct > 1.0);   // ring alone cannot express the shared-NIC term
  CHECK(f.selected.fixed.empty());
  CHECK(f.selected.coeffs.inter_nic == Approx(0.02).epsilon(1e-6));
  CHECK(f.selected.coeffs.intra_hop == Approx(0.01).epsilon(1e-6));
  // 64 GPUs on 16 nodes, never probed: 0.32 + 0.1 + 0.5*2*63/64 + 0.02*2*63/16 = 1.561875
  CHECK(models::net_step_time(f.selected.coeffs, 64, 16, 64 * 32.0) == Approx(1.561875).epsilon(1e-6));
}

TEST_CASE("models::Net: coefficients the probes cannot identify are fixed at 0, so model size changes nothing",
          "[fit][net]") {
  // A packed table of 8-GPU nodes at one per-GPU batch (the common published shape): 1, 2, 4, 8 GPUs on one node,
  // 16 on 2 nodes; truth from the model with a constant cross-node term the single 2-node position cannot separate.
  std::vector<models::SpeedPoint> pts;
  for (int w : {1, 2, 4, 8, 16, 32, 64}) {
    const int nodes = (w + 7) / 8;
    pts.push_back({w, nodes, 32.0 * w, models::net_step_time(known_net(), w, nodes, 32.0 * w)});
  }
  const models::NetVariantFit rc =
      models::fit_net_variant({pts.begin(), pts.begin() + 5}, models::NetVariant::kRingConst);
  // per_step duplicates per_sample at one batch; inter_const duplicates inter_bw at one multi-node position.
  CHECK(rc.fixed == std::vector<std::string>{"per_step", "inter_const"});
  CHECK(rc.free_coefficients == 4);
  CHECK(rc.coeffs.per_step == 0.0);
  CHECK(rc.coeffs.inter_const == 0.0);

  FitRequest r;
  r.protocol = FitProtocol::kTwoNode;
  r.origin = "packed";
  r.model_size = 25.6;
  const FitOutcome a = fit_with_request(r, pts);
  r.model_size = 138.0;
  const FitOutcome b = fit_with_request(r, pts);
  CHECK(a.quality.gpus_per_node == 8);  // inferred: 8 GPUs on one node
  CHECK(a.quality.gpus_per_node_inferred);
  CHECK(a.quality.points_fit == 5);
  REQUIRE(a.quality.unprofiled.size() == 2);  // 32 and 64 GPUs
  for (std::size_t i = 0; i < 2; ++i)
    CHECK(a.quality.unprofiled[i].predicted_s == b.quality.unprofiled[i].predicted_s);
  // The fit reproduces the probes; beyond, the ring term grows as 2(w-1)/w: hand-computed prediction at 32 GPUs
  // from the fitted single cross-node coefficient x (x * 2 * 15/16 = truth's cross-node cost at 16 GPUs).
  const double cross16 = 0.5 * 2 * 15.0 / 16 + 0.05 + 0.02 * 2 * 15 / 2;
  const double x = cross16 / (2 * 15.0 / 16);
  CHECK(a.quality.unprofiled[0].w == 32);
  CHECK(a.quality.unprofiled[0].predicted_s == Approx(0.32 + 0.1 + x * 2 * 31.0 / 32).epsilon(1e-6));
  CHECK(a.quality.points_heldout_32 == 2);  // every unprofiled point has 32+ GPUs here
  CHECK(a.quality.mape_heldout_32 == Approx(a.quality.mape_heldout));
  CHECK(a.quality.median_heldout_32 == Approx(a.quality.mape_heldout));  // the median of two is their mean
  REQUIRE(a.quality.heldout_by_nodes.size() == 2);
  CHECK(a.quality.heldout_by_nodes[0].nodes == 4);
  CHECK(a.quality.heldout_by_nodes[1].nodes == 8);
  CHECK(a.quality.model_selection.size() == 3);
  CHECK(a.quality.model == "net:ring");  // ties go to the simplest variant
}

TEST_CASE("sim::Fit: probes select positions, missing ones and too few are exit-2 errors naming them", "[fit][net]") {
  CHECK(parse_probe_token("8", "p").packed);
  const ProbePoint pl = parse_probe_token("4+4", "p");
  CHECK((pl.w == 8 && pl.nodes == 2 && !pl.packed));
  const ProbePoint at = parse_probe_token("12@3", "p");
  CHECK((at.w == 12 && at.nodes == 3));
  for (const char* bad : {"0", "4+", "+4", "x", "3@4", "8@0", "", "99999999", "1e3"})
    CHECK_THROWS_WITH(parse_probe_token(bad, "--probes"), Catch::Contains("--probes"));

  const std::vector<models::SpeedPoint> pts = two_node_points(known_net());
  FitRequest r;
  r.protocol = FitProtocol::kTwoNode;
  r.origin = "pts.csv";
  r.probes = {parse_probe_token("1", "p"), parse_probe_token("2", "p"), parse_probe_token("4", "p"),
              parse_probe_token("4+4", "p")};
  const FitOutcome o = fit_with_request(r, pts);
  CHECK(o.quality.points_fit == 8);           // 4 positions x 2 batches
  CHECK(o.quality.points_heldout == 22 - 8);  // 11 positions x 2 batches, 4 of them probed
  CHECK(o.quality.probes == "1,2,4,4+4");
  for (const auto& u : o.quality.unprofiled) {
    CHECK(u.ape_pct == Approx(100.0 * std::abs(u.measured_s / u.predicted_s - 1.0)));
    CHECK_FALSE(((u.w == 8 && u.nodes == 2) || (u.nodes == 1 && (u.w == 1 || u.w == 2 || u.w == 4))));
  }
  r.probes.push_back(parse_probe_token("16", "p"));
  r.probes.push_back(parse_probe_token("3@3", "p"));
  CHECK_THROWS_WITH(fit_with_request(r, pts), Catch::Contains("pts.csv: no measured point at probe(s) '16'") &&
                                                  Catch::Contains("'3@3' (3 GPU(s) on 3 node(s))"));
  r.probes = {parse_probe_token("1", "p"), parse_probe_token("2", "p")};
  CHECK_THROWS_WITH(fit_with_request(r, pts), Catch::Contains("too few points to fit: protocol two-node") &&
                                                  Catch::Contains("none multi-node") &&
                                                  Catch::Contains("the input also measures 2@2, 3@2") &&
                                                  Catch::Contains("add some with --probes"));
  r.probes.clear();
  r.gpus_per_node = 2;  // the points put 4 GPUs on one node
  CHECK_THROWS_WITH(fit_with_request(r, pts), Catch::Contains("up to 4 GPUs on one node"));
}

TEST_CASE("sim::Fit: conflicting measurements of one position and a fit worse than the mean are warned about",
          "[fit][hostile]") {
  // Both were fitted silently before.
  const std::vector<models::SpeedPoint> conflict = {
      {1, 1, 64.0, 0.5}, {1, 1, 64.0, 0.8}, {2, 1, 128.0, 0.5}, {4, 1, 256.0, 0.55}};
  const FitOutcome c = fit_with_protocol(FitProtocol::kEq5All, conflict, 1.0, 0, "c.csv");
  CHECK(std::count_if(c.quality.warnings.begin(), c.quality.warnings.end(), [](const std::string& w) {
          return w.find(
                     "1 position(s) measured with step times more than 10% apart (worst 1.60x at 1 GPUs on 1 "
                     "node(s), batch 64)") == 0;
        }) == 1);
  // Step time falling as the batch grows: Eq. 5's non-negative coefficients cannot follow, R^2 < 0.
  std::vector<models::SpeedPoint> falling;
  for (int w : {1, 2, 4})
    for (const auto& [b, t] : std::vector<std::pair<double, double>>{{32, 0.9}, {64, 0.5}, {128, 0.2}})
      falling.push_back({w, 1, b * w, t});
  const FitOutcome f = fit_with_protocol(FitProtocol::kEq5All, falling, 1.0, 0, "f.csv");
  REQUIRE(f.quality.r2 < 0.0);
  CHECK(std::count_if(f.quality.warnings.begin(), f.quality.warnings.end(), [](const std::string& w) {
          return w.find("< 0: the model predicts the fitted step times worse than their mean") != std::string::npos;
        }) == 1);
  // Consistent repeats within 10% warn about neither.
  const std::vector<models::SpeedPoint> close = {
      {1, 1, 64.0, 0.5}, {1, 1, 64.0, 0.52}, {2, 1, 128.0, 0.5}, {4, 1, 256.0, 0.55}};
  for (const auto& w : fit_with_protocol(FitProtocol::kEq5All, close, 1.0, 0, "k.csv").quality.warnings)
    CHECK(w.find("10% apart") == std::string::npos);
}

TEST_CASE("sim::Fit: degenerate input is fitted with warnings, and auto picks the protocol the points support",
          "[fit][net]") {
  // Four identical rows: the case (R^2 = 1 and no warning before).
  const std::vector<models::SpeedPoint> same(4, models::SpeedPoint{1, 1, 32.0, 0.1});
  const FitOutcome o = fit_with_protocol(FitProtocol::kEq5All, same, 1.0, 0, "same.csv");
  REQUIRE(o.quality.warnings.size() == 3);
  CHECK_THAT(o.quality.warnings[0], Catch::StartsWith("3 duplicate row(s)"));
  CHECK_THAT(o.quality.warnings[1], Catch::Contains("1 distinct GPU count(s) for 4 fitted coefficients"));
  CHECK_THAT(o.quality.warnings[2], Catch::Contains("zero variance"));
  CHECK(fit_with_protocol(FitProtocol::kTwoNode, two_node_points(known_net()), 1.0, 0, "p").quality.warnings.empty());

  std::ostringstream out;
  std::ostringstream err;
  FitCommandOptions opt;
  opt.pollux = "yolov3";
  CHECK(run_fit_command(opt, out, err) == 0);
  const auto doc = nlohmann::json::parse(out.str());
  CHECK(doc.at("quality").at("protocol") == "two-node");
  CHECK(doc.at("quality").at("gpus_per_node") == 4);
  CHECK_THAT(err.str(), Catch::Contains("protocol two-node chosen automatically"));
  CHECK(doc.at("class").at("speed").at("kind") == "net");
  // The entry is a catalog class: it parses, and its model answers as the fit does.
  const Catalog cat =
      parse_catalog(nlohmann::json{{"name", "c"}, {"classes", nlohmann::json::array({doc.at("class")})}}, "f");
  const auto& u = doc.at("quality").at("unprofiled").at(0);
  CHECK(cat.classes[0].speed->step_seconds(u.at("gpus").get<int>(), u.at("nodes").get<int>(),
                                           u.at("global_batch").get<double>()) ==
        Approx(u.at("predicted_s").get<double>()).epsilon(1e-12));
  // Probes on one node only (as a one-machine profile): paper, with GPUs per node inferred from every point (4).
  opt.pollux.clear();
  opt.csv = kFitFixtures + "points-eq5.csv";
  opt.model_size = 20.0;
  opt.probes = {"1", "2", "3", "4"};
  out.str("");
  err.str("");
  CHECK(run_fit_command(opt, out, err) == 0);
  const auto one = nlohmann::json::parse(out.str()).at("quality");
  CHECK(one.at("protocol") == "paper");
  CHECK(one.at("points_fit") == 8);  // the probes name the points; the protocol gives the model
  CHECK(one.at("points_heldout") == 4);
  CHECK_THAT(err.str(), Catch::Contains("protocol paper chosen automatically"));
}

TEST_CASE("sim::Fit: two-level on a packed table fixes what one 2-node position cannot separate", "[fit][net]") {
  // The case: two-level's predictions changed with --model-size on packed tables. 8-GPU nodes, per-GPU
  // batches 32 and 64, probes 1, 2, 4, 8 GPUs and 16 on 2 nodes: at one multi-node GPU count the inter-node latency
  // (w-1) and bandwidth ((w-1)/w n) columns are proportional, so t2_inter is fixed at 0 and named.
  std::vector<models::SpeedPoint> pts;
  for (int w : {1, 2, 4, 8, 16, 32, 64})
    for (double local : {32.0, 64.0}) {
      const int nodes = (w + 7) / 8;
      pts.push_back({w, nodes, local * w, models::net_step_time(known_net(), w, nodes, local * w)});
    }
  FitRequest r;
  r.protocol = FitProtocol::kTwoLevel;
  r.origin = "packed";
  r.probes = {parse_probe_token("1", "p"), parse_probe_token("2", "p"), parse_probe_token("4", "p"),
              parse_probe_token("8", "p"), parse_probe_token("16", "p")};
  r.model_size = 25.6;
  const FitOutcome a = fit_with_request(r, pts);
  r.model_size = 138.0;
  const FitOutcome b = fit_with_request(r, pts);
  CHECK(a.quality.fixed == std::vector<std::string>{"t2_inter"});
  CHECK(b.quality.fixed == a.quality.fixed);
  REQUIRE(a.quality.unprofiled.size() == 4);  // 32 and 64 GPUs, two batches each
  for (std::size_t i = 0; i < a.quality.unprofiled.size(); ++i)
    CHECK(a.quality.unprofiled[i].predicted_s == Approx(b.quality.unprofiled[i].predicted_s).epsilon(1e-9));
}
