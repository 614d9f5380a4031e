// models/delaunay_interpolator.cpp — Qhull's Delaunay triangulation and SciPy's point location, step by step.
#include "models/delaunay_interpolator.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace ringsched::models {
namespace {

constexpr double kEps = 100.0 * DBL_EPSILON;      // SciPy's find_simplex eps
const double kEpsBroad = std::sqrt(DBL_EPSILON);  // and its broad eps for degenerate neighbours
constexpr double kRcondLimit = 1000.0 * DBL_EPSILON;

// Qhull reports errors on a FILE*: collect them in memory for the exception message.
class MessageSink {
 public:
  MessageSink() : file_(open_memstream(&buf_, &size_)) {}
  ~MessageSink() {
    if (file_ != nullptr) std::fclose(file_);
    std::free(buf_);
  }
  MessageSink(const MessageSink&) = delete;
  MessageSink& operator=(const MessageSink&) = delete;
  [[nodiscard]] FILE* file() const { return file_ != nullptr ? file_ : stderr; }
  std::string text() {
    if (file_ == nullptr) return "";
    std::fflush(file_);
    return std::string(buf_, size_);
  }

 private:
  char* buf_ = nullptr;
  std::size_t size_ = 0;
  FILE* file_ = nullptr;
};

// 1-norm of a square matrix (largest absolute column sum), as LAPACK's condition estimate takes.
double norm1(const Eigen::MatrixXd& m) {
  return m.cwiseAbs().colwise().sum().maxCoeff();
}

}  // namespace

