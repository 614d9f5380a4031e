// sim/fitting/speed_fit.cpp — protocols, probe positions, the two-level model, fitting and fit quality.
#include "sim/fitting/speed_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "models/input_error.h"
#include "models/net_interval.h"
#include "models/nnls.h"
#include "models/phys_posterior.h"
#include "workloads/io/json_reader.h"

namespace ringsched {

namespace {
constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
}

std::vector<std::string> fit_protocol_names() {
  return {"paper", "two-level", "eq5-all", "two-level-all", "multi-node", "two-node", "net-all"};
}

FitProtocol parse_fit_protocol(const std::string& name, const std::string& where) {
  if (name == "paper") return FitProtocol::kPaper;
  if (name == "two-level") return FitProtocol::kTwoLevel;
  if (name == "eq5-all") return FitProtocol::kEq5All;
  if (name == "two-level-all") return FitProtocol::kTwoLevelAll;
  if (name == "multi-node") return FitProtocol::kMultiNode;
  if (name == "two-node") return FitProtocol::kTwoNode;
  if (name == "net-all") return FitProtocol::kNetAll;
  throw InputError(where + ": unknown fit protocol '" + name + "' (valid: " + join_names(fit_protocol_names()) + ")");
}

std::string to_string(FitProtocol p) {
  switch (p) {
    case FitProtocol::kPaper:
      return "paper";
    case FitProtocol::kTwoLevel:
      return "two-level";
    case FitProtocol::kEq5All:
      return "eq5-all";
    case FitProtocol::kTwoLevelAll:
      return "two-level-all";
    case FitProtocol::kMultiNode:
      return "multi-node";
    case FitProtocol::kTwoNode:
      return "two-node";
    case FitProtocol::kNetAll:
      return "net-all";
  }
  return "paper";
}

bool protocol_profiles(FitProtocol p, int w, int nodes, int gpus_per_node) {
  const bool paper = nodes == 1 && w <= gpus_per_node && (w & (w - 1)) == 0;
  switch (p) {
    case FitProtocol::kPaper:
      return paper;
    case FitProtocol::kTwoLevel:
      return paper || (nodes == 2 && (w == 2 || w == 2 * gpus_per_node));
    case FitProtocol::kEq5All:
    case FitProtocol::kTwoLevelAll:
    case FitProtocol::kNetAll:
      return true;
    case FitProtocol::kMultiNode:
      return multi_node_profiles(w, nodes, gpus_per_node);
    case FitProtocol::kTwoNode:
      return nodes <= 2;
  }
  return false;
}

int protocol_min_points(FitProtocol p) {
  if (p == FitProtocol::kMultiNode) return 7;
  if (p == FitProtocol::kTwoNode || p == FitProtocol::kNetAll) return 3;
  return (p == FitProtocol::kTwoLevel || p == FitProtocol::kTwoLevelAll) ? 6 : 4;
}

bool protocol_needs_multi_node(FitProtocol p) {
  return p != FitProtocol::kPaper && p != FitProtocol::kEq5All;
}

std::string protocol_model(FitProtocol p) {
  switch (p) {
    case FitProtocol::kPaper:
    case FitProtocol::kEq5All:
      return "eq5";
    case FitProtocol::kTwoLevel:
    case FitProtocol::kTwoLevelAll:
      return "two-level";
    case FitProtocol::kMultiNode:
      return "multi-node";
    case FitProtocol::kTwoNode:
    case FitProtocol::kNetAll:
      return "net";
  }
  return "eq5";
}

bool ProbePoint::matches(int pw, int pnodes, int gpus_per_node) const {
  if (pw != w) return false;
  return pnodes == (packed ? packed_nodes(w, gpus_per_node) : nodes);
}

std::string ProbePoint::text() const {
  if (!label.empty()) return label;
  if (packed) return std::to_string(w);
  return std::to_string(w) + " GPUs on " + std::to_string(nodes) + " nodes";
}

namespace {

// A positive integer of at most 7 digits (<= 9,999,999), or -1.
int small_positive(const std::string& s) {
  if (s.empty() || s.size() > 7 || s.find_first_not_of("0123456789") != std::string::npos) return -1;
  const int v = std::stoi(s);
  return v >= 1 ? v : -1;
}

}  // namespace

ProbePoint parse_probe_token(const std::string& token, const std::string& where) {
  const std::string syntax =
      " (a probe is a GPU count packed on nodes, e.g. 8; a placement of per-node GPU counts joined by '+', e.g. "
      "4+4; or GPUs@nodes, e.g. 8@2)";
  ProbePoint p;
  p.label = token;
  if (const auto at = token.find('@'); at != std::string::npos) {
    p.w = small_positive(token.substr(0, at));
    p.nodes = small_positive(token.substr(at + 1));
    if (p.w < 1 || p.nodes < 1) throw InputError(where + ": cannot read probe '" + token + "'" + syntax);
    if (p.nodes > p.w) {
      throw InputError(where + ": probe '" + token + "' spreads " + std::to_string(p.w) + " GPU(s) over " +
                       std::to_string(p.nodes) + " nodes (each node needs at least one GPU)");
    }
    return p;
  }
  if (token.find('+') != std::string::npos) {
    p.w = 0;
    p.nodes = 0;
    std::size_t start = 0;
    while (start <= token.size()) {
      const auto end = std::min(token.find('+', start), token.size());
      const int g = small_positive(token.substr(start, end - start));
      if (g < 1 || p.nodes >= 1 << 20 || p.w > (1 << 24)) {
        throw InputError(where + ": cannot read probe '" + token + "'" + syntax);
      }
      p.w += g;
      ++p.nodes;
      start = end + 1;
    }
    return p;
  }
  p.w = small_positive(token);
  if (p.w < 1) throw InputError(where + ": cannot read probe '" + token + "'" + syntax);
  p.packed = true;
  return p;
}

double two_level_step_time(const TwoLevelCoeffs& c, int w, int nodes, double m, double n) {
  const double wd = w;
  const bool inter = nodes > 1;
  const double t1 = inter ? c.t1_inter : c.t1_intra;
  const double t2 = inter ? c.t2_inter : c.t2_intra;
  return c.t0 * m / wd + c.t3 + t1 * (wd - 1.0) + t2 * (wd - 1.0) / wd * n;
}

double SpeedFit::step_seconds(int w, int nodes, double m) const {
  if (phys)
    return models::phys_step_time(physfit.selected.variant, physfit.selected.coeffs, w, nodes, m,
                                  physfit.hardware.overlap);
  if (net) return models::net_step_time(netfit.selected.coeffs, w, nodes, m);
  if (multi_node) return multi_node_step_time(multi, w, nodes, m, model_size);
  if (two_level) return two_level_step_time(two, w, nodes, m, model_size);
  return models::eq5_step_time(eq5, w, m, model_size);
}

namespace {

// Bytes all-reduced per step assumed when a two-level fit is written as an `allreduce` speed kind (fp32 gradients).
double gradient_bytes(double model_size_mparams) {
  return std::max(model_size_mparams, 1e-6) * 1e6 * 4.0;
}

models::AllreduceParams ring_params(double t1, double t2, double n, double bytes) {
  // ring: 2(p-1) alpha + 2((p-1)/p) bytes beta  ==  (p-1) t1 + ((p-1)/p) n t2.
  return models::AllreduceParams{t1 / 2.0, t2 * n / (2.0 * bytes), 0.0};
}

}  // namespace

std::string SpeedFit::model_name() const {
  if (phys) return "phys:" + models::to_string(physfit.selected.variant);
  if (net) return "net:" + models::to_string(netfit.selected.variant);
  if (multi_node) return "multi-node";
  return two_level ? "two-level" : "eq5";
}

std::vector<std::string> SpeedFit::fixed_coefficients() const {
  return fixed;
}

int SpeedFit::free_coefficients() const {
  if (phys) return physfit.selected.free_coefficients;
  if (net) return netfit.selected.free_coefficients;
  const int all = multi_node ? 7 : two_level ? 6 : 4;
  return all - static_cast<int>(fixed.size());
}

models::StepTimeModelPtr SpeedFit::model() const {
  if (phys) {
    return std::make_shared<models::PhysStepTime>(physfit.selected.variant, physfit.selected.coeffs,
                                                  physfit.hardware.overlap);
  }
  if (net) return std::make_shared<models::NetStepTime>(netfit.selected.coeffs);
  if (multi_node) return std::make_shared<MultiNodeStepTime>(multi, model_size);
  if (!two_level) return std::make_shared<models::Eq5StepTime>(eq5, model_size);
  models::AllreduceStepSpec s;
  s.compute_per_sample_s = two.t0;
  s.overhead_s = two.t3;
  s.algo = models::AllreduceAlgo::kRing;
  s.gradient_bytes = gradient_bytes(model_size);
  s.intra_node = ring_params(two.t1_intra, two.t2_intra, model_size, s.gradient_bytes);
  s.inter_node = ring_params(two.t1_inter, two.t2_inter, model_size, s.gradient_bytes);
  s.has_inter_node = true;
  return std::make_shared<models::AllreduceStepTime>(s);
}

nlohmann::json SpeedFit::speed_json() const {
  if (phys) return phys_speed_json(physfit);
  if (net) {
    nlohmann::json j{{"kind", "net"}};
    auto a = models::to_array(netfit.selected.coeffs);
    // The catalog requires per_sample_s or per_step_s > 0; a fit that found no compute keeps a negligible one.
    if (!(a[0] > 0.0) && !(a[1] > 0.0)) a[1] = 1e-12;
    for (std::size_t i = 0; i < a.size(); ++i)
      j[std::string(models::net_coefficient_names()[i]) + "_s"] = a[i];
    return j;
  }
  if (multi_node) return multi_node_table_json(multi, model_size, 64);
  if (!two_level) {
    return nlohmann::json{{"kind", "eq5"}, {"t0", eq5.t0}, {"t1", eq5.t1}, {"t2", eq5.t2}, {"t3", eq5.t3}};
  }
  const double bytes = gradient_bytes(model_size);
  auto params = [&](double t1, double t2) {
    const auto p = ring_params(t1, t2, model_size, bytes);
    return nlohmann::json{{"alpha_s", p.alpha}, {"beta_s_per_byte", p.beta}, {"gamma_s_per_byte", 0.0}};
  };
  // The catalog requires compute_per_sample_s > 0; a fit that found none keeps a negligible positive value.
  return nlohmann::json{{"kind", "allreduce"},
                        {"compute_per_sample_s", std::max(two.t0, 1e-12)},
                        {"overhead_s", two.t3},
                        {"algorithm", "ring"},
                        {"gradient_bytes", bytes},
                        {"intra_node", params(two.t1_intra, two.t2_intra)},
                        {"inter_node", params(two.t1_inter, two.t2_inter)}};
}

namespace {

TwoLevelCoeffs fit_two_level(const std::vector<models::SpeedPoint>& pts, double n, std::vector<std::string>& fixed) {
  const auto rows = static_cast<Eigen::Index>(pts.size());
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(rows, 6);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto& p = pts[static_cast<std::size_t>(i)];
    const double w = p.w;
    const double wt = 1.0 / p.step_seconds;  // relative error
    a(i, 0) = wt * p.global_batch / w;
    a(i, 1) = wt;
    const Eigen::Index off = p.nodes > 1 ? 4 : 2;
    a(i, off) = wt * (w - 1.0);
    a(i, off + 1) = wt * (w - 1.0) / w * n;
  }
  const models::IdentifiedNnls sol = models::nnls_identified(a, b);
  static const std::array<const char*, 6> names{"t0", "t3", "t1_intra", "t2_intra", "t1_inter", "t2_inter"};
  for (int j : sol.fixed)
    fixed.emplace_back(names[static_cast<std::size_t>(j)]);
  const Eigen::VectorXd& x = sol.x;
  return TwoLevelCoeffs{x[0], x[1], x[2], x[3], x[4], x[5]};
}

}  // namespace

