// models/speed_model.h — Eq. 5 speed model (steps/s on w workers) and its coefficients.
#pragma once

namespace ringsched::models {

// Eq. 5 coefficients, all >= 0: t0 seconds per sample of compute, t1 seconds of latency per extra worker,
// t2 seconds per parameter-unit of bandwidth cost, t3 constant per-step overhead in seconds.
struct Eq5Coeffs {
  double t0 = 0.0;
  double t1 = 0.0;
  double t2 = 0.0;
  double t3 = 0.0;
};

// Seconds per step of Eq. 5: t0*(m/w) + t1*(w-1) + t2*(w-1)*(n/w) + t3.
// m = global minibatch (samples per step over all workers), n = model size (same unit as used to fit t2).
double eq5_step_time(const Eq5Coeffs& c, double w, double m, double n);

// Eq. 5 speed f(w) in steps per second (1 / eq5_step_time).
double eq5_speed(const Eq5Coeffs& c, double w, double m, double n);

}  // namespace ringsched::models
