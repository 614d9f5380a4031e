// workloads/loss_curve.h — a job class's true convergence curve: a loss-like value against samples processed, from
// measured points (e.g. the Pollux validation runs), linearly interpolated and held constant beyond both ends.
// Truth: only a runner's loss observer reads it; beliefs receive the observed numbers (sim/beliefs/belief_sources.h).
#pragma once

#include <vector>

#include "models/fit.h"

namespace ringsched {

class LossCurve {
 public:
  // Needs >= 2 points with finite k >= 0 strictly increasing and finite loss > 0; throws std::invalid_argument.
  explicit LossCurve(std::vector<models::LossPoint> points);
  // Loss after k samples: interpolated between points, the first point's loss before it, the last one's after it.
  [[nodiscard]] double loss(double k) const;
  [[nodiscard]] const std::vector<models::LossPoint>& points() const { return points_; }

 private:
  std::vector<models::LossPoint> points_;
};

}  // namespace ringsched
