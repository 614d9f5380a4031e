// models/phys_posterior.cpp — hit-and-run sampling of the phys model's bounded posterior, its predictive intervals
// and the greedy probe plan.
#include "models/phys_posterior.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <Eigen/Dense>
#include <boost/math/special_functions/erf.hpp>
#include <boost/random/mersenne_twister.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>

#include "models/quantile.h"

namespace ringsched::models {

namespace {

constexpr std::uint32_t kPhysSeed = 37;  // issue 37: fixed, so the same probes give the same intervals
constexpr int kBurnIn = 400;
constexpr int kThin = 3;

// Upper-tail probability of N(0, 1) beyond x.
double upper_tail(double x) {
  return 0.5 * std::erfc(x / std::sqrt(2.0));
}

// x ~ N(0, 1) truncated to [a, b], by the inverse of the tail that holds the interval (no cancellation far out).
double truncated_std_normal(double a, double b, double u) {
  if (b < 0.0) return -truncated_std_normal(-b, -a, 1.0 - u);
  if (a > 0.0) {
    const double qa = upper_tail(a);
    const double qb = std::isfinite(b) ? upper_tail(b) : 0.0;
    const double q = qb + u * (qa - qb);
    if (!(q > 1e-300) || !(qa > qb)) return a;  // the mass underflows: the bound nearest the mean
    const double x = std::sqrt(2.0) * boost::math::erfc_inv(2.0 * q);
    return std::clamp(x, a, b);
  }
  // The interval holds 0: the whole CDF is well conditioned.
  const double pa = std::isfinite(a) ? upper_tail(-a) : 0.0;
  const double pb = std::isfinite(b) ? upper_tail(-b) : 1.0;
  const double p = std::clamp(pa + u * (pb - pa), 1e-300, 1.0 - 1e-16);
  const double x = -std::sqrt(2.0) * boost::math::erfc_inv(2.0 * p);
  return std::clamp(x, a, b);
}

double mean_rel_width(const PhysPosterior& post, const std::vector<SpeedPoint>& targets) {
  double s = 0.0;
  for (const auto& t : targets) {
    const PhysInterval iv = post.interval(t.w, t.nodes, t.global_batch);
    s += (iv.hi - iv.lo) / iv.mid;
  }
  return targets.empty() ? 0.0 : s / static_cast<double>(targets.size());
}

double lopo_noise(const std::vector<SpeedPoint>& probes, PhysVariant v, const PhysHardware& hw) {
  const std::vector<double> apes = phys_lopo_apes(probes, v, hw);
  double ss = 0.0;
  for (double a : apes)
    ss += (a / 100.0) * (a / 100.0);
  return apes.empty() ? 0.0 : std::sqrt(ss / static_cast<double>(apes.size()));
}

}  // namespace

PhysPosterior::PhysPosterior(const std::vector<SpeedPoint>& probes, const PhysVariantFit& fit, const PhysHardware& hw,
                             int samples)
    : PhysPosterior(probes, fit, hw, samples, -1.0) {}

PhysPosterior::PhysPosterior(const std::vector<SpeedPoint>& probes, const PhysVariantFit& fit, const PhysHardware& hw,
                             int samples, double noise)
    : variant_(fit.variant), overlap_(hw.overlap), bounds_(phys_bounds(hw)) {
  for (const auto& p : probes)
    max_nodes_ = std::max(max_nodes_, p.nodes);
  double sse = 0.0;
  for (const auto& p : probes) {
    const double r = phys_step_time(variant_, fit.coeffs, p.w, p.nodes, p.global_batch, overlap_) / p.step_seconds;
    sse += (r - 1.0) * (r - 1.0);
  }
  const double dof = std::max(1.0, static_cast<double>(probes.size()) - fit.free_coefficients);
  sigma_ = std::sqrt(sse / dof);
  noise_ = noise >= 0.0 ? noise : std::max(sigma_, lopo_noise(probes, variant_, hw));
  sample(probes, fit, std::max(1, samples));
}

void PhysPosterior::sample(const std::vector<SpeedPoint>& probes, const PhysVariantFit& fit, int count) {
  // Unit-norm column coordinates z_j = theta_j s_j over the columns some probe prices; the others stay as fitted.
  Eigen::MatrixXd a(static_cast<Eigen::Index>(probes.size()), kPhysColumns);
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto x = phys_columns(variant_, probes[i].w, probes[i].nodes, probes[i].global_batch, overlap_);
    for (int j = 0; j < kPhysColumns; ++j)
      a(static_cast<Eigen::Index>(i), j) = x[static_cast<std::size_t>(j)] / probes[i].step_seconds;
  }
  std::vector<int> act;
  for (int j = 0; j < kPhysColumns; ++j)
    if (a.col(j).norm() > 0.0) act.push_back(j);
  const auto p = static_cast<Eigen::Index>(act.size());
  Eigen::MatrixXd as(a.rows(), p);
  Eigen::VectorXd scale(p), z(p), lo(p), hi(p);
  for (Eigen::Index k = 0; k < p; ++k) {
    const auto j = static_cast<std::size_t>(act[static_cast<std::size_t>(k)]);
    scale(k) = a.col(static_cast<Eigen::Index>(j)).norm();
    as.col(k) = a.col(static_cast<Eigen::Index>(j)) / scale(k);
    lo(k) = bounds_.lo[j] * scale(k);
    hi(k) = bounds_.hi[j] * scale(k);
    z(k) = std::clamp(fit.coeffs[j] * scale(k), lo(k), hi(k));
  }
  const Eigen::MatrixXd g = as.transpose() * as;
  const Eigen::VectorXd h = as.transpose() * Eigen::VectorXd::Ones(a.rows());
  const double flat = 1e-12 * std::max(1.0, g.trace());
  const double sigma = std::max(sigma_, 1e-9);
  boost::random::mt19937 rng(kPhysSeed);
  boost::random::normal_distribution<double> gauss(0.0, 1.0);
  boost::random::uniform_01<double> unif;
  const int total = kBurnIn + count * kThin;
  Eigen::VectorXd d(p);
  for (int it = 0; it < total && p > 0; ++it) {
    if (it % 2 == 0) {
      d.setZero();
      d((it / 2) % p) = 1.0;
    } else {
      for (Eigen::Index k = 0; k < p; ++k)
        d(k) = gauss(rng);
      d.normalize();
    }
    double tlo = -std::numeric_limits<double>::infinity();
    double thi = std::numeric_limits<double>::infinity();
    for (Eigen::Index k = 0; k < p; ++k) {
      if (std::abs(d(k)) < 1e-15) continue;
      double t1 = (lo(k) - z(k)) / d(k);
      double t2 = (hi(k) - z(k)) / d(k);
      if (t1 > t2) std::swap(t1, t2);
      tlo = std::max(tlo, t1);
      thi = std::min(thi, t2);
    }
    const double dgd = d.dot(g * d);
    const double u = unif(rng);
    double t = 0.0;
    if (dgd > flat) {
      const double mu = -d.dot(g * z - h) / dgd;
      const double s = sigma / std::sqrt(dgd);
      t = mu + s * truncated_std_normal((tlo - mu) / s, (thi - mu) / s, u);
    } else if (std::isfinite(tlo) && std::isfinite(thi)) {
      t = tlo + u * (thi - tlo);
    }
    if (std::isfinite(t) && tlo <= thi) z = (z + t * d).cwiseMax(lo).cwiseMin(hi);
    if (it >= kBurnIn && (it - kBurnIn) % kThin == kThin - 1) {
      std::array<double, kPhysColumns> c = fit.coeffs;
      for (Eigen::Index k = 0; k < p; ++k)
        c[static_cast<std::size_t>(act[static_cast<std::size_t>(k)])] = z(k) / scale(k);
      samples_.push_back(c);
      z_.push_back(gauss(rng));
    }
  }
  if (samples_.empty()) {  // nothing to sample: the fit alone
    samples_.push_back(fit.coeffs);
    z_.push_back(0.0);
  }
}

