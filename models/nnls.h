// models/nnls.h — Lawson-Hanson non-negative least squares on Eigen (Eigen 3.4 ships none).
#pragma once

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

}  // namespace ringsched::models
