// test/models/test_speed_model.cpp — Eq. 5 step time and speed against hand-computed values.
#include <catch2/catch.hpp>

#include "models/speed_model.h"

using ringsched::models::eq5_speed;
using ringsched::models::eq5_step_time;
using ringsched::models::Eq5Coeffs;

TEST_CASE("models::eq5: step time and speed match hand-computed values", "[models][eq5]") {
  // t0 = 0.001 s/sample, t1 = 0.01 s/extra worker, t2 = 0.05 s per model-size unit, t3 = 0.1 s; m = 256, n = 2.
  const Eq5Coeffs c{0.001, 0.01, 0.05, 0.1};
  const double m = 256.0;
  const double n = 2.0;
  // w = 1: 0.001*256 + 0 + 0 + 0.1                          = 0.356   -> 1/0.356  = 2.80898876...
  CHECK(eq5_step_time(c, 1, m, n) == Approx(0.356));
  CHECK(eq5_speed(c, 1, m, n) == Approx(2.808988764));
  // w = 2: 0.001*128 + 0.01*1 + 0.05*1*(2/2) + 0.1          = 0.288   -> 3.47222222...
  CHECK(eq5_step_time(c, 2, m, n) == Approx(0.288));
  CHECK(eq5_speed(c, 2, m, n) == Approx(3.472222222));
  // w = 4: 0.001*64 + 0.01*3 + 0.05*3*(2/4) + 0.1           = 0.064 + 0.03 + 0.075 + 0.1 = 0.269 -> 3.71747212
  CHECK(eq5_step_time(c, 4, m, n) == Approx(0.269));
  CHECK(eq5_speed(c, 4, m, n) == Approx(3.717472119));
  // w = 8: 0.001*32 + 0.01*7 + 0.05*7*(2/8) + 0.1           = 0.032 + 0.07 + 0.0875 + 0.1 = 0.2895 -> 3.45423143
  CHECK(eq5_step_time(c, 8, m, n) == Approx(0.2895));
  CHECK(eq5_speed(c, 8, m, n) == Approx(3.454231434));
}

TEST_CASE("models::eq5: speed peaks at an interior w when latency grows with w", "[models][eq5]") {
  // Same model as above: 2.81 (w=1) < 3.47 (w=2) < 3.72 (w=4) > 3.45 (w=8), so adding GPUs past 4 slows the job.
  const Eq5Coeffs c{0.001, 0.01, 0.05, 0.1};
  CHECK(eq5_speed(c, 4, 256, 2) > eq5_speed(c, 2, 256, 2));
  CHECK(eq5_speed(c, 4, 256, 2) > eq5_speed(c, 8, 256, 2));
}

TEST_CASE("models::eq5: pure compute scales linearly in w", "[models][eq5]") {
  // t1 = t2 = t3 = 0: step = t0*m/w, so speed(w) = w * speed(1). With t0 = 0.01, m = 100: speed(1) = 1, speed(8) = 8.
  const Eq5Coeffs c{0.01, 0.0, 0.0, 0.0};
  CHECK(eq5_speed(c, 1, 100, 1e6) == Approx(1.0));
  CHECK(eq5_speed(c, 8, 100, 1e6) == Approx(8.0));
}
