// models/scale_table.cpp — throughput per GPU count, interpolated in log2(GPUs).
#include "models/scale_table.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace ringsched::models {

ScaleTableStepTime::ScaleTableStepTime(std::vector<std::pair<int, double>> points) : points_(std::move(points)) {
  if (points_.empty()) throw std::invalid_argument("scale_table: no points");
  std::sort(points_.begin(), points_.end());
  for (std::size_t i = 0; i < points_.size(); ++i) {
    if (points_[i].first < 1) throw std::invalid_argument("scale_table: a GPU count below 1");
    if (!(points_[i].second >= 0.0 && std::isfinite(points_[i].second))) {
      throw std::invalid_argument("scale_table: a throughput that is negative or not finite");
    }
    if (i > 0 && points_[i].first == points_[i - 1].first) {
      throw std::invalid_argument("scale_table: GPU count " + std::to_string(points_[i].first) + " twice");
    }
  }
}

double ScaleTableStepTime::measured(int w) const {
  for (const auto& [g, t] : points_)
    if (g == w) return t;
  return 0.0;
}

double ScaleTableStepTime::throughput(int w) const {
  if (w <= 0) return 0.0;
  const auto& lo = points_.front();
  if (w <= lo.first) return lo.second * static_cast<double>(w) / static_cast<double>(lo.first);
  if (w >= points_.back().first) return points_.back().second;
  const auto hi = std::lower_bound(points_.begin(), points_.end(), std::make_pair(w, -1.0));
  if (hi->first == w) return hi->second;
  const auto below = hi - 1;
  if (below->second <= 0.0 || hi->second <= 0.0) return 0.0;
  const double x0 = std::log2(static_cast<double>(below->first));
  const double x1 = std::log2(static_cast<double>(hi->first));
  const double f = (std::log2(static_cast<double>(w)) - x0) / (x1 - x0);
  return below->second + f * (hi->second - below->second);
}

double ScaleTableStepTime::step_seconds(int w, int /*nodes*/, double /*global_batch*/) const {
  const double t = throughput(w);
  return t > 0.0 ? 1.0 / t : std::numeric_limits<double>::infinity();
}

}  // namespace ringsched::models