namespace {

// Every point usable by a fit: InputError naming `origin` and the first bad point otherwise.
void check_points(const std::vector<models::SpeedPoint>& points, const std::string& origin) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& q = points[i];
    if (q.w < 1 || q.nodes < 1 || q.nodes > q.w || !(q.global_batch > 0.0) || !(q.step_seconds > 0.0) ||
        !std::isfinite(q.global_batch) || !std::isfinite(q.step_seconds)) {
      throw InputError(origin + ": point " + std::to_string(i) +
                       " needs gpus >= 1, 1 <= nodes <= gpus and positive global_batch and step_seconds");
    }
  }
}

}  // namespace

SpeedFit fit_speed_points(FitProtocol p, const std::vector<models::SpeedPoint>& points, double model_size,
                          const std::string& origin, const SpeedModelChoice& choice) {
  const int need = protocol_min_points(p);
  const bool two = protocol_needs_multi_node(p);
  if (static_cast<int>(points.size()) < need) {
    throw InputError(origin + ": too few points to fit: protocol " + to_string(p) + " needs at least " +
                     std::to_string(need) + (two ? " (at least 1 spanning several nodes)" : "") + ", got " +
                     std::to_string(points.size()));
  }
  check_points(points, origin);
  SpeedFit f;
  f.protocol = p;
  f.model_size = model_size;
  f.multi_node = p == FitProtocol::kMultiNode;
  f.net = p == FitProtocol::kTwoNode || p == FitProtocol::kNetAll;
  f.two_level = two && !f.multi_node && !f.net;
  if (two) {
    const bool multi = std::any_of(points.begin(), points.end(), [](const auto& q) { return q.nodes > 1; });
    if (!multi) {
      throw InputError(origin + ": too few points to fit: protocol " + to_string(p) +
                       " needs at least 1 point spanning several nodes, got 0");
    }
    if (f.net) {
      f.netfit = models::fit_net(points);
      f.fixed = f.netfit.selected.fixed;
      if (choose_phys_family(f.netfit, points, choice, origin, f.physfit)) {
        f.phys = true;
        f.net = false;
        f.fixed = f.physfit.selected.fixed;
      }
    } else if (f.multi_node) {
      f.multi = fit_multi_node(points, model_size, &f.fixed);
    } else {
      f.two = fit_two_level(points, model_size, f.fixed);
    }
  } else {
    f.eq5 = models::fit_eq5(points, model_size).coeffs;
  }
  return f;
}

