// models/phys_model.cpp — the `phys` model's columns, hardware bounds, bounded fit, leave-one-probe-out error and
// variant choice.
#include "models/phys_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <utility>

#include "models/input_error.h"
#include "models/nnls.h"

namespace ringsched::models {

namespace {

constexpr double kPhysInf = std::numeric_limits<double>::infinity();

double phys_speed_ape(double predicted_step, double measured_step) {
  return 100.0 * std::abs(measured_step / predicted_step - 1.0);
}

// One bounded solve on the columns in `free` (the others held at `held`): lower bounds by shifting, unidentified
// columns fixed at their lower bound. Returns the coefficients; `unidentified` gets the columns fixed that way.
std::array<double, kPhysColumns> solve_free(const std::vector<SpeedPoint>& pts, PhysVariant v, double overlap,
                                            const std::vector<int>& free, const std::array<double, kPhysColumns>& held,
                                            const PhysBounds& b, std::vector<int>& unidentified) {
  const auto rows = static_cast<Eigen::Index>(pts.size());
  Eigen::MatrixXd a(rows, static_cast<Eigen::Index>(free.size()));
  Eigen::VectorXd rhs(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto& p = pts[static_cast<std::size_t>(i)];
    const auto x = phys_columns(v, p.w, p.nodes, p.global_batch, overlap);
    // Relative residual: (x.theta - step) / step; held columns and the lower bounds of the free ones move right.
    double known = 0.0;
    for (int j = 0; j < kPhysColumns; ++j) {
      const auto ju = static_cast<std::size_t>(j);
      const bool is_free = std::find(free.begin(), free.end(), j) != free.end();
      known += x[ju] * (is_free ? b.lo[ju] : held[ju]);
    }
    rhs(i) = (p.step_seconds - known) / p.step_seconds;
    for (std::size_t k = 0; k < free.size(); ++k)
      a(i, static_cast<Eigen::Index>(k)) = x[static_cast<std::size_t>(free[k])] / p.step_seconds;
  }
  const IdentifiedNnls sol = nnls_identified(a, rhs);
  std::array<double, kPhysColumns> out = held;
  for (std::size_t k = 0; k < free.size(); ++k) {
    const auto j = static_cast<std::size_t>(free[k]);
    out[j] = b.lo[j] + sol.x[static_cast<Eigen::Index>(k)];
  }
  unidentified.clear();
  for (int k : sol.fixed)
    unidentified.push_back(free[static_cast<std::size_t>(k)]);
  return out;
}

}  // namespace

const std::vector<PhysVariant>& phys_variants() {
  static const std::vector<PhysVariant> v{PhysVariant::kHier, PhysVariant::kFlat, PhysVariant::kShared};
  return v;
}

std::string to_string(PhysVariant v) {
  switch (v) {
    case PhysVariant::kHier:
      return "hier";
    case PhysVariant::kFlat:
      return "flat";
    case PhysVariant::kShared:
      return "shared";
  }
  return "hier";
}

PhysVariant parse_phys_variant(const std::string& name, const std::string& where) {
  for (PhysVariant v : phys_variants())
    if (to_string(v) == name) return v;
  throw InputError(where + ": unknown phys variant '" + name + "' (valid: hier, flat, shared)");
}

const std::array<const char*, kPhysColumns>& phys_coefficient_names() {
  static const std::array<const char*, kPhysColumns> names{"per_sample", "per_step", "intra_bw",
                                                           "intra_hop",  "inter_bw", "inter_hop"};
  return names;
}

std::array<double, kPhysColumns> phys_columns(PhysVariant v, int w, int nodes, double global_batch, double overlap) {
  const double wd = w;
  const double n = nodes;
  const double g = std::ceil(wd / n);
  const double keep = 1.0 - overlap;
  std::array<double, kPhysColumns> x{global_batch / wd, 1.0, 0.0, 0.0, 0.0, 0.0};
  const bool intra = nodes == 1 || v == PhysVariant::kHier;
  if (intra && g > 1.0) {
    x[2] = keep * 2.0 * (g - 1.0) / g;
    x[3] = keep * 2.0 * (g - 1.0);
  }
  if (nodes > 1) {
    switch (v) {
      case PhysVariant::kHier:
        x[4] = keep * 2.0 * (n - 1.0) / n;
        x[5] = keep * 2.0 * (n - 1.0);
        break;
      case PhysVariant::kFlat:
        x[4] = keep * 2.0 * (wd - 1.0) / wd;
        x[5] = keep * 2.0 * (wd - 1.0);
        break;
      case PhysVariant::kShared:
        x[4] = keep * g * 2.0 * (wd - 1.0) / wd;
        x[5] = keep * 2.0 * (wd - 1.0);
        break;
    }
  }
  return x;
}

double phys_step_time(PhysVariant v, const std::array<double, kPhysColumns>& c, int w, int nodes, double global_batch,
                      double overlap) {
  const auto x = phys_columns(v, w, nodes, global_batch, overlap);
  double s = 0.0;
  for (std::size_t j = 0; j < x.size(); ++j)
    s += c[j] * x[j];
  return s;
}

PhysBounds phys_bounds(const PhysHardware& hw) {
  PhysBounds b;
  b.hi.fill(kPhysInf);
  const double bytes = hw.gradient_bytes();
  if (!(bytes > 0.0)) {
    b.assumed.emplace_back("no model size: the gradient bytes are unknown, so no hardware bound applies");
    return b;
  }
  if (hw.intra_gbps > 0.0) b.lo[2] = bytes * 8.0 / (hw.intra_gbps * 1e9);
  if (hw.nic_gbps > 0.0) b.lo[4] = bytes * 8.0 / (hw.nic_gbps * 1e9);
  if (!(hw.intra_gbps > 0.0)) b.assumed.emplace_back("no intra-node rate: intra_bw has no lower bound");
  if (!(hw.nic_gbps > 0.0)) b.assumed.emplace_back("no NIC rate: inter_bw has no lower bound");
  const double calls = std::ceil(bytes / (hw.bucket_mb * 1e6));
  b.hi[3] = b.hi[5] = calls * hw.hop_latency_us * 1e-6;
  char buf[200];
  std::snprintf(buf, sizeof buf, "per-hop latency <= %g us per call, %g call(s) a step (%g MB buckets): *_hop <= %g s",
                hw.hop_latency_us, calls, hw.bucket_mb, b.hi[3]);
  b.assumed.emplace_back(buf);
  return b;
}

PhysVariantFit fit_phys_variant(const std::vector<SpeedPoint>& points, PhysVariant v, const PhysHardware& hw) {
  const PhysBounds b = phys_bounds(hw);
  std::vector<int> free{0, 1, 2, 3, 4, 5};
  std::array<double, kPhysColumns> held = b.lo;
  std::vector<int> unidentified;
  std::array<double, kPhysColumns> c{};
  std::vector<int> at_upper;
  // Fix a coefficient past its upper bound at the bound and refit the rest; at most one pass per column.
  for (int pass = 0; pass <= kPhysColumns; ++pass) {
    c = solve_free(points, v, hw.overlap, free, held, b, unidentified);
    int worst = -1;
    double excess = 0.0;
    for (int j : free) {
      const auto ju = static_cast<std::size_t>(j);
      if (std::isfinite(b.hi[ju]) && c[ju] > b.hi[ju] && c[ju] / b.hi[ju] > excess) {
        excess = c[ju] / b.hi[ju];
        worst = j;
      }
    }
    if (worst < 0) break;
    held[static_cast<std::size_t>(worst)] = b.hi[static_cast<std::size_t>(worst)];
    at_upper.push_back(worst);
    free.erase(std::find(free.begin(), free.end(), worst));
  }
  PhysVariantFit f;
  f.variant = v;
  f.coeffs = c;
  for (int j : unidentified)
    f.fixed.emplace_back(phys_coefficient_names()[static_cast<std::size_t>(j)]);
  for (int j : at_upper)
    f.fixed.push_back(std::string(phys_coefficient_names()[static_cast<std::size_t>(j)]) + " (at its upper bound)");
  f.free_coefficients = static_cast<int>(free.size() - unidentified.size());
  return f;
}

std::vector<double> phys_lopo_apes(const std::vector<SpeedPoint>& points, PhysVariant v, const PhysHardware& hw) {
  std::map<std::pair<int, int>, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < points.size(); ++i)
    groups[{points[i].w, points[i].nodes}].push_back(i);
  std::vector<double> out;
  if (groups.size() < 2) return out;
  for (const auto& [pos, members] : groups) {
    std::vector<SpeedPoint> rest;
    rest.reserve(points.size() - members.size());
    for (const auto& p : points)
      if (p.w != pos.first || p.nodes != pos.second) rest.push_back(p);
    const PhysVariantFit f = fit_phys_variant(rest, v, hw);
    for (std::size_t i : members) {
      const auto& p = points[i];
      const double pred = phys_step_time(v, f.coeffs, p.w, p.nodes, p.global_batch, hw.overlap);
      out.push_back(pred > 0.0 ? phys_speed_ape(pred, p.step_seconds) : 100.0);
    }
  }
  return out;
}

double phys_lopo_mape(const std::vector<SpeedPoint>& points, PhysVariant v, const PhysHardware& hw) {
  const std::vector<double> apes = phys_lopo_apes(points, v, hw);
  if (apes.empty()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0.0;
  for (double a : apes)
    sum += a;
  return sum / static_cast<double>(apes.size());
}

PhysFit fit_phys(const std::vector<SpeedPoint>& points, const PhysHardware& hw) {
  PhysFit out;
  out.hardware = hw;
  std::size_t best = 0;
  double best_err = kPhysInf;
  for (PhysVariant v : phys_variants()) {
    const PhysVariantFit f = fit_phys_variant(points, v, hw);
    PhysCandidate c;
    c.variant = v;
    c.free_coefficients = f.free_coefficients;
    c.fixed = f.fixed;
    c.lopo_mape_pct = phys_lopo_mape(points, v, hw);
    if (std::isfinite(c.lopo_mape_pct) && c.lopo_mape_pct < best_err - 1e-9) {
      best_err = c.lopo_mape_pct;
      best = out.candidates.size();
    }
    out.candidates.push_back(std::move(c));
  }
  out.selected = fit_phys_variant(points, out.candidates[best].variant, hw);
  return out;
}

}  // namespace ringsched::models
