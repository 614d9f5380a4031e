// sim/engine/run_guard.cpp — the watchdogs of one run (see the header).
#include "sim/engine/run_guard.h"

#include <stdexcept>

namespace ringsched {

void RunGuard::poll(std::uint64_t events, int finished) {
  finish(events, finished);
  if (stop_ && stop_())
    throw std::runtime_error("stopped after " + std::to_string(events) + " events: the experiment was stopped");
}

void RunGuard::finish(std::uint64_t events, int finished) {
  if (!progress_) return;
  progress_(events - reported_events_, finished - reported_finished_);
  reported_events_ = events;
  reported_finished_ = finished;
}

void RunGuard::round_decided(bool all_arrived, int waiting, bool running) {
  idle_rounds_ = (all_arrived && waiting > 0 && !running) ? idle_rounds_ + 1 : 0;
  if (idle_rounds_ >= kMaxIdleRounds) {
    throw std::logic_error("strategy '" + strategy_ + "' left " + std::to_string(waiting) + " job(s) waiting for " +
                           std::to_string(kMaxIdleRounds) +
                           " rounds with nothing running and no arrival to come (a job larger than any GPU pool, or "
                           "one whose throughput is 0 on every GPU type of the cluster?)");
  }
}

}  // namespace ringsched