double speed_mape(const SpeedFit& f, const std::vector<models::SpeedPoint>& points) {
  if (points.empty()) return kNoValue;
  double sum = 0.0;
  for (const auto& p : points) {
    const double pred = 1.0 / f.step_seconds(p.w, p.nodes, p.global_batch);
    const double meas = 1.0 / p.step_seconds;
    sum += std::abs(pred - meas) / meas;
  }
  return 100.0 * sum / static_cast<double>(points.size());
}

int infer_gpus_per_node(const std::vector<models::SpeedPoint>& points) {
  int g = 1;
  for (const auto& p : points) {
    if (p.w < 1 || p.nodes < 1) continue;
    g = std::max(g, (p.w + p.nodes - 1) / p.nodes);
  }
  return g;
}

namespace {

std::string position_text(int w, int nodes) {
  return nodes == 1 ? std::to_string(w) : std::to_string(w) + "@" + std::to_string(nodes);
}

// "1, 2, 4, 8@2, ..." over the distinct (w, nodes) positions of `pts` (nodes <= max_nodes), at most `limit` named.
std::string positions_text(const std::vector<models::SpeedPoint>& pts, int max_nodes, std::size_t limit) {
  std::set<std::pair<int, int>> pos;
  for (const auto& p : pts)
    if (p.nodes <= max_nodes) pos.insert({p.nodes, p.w});
  std::string out;
  std::size_t n = 0;
  for (const auto& [nodes, w] : pos) {
    if (n == limit) {
      out += ", ... (" + std::to_string(pos.size() - limit) + " more)";
      break;
    }
    if (n > 0) out += ", ";
    out += position_text(w, nodes);
    ++n;
  }
  return out;
}

std::vector<std::string> input_warnings(const std::vector<models::SpeedPoint>& all,
                                        const std::vector<models::SpeedPoint>& train, int free_coefficients) {
  std::vector<std::string> w;
  std::map<std::tuple<int, int, double, double>, int> rows;
  for (const auto& p : all)
    ++rows[{p.w, p.nodes, p.global_batch, p.step_seconds}];
  int dup = 0;
  for (const auto& [k, n] : rows)
    dup += n - 1;
  if (dup > 0) {
    w.push_back(std::to_string(dup) +
                " duplicate row(s) (same gpus, nodes, global_batch and step_seconds as another row): repeats add "
                "weight to a position, not information");
  }
  // One position measured with step times that disagree: the fit averages them; past 10% apart, say so.
  std::map<std::tuple<int, int, double>, std::pair<double, double>> spread;
  for (const auto& p : all) {
    auto [it, fresh] = spread.try_emplace({p.w, p.nodes, p.global_batch}, p.step_seconds, p.step_seconds);
    if (!fresh) {
      it->second.first = std::min(it->second.first, p.step_seconds);
      it->second.second = std::max(it->second.second, p.step_seconds);
    }
  }
  int conflicting = 0;
  double worst = 0.0;
  std::string worst_at;
  for (const auto& [k, lohi] : spread) {
    const double ratio = lohi.second / lohi.first;
    if (ratio > 1.1) {
      ++conflicting;
      if (ratio > worst) {
        worst = ratio;
        worst_at = std::to_string(std::get<0>(k)) + " GPUs on " + std::to_string(std::get<1>(k)) + " node(s), batch " +
                   std::to_string(static_cast<long long>(std::get<2>(k)));
      }
    }
  }
  if (conflicting > 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.2fx", worst);
    w.push_back(std::to_string(conflicting) + " position(s) measured with step times more than 10% apart (worst " +
                std::string(buf) + " at " + worst_at + "): the fit averages them; re-measure or keep one");
  }
  std::set<int> counts;
  for (const auto& p : train)
    counts.insert(p.w);
  if (static_cast<int>(counts.size()) < free_coefficients) {
    w.push_back("the fitted points have " + std::to_string(counts.size()) + " distinct GPU count(s) for " +
                std::to_string(free_coefficients) +
                " fitted coefficients: how speed changes with GPUs rests on too few counts (probe more GPU counts)");
  }
  if (train.size() >= 2) {
    const auto [lo, hi] = std::minmax_element(
        train.begin(), train.end(), [](const auto& a, const auto& b) { return a.step_seconds < b.step_seconds; });
    if (lo->step_seconds == hi->step_seconds) {
      w.push_back("step_seconds has zero variance over the fitted points (every one is " +
                  std::to_string(lo->step_seconds) + " s): R^2 is undefined and the fit cannot see how speed changes");
    }
  }
  return w;
}

}  // namespace

