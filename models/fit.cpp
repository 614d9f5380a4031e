// models/fit.cpp — NNLS fits of Eq. 5 (speed) and Eq. 1 (convergence), with leave-one-w-out cross-validation.
#include "models/fit.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>

#include "models/nnls.h"

namespace ringsched::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Coefficient of determination; 1 for an exact fit of constant data, 0 for an inexact fit of constant data.
double r_squared(double ss_res, double ss_tot) {
  if (ss_tot > 0.0) return 1.0 - ss_res / ss_tot;
  return ss_res == 0.0 ? 1.0 : 0.0;
}

void check_speed_point(const SpeedPoint& p, std::size_t i, const char* who) {
  if (p.w < 1 || !(p.global_batch > 0.0) || !(p.step_seconds > 0.0) || !std::isfinite(p.global_batch) ||
      !std::isfinite(p.step_seconds)) {
    throw std::invalid_argument(
        std::string(who) + ": speed point " + std::to_string(i) +
        " needs w >= 1 and positive, finite global_batch and step_seconds (got w=" + std::to_string(p.w) +
        ", global_batch=" + std::to_string(p.global_batch) + ", step_seconds=" + std::to_string(p.step_seconds) + ")");
  }
}

void check_model_size(double model_size, const char* who) {
  if (!(model_size >= 0.0) || !std::isfinite(model_size)) {
    throw std::invalid_argument(std::string(who) + ": model_size must be finite and >= 0, got " +
                                std::to_string(model_size));
  }
}

}  // namespace

Eq5Fit fit_eq5(const std::vector<SpeedPoint>& points, double model_size) {
  if (points.empty()) throw std::invalid_argument("fit_eq5: needs at least 1 speed point, got 0");
  check_model_size(model_size, "fit_eq5");
  for (std::size_t i = 0; i < points.size(); ++i)
    check_speed_point(points[i], i, "fit_eq5");

  const auto rows = static_cast<Eigen::Index>(points.size());
  Eigen::MatrixXd a(rows, 4);
  Eigen::VectorXd b(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const SpeedPoint& p = points[static_cast<std::size_t>(i)];
    const double w = p.w;
    const double weight = 1.0 / p.step_seconds;  // relative error: (model - t) / t
    a(i, 0) = weight * p.global_batch / w;
    a(i, 1) = weight * (w - 1.0);
    a(i, 2) = weight * (w - 1.0) * model_size / w;
    a(i, 3) = weight;
    b[i] = 1.0;
  }
  const Eigen::VectorXd x = nnls_scaled(a, b);

  Eq5Fit fit;
  fit.coeffs = Eq5Coeffs{x[0], x[1], x[2], x[3]};
  fit.points = static_cast<int>(points.size());

  std::vector<double> predicted;
  std::vector<double> actual;
  for (const SpeedPoint& p : points) {
    predicted.push_back(eq5_step_time(fit.coeffs, p.w, p.global_batch, model_size));
    actual.push_back(p.step_seconds);
  }
  fit.r2 = coefficient_of_determination(predicted, actual);
  fit.mape = eq5_mape(fit.coeffs, points, model_size);
  return fit;
}

double coefficient_of_determination(const std::vector<double>& predicted, const std::vector<double>& actual) {
  if (predicted.size() != actual.size() || actual.empty()) {
    throw std::invalid_argument("coefficient_of_determination: needs equal, non-zero lengths");
  }
  double mean = 0.0;
  for (double a : actual)
    mean += a;
  mean /= static_cast<double>(actual.size());
  double ss_res = 0.0;
  double ss_tot = 0.0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    ss_res += (predicted[i] - actual[i]) * (predicted[i] - actual[i]);
    ss_tot += (actual[i] - mean) * (actual[i] - mean);
  }
  return r_squared(ss_res, ss_tot);
}

double eq5_mape(const Eq5Coeffs& c, const std::vector<SpeedPoint>& points, double model_size) {
  if (points.empty()) return kNaN;
  check_model_size(model_size, "eq5_mape");
  double sum = 0.0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SpeedPoint& p = points[i];
    check_speed_point(p, i, "eq5_mape");
    const double measured = 1.0 / p.step_seconds;
    const double predicted = eq5_speed(c, p.w, p.global_batch, model_size);
    sum += std::abs(predicted - measured) / measured;
  }
  return 100.0 * sum / static_cast<double>(points.size());
}

double cross_validate_eq5(const std::vector<SpeedPoint>& points, double model_size) {
  std::set<int> distinct_w;
  for (const SpeedPoint& p : points)
    distinct_w.insert(p.w);
  if (distinct_w.size() < 2) return kNaN;

  double sum = 0.0;
  std::size_t held_out_count = 0;
  for (const int held_w : distinct_w) {
    std::vector<SpeedPoint> train;
    std::vector<SpeedPoint> test;
    for (const SpeedPoint& p : points)
      (p.w == held_w ? test : train).push_back(p);
    const Eq5Fit fit = fit_eq5(train, model_size);
    sum += eq5_mape(fit.coeffs, test, model_size) * static_cast<double>(test.size());
    held_out_count += test.size();
  }
  return sum / static_cast<double>(held_out_count);
}

