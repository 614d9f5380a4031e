// sim/engine/rounds.h — the clock of round-based scheduling (SchedulerConfig::interval_s > 0): round k starts at
// exactly k x interval_s (a product, not a running sum), so the engine can jump over rounds in which no job is active
// to the first round at or after the next arrival and land on the very round it would have reached by walking.
#pragma once

namespace ringsched {

class RoundClock {
 public:
  explicit RoundClock(double interval_s) : interval_(interval_s) {}
  // The start of the round after the current one, which becomes the current one (the first call gives round 1).
  double next();
  // The start of the first round after the current one that starts at or after `t`, which becomes the current one.
  double next_at_or_after(double t);
  [[nodiscard]] double interval() const { return interval_; }

 private:
  [[nodiscard]] double start(double k) const { return k * interval_; }
  double interval_;
  double k_ = 0.0;  // the current round's index (an integer, exact in a double up to 2^53)
};

}  // namespace ringsched
