// sim/experiments/progress.h — progress on stderr for long runs: the sweep's bar (cells done, rate, ETA) and the live
// line of simulate and table3 (runs, jobs, events/s, ETA). They draw only when stderr is a terminal (or the user
// forces it) and the user did not ask for --quiet, so logs and pipes stay clean.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
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

// The live line of `simulate` and `table3`: runs done / total, jobs finished / total, events per second and ETA,
// fed by the engine's progress hook from every worker thread. Drawn on stderr (never stdout) only once the runs have
// lasted `delay_s` (1.5 s: short runs print nothing), at most 5 times a second, when enabled (not --quiet, and stderr
// a terminal or RINGSCHED_PROGRESS=always); finish() ends the line. Thread-safe.
// Line: "ringsched: 3/8 runs  412k/640k jobs  1.93M events/s  ETA 0:04"
std::string format_live_line(std::size_t runs_done, std::size_t runs, std::uint64_t jobs_done, std::uint64_t jobs,
                             std::uint64_t events, double elapsed_s);

class LiveProgress {
 public:
  LiveProgress(std::size_t runs, std::uint64_t jobs, bool enabled, double delay_s = 1.5);
  LiveProgress(const LiveProgress&) = delete;
  LiveProgress& operator=(const LiveProgress&) = delete;
  ~LiveProgress();
  void add(std::uint64_t events, int jobs_finished);
  void run_done();
  void finish();
  // Whether --quiet is off and stderr shows it (a terminal, or RINGSCHED_PROGRESS=always).
  static bool wanted(bool quiet);
  // RINGSCHED_PROGRESS=always: draw into any stderr, from the first update (no delay).
  static bool forced();
  [[nodiscard]] bool drawn() const { return drawn_; }

 private:
  void maybe_draw(bool force);
  std::mutex mu_;
  std::size_t runs_;
  std::uint64_t jobs_;
  bool enabled_;
  double delay_s_;
  std::size_t runs_done_ = 0;
  std::uint64_t jobs_done_ = 0;
  std::uint64_t events_ = 0;
  bool drawn_ = false;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace ringsched