PhysInterval PhysPosterior::interval(int w, int nodes, double global_batch) const {
  std::vector<double> v;
  v.reserve(samples_.size());
  for (std::size_t k = 0; k < samples_.size(); ++k)
    v.push_back(phys_step_time(variant_, samples_[k], w, nodes, global_batch, overlap_) * std::exp(noise_ * z_[k]));
  std::sort(v.begin(), v.end());
  return {quantile(v, 0.05), quantile(v, 0.5), quantile(v, 0.95)};
}

std::vector<PhysProbeCandidate> phys_probe_candidates(const std::vector<SpeedPoint>& probes,
                                                      const std::vector<PhysProbeCandidate>& measured,
                                                      int gpus_per_node, int max_nodes) {
  int top = 1;
  for (const auto& p : probes)
    top = std::max(top, p.nodes);
  std::map<std::pair<int, int>, int> seen;  // (nodes, gpus)
  for (int k = top + 1; k <= max_nodes; ++k)
    seen[{k, k * gpus_per_node}] = 1;
  for (const auto& m : measured)
    if (m.nodes > top) seen[{m.nodes, m.gpus}] = 1;
  std::vector<PhysProbeCandidate> out;
  for (const auto& [pos, one] : seen)
    out.push_back(PhysProbeCandidate{pos.second, pos.first});
  return out;
}

