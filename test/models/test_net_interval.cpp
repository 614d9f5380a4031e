// test/models/test_net_interval.cpp — the net model's 90% intervals: on exact points of a known model the interval
// holds the truth and is the members' spread widened by the leave-one-probe-out noise, a growth reading is admitted
// only beyond the probes' node count, and the probe suggestion narrows the intervals it targets.
#include <catch2/catch.hpp>

#include <vector>

#include "models/net_interval.h"

using namespace ringsched::models;

namespace {

NetCoeffs truth_coeffs() {
  NetCoeffs k;
  k.per_sample = 0.002;
  k.per_step = 0.05;
  k.intra_bw = 0.01;
  k.intra_hop = 0.002;
  k.inter_bw = 0.04;
  return k;
}

// Exact steps at 1, 2, 4 GPUs on one node and 2, 4, 8 GPUs on 2 nodes (4-GPU nodes), per-GPU batches 16 and 64.
std::vector<SpeedPoint> two_node_probes() {
  std::vector<SpeedPoint> out;
  for (const auto& [w, n] : std::vector<std::pair<int, int>>{{1, 1}, {2, 1}, {4, 1}, {2, 2}, {4, 2}, {8, 2}})
    for (double b : {16.0, 64.0})
      out.push_back({w, n, b * w, net_step_time(truth_coeffs(), w, n, b * w)});
  return out;
}

}  // namespace

TEST_CASE("models::NetEnvelope: exact probes hold the truth, members agree on them and grow only beyond them",
          "[models][interval]") {
  const NetEnvelope e(two_node_probes());
  CHECK(e.probe_nodes() == 2);
  // Exact points, yet leaving a whole position out leaves some coefficient unidentified (e.g. without 1 GPU), so the
  // leave-one-probe-out noise is small but not 0.
  const double q = e.noise();
  CHECK(q >= 0.0);
  CHECK(q < 0.1);
  CHECK(e.members() == 6);
  for (const auto& p : two_node_probes()) {
    const NetInterval iv = e.interval(p.w, p.nodes, p.global_batch);
    CHECK(iv.lo == Approx(p.step_seconds / (1 + q)).epsilon(1e-6));  // at the probes every member agrees
    CHECK(iv.hi == Approx(p.step_seconds * (1 + q)).epsilon(1e-6));
  }
  // At 64 GPUs on 16 nodes the saturating truth is inside, and the growth reading (x log2 16 / log2 2 = 4 on the
  // cross-node cost) is the upper end.
  const double t = net_step_time(truth_coeffs(), 64, 16, 64.0 * 16);
  const NetInterval iv = e.interval(64, 16, 64.0 * 16);
  CHECK(iv.lo <= t * (1 + 1e-9));
  CHECK(iv.hi >= t);
  const double cross = truth_coeffs().inter_bw * 2.0 * 63.0 / 64.0;
  CHECK(iv.hi == Approx((t + 3.0 * cross) * (1 + q)).epsilon(1e-4));
}

TEST_CASE("models::suggest_net_probe: a probe beyond the probes' nodes narrows the target intervals",
          "[models][interval]") {
  const std::vector<SpeedPoint> targets{{32, 8, 64.0 * 32, 1.0}, {64, 16, 64.0 * 64, 1.0}};
  const ProbeSuggestion s = suggest_net_probe(two_node_probes(), targets, 4, 16);
  REQUIRE(s.gpus > 0);
  CHECK(s.nodes > 2);
  CHECK(s.gpus == 4 * s.nodes);
  CHECK(s.width_before > 0.0);
  CHECK(s.width_after < s.width_before);
  // Probes already on every node count: nothing to suggest.
  CHECK(suggest_net_probe(two_node_probes(), targets, 4, 2).gpus == 0);
}
