// test/models/test_convergence.cpp — Eq. 1 loss, its inversion and the remaining-work prediction.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/convergence.h"

using ringsched::models::eq1_loss;
using ringsched::models::eq1_remaining;
using ringsched::models::eq1_steps_to_loss;
using ringsched::models::Eq1Coeffs;

namespace {
// l(k) = 1/(0.01 k + 0.5) + 0.3
const Eq1Coeffs kCurve{0.01, 0.5, 0.3};
}  // namespace

TEST_CASE("models::eq1: loss matches hand-computed values", "[models][eq1]") {
  CHECK(eq1_loss(kCurve, 0) == Approx(2.3));     // 1/0.5 + 0.3
  CHECK(eq1_loss(kCurve, 150) == Approx(0.8));   // 1/(1.5 + 0.5) + 0.3
  CHECK(eq1_loss(kCurve, 950) == Approx(0.4));   // 1/(9.5 + 0.5) + 0.3
  CHECK(eq1_loss(kCurve, 1e12) == Approx(0.3));  // tends to b2
}

TEST_CASE("models::eq1: steps_to_loss inverts the curve", "[models][eq1]") {
  CHECK(eq1_steps_to_loss(kCurve, 0.8) == Approx(150.0));  // (1/(0.8-0.3) - 0.5)/0.01 = (2 - 0.5)/0.01
  CHECK(eq1_steps_to_loss(kCurve, 0.4) == Approx(950.0));  // (1/0.1 - 0.5)/0.01
  CHECK(eq1_steps_to_loss(kCurve, 2.3) == 0.0);            // already there at k = 0
  CHECK(eq1_steps_to_loss(kCurve, 5.0) == 0.0);            // starts below the target
}

TEST_CASE("models::eq1: unreachable targets take infinitely long", "[models][eq1]") {
  CHECK(std::isinf(eq1_steps_to_loss(kCurve, 0.3)));  // target == b2: only reached as k -> infinity
  CHECK(std::isinf(eq1_steps_to_loss(kCurve, 0.2)));  // below the asymptote
  const Eq1Coeffs flat{0.0, 0.5, 0.3};                // b0 = 0: stuck at 2.3
  CHECK(std::isinf(eq1_steps_to_loss(flat, 1.0)));
  CHECK(std::isinf(eq1_remaining(kCurve, 100, 0.25)));
}

TEST_CASE("models::eq1: remaining work is steps_to_loss minus work done, never negative", "[models][eq1]") {
  CHECK(eq1_remaining(kCurve, 0, 0.8) == Approx(150.0));
  CHECK(eq1_remaining(kCurve, 100, 0.8) == Approx(50.0));
  CHECK(eq1_remaining(kCurve, 200, 0.8) == 0.0);
  CHECK(eq1_remaining(kCurve, 500, 0.4) == Approx(450.0));  // 950 - 500
}
