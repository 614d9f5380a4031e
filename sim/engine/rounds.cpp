// sim/engine/rounds.cpp — the round clock: round starts as k x interval_s, and the jump over idle rounds.
#include "sim/engine/rounds.h"

#include <algorithm>
#include <cmath>

namespace ringsched {

double RoundClock::next() {
  k_ += 1.0;
  return start(k_);
}

double RoundClock::next_at_or_after(double t) {
  // The quotient's rounding may miss by one round either way: one step to the first k with k x interval >= t.
  // (Beyond 2^53 rounds k +- 1 == k: a time that far is refused by the engine's horizon anyway.)
  double k = std::max(k_ + 1.0, std::ceil(t / interval_));
  if (k > k_ + 1.0 && start(k - 1.0) >= t) k -= 1.0;
  if (start(k) < t) k += 1.0;
  k_ = k;
  return start(k_);
}

}  // namespace ringsched