PhysProbePlan plan_phys_probes(const std::vector<SpeedPoint>& probes, const std::vector<SpeedPoint>& targets,
                               const PhysVariantFit& fit, const PhysHardware& hw,
                               const std::vector<PhysProbeCandidate>& candidates, int budget) {
  constexpr int kPlanSamples = 600;
  PhysProbePlan plan;
  const PhysPosterior now(probes, fit, hw, kPlanSamples);
  const double noise = now.noise();
  plan.width_before = mean_rel_width(now, targets);
  std::map<double, int> batches;  // per-GPU batch -> count
  for (const auto& p : probes)
    ++batches[p.global_batch / p.w];
  double b = probes.front().global_batch / probes.front().w;
  int most = 0;
  for (const auto& [batch, n] : batches) {
    if (n > most) {
      most = n;
      b = batch;
    }
  }
  std::vector<SpeedPoint> pts = probes;
  PhysPosterior cur = now;
  std::vector<std::size_t> planned;
  for (int step = 0; step < budget; ++step) {
    PhysProbePlanStep best;
    std::size_t best_i = 0;
    std::vector<SpeedPoint> best_pts;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (std::find(planned.begin(), planned.end(), i) != planned.end()) continue;
      const int w = candidates[i].gpus;
      const int k = candidates[i].nodes;
      std::vector<SpeedPoint> more = pts;
      more.push_back(SpeedPoint{w, k, b * w, cur.interval(w, k, b * w).mid});
      const PhysVariantFit f = fit_phys_variant(more, fit.variant, hw);
      const double width = mean_rel_width(PhysPosterior(more, f, hw, kPlanSamples, noise), targets);
      if (best.gpus == 0 || width < best.width_after - 1e-12) {
        best = PhysProbePlanStep{w, k, b * w, width};
        best_i = i;
        best_pts = std::move(more);
      }
    }
    if (best.gpus == 0) break;
    planned.push_back(best_i);
    plan.steps.push_back(best);
    pts = std::move(best_pts);
    cur = PhysPosterior(pts, fit_phys_variant(pts, fit.variant, hw), hw, kPlanSamples, noise);
  }
  return plan;
}

}  // namespace ringsched::models
