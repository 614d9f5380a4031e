// test/models/test_nnls.cpp — Lawson-Hanson NNLS against hand-derived answers, OLS and brute force over active sets.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "models/nnls.h"

using ringsched::models::nnls;
using ringsched::models::NnlsResult;

namespace {

// A = [1 0; 0 1; 1 1], used by the hand-derived cases. A^T A = [2 1; 1 2], (A^T A)^-1 = [2 -1; -1 2] / 3.
Eigen::MatrixXd small_a() {
  Eigen::MatrixXd a(3, 2);
  a << 1, 0, 0, 1, 1, 1;
  return a;
}

Eigen::VectorXd vec(std::initializer_list<double> v) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(v.size()));
  Eigen::Index i = 0;
  for (const double x : v)
    out[i++] = x;
  return out;
}

// KKT conditions of min 0.5 ||Ax - b||^2 s.t. x >= 0 with gradient g = A^T (Ax - b):
// x >= 0; g >= -tol where x == 0; |g| <= tol where x > 0.
void check_kkt(const Eigen::MatrixXd& a, const Eigen::VectorXd& b, const Eigen::VectorXd& x) {
  const Eigen::VectorXd g = a.transpose() * (a * x - b);
  const double tol = 1e-9 * (1.0 + a.norm() * b.norm());
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    INFO("j = " << j << ", x_j = " << x[j] << ", g_j = " << g[j]);
    CHECK(x[j] >= 0.0);
    if (x[j] == 0.0) {
      CHECK(g[j] >= -tol);
    } else {
      CHECK(std::abs(g[j]) <= tol);
    }
  }
}

// Smallest residual over every active set whose unconstrained LS solution is non-negative (the NNLS optimum).
double brute_force_residual(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
  const Eigen::Index n = a.cols();
  double best = b.norm();  // the empty set: x = 0
  for (unsigned mask = 1; mask < (1u << n); ++mask) {
    std::vector<Eigen::Index> cols;
    for (Eigen::Index j = 0; j < n; ++j) {
      if (mask & (1u << j)) cols.push_back(j);
    }
    Eigen::MatrixXd sub(a.rows(), static_cast<Eigen::Index>(cols.size()));
    for (std::size_t k = 0; k < cols.size(); ++k)
      sub.col(static_cast<Eigen::Index>(k)) = a.col(cols[k]);
    const Eigen::VectorXd xs = sub.completeOrthogonalDecomposition().solve(b);
    if ((xs.array() >= 0.0).all()) best = std::min(best, (sub * xs - b).norm());
  }
  return best;
}

}  // namespace

TEST_CASE("models::nnls: interior solution equals ordinary least squares", "[models][nnls]") {
  // b = [1, 2, 4]: A^T b = [5, 6], x = [2*5 - 6, 2*6 - 5] / 3 = [4/3, 7/3] > 0, so the constraint is inactive.
  // Residual b - Ax = [1 - 4/3, 2 - 7/3, 4 - 11/3] = [-1/3, -1/3, 1/3], norm = sqrt(3)/3.
  const NnlsResult r = nnls(small_a(), vec({1, 2, 4}));
  REQUIRE(r.converged);
  CHECK(r.x[0] == Approx(4.0 / 3.0));
  CHECK(r.x[1] == Approx(7.0 / 3.0));
  CHECK(r.residual_norm == Approx(std::sqrt(3.0) / 3.0));
  CHECK(r.iterations == 2);
}

TEST_CASE("models::nnls: interior solution of a random problem matches Eigen's least squares", "[models][nnls]") {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Eigen::MatrixXd a(30, 5);
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (Eigen::Index j = 0; j < a.cols(); ++j)
      a(i, j) = u(rng);
  }
  Eigen::VectorXd x_true = vec({1, 2, 3, 4, 5});
  Eigen::VectorXd b = a * x_true;
  for (Eigen::Index i = 0; i < b.size(); ++i)
    b[i] += 0.01 * (u(rng) - 0.5);
  const Eigen::VectorXd ols = a.colPivHouseholderQr().solve(b);
  REQUIRE((ols.array() > 0.0).all());
  const NnlsResult r = nnls(a, b);
  REQUIRE(r.converged);
  CHECK((r.x - ols).norm() <= 1e-10 * ols.norm());
}

