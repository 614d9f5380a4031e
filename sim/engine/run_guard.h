// sim/engine/run_guard.h — the watchdogs of one run: progress reports and stop requests every 65,536 events
// (EngineConfig::progress, EngineConfig::stop), and the round-based run that would tick to the horizon because its
// strategy leaves every remaining job waiting.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace ringsched {

class RunGuard {
 public:
  RunGuard(std::function<void(std::uint64_t, int)> progress, std::function<bool()> stop, std::string strategy)
      : progress_(std::move(progress)), stop_(std::move(stop)), strategy_(std::move(strategy)) {}
  // Every 65,536 events: reports progress, throws std::runtime_error when the run was asked to stop.
  void poll(std::uint64_t events, int finished);
  // After each event: polls when the count entered a new block of 65,536 since the last poll (the count may jump:
  // stale events the queue drops are counted at once, event_queue.h).
  void after_event(std::uint64_t events, int finished) {
    if ((events >> 16) == polled_block_) return;
    polled_block_ = events >> 16;
    poll(events, finished);
  }
  // At the run's end: the last progress report.
  void finish(std::uint64_t events, int finished);
  // After each round-based decision: throws std::logic_error after kMaxIdleRounds decisions in a row with every
  // job arrived (`all_arrived`), `waiting` > 0 jobs left and none holding GPUs (`running` false).
  void round_decided(bool all_arrived, int waiting, bool running);

  static constexpr int kMaxIdleRounds = 10000;

 private:
  std::function<void(std::uint64_t, int)> progress_;
  std::function<bool()> stop_;
  std::string strategy_;
  std::uint64_t reported_events_ = 0;
  int reported_finished_ = 0;
  int idle_rounds_ = 0;
  std::uint64_t polled_block_ = 0;
};

}  // namespace ringsched