namespace {

IntervalQuality interval_quality(const std::string& method, double noise, int probe_nodes,
                                 const std::vector<UnprofiledPoint>& un) {
  IntervalQuality iq;
  iq.available = true;
  iq.method = method;
  iq.noise_pct = 100.0 * noise;
  iq.probe_nodes = probe_nodes;
  int in = 0;
  int in32 = 0;
  std::vector<double> widths;
  for (const auto& u : un) {
    const bool inside = u.measured_s >= u.predicted_lo_s && u.measured_s <= u.predicted_hi_s;
    in += inside ? 1 : 0;
    if (u.w >= 32) {
      in32 += inside ? 1 : 0;
      widths.push_back(100.0 * (u.predicted_hi_s - u.predicted_lo_s) / u.measured_s);
    }
  }
  iq.points_32 = static_cast<int>(widths.size());
  iq.coverage_pct = un.empty() ? kNoValue : 100.0 * in / static_cast<double>(un.size());
  iq.coverage_32_pct = widths.empty() ? kNoValue : 100.0 * in32 / static_cast<double>(widths.size());
  if (widths.empty()) {
    iq.median_width_32_pct = kNoValue;
  } else {
    std::sort(widths.begin(), widths.end());
    const std::size_t h = widths.size() / 2;
    iq.median_width_32_pct = widths.size() % 2 ? widths[h] : 0.5 * (widths[h - 1] + widths[h]);
  }
  return iq;
}

}  // namespace