TEST_CASE("models::nnls: active constraint zeroes a coefficient", "[models][nnls]") {
  // b = [2, -1, 1]: OLS is x = [2*3 - 0, 2*0 - 3] / 3 = [2, -1], infeasible. With x2 = 0 the problem is
  // min (x1 - 2)^2 + 1 + (x1 - 1)^2, so x1 = 1.5; residual b - Ax = [0.5, -1, -0.5], norm sqrt(1.5).
  // KKT: gradient A^T(Ax - b) = -[0.5 - 0.5, -1 - 0.5] = [0, 1.5] >= 0 at the zero coefficient.
  const Eigen::MatrixXd a = small_a();
  const Eigen::VectorXd b = vec({2, -1, 1});
  const NnlsResult r = nnls(a, b);
  REQUIRE(r.converged);
  CHECK(r.x[0] == Approx(1.5));
  CHECK(r.x[1] == 0.0);
  CHECK(r.residual_norm == Approx(std::sqrt(1.5)));
  check_kkt(a, b, r.x);
}

TEST_CASE("models::nnls: all-negative correlations give x = 0", "[models][nnls]") {
  // b = [-1, -2, -3]: A^T b = [-4, -5] < 0, so no coordinate can decrease the residual; ||b|| = sqrt(14).
  const NnlsResult r = nnls(small_a(), vec({-1, -2, -3}));
  REQUIRE(r.converged);
  CHECK(r.x.isZero(0.0));
  CHECK(r.iterations == 0);
  CHECK(r.residual_norm == Approx(std::sqrt(14.0)));
}

TEST_CASE("models::nnls: b = 0 gives x = 0 immediately", "[models][nnls]") {
  const NnlsResult r = nnls(small_a(), Eigen::VectorXd::Zero(3));
  CHECK(r.converged);
  CHECK(r.iterations == 0);
  CHECK(r.x.size() == 2);
  CHECK(r.x.isZero(0.0));
  CHECK(r.residual_norm == 0.0);
}

TEST_CASE("models::nnls: a zero column gets a zero coefficient", "[models][nnls]") {
  // Column 1 is zero; column 0 = [1, 2, 3] = b, so x = [1, 0] with zero residual.
  Eigen::MatrixXd a(3, 2);
  a << 1, 0, 2, 0, 3, 0;
  const NnlsResult r = nnls(a, vec({1, 2, 3}));
  REQUIRE(r.converged);
  CHECK(r.x[0] == Approx(1.0));
  CHECK(r.x[1] == 0.0);
  CHECK(r.residual_norm == Approx(0.0).margin(1e-12));
}

TEST_CASE("models::nnls: duplicated columns still give the optimal residual", "[models][nnls]") {
  // Columns 0 and 1 are equal; any split x0 + x1 = 1 with x >= 0 is optimal, residual 0.
  Eigen::MatrixXd a(3, 2);
  a << 1, 1, 2, 2, 3, 3;
  const NnlsResult r = nnls(a, vec({1, 2, 3}));
  REQUIRE(r.converged);
  CHECK(r.x.minCoeff() >= 0.0);
  CHECK(r.x.sum() == Approx(1.0));
  CHECK(r.residual_norm == Approx(0.0).margin(1e-12));
}

TEST_CASE("models::nnls: underdetermined problems (m < n) reach the optimum", "[models][nnls]") {
  // 2 equations, 4 unknowns; b = A [1, 0, 2, 0] is reachable, so the optimal residual is 0.
  Eigen::MatrixXd a(2, 4);
  a << 1, 2, 0.5, -1, 3, -1, 1, 2;
  const Eigen::VectorXd b = a * vec({1, 0, 2, 0});
  const NnlsResult r = nnls(a, b);
  REQUIRE(r.converged);
  CHECK(r.x.minCoeff() >= 0.0);
  CHECK(r.residual_norm == Approx(0.0).margin(1e-10));
}

TEST_CASE("models::nnls: the solution scales with b (the default tolerance is relative)", "[models][nnls]") {
  const Eigen::MatrixXd a = small_a();
  for (const double s : {1e-12, 1e12}) {
    const NnlsResult r = nnls(a, s * vec({2, -1, 1}));
    INFO("scale " << s);
    CHECK(r.x[0] == Approx(1.5 * s));
    CHECK(r.x[1] == 0.0);
  }
}

TEST_CASE("models::nnls: the iteration cap reports non-convergence with a feasible x", "[models][nnls]") {
  // The interior case needs two outer iterations (both columns enter); allow one.
  const NnlsResult r = nnls(small_a(), vec({1, 2, 4}), 1);
  CHECK_FALSE(r.converged);
  CHECK(r.iterations == 1);
  CHECK(r.x.minCoeff() >= 0.0);
  CHECK(r.residual_norm == Approx((small_a() * r.x - vec({1, 2, 4})).norm()));
}

