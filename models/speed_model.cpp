// models/speed_model.cpp — Eq. 5 evaluation.
#include "models/speed_model.h"

namespace ringsched::models {

double eq5_step_time(const Eq5Coeffs& c, double w, double m, double n) {
  return c.t0 * (m / w) + c.t1 * (w - 1.0) + c.t2 * (w - 1.0) * (n / w) + c.t3;
}

double eq5_speed(const Eq5Coeffs& c, double w, double m, double n) {
  return 1.0 / eq5_step_time(c, w, m, n);
}

}  // namespace ringsched::models