namespace {

// The GPUs per node: given, or inferred; a given value below what the points need is an error.
int gpus_per_node_of(const FitRequest& r, const std::vector<models::SpeedPoint>& points) {
  const int needed_g = infer_gpus_per_node(points);
  const int g = r.gpus_per_node > 0 ? r.gpus_per_node : needed_g;
  if (g < needed_g) {
    throw InputError(r.origin + ": the points put up to " + std::to_string(needed_g) +
                     " GPUs on one node, more than the " + std::to_string(g) +
                     " GPUs per node given (--gpus-per-node); give at least " + std::to_string(needed_g) +
                     " or leave it out to infer it");
  }
  return g;
}

// The points the protocol (or the probes) profiles go to `train`, the rest to `test`; a probe with no measured
// point is an error naming the measured positions.
void split_points(const FitRequest& r, const std::vector<models::SpeedPoint>& points, int g,
                  std::vector<models::SpeedPoint>& train, std::vector<models::SpeedPoint>& test) {
  // --probes replaces the protocol's points; --add-probes adds to them.
  const std::vector<ProbePoint>& named = r.probes.empty() ? r.added_probes : r.probes;
  std::string missing;
  for (const auto& pr : named) {
    const bool found =
        std::any_of(points.begin(), points.end(), [&](const auto& q) { return pr.matches(q.w, q.nodes, g); });
    if (found) continue;
    if (!missing.empty()) missing += ", ";
    const int nodes = pr.packed ? packed_nodes(pr.w, g) : pr.nodes;
    missing += "'" + pr.text() + "' (" + std::to_string(pr.w) + " GPU(s) on " + std::to_string(nodes) + " node(s))";
  }
  if (!missing.empty()) {
    throw InputError(r.origin + ": no measured point at probe(s) " + missing + " (GPUs per node " + std::to_string(g) +
                     "); measured positions: " + positions_text(points, 1 << 30, 60) +
                     " (written GPUs@nodes off one node; a placement such as 44 is 4+4 or 8@2)");
  }
  for (const auto& q : points) {
    const bool in =
        (r.probes.empty() && protocol_profiles(r.protocol, q.w, q.nodes, g)) ||
        std::any_of(named.begin(), named.end(), [&](const ProbePoint& pr) { return pr.matches(q.w, q.nodes, g); });
    (in ? train : test).push_back(q);
  }
}

// Too few points: say which measured positions, not yet profiled, would make it fit.
void check_enough_points(const FitRequest& r, const std::vector<models::SpeedPoint>& train,
                         const std::vector<models::SpeedPoint>& test) {
  const FitProtocol p = r.protocol;
  const int need = protocol_min_points(p);
  const bool multi = std::any_of(train.begin(), train.end(), [](const auto& q) { return q.nodes > 1; });
  if (static_cast<int>(train.size()) >= need && (!protocol_needs_multi_node(p) || multi)) return;
  std::string msg = r.origin + ": too few points to fit: protocol " + to_string(p) + " (" + protocol_model(p) +
                    " model) needs at least " + std::to_string(need) + " point(s)" +
                    (protocol_needs_multi_node(p) ? ", at least 1 spanning several nodes," : "") + " and the " +
                    (r.probes.empty() ? "protocol's points" : "probes") + " select " + std::to_string(train.size()) +
                    (multi || !protocol_needs_multi_node(p) ? "" : ", none multi-node");
  std::vector<models::SpeedPoint> spare;
  for (const auto& q : test)
    if (!protocol_needs_multi_node(p) || multi || q.nodes > 1) spare.push_back(q);
  if (spare.empty()) spare = test;
  msg += spare.empty() ? "; the input has no other points: measure more positions"
                       : "; the input also measures " + positions_text(spare, 2, 12) +
                             (positions_text(spare, 2, 12).empty() ? positions_text(spare, 1 << 30, 12) : "") +
                             ": add some with --probes (GPU counts, GPUs@nodes or placements like 4+4)";
  throw InputError(msg);
}

// Leave-one-GPU-count-out MAPE over the fitted points; a fold whose remainder is too small to fit is skipped.
double gpu_count_cv_mape(const FitRequest& r, const std::vector<models::SpeedPoint>& train) {
  std::set<int> ws;
  for (const auto& t : train)
    ws.insert(t.w);
  double cv_sum = 0.0;
  std::size_t cv_n = 0;
  if (ws.size() >= 2) {
    for (int held : ws) {
      std::vector<models::SpeedPoint> tr;
      std::vector<models::SpeedPoint> te;
      for (const auto& t : train)
        (t.w == held ? te : tr).push_back(t);
      try {
        const SpeedFit f = fit_speed_points(r.protocol, tr, r.model_size, r.origin);
        cv_sum += speed_mape(f, te) * static_cast<double>(te.size());
        cv_n += te.size();
      } catch (const InputError&) {
        // too few points without this count: no prediction for this fold
      }
    }
  }
  return cv_n > 0 ? cv_sum / static_cast<double>(cv_n) : kNoValue;
}

// Every unprofiled point predicted (with its interval for net models) and the held-out errors by size and nodes.
void score_unprofiled(const SpeedFit& fit, const std::vector<models::SpeedPoint>& train,
                      const std::vector<models::SpeedPoint>& test, FitQuality& q) {
  std::vector<models::SpeedPoint> test16;
  std::vector<double> ape32;
  std::map<int, std::pair<double, int>> by_nodes;
  std::optional<models::NetEnvelope> envelope;
  if (fit.net) envelope.emplace(train, fit.netfit);
  std::optional<models::PhysPosterior> posterior;
  if (fit.phys) posterior.emplace(train, fit.physfit.selected, fit.physfit.hardware);
  for (const auto& t : test) {
    UnprofiledPoint u;
    u.w = t.w;
    u.nodes = t.nodes;
    u.global_batch = t.global_batch;
    u.measured_s = t.step_seconds;
    u.predicted_s = fit.step_seconds(t.w, t.nodes, t.global_batch);
    u.ape_pct = 100.0 * std::abs(t.step_seconds / u.predicted_s - 1.0);
    u.predicted_lo_s = u.predicted_hi_s = kNoValue;
    if (envelope) {
      const models::NetInterval iv = envelope->interval(t.w, t.nodes, t.global_batch);
      u.predicted_lo_s = iv.lo;
      u.predicted_hi_s = iv.hi;
    } else if (posterior) {
      const models::PhysInterval iv = posterior->interval(t.w, t.nodes, t.global_batch);
      u.predicted_lo_s = iv.lo;
      u.predicted_hi_s = iv.hi;
    }
    q.unprofiled.push_back(u);
    if (t.w >= 16) test16.push_back(t);
    if (t.w >= 32) ape32.push_back(u.ape_pct);
    auto& bn = by_nodes[t.nodes];
    bn.first += u.ape_pct;
    ++bn.second;
  }
  q.points_heldout = static_cast<int>(test.size());
  q.mape_heldout = speed_mape(fit, test);
  q.points_heldout_16 = static_cast<int>(test16.size());
  q.mape_heldout_16 = speed_mape(fit, test16);
  q.points_heldout_32 = static_cast<int>(ape32.size());
  if (ape32.empty()) {
    q.mape_heldout_32 = kNoValue;
    q.median_heldout_32 = kNoValue;
  } else {
    double s = 0.0;
    for (double e : ape32)
      s += e;
    q.mape_heldout_32 = s / static_cast<double>(ape32.size());
    std::sort(ape32.begin(), ape32.end());
    const std::size_t h = ape32.size() / 2;
    q.median_heldout_32 = ape32.size() % 2 ? ape32[h] : 0.5 * (ape32[h - 1] + ape32[h]);
  }
  for (const auto& [nodes, acc] : by_nodes)
    q.heldout_by_nodes.push_back(NodeCountError{nodes, acc.second, acc.first / acc.second});
  if (envelope) q.intervals = interval_quality("envelope", envelope->noise(), envelope->probe_nodes(), q.unprofiled);
  if (posterior)
    q.intervals = interval_quality("posterior", posterior->noise(), posterior->probe_nodes(), q.unprofiled);
}

}  // namespace

