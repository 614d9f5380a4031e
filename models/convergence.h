// models/convergence.h — Eq. 1 convergence model l(k) = 1/(b0 k + b1) + b2 and remaining-work prediction.
#pragma once

namespace ringsched::models {

struct Eq1Coeffs {
  double b0 = 0.0;
  double b1 = 0.0;
  double b2 = 0.0;
};

// Loss after k steps (or samples, whatever unit k was fitted in).
double eq1_loss(const Eq1Coeffs& c, double k);

// The k at which the curve reaches target_loss; +infinity when target_loss <= b2 (never reached) or b0 == 0.
// Returns 0 when the curve starts at or below target (l(0) <= target).
double eq1_steps_to_loss(const Eq1Coeffs& c, double target_loss);

// Remaining work from k_done until target_loss (never negative; +infinity if unreachable).
double eq1_remaining(const Eq1Coeffs& c, double k_done, double target_loss);

}  // namespace ringsched::models