DelaunayInterpolator::DelaunayInterpolator(const Eigen::MatrixXd& points, const Eigen::MatrixXd& values)
    : dim_(static_cast<int>(points.cols())), points_(points), values_(values) {
  const auto n = points.rows();
  if (dim_ < 2) throw std::invalid_argument("delaunay: points need at least 2 coordinates");
  if (values.rows() != n) throw std::invalid_argument("delaunay: one row of values per point");
  if (n < dim_ + 1) throw std::invalid_argument("delaunay: needs at least dim + 1 points");
  if (!points.allFinite()) throw std::invalid_argument("delaunay: non-finite coordinate");
  min_bound_ = points.colwise().minCoeff().transpose();
  max_bound_ = points.colwise().maxCoeff().transpose();

  // Qhull reads the points row by row; it lifts them to the paraboloid itself ("d").
  std::vector<coordT> coords(static_cast<std::size_t>(n * dim_));
  for (Eigen::Index i = 0; i < n; ++i)
    for (int j = 0; j < dim_; ++j)
      coords[static_cast<std::size_t>(i * dim_ + j)] = points(i, j);
  MessageSink sink;
  qhT qh_storage;
  qhT* qh = &qh_storage;
  qh_zero(qh, sink.file());
  char options[] = "qhull d Qt Qbb Qc Qz Q12";
  const int exitcode = qh_new_qhull(qh, dim_, static_cast<int>(n), coords.data(), False, options, nullptr, sink.file());
  if (exitcode != 0) {
    qh_freeqhull(qh, !qh_ALL);
    int curlong = 0;
    int totlong = 0;
    qh_memfreeshort(qh, &curlong, &totlong);
    throw std::invalid_argument("delaunay: Qhull failed (exit " + std::to_string(exitcode) + "): " + sink.text());
  }
  if (qh->SCALElast) {
    paraboloid_scale_ = qh->last_newhigh / (qh->last_high - qh->last_low);
    paraboloid_shift_ = -qh->last_low * paraboloid_scale_;
  }
  // Lower-envelope facets are the simplices, in Qhull's facet order (SciPy's numbering).
  std::map<unsigned, int> id_map;
  facetT* facet = nullptr;
  FORALLfacets {
    if (facet->upperdelaunay == qh->UPPERdelaunay) id_map[facet->id] = static_cast<int>(id_map.size());
  }
  const int ns = static_cast<int>(id_map.size());
  const int nv = dim_ + 1;
  simplex_.resize(ns, nv);
  neighbors_.resize(ns, nv);
  equations_.resize(ns, dim_ + 2);
  int j = 0;
  FORALLfacets {
    if (facet->upperdelaunay != qh->UPPERdelaunay) continue;
    if (qh_setsize(qh, facet->vertices) != nv || qh_setsize(qh, facet->neighbors) != nv) {
      throw std::invalid_argument("delaunay: Qhull returned a non-simplicial facet");
    }
    for (int i = 0; i < nv; ++i) {
      auto* vertex = static_cast<vertexT*>(facet->vertices->e[i].p);
      simplex_(j, i) = qh_pointid(qh, vertex->point);
      auto* neighbor = static_cast<facetT*>(facet->neighbors->e[i].p);
      const auto it = id_map.find(neighbor->id);
      neighbors_(j, i) = it == id_map.end() ? -1 : it->second;
    }
    for (int i = 0; i < nv; ++i)
      equations_(j, i) = facet->normal[i];
    equations_(j, nv) = facet->offset;
    ++j;
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0;
  int totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  if (ns == 0) throw std::invalid_argument("delaunay: the points span no simplex");

  // Barycentric transforms: T = [v_k - v_d] (columns k < d), inverted; singular ones (rcond below 1000 eps) are
  // degenerate simplices that point location steps around.
  tinv_.resize(static_cast<std::size_t>(ns));
  valid_.assign(static_cast<std::size_t>(ns), 0);
  for (int s = 0; s < ns; ++s) {
    Eigen::MatrixXd t(dim_, dim_);
    const Eigen::RowVectorXd last = points_.row(simplex_(s, dim_));
    for (int k = 0; k < dim_; ++k)
      t.col(k) = (points_.row(simplex_(s, k)) - last).transpose();
    // As LAPACK (dgetrf, dgecon) decides for SciPy: an exactly zero pivot is singular; otherwise the reciprocal
    // 1-norm condition number, here computed from the inverse itself (the dimension is small).
    const Eigen::PartialPivLU<Eigen::MatrixXd> lu(t);
    if ((lu.matrixLU().diagonal().array() == 0.0).any()) continue;
    const Eigen::MatrixXd inv = lu.inverse();
    const double rcond = 1.0 / (norm1(t) * norm1(inv));
    if (!(rcond >= kRcondLimit) || !inv.allFinite()) continue;
    tinv_[static_cast<std::size_t>(s)] = inv;
    valid_[static_cast<std::size_t>(s)] = 1;
  }
}

double DelaunayInterpolator::bary(int s, const Eigen::VectorXd& x, int k) const {
  const Eigen::MatrixXd& ti = tinv_[static_cast<std::size_t>(s)];
  const auto last = simplex_(s, dim_);
  double c = 0.0;
  for (int j = 0; j < dim_; ++j)
    c += ti(k, j) * (x[j] - points_(last, j));
  return c;
}

void DelaunayInterpolator::bary_all(int s, const Eigen::VectorXd& x, Eigen::VectorXd& c) const {
  double sum = 0.0;
  for (int k = 0; k < dim_; ++k) {
    c[k] = bary(s, x, k);
    sum += c[k];
  }
  c[dim_] = 1.0 - sum;
}

bool DelaunayInterpolator::outside_bounds(const Eigen::VectorXd& x, double eps) const {
  for (int i = 0; i < dim_; ++i) {
    if (x[i] < min_bound_[i] - eps || x[i] > max_bound_[i] + eps) return true;
  }
  return false;
}

double DelaunayInterpolator::distplane(int s, const Eigen::VectorXd& z) const {
  double d = equations_(s, dim_ + 1);
  for (int k = 0; k < dim_ + 1; ++k)
    d += equations_(s, k) * z[k];
  return d;
}

int DelaunayInterpolator::find_bruteforce(const Eigen::VectorXd& x, Eigen::VectorXd& c) const {
  if (outside_bounds(x, kEps)) return -1;
  const int ns = static_cast<int>(simplex_.rows());
  for (int s = 0; s < ns; ++s) {
    if (valid(s)) {
      bary_all(s, x, c);
      bool inside = true;
      for (int k = 0; k <= dim_ && inside; ++k)
        inside = c[k] >= -kEps && c[k] <= 1.0 + kEps;
      if (inside) return s;
      continue;
    }
    // A degenerate simplex: look for a valid neighbour that (almost) holds the point, with extra leeway on the side
    // facing the degenerate one.
    for (int k = 0; k <= dim_; ++k) {
      const int nb = neighbors_(s, k);
      if (nb == -1 || !valid(nb)) continue;
      bary_all(nb, x, c);
      bool inside = true;
      for (int m = 0; m <= dim_ && inside; ++m) {
        const double lo = neighbors_(nb, m) == s ? -kEpsBroad : -kEps;
        inside = c[m] >= lo && c[m] <= 1.0 + kEps;
      }
      if (inside) return nb;
    }
  }
  return -1;
}

int DelaunayInterpolator::find_directed(const Eigen::VectorXd& x, int start, Eigen::VectorXd& c) const {
  const int ns = static_cast<int>(simplex_.rows());
  int s = start < 0 || start >= ns ? 0 : start;
  for (int cycle = 0; cycle < 1 + ns / 4; ++cycle) {
    if (s == -1) return -1;
    if (!valid(s)) return find_bruteforce(x, c);  // a degenerate simplex in the way
    int inside = 1;
    double sum = 0.0;
    for (int k = 0; k <= dim_; ++k) {
      c[k] = k < dim_ ? bary(s, x, k) : 1.0 - sum;
      if (k < dim_) sum += c[k];
      if (c[k] < -kEps) {
        // The point lies towards neighbour k.
        const int m = neighbors_(s, k);
        if (m == -1) return -1;  // outside the triangulation
        s = m;
        inside = -1;
        break;
      }
      if (!(c[k] <= 1.0 + kEps)) inside = 0;  // outside, or a NaN coordinate
    }
    if (inside == -1) continue;
    if (inside == 1) return s;
    return find_bruteforce(x, c);
  }
  return find_bruteforce(x, c);  // the walk did not converge
}

int DelaunayInterpolator::find_simplex(const Eigen::VectorXd& x, Eigen::VectorXd& c) const {
  if (outside_bounds(x, kEps)) return -1;
  // Walk towards the facet of the lifted point with the largest positive plane distance, from simplex 0.
  Eigen::VectorXd z(dim_ + 1);
  z[dim_] = 0.0;
  for (int i = 0; i < dim_; ++i) {
    z[i] = x[i];
    z[dim_] += x[i] * x[i];
  }
  z[dim_] = z[dim_] * paraboloid_scale_ + paraboloid_shift_;
  int s = 0;
  double best = distplane(s, z);
  bool changed = true;
  while (changed) {
    if (best > 0.0) break;
    changed = false;
    for (int k = 0; k <= dim_; ++k) {
      const int nb = neighbors_(s, k);
      if (nb == -1) continue;
      const double d = distplane(nb, z);
      if (d > best + kEps * (1.0 + std::fabs(best))) {
        s = nb;  // continue the scan from the next k of the new simplex, as SciPy does
        best = d;
        changed = true;
      }
    }
  }
  return find_directed(x, s, c);
}

std::optional<Eigen::VectorXd> DelaunayInterpolator::operator()(const Eigen::VectorXd& x) const {
  if (x.size() != dim_) throw std::invalid_argument("delaunay: query of the wrong dimension");
  if (!x.allFinite()) return std::nullopt;
  Eigen::VectorXd c(dim_ + 1);
  const int s = find_simplex(x, c);
  if (s < 0) return std::nullopt;
  bary_all(s, x, c);
  Eigen::VectorXd out = Eigen::VectorXd::Zero(values_.cols());
  for (int k = 0; k <= dim_; ++k)
    out += c[k] * values_.row(simplex_(s, k)).transpose();
  return out;
}

}  // namespace ringsched::models