namespace {

struct Eq1Candidate {
  Eq1Coeffs coeffs;
  double sse = kInf;  // sum of squared loss residuals
};

// For a fixed b2: NNLS of 1/(l - b2) ~ b0 k + b1 with rows weighted by (l - b2)^2, which turns the residual in
// y = 1/(l - b2) into (to first order) the residual in loss, since dl = -dy (l - b2)^2.
Eq1Candidate fit_eq1_at(const std::vector<LossPoint>& points, double b2) {
  // Two columns u = weight k, v = weight and target weight / gap, as Gram sums; the columns are scaled to unit
  // norm before solving (x >= 0 is invariant under positive scaling) so k in samples does not hurt conditioning.
  double uu = 0.0;
  double uv = 0.0;
  double vv = 0.0;
  double ub = 0.0;
  double vb = 0.0;
  for (const LossPoint& p : points) {
    const double gap = p.loss - b2;  // > 0 since b2 < min loss
    const double weight = gap * gap;
    const double u = weight * p.k;
    const double v = weight;
    const double b = weight / gap;
    uu += u * u;
    uv += u * v;
    vv += v * v;
    ub += u * b;
    vb += v * b;
  }
  const double su = uu > 0.0 ? std::sqrt(uu) : 1.0;
  const double sv = vv > 0.0 ? std::sqrt(vv) : 1.0;
  const Eigen::Vector2d y = nnls_two_columns(uu / (su * su), uv / (su * sv), vv / (sv * sv), ub / su, vb / sv);
  const Eigen::Vector2d x(y[0] / su, y[1] / sv);

  Eq1Candidate cand;
  cand.coeffs = Eq1Coeffs{x[0], x[1], b2};
  double sse = 0.0;
  for (const LossPoint& p : points) {
    const double denom = cand.coeffs.b0 * p.k + cand.coeffs.b1;
    if (!(denom > 0.0)) return cand;  // the curve is infinite at this k: reject this b2
    const double r = eq1_loss(cand.coeffs, p.k) - p.loss;
    sse += r * r;
  }
  cand.sse = sse;
  return cand;
}

}  // namespace

Eq1Fit fit_eq1(const std::vector<LossPoint>& points, int grid) {
  if (points.size() < 3) {
    throw std::invalid_argument("fit_eq1: needs at least 3 loss points, got " + std::to_string(points.size()));
  }
  double min_loss = kInf;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const LossPoint& p = points[i];
    if (!(p.k >= 0.0) || !std::isfinite(p.k) || !(p.loss > 0.0) || !std::isfinite(p.loss)) {
      throw std::invalid_argument("fit_eq1: loss point " + std::to_string(i) +
                                  " needs finite k >= 0 and finite loss > 0 (got k=" + std::to_string(p.k) +
                                  ", loss=" + std::to_string(p.loss) + ")");
    }
    min_loss = std::min(min_loss, p.loss);
  }

  // Grid over b2 in [0, min_loss), then two refinements over +-1 grid step around the best candidate.
  if (grid < 2) throw std::invalid_argument("fit_eq1: grid needs at least 2 candidates, got " + std::to_string(grid));
  const int n_grid = grid;
  double lo = 0.0;
  double hi = min_loss;  // exclusive
  double step = (hi - lo) / n_grid;
  Eq1Candidate best = fit_eq1_at(points, 0.0);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i <= n_grid; ++i) {
      const double b2 = lo + step * i;
      if (b2 < 0.0 || b2 >= min_loss) continue;
      const Eq1Candidate cand = fit_eq1_at(points, b2);
      if (cand.sse < best.sse) best = cand;
    }
    lo = std::max(0.0, best.coeffs.b2 - step);
    hi = std::min(min_loss, best.coeffs.b2 + step);
    step = (hi - lo) / n_grid;
  }

  Eq1Fit fit;
  fit.coeffs = best.coeffs;
  fit.points = static_cast<int>(points.size());
  double mean = 0.0;
  for (const LossPoint& p : points)
    mean += p.loss;
  mean /= static_cast<double>(points.size());
  double ss_tot = 0.0;
  for (const LossPoint& p : points)
    ss_tot += (p.loss - mean) * (p.loss - mean);
  fit.r2 = r_squared(best.sse, ss_tot);
  fit.rmse = std::sqrt(best.sse / static_cast<double>(points.size()));
  return fit;
}

}  // namespace ringsched::models
