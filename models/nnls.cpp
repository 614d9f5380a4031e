// models/nnls.cpp — Lawson-Hanson active-set NNLS (Lawson and Hanson 1974, ch. 23, algorithm NNLS).
#include "models/nnls.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace ringsched::models {

namespace {

// Unconstrained least squares on the passive columns; returns the full-length vector with zeros elsewhere.
// Column-pivoting QR gives a basic solution when the passive columns are (numerically) dependent.
Eigen::VectorXd solve_passive(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, const std::vector<bool>& passive) {
  const Eigen::Index n = a.cols();
  std::vector<Eigen::Index> idx;
  for (Eigen::Index j = 0; j < n; ++j) {
    if (passive[j]) idx.push_back(j);
  }
  Eigen::VectorXd s = Eigen::VectorXd::Zero(n);
  if (idx.empty()) return s;
  Eigen::MatrixXd ap(a.rows(), static_cast<Eigen::Index>(idx.size()));
  for (std::size_t k = 0; k < idx.size(); ++k)
    ap.col(static_cast<Eigen::Index>(k)) = a.col(idx[k]);
  const Eigen::VectorXd sp = ap.colPivHouseholderQr().solve(b);
  for (std::size_t k = 0; k < idx.size(); ++k)
    s[idx[k]] = sp[static_cast<Eigen::Index>(k)];
  return s;
}

}  // namespace

NnlsResult nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, int max_iterations, double tolerance) {
  const Eigen::Index m = a.rows();
  const Eigen::Index n = a.cols();
  if (b.size() != m) {
    throw std::invalid_argument("nnls: A has " + std::to_string(m) + " rows but b has " + std::to_string(b.size()) +
                                " entries");
  }
  if (!a.allFinite() || !b.allFinite()) throw std::invalid_argument("nnls: A and b must be finite");

  NnlsResult result;
  result.x = Eigen::VectorXd::Zero(n);
  result.residual_norm = b.norm();
  result.iterations = 0;
  result.converged = true;
  const double a_norm = a.norm();
  const double b_norm = b.norm();
  if (n == 0 || m == 0 || a_norm == 0.0 || b_norm == 0.0) return result;

  if (max_iterations <= 0) max_iterations = static_cast<int>(3 * n);
  if (tolerance <= 0.0) {
    // |a_j^T r| <= ||A||_F ||b||, so this is a relative threshold on the gradient; it keeps NNLS scale-invariant
    // (scaling b by s scales x by s) instead of returning x = 0 for a small b.
    tolerance = 10.0 * std::numeric_limits<double>::epsilon() * a_norm * b_norm * static_cast<double>(std::max(m, n));
  }

  Eigen::VectorXd& x = result.x;
  std::vector<bool> passive(static_cast<std::size_t>(n), false);
  std::vector<bool> skipped(static_cast<std::size_t>(n), false);  // rejected this round (their s_t came out <= 0)
  Eigen::VectorXd w = a.transpose() * (b - a * x);

  while (true) {
    // Step 2-3: the zero-set index with the largest gradient component (the steepest descent direction).
    Eigen::Index t = -1;
    double w_max = tolerance;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (!passive[j] && !skipped[j] && w[j] > w_max) {
        w_max = w[j];
        t = j;
      }
    }
    if (t < 0) break;  // KKT satisfied within tolerance
    if (result.iterations >= max_iterations) {
      result.converged = false;
      break;
    }
    ++result.iterations;

    passive[t] = true;
    Eigen::VectorXd s = solve_passive(a, b, passive);
    if (!(s[t] > 0.0)) {
      // Round-off: the newly freed variable would not move positive. Lawson-Hanson's safeguard: put it back, exclude
      // it from this selection and try the next-best index, so the method cannot cycle on it.
      passive[t] = false;
      skipped[t] = true;
      continue;
    }

    // Inner loop: step back towards x until every passive entry is positive.
    for (Eigen::Index inner = 0; inner <= n; ++inner) {
      double alpha = std::numeric_limits<double>::infinity();
      Eigen::Index blocking = -1;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (passive[j] && s[j] <= 0.0) {
          const double step = x[j] / (x[j] - s[j]);
          if (step < alpha) {
            alpha = step;
            blocking = j;
          }
        }
      }
      if (blocking < 0) break;  // s is feasible
      x += alpha * (s - x);
      x[blocking] = 0.0;
      for (Eigen::Index j = 0; j < n; ++j) {
        if (passive[j] && x[j] <= 0.0) {
          passive[j] = false;
          x[j] = 0.0;
        }
      }
      s = solve_passive(a, b, passive);
    }
    for (Eigen::Index j = 0; j < n; ++j)
      x[j] = passive[j] ? std::max(0.0, s[j]) : 0.0;
    w = a.transpose() * (b - a * x);
    std::fill(skipped.begin(), skipped.end(), false);
  }

  result.residual_norm = (a * x - b).norm();
  return result;
}