FitOutcome fit_with_request(const FitRequest& r, const std::vector<models::SpeedPoint>& points) {
  const FitProtocol p = r.protocol;
  if (points.empty()) throw InputError(r.origin + ": no measured points");
  check_points(points, r.origin);
  const int g = gpus_per_node_of(r, points);
  std::vector<models::SpeedPoint> train;
  std::vector<models::SpeedPoint> test;
  split_points(r, points, g, train, test);
  check_enough_points(r, train, test);
  FitOutcome o;
  o.fit = fit_speed_points(p, train, r.model_size, r.origin, r.speed_model);
  FitQuality& q = o.quality;
  q.protocol = to_string(p);
  q.model = o.fit.model_name();
  if (r.probes.empty()) {
    q.probes = "the " + to_string(p) + " protocol's points";
  } else {
    for (const auto& pr : r.probes)
      q.probes += (q.probes.empty() ? "" : ",") + pr.text();
  }
  q.gpus_per_node = g;
  q.gpus_per_node_inferred = r.gpus_per_node <= 0;
  q.points_total = static_cast<int>(points.size());
  q.points_fit = static_cast<int>(train.size());
  std::vector<double> predicted;
  std::vector<double> actual;
  for (const auto& t : train) {
    predicted.push_back(o.fit.step_seconds(t.w, t.nodes, t.global_batch));
    actual.push_back(t.step_seconds);
  }
  q.r2 = models::coefficient_of_determination(predicted, actual);
  q.mape_fit = speed_mape(o.fit, train);
  q.cv_mape = gpu_count_cv_mape(r, train);
  score_unprofiled(o.fit, train, test, q);
  if (o.fit.net || o.fit.phys) q.model_selection = o.fit.netfit.candidates;
  if (r.speed_model.model != "net" && (o.fit.net || o.fit.phys)) {
    q.phys_selection = o.fit.physfit.candidates;
    q.hardware = phys_hardware_json(r.speed_model.hardware, g);
  }
  q.fixed = o.fit.fixed_coefficients();
  q.warnings = input_warnings(points, train, o.fit.free_coefficients());
  if (o.fit.phys) check_probes_against_hardware(train, r.speed_model.hardware, r.origin, q.warnings);
  if (q.r2 < 0.0) {
    q.warnings.push_back("R^2 = " + std::to_string(q.r2) +
                         " < 0: the model predicts the fitted step times worse than their mean (it does not fit "
                         "these points; try another protocol or look for mixed-up rows)");
  }
  o.fitted = std::move(train);
  return o;
}

