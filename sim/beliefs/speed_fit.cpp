// sim/beliefs/speed_fit.cpp — protocols, the two-level model, fitting and fit quality.
#include "sim/beliefs/speed_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "models/input_error.h"
#include "models/nnls.h"
#include "workloads/json_reader.h"

namespace ringsched {

namespace {
constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
}

std::vector<std::string> fit_protocol_names() {
  return {"paper", "two-level", "eq5-all", "two-level-all", "multi-node"};
}

FitProtocol parse_fit_protocol(const std::string& name, const std::string& where) {
  if (name == "paper") return FitProtocol::kPaper;
  if (name == "two-level") return FitProtocol::kTwoLevel;
  if (name == "eq5-all") return FitProtocol::kEq5All;
  if (name == "two-level-all") return FitProtocol::kTwoLevelAll;
  if (name == "multi-node") return FitProtocol::kMultiNode;
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
      return true;
    case FitProtocol::kMultiNode:
      return multi_node_profiles(w, nodes, gpus_per_node);
  }
  return false;
}

int protocol_min_points(FitProtocol p) {
  if (p == FitProtocol::kMultiNode) return 7;
  return (p == FitProtocol::kTwoLevel || p == FitProtocol::kTwoLevelAll) ? 6 : 4;
}

double two_level_step_time(const TwoLevelCoeffs& c, int w, int nodes, double m, double n) {
  const double wd = w;
  const bool inter = nodes > 1;
  const double t1 = inter ? c.t1_inter : c.t1_intra;
  const double t2 = inter ? c.t2_inter : c.t2_intra;
  return c.t0 * m / wd + c.t3 + t1 * (wd - 1.0) + t2 * (wd - 1.0) / wd * n;
}

double SpeedFit::step_seconds(int w, int nodes, double m) const {
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

models::StepTimeModelPtr SpeedFit::model() const {
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

TwoLevelCoeffs fit_two_level(const std::vector<models::SpeedPoint>& pts, double n) {
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
  const Eigen::VectorXd x = models::nnls_scaled(a, b);
  return TwoLevelCoeffs{x[0], x[1], x[2], x[3], x[4], x[5]};
}

}  // namespace

SpeedFit fit_speed_points(FitProtocol p, const std::vector<models::SpeedPoint>& points, double model_size,
                          const std::string& origin) {
  const int need = protocol_min_points(p);
  const bool two = p == FitProtocol::kTwoLevel || p == FitProtocol::kTwoLevelAll || p == FitProtocol::kMultiNode;
  if (static_cast<int>(points.size()) < need) {
    throw InputError(origin + ": too few points to fit: protocol " + to_string(p) + " needs at least " +
                     std::to_string(need) + (two ? " (at least 1 spanning several nodes)" : "") + ", got " +
                     std::to_string(points.size()));
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& q = points[i];
    if (q.w < 1 || q.nodes < 1 || q.nodes > q.w || !(q.global_batch > 0.0) || !(q.step_seconds > 0.0) ||
        !std::isfinite(q.global_batch) || !std::isfinite(q.step_seconds)) {
      throw InputError(origin + ": point " + std::to_string(i) +
                       " needs gpus >= 1, 1 <= nodes <= gpus and positive global_batch and step_seconds");
    }
  }
  SpeedFit f;
  f.protocol = p;
  f.model_size = model_size;
  f.multi_node = p == FitProtocol::kMultiNode;
  f.two_level = two && !f.multi_node;
  if (two) {
    const bool multi = std::any_of(points.begin(), points.end(), [](const auto& q) { return q.nodes > 1; });
    if (!multi) {
      throw InputError(origin + ": too few points to fit: protocol " + to_string(p) +
                       " needs at least 1 point spanning several nodes, got 0");
    }
    if (f.multi_node) {
      f.multi = fit_multi_node(points, model_size);
    } else {
      f.two = fit_two_level(points, model_size);
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

FitOutcome fit_with_protocol(FitProtocol p, const std::vector<models::SpeedPoint>& points, double model_size,
                             int gpus_per_node, const std::string& origin) {
  std::vector<models::SpeedPoint> train;
  std::vector<models::SpeedPoint> test;
  for (const auto& q : points)
    (protocol_profiles(p, q.w, q.nodes, gpus_per_node) ? train : test).push_back(q);
  FitOutcome o;
  o.fit = fit_speed_points(p, train, model_size, origin);
  FitQuality& q = o.quality;
  q.protocol = to_string(p);
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
  // Leave-one-GPU-count-out over the fitted points; a fold whose remainder is too small to fit is skipped.
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
        const SpeedFit f = fit_speed_points(p, tr, model_size, origin);
        cv_sum += speed_mape(f, te) * static_cast<double>(te.size());
        cv_n += te.size();
      } catch (const InputError&) {
        // too few points without this count: no prediction for this fold
      }
    }
  }
  q.cv_mape = cv_n > 0 ? cv_sum / static_cast<double>(cv_n) : kNoValue;
  std::vector<models::SpeedPoint> test16;
  for (const auto& t : test)
    if (t.w >= 16) test16.push_back(t);
  q.points_heldout = static_cast<int>(test.size());
  q.mape_heldout = speed_mape(o.fit, test);
  q.points_heldout_16 = static_cast<int>(test16.size());
  q.mape_heldout_16 = speed_mape(o.fit, test16);
  return o;
}

namespace {
nlohmann::json num_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}
}  // namespace

nlohmann::json quality_json(const FitQuality& q) {
  return nlohmann::json{{"protocol", q.protocol},
                        {"points_total", q.points_total},
                        {"points_fit", q.points_fit},
                        {"r2", num_or_null(q.r2)},
                        {"mape_fit_pct", num_or_null(q.mape_fit)},
                        {"cv_leave_one_gpu_count_out_mape_pct", num_or_null(q.cv_mape)},
                        {"points_heldout", q.points_heldout},
                        {"mape_heldout_pct", num_or_null(q.mape_heldout)},
                        {"points_heldout_16plus", q.points_heldout_16},
                        {"mape_heldout_16plus_pct", num_or_null(q.mape_heldout_16)}};
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