Eigen::VectorXd nnls_scaled(Eigen::MatrixXd a, const Eigen::VectorXd& b) {
  Eigen::VectorXd scale = Eigen::VectorXd::Ones(a.cols());
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    const double norm = a.col(j).norm();
    if (norm > 0.0) {
      scale[j] = norm;
      a.col(j) /= norm;
    }
  }
  Eigen::VectorXd x = nnls(a, b).x;
  return x.cwiseQuotient(scale);
}

IdentifiedNnls nnls_identified(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, double rank_tolerance) {
  const Eigen::Index rows = a.rows();
  std::vector<Eigen::Index> kept;
  IdentifiedNnls out;
  out.x = Eigen::VectorXd::Zero(a.cols());
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    const double norm = a.col(j).norm();
    bool admit = norm > 0.0 && std::isfinite(norm);
    if (admit) {
      Eigen::MatrixXd sub(rows, static_cast<Eigen::Index>(kept.size()) + 1);
      for (std::size_t k = 0; k < kept.size(); ++k)
        sub.col(static_cast<Eigen::Index>(k)) = a.col(kept[k]) / a.col(kept[k]).norm();
      sub.col(sub.cols() - 1) = a.col(j) / norm;
      Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(sub);
      qr.setThreshold(rank_tolerance);
      admit = qr.rank() == sub.cols();
    }
    if (admit) {
      kept.push_back(j);
    } else {
      out.fixed.push_back(static_cast<int>(j));
    }
  }
  if (kept.empty()) return out;
  if (static_cast<Eigen::Index>(kept.size()) == a.cols()) {
    out.x = nnls_scaled(a, b);
    return out;
  }
  Eigen::MatrixXd sub(rows, static_cast<Eigen::Index>(kept.size()));
  for (std::size_t k = 0; k < kept.size(); ++k)
    sub.col(static_cast<Eigen::Index>(k)) = a.col(kept[k]);
  const Eigen::VectorXd x = nnls_scaled(sub, b);
  for (std::size_t k = 0; k < kept.size(); ++k)
    out.x[kept[k]] = x[static_cast<Eigen::Index>(k)];
  return out;
}

Eigen::Vector2d nnls_two_columns(double uu, double uv, double vv, double ub, double vb) {
  // Objective up to the constant b.b: f(x) = x0^2 uu + 2 x0 x1 uv + x1^2 vv - 2 (x0 ub + x1 vb).
  const auto f = [&](double x0, double x1) {
    return x0 * x0 * uu + 2.0 * x0 * x1 * uv + x1 * x1 * vv - 2.0 * (x0 * ub + x1 * vb);
  };
  Eigen::Vector2d best(0.0, 0.0);
  double best_f = 0.0;
  const auto consider = [&](double x0, double x1) {
    const double v = f(x0, x1);
    if (v < best_f) {
      best_f = v;
      best = Eigen::Vector2d(x0, x1);
    }
  };
  if (uu > 0.0) consider(std::max(0.0, ub / uu), 0.0);
  if (vv > 0.0) consider(0.0, std::max(0.0, vb / vv));
  const double det = uu * vv - uv * uv;
  if (uu > 0.0 && vv > 0.0 && det > 1e-12 * uu * vv) {
    const double x0 = (vv * ub - uv * vb) / det;
    const double x1 = (uu * vb - uv * ub) / det;
    if (x0 >= 0.0 && x1 >= 0.0) consider(x0, x1);
  }
  return best;
}

}  // namespace ringsched::models
