// models/network_model.cpp — the `net` model's columns, its identifiability-checked NNLS fit, leave-one-probe-out
// error and variant choice.
#include "models/network_model.h"

#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "models/nnls.h"

namespace ringsched::models {

namespace {

// The cross-node columns each variant may use.
std::vector<int> variant_inter_columns(NetVariant v) {
  switch (v) {
    case NetVariant::kRing:
      return {4};
    case NetVariant::kRingConst:
      return {4, 5};
    case NetVariant::kRingNic:
      return {4, 6};
  }
  return {4};
}

double speed_ape_pct(double predicted_step, double measured_step) {
  return 100.0 * std::abs(measured_step / predicted_step - 1.0);
}

}  // namespace

const std::array<const char*, kNetColumns>& net_coefficient_names() {
  static const std::array<const char*, kNetColumns> names{"per_sample", "per_step",    "intra_bw", "intra_hop",
                                                          "inter_bw",   "inter_const", "inter_nic"};
  return names;
}

std::array<double, kNetColumns> net_columns(int w, int nodes, double global_batch) {
  const double wd = w;
  const double ring = 2.0 * (wd - 1.0) / wd;
  const double b = global_batch / wd;
  if (nodes > 1) return {b, 1.0, 0.0, 0.0, ring, 1.0, 2.0 * (wd - 1.0) / static_cast<double>(nodes)};
  return {b, 1.0, ring, wd - 1.0, 0.0, 0.0, 0.0};
}

std::array<double, kNetColumns> to_array(const NetCoeffs& c) {
  return {c.per_sample, c.per_step, c.intra_bw, c.intra_hop, c.inter_bw, c.inter_const, c.inter_nic};
}

NetCoeffs net_coeffs_from(const std::array<double, kNetColumns>& a) {
  return NetCoeffs{a[0], a[1], a[2], a[3], a[4], a[5], a[6]};
}

double net_step_time(const NetCoeffs& c, int w, int nodes, double global_batch) {
  const auto x = net_columns(w, nodes, global_batch);
  const auto k = to_array(c);
  double s = 0.0;
  for (int j = 0; j < kNetColumns; ++j)
    s += k[static_cast<std::size_t>(j)] * x[static_cast<std::size_t>(j)];
  return s;
}

const std::vector<NetVariant>& net_variants() {
  static const std::vector<NetVariant> v{NetVariant::kRing, NetVariant::kRingConst, NetVariant::kRingNic};
  return v;
}

std::string to_string(NetVariant v) {
  switch (v) {
    case NetVariant::kRing:
      return "ring";
    case NetVariant::kRingConst:
      return "ring+const";
    case NetVariant::kRingNic:
      return "ring+nic";
  }
  return "ring";
}

NetVariantFit fit_net_variant(const std::vector<SpeedPoint>& points, NetVariant v) {
  std::vector<int> order{0, 1, 2, 3};
  for (int j : variant_inter_columns(v))
    order.push_back(j);
  const auto rows = static_cast<Eigen::Index>(points.size());
  // Rows weighted by 1/step (relative error); the variant's columns in the declared order.
  Eigen::MatrixXd a(rows, static_cast<Eigen::Index>(order.size()));
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto& p = points[static_cast<std::size_t>(i)];
    const auto x = net_columns(p.w, p.nodes, p.global_batch);
    for (std::size_t k = 0; k < order.size(); ++k)
      a(i, static_cast<Eigen::Index>(k)) = x[static_cast<std::size_t>(order[k])] / p.step_seconds;
  }
  const IdentifiedNnls sol = nnls_identified(a, Eigen::VectorXd::Ones(rows));
  NetVariantFit f;
  f.variant = v;
  std::array<double, kNetColumns> coef{};
  for (std::size_t k = 0; k < order.size(); ++k)
    coef[static_cast<std::size_t>(order[k])] = sol.x[static_cast<Eigen::Index>(k)];
  for (int k : sol.fixed)
    f.fixed.emplace_back(net_coefficient_names()[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])]);
  f.coeffs = net_coeffs_from(coef);
  f.free_coefficients = static_cast<int>(order.size() - sol.fixed.size());
  return f;
}

double net_lopo_mape(const std::vector<SpeedPoint>& points, NetVariant v) {
  const std::vector<double> apes = net_lopo_apes(points, v);
  if (apes.empty()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0.0;
  for (double a : apes)
    sum += a;
  return sum / static_cast<double>(apes.size());
}

std::vector<double> net_lopo_apes(const std::vector<SpeedPoint>& points, NetVariant v) {
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
    const NetVariantFit f = fit_net_variant(rest, v);
    for (std::size_t i : members) {
      const auto& p = points[i];
      const double pred = net_step_time(f.coeffs, p.w, p.nodes, p.global_batch);
      // A fold whose remaining points cannot price this position predicts 0 s: count it as 100% error (speed
      // predicted infinite is no better than none), so such folds penalise every variant alike.
      out.push_back(pred > 0.0 ? speed_ape_pct(pred, p.step_seconds) : 100.0);
    }
  }
  return out;
}

NetFit fit_net(const std::vector<SpeedPoint>& points) {
  NetFit out;
  std::size_t best = 0;
  double best_err = std::numeric_limits<double>::infinity();
  for (NetVariant v : net_variants()) {
    NetCandidate c;
    c.variant = v;
    const NetVariantFit f = fit_net_variant(points, v);
    c.free_coefficients = f.free_coefficients;
    c.fixed = f.fixed;
    c.lopo_mape_pct = net_lopo_mape(points, v);
    if (std::isfinite(c.lopo_mape_pct) && c.lopo_mape_pct < best_err - 1e-9) {
      best_err = c.lopo_mape_pct;
      best = out.candidates.size();
    }
    out.candidates.push_back(std::move(c));
  }
  out.selected = fit_net_variant(points, out.candidates[best].variant);
  return out;
}

double NetStepTime::step_seconds(int w, int nodes, double global_batch) const {
  return net_step_time(c_, w, nodes, global_batch);
}

}  // namespace ringsched::models
