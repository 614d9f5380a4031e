// test/models/test_phys_model.cpp — the phys speed model: hand-computed columns of each variant, the hardware bounds,
// the bounded fit (exact recovery, a lower and an upper bound binding), the variant choice, and the posterior (samples
// inside the bounds, determinism, coverage on noisy synthetic data) and the probe plan.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "models/phys_model.h"
#include "models/phys_posterior.h"

using namespace ringsched;
using namespace ringsched::models;

namespace {

// 100 M parameters x 4 bytes = 4e8 bytes; NIC 100 Gb/s -> inter_bw >= 0.032 s; intra 800 Gb/s -> intra_bw >= 0.004 s;
// 16 buckets of 25 MB x 100 us -> *_hop <= 1.6 ms.
PhysHardware phys_test_hardware() {
  PhysHardware hw;
  hw.model_mparams = 100.0;
  hw.nic_gbps = 100.0;
  hw.intra_gbps = 800.0;
  return hw;
}

// Positions on 8-GPU nodes up to 2 nodes (the probes) and beyond (the targets), two per-GPU batches each.
std::vector<SpeedPoint> phys_points(PhysVariant v, const std::array<double, kPhysColumns>& c, bool beyond_two,
                                    double noise_sigma = 0.0, unsigned seed = 1) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  const std::vector<std::pair<int, int>> near{{1, 1}, {2, 1}, {4, 1}, {8, 1}, {2, 2}, {8, 2}, {16, 2}};
  const std::vector<std::pair<int, int>> far{{32, 4}, {64, 8}, {128, 16}, {24, 3}, {48, 6}};
  std::vector<SpeedPoint> out;
  for (const auto& [w, n] : beyond_two ? far : near) {
    for (double b : {16.0, 64.0}) {
      const double s = phys_step_time(v, c, w, n, b * w, 0.0) * std::exp(noise_sigma * z(rng));
      out.push_back(SpeedPoint{w, n, b * w, s});
    }
  }
  return out;
}

}  // namespace

TEST_CASE("models::PhysModel: columns follow the hierarchical, flat and shared-NIC all-reduce (hand-computed)",
          "[models][phys]") {
  // 8 GPUs on 2 nodes (g = 4), global batch 64 (b = 8).
  const auto h = phys_columns(PhysVariant::kHier, 8, 2, 64.0, 0.0);
  CHECK(h == std::array<double, 6>{8.0, 1.0, 1.5, 6.0, 1.0, 2.0});  // 2(g-1)/g, 2(g-1), 2(N-1)/N, 2(N-1)
  const auto f = phys_columns(PhysVariant::kFlat, 8, 2, 64.0, 0.0);
  CHECK(f == std::array<double, 6>{8.0, 1.0, 0.0, 0.0, 1.75, 14.0});  // 2(w-1)/w, 2(w-1); no separate intra phase
  const auto s = phys_columns(PhysVariant::kShared, 8, 2, 64.0, 0.0);
  CHECK(s == std::array<double, 6>{8.0, 1.0, 0.0, 0.0, 7.0, 14.0});  // g x 2(w-1)/w
  // One node: every variant is the intra-node ring; one GPU communicates nothing.
  for (PhysVariant v : phys_variants()) {
    CHECK(phys_columns(v, 4, 1, 32.0, 0.0) == std::array<double, 6>{8.0, 1.0, 1.5, 6.0, 0.0, 0.0});
    CHECK(phys_columns(v, 1, 1, 32.0, 0.0) == std::array<double, 6>{32.0, 1.0, 0.0, 0.0, 0.0, 0.0});
  }
  // Overlap hides that fraction of the communication only.
  const auto o = phys_columns(PhysVariant::kHier, 8, 2, 64.0, 0.5);
  CHECK(o == std::array<double, 6>{8.0, 1.0, 0.75, 3.0, 0.5, 1.0});
  const std::array<double, 6> c{0.001, 0.01, 0.02, 0.0005, 0.1, 0.001};
  CHECK(phys_step_time(PhysVariant::kHier, c, 8, 2, 64.0, 0.0) == Approx(0.008 + 0.01 + 0.03 + 0.003 + 0.1 + 0.002));
}

