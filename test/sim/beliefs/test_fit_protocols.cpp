// test/sim/beliefs/test_fit_protocols.cpp — the `multi-node` fit protocol: hand-computed step times, its probe
// selection, exact recovery (zero held-out error) when the data follow its model, its table form, the noise-floor
// estimates on hand-computed tables, and selection by name (CLI and held-out protocol).
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "models/table_speed.h"
#include "sim/beliefs/speed_fit.h"
#include "sim/experiments/fit_command.h"
#include "sim/experiments/fit_study.h"
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
  CHECK(run_fit_command(opt, out) == 0);
  const auto doc = nlohmann::json::parse(out.str());
  CHECK(doc.at("quality").at("protocol") == "multi-node");
  CHECK(doc.at("quality").at("points_fit") == 65);  // 5 probe placements x 11 per-GPU batches + 4444 x 10
  CHECK(doc.at("class").at("speed").at("kind") == "table");
}