FitOutcome fit_with_protocol(FitProtocol p, const std::vector<models::SpeedPoint>& points, double model_size,
                             int gpus_per_node, const std::string& origin) {
  FitRequest r;
  r.protocol = p;
  r.gpus_per_node = gpus_per_node;
  r.model_size = model_size;
  r.origin = origin;
  return fit_with_request(r, points);
}

namespace {
nlohmann::json num_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}
}  // namespace

nlohmann::json quality_json(const FitQuality& q) {
  nlohmann::json j{{"protocol", q.protocol},
                   {"points_total", q.points_total},
                   {"points_fit", q.points_fit},
                   {"r2", num_or_null(q.r2)},
                   {"mape_fit_pct", num_or_null(q.mape_fit)},
                   {"cv_leave_one_gpu_count_out_mape_pct", num_or_null(q.cv_mape)},
                   {"points_heldout", q.points_heldout},
                   {"mape_heldout_pct", num_or_null(q.mape_heldout)},
                   {"points_heldout_16plus", q.points_heldout_16},
                   {"mape_heldout_16plus_pct", num_or_null(q.mape_heldout_16)}};
  j["model"] = q.model;
  j["probes"] = q.probes;
  j["gpus_per_node"] = q.gpus_per_node;
  j["gpus_per_node_inferred"] = q.gpus_per_node_inferred;
  j["points_heldout_32plus"] = q.points_heldout_32;
  j["mape_heldout_32plus_pct"] = num_or_null(q.mape_heldout_32);
  j["median_ape_heldout_32plus_pct"] = num_or_null(q.median_heldout_32);
  nlohmann::json by = nlohmann::json::array();
  for (const auto& b : q.heldout_by_nodes)
    by.push_back({{"nodes", b.nodes}, {"points", b.points}, {"mape_pct", num_or_null(b.mape)}});
  j["mape_heldout_by_nodes"] = by;
  nlohmann::json sel = nlohmann::json::array();
  for (const auto& c : q.model_selection) {
    sel.push_back({{"variant", models::to_string(c.variant)},
                   {"free_coefficients", c.free_coefficients},
                   {"fixed", c.fixed},
                   {"lopo_mape_pct", num_or_null(c.lopo_mape_pct)}});
  }
  for (const auto& c : q.phys_selection) {
    sel.push_back({{"variant", "phys:" + models::to_string(c.variant)},
                   {"free_coefficients", c.free_coefficients},
                   {"fixed", c.fixed},
                   {"lopo_mape_pct", num_or_null(c.lopo_mape_pct)}});
  }
  j["model_selection"] = sel;
  if (!q.hardware.is_null()) j["hardware"] = q.hardware;
  j["fixed_coefficients"] = q.fixed;
  j["warnings"] = q.warnings;
  nlohmann::json un = nlohmann::json::array();
  for (const auto& u : q.unprofiled) {
    un.push_back({{"gpus", u.w},
                  {"nodes", u.nodes},
                  {"global_batch", u.global_batch},
                  {"measured_s", u.measured_s},
                  {"predicted_s", num_or_null(u.predicted_s)},
                  {"predicted_lo_s", num_or_null(u.predicted_lo_s)},
                  {"predicted_hi_s", num_or_null(u.predicted_hi_s)},
                  {"ape_pct", num_or_null(u.ape_pct)}});
  }
  j["unprofiled"] = un;
  if (q.intervals.available) {
    const IntervalQuality& iq = q.intervals;
    j["intervals"] = {{"level_pct", 90},
                      {"method", iq.method},
                      {"noise_pct", num_or_null(iq.noise_pct)},
                      {"probe_nodes", iq.probe_nodes},
                      {"coverage_pct", num_or_null(iq.coverage_pct)},
                      {"points_32plus", iq.points_32},
                      {"coverage_32plus_pct", num_or_null(iq.coverage_32_pct)},
                      {"median_width_32plus_pct", num_or_null(iq.median_width_32_pct)}};
  }
  return j;
}

nlohmann::json class_entry_json(const std::string& name, const std::string& description, const SpeedFit& fit,
                                BatchMode mode, double batch_size, double work_samples, int max_gpus,
                                const std::vector<std::string>& derivation) {
  return nlohmann::json{
      {"name", name},
      {"description", description},
      {"derivation", derivation},
      {"weight", 1},
      {"batch", {{"mode", to_string(mode)}, {"size", batch_size}}},
      {"model_size_mparams", fit.model_size},
      {"work", {{"samples", work_samples}, {"sigma", 0}}},
      {"gpus", {{"min", 1}, {"max", max_gpus}}},
      {"speed", fit.multi_node ? multi_node_table_json(fit.multi, fit.model_size, max_gpus) : fit.speed_json()}};
}

}  // namespace ringsched