TEST_CASE("models::PhysModel: the declared hardware bounds the coefficients", "[models][phys]") {
  const PhysBounds b = phys_bounds(phys_test_hardware());
  CHECK(b.lo[4] == Approx(0.032));   // 4e8 bytes x 8 / 100 Gb/s
  CHECK(b.lo[2] == Approx(0.004));   // at 800 Gb/s
  CHECK(b.hi[3] == Approx(0.0016));  // 16 calls x 100 us
  CHECK(b.hi[5] == Approx(0.0016));
  CHECK(b.lo[0] == 0.0);
  CHECK(std::isinf(b.hi[4]));
  PhysHardware none;
  const PhysBounds nb = phys_bounds(none);
  for (std::size_t j = 0; j < nb.lo.size(); ++j) {
    CHECK(nb.lo[j] == 0.0);
    CHECK(std::isinf(nb.hi[j]));
  }
  REQUIRE(nb.assumed.size() == 1);
  CHECK(nb.assumed[0].find("no model size") != std::string::npos);
}

TEST_CASE("models::PhysModel: the bounded fit recovers exact coefficients and LOPO picks the variant that made them",
          "[models][phys]") {
  const std::array<double, 6> truth{0.002, 0.02, 0.01, 0.0004, 0.08, 0.001};  // inside phys_test_hardware's bounds
  std::vector<SpeedPoint> pts = phys_points(PhysVariant::kHier, truth, false);
  const auto far = phys_points(PhysVariant::kHier, truth, true);
  pts.push_back(far[0]);  // one 4-node position, so the hop terms across nodes are identifiable
  pts.push_back(far[1]);
  const PhysFit fit = fit_phys(pts, phys_test_hardware());
  CHECK(fit.selected.variant == PhysVariant::kHier);
  for (std::size_t j = 0; j < truth.size(); ++j)
    CHECK(fit.selected.coeffs[j] == Approx(truth[j]).epsilon(1e-6));
  // Flat and shared cannot reproduce hierarchical data (hier's own LOPO is not 0: leaving out the only 4-node
  // position leaves inter_hop unidentified).
  CHECK(fit.candidates[0].lopo_mape_pct < fit.candidates[1].lopo_mape_pct);
  CHECK(fit.candidates[0].lopo_mape_pct < fit.candidates[2].lopo_mape_pct);
}

TEST_CASE("models::PhysModel: a lower bound from the NIC and an upper bound on latency bind", "[models][phys]") {
  // inter_bw 0.01 s is faster than the 0.032 s a 100 Gb/s NIC allows: the fit holds it at the bound.
  std::vector<SpeedPoint> pts = phys_points(PhysVariant::kHier, {0.002, 0.02, 0.01, 0.0004, 0.01, 0.0}, false);
  PhysVariantFit f = fit_phys_variant(pts, PhysVariant::kHier, phys_test_hardware());
  CHECK(f.coeffs[4] == Approx(0.032));
  // A per-hop cost of 50 ms is far above the 1.6 ms ceiling: held at the ceiling and named.
  pts = phys_points(PhysVariant::kFlat, {0.002, 0.02, 0.01, 0.05, 0.05, 0.05}, false);
  const auto far = phys_points(PhysVariant::kFlat, {0.002, 0.02, 0.01, 0.05, 0.05, 0.05}, true);
  pts.insert(pts.end(), far.begin(), far.end());
  f = fit_phys_variant(pts, PhysVariant::kFlat, phys_test_hardware());
  CHECK(f.coeffs[3] <= 0.0016 + 1e-12);
  CHECK(f.coeffs[5] <= 0.0016 + 1e-12);
  bool named = false;
  for (const auto& s : f.fixed)
    named |= s.find("at its upper bound") != std::string::npos;
  CHECK(named);
}

