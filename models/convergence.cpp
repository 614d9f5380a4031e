// models/convergence.cpp — Eq. 1 evaluation and inversion.
#include "models/convergence.h"

#include <algorithm>
#include <limits>

namespace ringsched::models {

double eq1_loss(const Eq1Coeffs& c, double k) {
  return 1.0 / (c.b0 * k + c.b1) + c.b2;
}

double eq1_steps_to_loss(const Eq1Coeffs& c, double target_loss) {
  const double gap = target_loss - c.b2;
  if (gap <= 0.0) return std::numeric_limits<double>::infinity();
  const double k0_loss = c.b1 > 0.0 ? eq1_loss(c, 0.0) : std::numeric_limits<double>::infinity();
  if (k0_loss <= target_loss) return 0.0;
  if (c.b0 <= 0.0) return std::numeric_limits<double>::infinity();
  return std::max(0.0, (1.0 / gap - c.b1) / c.b0);
}

double eq1_remaining(const Eq1Coeffs& c, double k_done, double target_loss) {
  return std::max(0.0, eq1_steps_to_loss(c, target_loss) - k_done);
}

}  // namespace ringsched::models
