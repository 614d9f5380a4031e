// models/delaunay_interpolator.h — piecewise-linear interpolation of scattered points over their Delaunay
// triangulation, answering exactly as SciPy's LinearNDInterpolator does for one query at a time: the triangulation
// is Qhull's (options "d Qt Qbb Qc Qz Q12", as scipy.spatial.Delaunay), the containing simplex is found by SciPy's
// walk (lifted-plane distances from simplex 0, then a directed barycentric search, then brute force) and the value is
// the barycentric combination of the simplex's vertex values; outside the convex hull there is no value. On a
// degenerate (co-spherical) point set, triangulations are not conforming everywhere, so which simplex is found
// changes the answer: following SciPy's search step by step is what makes the Pollux artifact's simulator and
// ringsched agree on every placement the artifact interpolates (docs/fidelity.md). Qhull is Debian's libqhull.
#pragma once

#include <optional>
#include <vector>

#include <Eigen/Dense>

namespace ringsched::models {

class DelaunayInterpolator {
 public:
  // points: n x d (d >= 2), values: n x k. Throws std::invalid_argument for mismatched shapes, non-finite
  // coordinates, fewer than d + 1 points, or a point set Qhull cannot triangulate (e.g. all in a plane).
  DelaunayInterpolator(const Eigen::MatrixXd& points, const Eigen::MatrixXd& values);

  // The interpolated values at x (size d), or nullopt outside the triangulation.
  [[nodiscard]] std::optional<Eigen::VectorXd> operator()(const Eigen::VectorXd& x) const;

  [[nodiscard]] int simplices() const { return static_cast<int>(simplex_.rows()); }

 private:
  [[nodiscard]] int find_simplex(const Eigen::VectorXd& x, Eigen::VectorXd& c) const;
  [[nodiscard]] int find_directed(const Eigen::VectorXd& x, int start, Eigen::VectorXd& c) const;
  [[nodiscard]] int find_bruteforce(const Eigen::VectorXd& x, Eigen::VectorXd& c) const;
  [[nodiscard]] bool outside_bounds(const Eigen::VectorXd& x, double eps) const;
  [[nodiscard]] double distplane(int s, const Eigen::VectorXd& z) const;
  [[nodiscard]] bool valid(int s) const { return valid_[static_cast<std::size_t>(s)] != 0; }
  // Barycentric coordinate k (< d) of x in simplex s; coordinate d is 1 minus the others.
  [[nodiscard]] double bary(int s, const Eigen::VectorXd& x, int k) const;
  void bary_all(int s, const Eigen::VectorXd& x, Eigen::VectorXd& c) const;

  int dim_ = 0;
  Eigen::MatrixXd points_;
  Eigen::MatrixXd values_;
  Eigen::MatrixXi simplex_;            // nsimplex x (d + 1): point indices
  Eigen::MatrixXi neighbors_;          // nsimplex x (d + 1): neighbor opposite vertex k, -1 for none
  Eigen::MatrixXd equations_;          // nsimplex x (d + 2): lifted facet hyperplanes (normal, offset)
  std::vector<Eigen::MatrixXd> tinv_;  // per simplex: d x d inverse of [v_j - v_d]
  std::vector<char> valid_;            // the simplex is not degenerate
  Eigen::VectorXd min_bound_;
  Eigen::VectorXd max_bound_;
  double paraboloid_scale_ = 1.0;
  double paraboloid_shift_ = 0.0;
};

}  // namespace ringsched::models