TEST_CASE("models::nnls: mismatched or non-finite input throws", "[models][nnls]") {
  CHECK_THROWS_AS(nnls(small_a(), Eigen::VectorXd::Zero(2)), std::invalid_argument);
  CHECK_THROWS_AS(nnls(small_a(), vec({1, std::nan(""), 2})), std::invalid_argument);
}

TEST_CASE("models::nnls: matches brute force over all active sets on random problems", "[models][nnls]") {
  std::mt19937_64 rng(20190822);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> rows(1, 8);
  std::uniform_int_distribution<int> cols(1, 5);
  for (int trial = 0; trial < 300; ++trial) {
    const int m = rows(rng);
    const int n = cols(rng);
    Eigen::MatrixXd a(m, n);
    Eigen::VectorXd b(m);
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j)
        a(i, j) = normal(rng);
      b[i] = normal(rng);
    }
    INFO("trial " << trial << " (" << m << "x" << n << ")");
    const NnlsResult r = nnls(a, b);
    REQUIRE(r.converged);
    CHECK(r.residual_norm == Approx(brute_force_residual(a, b)).margin(1e-10));
    check_kkt(a, b, r.x);
  }
}

TEST_CASE("models::nnls_two_columns: matches Lawson-Hanson on random two-column problems", "[models][nnls]") {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    Eigen::MatrixXd a(6, 2);
    Eigen::VectorXd b(6);
    for (int i = 0; i < 6; ++i) {
      a(i, 0) = g(rng);
      a(i, 1) = g(rng);
      b[i] = g(rng);
    }
    const NnlsResult ref = nnls(a, b);
    const Eigen::Vector2d x = ringsched::models::nnls_two_columns(
        a.col(0).dot(a.col(0)), a.col(0).dot(a.col(1)), a.col(1).dot(a.col(1)), a.col(0).dot(b), a.col(1).dot(b));
    INFO("trial " << trial);
    CHECK(x[0] >= 0.0);
    CHECK(x[1] >= 0.0);
    CHECK((a * x - b).norm() == Approx(ref.residual_norm).margin(1e-9));
  }
  // Hand-derived: A = [1 0; 0 1; 1 1], b = (1, -2, 0): the interior solution has x1 < 0; on x1 = 0 the best
  // x0 = (A0 . b) / (A0 . A0) = 1 / 2.
  const Eigen::Vector2d x = ringsched::models::nnls_two_columns(2.0, 1.0, 2.0, 1.0, -2.0);
  CHECK(x[0] == Approx(0.5));
  CHECK(x[1] == 0.0);
  // A zero column gets 0.
  const Eigen::Vector2d z = ringsched::models::nnls_two_columns(0.0, 0.0, 4.0, 0.0, 2.0);
  CHECK(z[0] == 0.0);
  CHECK(z[1] == Approx(0.5));
}

TEST_CASE("models::nnls_identified: dependent and zero columns are fixed at 0, whatever their units",
          "[models][nnls]") {
  // Columns: u, v, 3u (dependent on u), 0. Exact data b = 2u + v: the answer is x = (2, 1, 0, 0) for any scaling
  // of the dependent column (nnls alone may split 2u between columns 0 and 2 in a way that depends on units).
  Eigen::MatrixXd a(4, 4);
  a << 1, 0, 3, 0,  //
      1, 1, 3, 0,   //
      2, 1, 6, 0,   //
      0, 3, 0, 0;
  const Eigen::VectorXd b = 2.0 * a.col(0) + a.col(1);
  for (double unit : {1.0, 1e-6, 1e6}) {
    Eigen::MatrixXd s = a;
    s.col(2) *= unit;
    const ringsched::models::IdentifiedNnls r = ringsched::models::nnls_identified(s, b);
    CHECK(r.fixed == std::vector<int>{2, 3});
    CHECK(r.x[0] == Approx(2.0).epsilon(1e-12));
    CHECK(r.x[1] == Approx(1.0).epsilon(1e-12));
    CHECK(r.x[2] == 0.0);
    CHECK(r.x[3] == 0.0);
  }
  // Full rank: exactly nnls_scaled's answer.
  const Eigen::MatrixXd full = a.leftCols(2);
  const ringsched::models::IdentifiedNnls r = ringsched::models::nnls_identified(full, b);
  CHECK(r.fixed.empty());
  CHECK(r.x == ringsched::models::nnls_scaled(full, b));
}
