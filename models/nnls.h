// models/nnls.h — Lawson-Hanson non-negative least squares on Eigen (Eigen 3.4 ships none).
#pragma once

#include <vector>

#include <Eigen/Dense>

namespace ringsched::models {

struct NnlsResult {
  Eigen::VectorXd x;       // the solution, every entry >= 0
  double residual_norm{};  // ||A x - b||_2
  int iterations{};        // outer iterations of Lawson-Hanson
  bool converged{};        // false if the iteration cap was hit
};

// minimise ||A x - b||_2 subject to x >= 0 (Lawson and Hanson, "Solving Least Squares Problems", 1974, ch. 23).
NnlsResult nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, int max_iterations = 0, double tolerance = 0.0);

// The same, with every nonzero column scaled to unit norm first (x >= 0 is invariant under positive column scaling)
// and the answer scaled back, so columns in very different units (samples, bytes, 1) do not distort the active-set
// choice. Used by every speed-model fit.
Eigen::VectorXd nnls_scaled(Eigen::MatrixXd a, const Eigen::VectorXd& b);

// nnls_scaled on the columns the rows can identify: columns are admitted in their order, and one that is zero, not
// finite, or linearly dependent on those admitted (column-pivoted QR of the unit-norm columns, relative threshold
// `rank_tolerance`) gets coefficient 0 and is listed in `fixed` (column indices, ascending). When every column is
// admitted the answer is exactly nnls_scaled's. So a coefficient the data cannot determine never moves a prediction,
// whatever the units of the columns (which NNLS would otherwise use to pick among equally good answers).
struct IdentifiedNnls {
  Eigen::VectorXd x;
  std::vector<int> fixed;
};
IdentifiedNnls nnls_identified(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, double rank_tolerance = 1e-8);

// The same problem with exactly two columns u, v, given by their Gram sums (uu = u.u, uv = u.v, vv = v.v,
// ub = u.b, vb = v.b): the exact minimiser, found by comparing the interior solution (when it is feasible) with
// the optimum on each face x0 = 0, x1 = 0. O(1); used where Eq. 1 is refitted thousands of times (online beliefs).
// A zero column gets coefficient 0.
Eigen::Vector2d nnls_two_columns(double uu, double uv, double vv, double ub, double vb);

}  // namespace ringsched::models
