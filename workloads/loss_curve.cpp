// workloads/loss_curve.cpp — validation and piecewise-linear evaluation of a measured loss curve.
#include "workloads/loss_curve.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ringsched {

LossCurve::LossCurve(std::vector<models::LossPoint> points) : points_(std::move(points)) {
  if (points_.size() < 2) {
    throw std::invalid_argument("loss curve: needs at least 2 points, got " + std::to_string(points_.size()));
  }
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const auto& p = points_[i];
    if (!std::isfinite(p.k) || p.k < 0.0 || !std::isfinite(p.loss) || !(p.loss > 0.0)) {
      throw std::invalid_argument("loss curve: point " + std::to_string(i) +
                                  " needs finite k >= 0 and finite loss > 0");
    }
    if (i > 0 && !(p.k > points_[i - 1].k)) {
      throw std::invalid_argument("loss curve: point " + std::to_string(i) + " does not increase k");
    }
  }
}

double LossCurve::loss(double k) const {
  if (k <= points_.front().k) return points_.front().loss;
  if (k >= points_.back().k) return points_.back().loss;
  const auto it =
      std::upper_bound(points_.begin(), points_.end(), k, [](double v, const models::LossPoint& p) { return v < p.k; });
  const auto& hi = *it;
  const auto& lo = *(it - 1);
  const double t = (k - lo.k) / (hi.k - lo.k);
  return lo.loss + t * (hi.loss - lo.loss);
}

}  // namespace ringsched
