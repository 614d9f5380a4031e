// test/models/test_lr_rule.cpp — Eq. 7 linear learning-rate scaling on resize.
#include <catch2/catch.hpp>

#include "models/lr_rule.h"

using ringsched::models::scaled_learning_rate;

TEST_CASE("models::lr_rule: learning rate scales with w_new / w_last", "[models][eq7]") {
  CHECK(scaled_learning_rate(0.1, 4, 8) == Approx(0.2));    // 0.1 * 8/4
  CHECK(scaled_learning_rate(0.4, 8, 2) == Approx(0.1));    // 0.4 * 2/8
  CHECK(scaled_learning_rate(0.3, 3, 5) == Approx(0.5));    // 0.3 * 5/3
  CHECK(scaled_learning_rate(0.05, 6, 6) == Approx(0.05));  // no resize, no change
}

TEST_CASE("models::lr_rule: resizing there and back restores the learning rate", "[models][eq7]") {
  const double lr = scaled_learning_rate(scaled_learning_rate(0.1, 4, 12), 12, 4);
  CHECK(lr == Approx(0.1));
}
