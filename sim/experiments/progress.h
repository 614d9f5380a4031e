// sim/experiments/progress.h — a progress bar on stderr for long batch runs (cells done, rate, ETA). It draws only when
// stderr is a terminal and the user did not ask for --quiet, so logs and pipes stay clean.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace ringsched {

// One progress line (no carriage return): "[#####.....]  12/40 cells  3.1 cells/s  ETA 0:09".
// done_at_start counts cells finished before this invocation (--resume); the rate uses only the others.
std::string format_progress_line(std::size_t done, std::size_t total, std::size_t done_at_start, double elapsed_s,
                                 int bar_width);
// "0:09", "12:05", "3:02:10"; "?" for a negative or non-finite value.
std::string format_duration(double seconds);

class ProgressBar {
 public:
  // enabled: draw at all (callers pass !quiet && stderr_is_terminal()).
  ProgressBar(std::size_t total, std::size_t done_at_start, bool enabled);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar();

  // Redraws at most 10 times a second (always when done == total).
  void update(std::size_t done);
  // Draws the final state and ends the line (idempotent).
  void finish();

  [[nodiscard]] bool enabled() const { return enabled_; }
  static bool stderr_is_terminal();

 private:
  std::size_t total_;
  std::size_t done_at_start_;
  std::size_t done_;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  void draw();
};

}  // namespace ringsched