TEST_CASE("models::PhysPosterior: samples stay inside the bounds, the same probes give the same samples",
          "[models][phys]") {
  const std::array<double, 6> truth{0.002, 0.02, 0.01, 0.0004, 0.08, 0.001};
  const auto pts = phys_points(PhysVariant::kHier, truth, false, 0.03, 7);
  const PhysHardware hw = phys_test_hardware();
  const PhysVariantFit fit = fit_phys_variant(pts, PhysVariant::kHier, hw);
  const PhysPosterior a(pts, fit, hw, 500);
  const PhysPosterior b(pts, fit, hw, 500);
  const PhysBounds bounds = phys_bounds(hw);
  REQUIRE(a.samples().size() == 500);
  for (std::size_t k = 0; k < a.samples().size(); ++k) {
    CHECK(a.samples()[k] == b.samples()[k]);
    for (std::size_t j = 0; j < 6; ++j) {
      CHECK(a.samples()[k][j] >= bounds.lo[j] - 1e-15);
      CHECK(a.samples()[k][j] <= bounds.hi[j] + 1e-15);
    }
  }
  // inter_bw and inter_hop are one column on 2 nodes: the samples spread along that line within the bounds.
  std::set<double> hops;
  for (const auto& s : a.samples())
    hops.insert(s[5]);
  CHECK(hops.size() > 100);
  const PhysInterval iv = a.interval(64, 8, 64.0 * 64);
  CHECK(iv.lo < iv.mid);
  CHECK(iv.mid < iv.hi);
  CHECK(a.noise() >= a.sigma());
}

TEST_CASE("models::PhysPosterior: 90% intervals cover about 90% of noisy points the model made", "[models][phys]") {
  // 5% log-normal noise on hierarchical data; probes on <= 2 nodes, targets on 3-16 nodes, many draws.
  const std::array<double, 6> truth{0.002, 0.02, 0.01, 0.0004, 0.08, 0.001};
  const PhysHardware hw = phys_test_hardware();
  int inside = 0;
  int total = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const auto probes = phys_points(PhysVariant::kHier, truth, false, 0.05, seed);
    const auto targets = phys_points(PhysVariant::kHier, truth, true, 0.05, 1000 + seed);
    const PhysVariantFit fit = fit_phys_variant(probes, PhysVariant::kHier, hw);
    const PhysPosterior post(probes, fit, hw, 400);
    for (const auto& t : targets) {
      const PhysInterval iv = post.interval(t.w, t.nodes, t.global_batch);
      inside += t.step_seconds >= iv.lo && t.step_seconds <= iv.hi ? 1 : 0;
      ++total;
    }
  }
  const double coverage = static_cast<double>(inside) / total;
  CHECK(coverage >= 0.8);
  CHECK(coverage <= 0.99);
}

TEST_CASE("models::PhysPlan: a budget plans distinct positions beyond the probes, within the candidates",
          "[models][phys]") {
  const std::array<double, 6> truth{0.002, 0.02, 0.01, 0.0004, 0.08, 0.001};
  const auto probes = phys_points(PhysVariant::kHier, truth, false, 0.02, 3);
  const PhysHardware hw = phys_test_hardware();
  const PhysVariantFit fit = fit_phys_variant(probes, PhysVariant::kHier, hw);
  const std::vector<SpeedPoint> targets{{64, 8, 64.0 * 64, 1.0}, {128, 16, 64.0 * 128, 1.0}};
  const auto cands = phys_probe_candidates(probes, {{12, 3}, {8, 2}}, 8, 6);
  // Packed 3..6 nodes (24, 32, 40, 48 GPUs) and the measured 12 GPUs on 3 nodes; 8@2 is not beyond the probes.
  REQUIRE(cands.size() == 5);
  CHECK(cands[0].gpus == 12);
  CHECK(cands[0].nodes == 3);
  CHECK(cands[4].gpus == 48);
  const PhysProbePlan plan = plan_phys_probes(probes, targets, fit, hw, cands, 3);
  REQUIRE(plan.steps.size() == 3);
  std::set<std::pair<int, int>> seen;
  for (const auto& s : plan.steps) {
    CHECK(s.nodes >= 3);
    CHECK(seen.insert({s.gpus, s.nodes}).second);
    CHECK(s.width_after > 0.0);
  }
  CHECK(plan.width_before > 0.0);
  CHECK(plan_phys_probes(probes, targets, fit, hw, {}, 2).steps.empty());
}
